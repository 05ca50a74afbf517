// combine and combine_raw on the device against the CPU's: the same result frames byte for
// byte (integer sums, raw fallbacks for NaN/Inf and out-of-range sums, odd sizes), refusals
// of mismatched or forged operands with the CPU's error codes and no device fault.
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <vector>

#include "commpress/codec.hpp"
#include "commpress/cuda.hpp"
#include "commpress/homomorphic.hpp"
#include "cuda/device_buffers.hpp"
#include "cuda/frame_difference.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
namespace cu = commpress::cuda;
using commpress::testing::DeviceBytes;
using commpress::testing::Shape;
using Bytes = std::vector<std::byte>;

namespace {

const cc::Codec& szp() { return **cc::get_codec("szp"); }

template <class T>
Bytes frame_of(const std::vector<T>& x, double abs_bound) {
  return *szp().compress(std::span<const T>(x), cc::ErrorBound::absolute(abs_bound));
}

template <class T>
void sums_match_the_cpu() {
  cu::DeviceWorkspace ws;
  for (auto shape : commpress::testing::all_shapes())
    for (size_t n : commpress::testing::awkward_sizes()) {
      if (n == 0) continue;
      SCOPED_TRACE(commpress::testing::shape_name(shape) + " n=" + std::to_string(n));
      auto a = commpress::testing::make_data<T>(shape, n, 11 + n);
      auto b = commpress::testing::make_data<T>(Shape::random_walk, n, 12 + n);
      const double eb = 1e-3;
      Bytes fa = frame_of(a, eb), fb = frame_of(b, eb);
      Bytes cpu_sum, cpu_raw;
      ASSERT_TRUE(cc::combine(fa, fb, cc::CombineOp::sum, cpu_sum).ok());
      ASSERT_TRUE(cc::combine_raw(std::span<const T>(a), fb, cc::CombineOp::sum, cpu_raw).ok());

      DeviceBytes da = DeviceBytes::of(fa), db = DeviceBytes::of(fb), dx = DeviceBytes::of(a);
      const size_t cap = cu::szp_compress_bound(n, cc::dtype_of<T>());
      DeviceBytes out(cap);
      auto s = cu::combine(da.data(), fa.size(), db.data(), fb.size(), out.data(), cap, nullptr, ws);
      ASSERT_TRUE(s.ok()) << s.status().message();
      EXPECT_EQ(commpress::testing::frame_difference(cpu_sum, out.to_host<std::byte>(*s)), "")
          << "combine";
      auto r = cu::combine_raw(dx.data(), n, cc::dtype_of<T>(), db.data(), fb.size(), out.data(),
                               cap, nullptr, ws);
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_EQ(commpress::testing::frame_difference(cpu_raw, out.to_host<std::byte>(*r)), "")
          << "combine_raw";
    }
}

TEST(DeviceCombine, SameFramesAsTheCpuF32) { sums_match_the_cpu<float>(); }
TEST(DeviceCombine, SameFramesAsTheCpuF64) { sums_match_the_cpu<double>(); }

TEST(DeviceCombine, RefusesWhatTheCpuRefuses) {
  cu::DeviceWorkspace ws;
  const size_t n = 1000;
  auto a = commpress::testing::make_data<float>(Shape::gaussian, n, 1);
  Bytes f1 = frame_of(a, 1e-3), f2 = frame_of(a, 2e-3);
  Bytes damaged = f1;
  damaged[cc::kFrameHeaderSize] ^= std::byte{4};  // a block header byte, checksum kept
  const std::vector<std::pair<Bytes, Bytes>> pairs = {{f1, f2}, {f1, damaged}, {damaged, f1}};
  for (const auto& [x, y] : pairs) {
    Bytes cpu;
    auto want = cc::combine(x, y, cc::CombineOp::sum, cpu);
    ASSERT_FALSE(want.ok());
    DeviceBytes dx = DeviceBytes::of(x), dy = DeviceBytes::of(y);
    const size_t cap = cu::szp_compress_bound(n, cc::Dtype::f32);
    DeviceBytes out(cap);
    auto got = cu::combine(dx.data(), x.size(), dy.data(), y.size(), out.data(), cap, nullptr, ws);
    EXPECT_EQ(got.status().code(), want.code()) << got.status().message();
    commpress::testing::expect_device_healthy();
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!commpress::testing::have_gpu()) {
    std::fprintf(stderr, "device_combine_test: no CUDA device\n");
    return 1;
  }
  return RUN_ALL_TESTS();
}
