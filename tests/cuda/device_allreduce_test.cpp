// The fused homomorphic ring on device buffers (ranks sharing one GPU) against the CPU's
// FusedRing on the same inputs: the same sums, bit for bit where every block stays in the
// integer domain (smooth data), within the guaranteed bound of the exact sum everywhere, the
// same guarantee in the Report. Run with 1..4 ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "commpress/comm.hpp"
#include "commpress/cuda.hpp"
#include "cuda/device_buffers.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
namespace cu = commpress::cuda;
using commpress::testing::DeviceBytes;
using commpress::testing::Shape;

namespace {

int rank_of() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

template <class T>
void matches_the_cpu_ring(Shape shape, size_t n, bool bitwise) {
  const int r = rank_of();
  auto x = commpress::testing::make_data<T>(shape, n, 100 + size_t(r));
  const auto bound = cc::ErrorBound::relative(1e-4);
  commpress::comm::Options opts;
  opts.codec = "szp";
  opts.bound = bound;
  opts.algorithm = commpress::Algorithm::FusedRing;
  std::vector<T> cpu(n);
  auto cpu_rep = commpress::comm::allreduce(x.data(), cpu.data(), n, cc::dtype_of<T>(),
                                            commpress::comm::Op::sum, MPI_COMM_WORLD, opts);
  ASSERT_TRUE(cpu_rep.ok()) << cpu_rep.status().message();

  cu::DeviceWorkspace ws;
  DeviceBytes in = DeviceBytes::of(x), out(n * sizeof(T));
  auto gpu_rep = cu::allreduce_fused_ring(in.data(), out.data(), n, cc::dtype_of<T>(), bound,
                                          MPI_COMM_WORLD, nullptr, ws);
  ASSERT_TRUE(gpu_rep.ok()) << gpu_rep.status().message();
  auto gpu = out.to_host<T>(n);
  EXPECT_EQ(gpu_rep->guaranteed_abs_bound, cpu_rep->guaranteed_abs_bound);

  // The exact sum, in long double, from every rank's input.
  std::vector<long double> exact(n, 0.0L);
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  for (int q = 0; q < p; ++q) {
    auto xq = commpress::testing::make_data<T>(shape, n, 100 + size_t(q));
    for (size_t i = 0; i < n; ++i) exact[i] += xq[i];
  }
  for (size_t i = 0; i < n; ++i) {
    ASSERT_LE(std::fabs((long double)gpu[i] - exact[i]), (long double)gpu_rep->guaranteed_abs_bound)
        << "element " << i << " of " << n << " on " << p << " ranks: device " << gpu[i]
        << ", CPU ring " << cpu[i] << ", exact " << (double)exact[i];
  }
  if (bitwise) {
    size_t differ = 0, first = n;
    for (size_t i = 0; i < n; ++i)
      if (std::memcmp(&gpu[i], &cpu[i], sizeof(T)) != 0 && differ++ == 0) first = i;
    EXPECT_EQ(differ, 0u) << "of " << n << " on " << p << " ranks; first at " << first << ": device "
                          << (first < n ? gpu[first] : T(0)) << ", CPU ring "
                          << (first < n ? cpu[first] : T(0));
  }
}

TEST(DeviceFusedRing, SmoothF32EqualsTheCpuRing) { matches_the_cpu_ring<float>(Shape::smooth3d, 1 << 20, true); }
TEST(DeviceFusedRing, RandomWalkF64EqualsTheCpuRing) {
  matches_the_cpu_ring<double>(Shape::random_walk, 100003, true);
}
TEST(DeviceFusedRing, OddSizesKeepTheBound) {
  for (size_t n : {size_t(1), size_t(3), size_t(33), size_t(1001)})
    matches_the_cpu_ring<float>(Shape::gaussian, n, false);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rc = 1;
  if (commpress::testing::have_gpu()) {
    commpress::testing::cuda_check(cudaSetDevice(0), "cudaSetDevice");  // ranks share GPU 0
    rc = RUN_ALL_TESTS();
  } else {
    std::fprintf(stderr, "device_allreduce_test: no CUDA device\n");
  }
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
