// HomComp_F's fused homomorphic ring (the CPU's FusedRing, comm/algorithms/
// homcomp_fused_ring.cpp) on device buffers. Reduce-scatter: a rank compresses one block,
// then at every hop adds its local block to the received frame with combine_raw on the
// device and passes the sum on; after p - 1 hops it holds block r summed over all ranks.
// Allgather: those frames go round the ring unchanged and every rank decodes all of them.
// Every input is quantized once (the frame's bound) and only integers are added afterwards,
// so the error budget is the CPU ring's (ring_quantizations: p step bounds).
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "comm/algorithms/parts/reduce_layout.hpp"
#include "comm/selection/error_budget.hpp"
#include "cuda/device_workspace.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace commpress::cuda {

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace {

using comm::detail::BlockLayout;

// Device or pinned host memory owned for one call.
template <cudaError_t (*Allocate)(void**, size_t), cudaError_t (*Release)(void*)>
struct OwnedBuffer {
  std::byte* p = nullptr;
  ~OwnedBuffer() { Release(p); }
  Status allocate(size_t bytes) {
    return cuda_status(Allocate(reinterpret_cast<void**>(&p), std::max<size_t>(bytes, 1)),
                       "allocating the ring's buffers");
  }
};
using DeviceBuffer = OwnedBuffer<cudaMalloc, cudaFree>;
using PinnedBuffer = OwnedBuffer<cudaMallocHost, cudaFreeHost>;

Status mpi_status(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return {};
  return {ErrorCode::mpi, std::string(what) + " failed with MPI error " + std::to_string(rc)};
}

// Every rank learns whether all succeeded, so no rank waits on a peer that gave up.
Status agree(Status local, MPI_Comm comm) {
  int ok = local.ok() ? 1 : 0, all = 0;
  COMMPRESS_RETURN_IF_ERROR(
      mpi_status(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce(status)"));
  if (!local.ok()) return local;
  if (!all) return {ErrorCode::mpi, "another rank failed in the device fused ring"};
  return {};
}

// Sends a frame to `to` and receives one from `from` (sizes first); device pointers when MPI
// moves them itself, else through the pinned buffers.
class Exchange {
 public:
  Exchange(MPI_Comm comm, bool aware, cudaStream_t stream, PinnedBuffer& out, PinnedBuffer& in)
      : comm_(comm), aware_(aware), stream_(stream), out_(out), in_(in) {}

  Result<size_t> run(const std::byte* send_dev, size_t send_size, int to, std::byte* recv_dev,
                     size_t recv_capacity, int from) {
    uint64_t s = send_size, r = 0;
    COMMPRESS_RETURN_IF_ERROR(mpi_status(
        MPI_Sendrecv(&s, 1, MPI_UINT64_T, to, 0, &r, 1, MPI_UINT64_T, from, 0, comm_,
                     MPI_STATUS_IGNORE),
        "MPI_Sendrecv(frame size)"));
    if (r > recv_capacity || send_size > size_t(INT_MAX) || r > uint64_t(INT_MAX))
      return Status{ErrorCode::capacity, "a frame of " + std::to_string(r) +
                                             " bytes does not fit the ring's buffers"};
    const std::byte* sp = send_dev;
    std::byte* rp = recv_dev;
    if (!aware_) {
      COMMPRESS_CUDA_TRY(
          cudaMemcpyAsync(out_.p, send_dev, send_size, cudaMemcpyDeviceToHost, stream_));
      COMMPRESS_CUDA_TRY(cudaStreamSynchronize(stream_));
      sp = out_.p;
      rp = in_.p;
    } else {
      COMMPRESS_CUDA_TRY(cudaStreamSynchronize(stream_));  // the frame is complete
    }
    COMMPRESS_RETURN_IF_ERROR(mpi_status(
        MPI_Sendrecv(sp, int(send_size), MPI_BYTE, to, 1, rp, int(r), MPI_BYTE, from, 1, comm_,
                     MPI_STATUS_IGNORE),
        "MPI_Sendrecv(frame)"));
    if (!aware_)
      COMMPRESS_CUDA_TRY(cudaMemcpyAsync(recv_dev, in_.p, r, cudaMemcpyHostToDevice, stream_));
    sent_ += send_size;
    return size_t(r);
  }

  uint64_t sent() const { return sent_; }

 private:
  MPI_Comm comm_;
  bool aware_;
  cudaStream_t stream_;
  PinnedBuffer& out_;
  PinnedBuffer& in_;
  uint64_t sent_ = 0;
};

// The global range of the finite inputs and the bound every frame uses.
Result<comm::detail::Budget> plan(const void* send_dev, size_t n, Dtype d,
                                  const codec::ErrorBound& bound, int p, MPI_Comm comm,
                                  cudaStream_t stream, DeviceWorkspace& ws) {
  const codec::ValueRange local = finite_range(send_dev, n, d, stream, ws);
  double mins[2] = {local.any_finite ? local.min : INFINITY,
                    local.any_finite ? -local.max : INFINITY};
  double global[2];
  COMMPRESS_RETURN_IF_ERROR(mpi_status(
      MPI_Allreduce(mins, global, 2, MPI_DOUBLE, MPI_MIN, comm), "MPI_Allreduce(range)"));
  const codec::ValueRange range{global[0], -global[1], global[0] <= -global[1]};
  const bool lossy = bound.mode != BoundMode::lossless;
  double requested = 0;
  if (bound.mode == BoundMode::abs) requested = bound.value;
  if (bound.mode == BoundMode::rel) requested = codec::rel_to_abs(bound.value, range, d);
  return comm::detail::plan_budget(
      {comm::Op::sum, d, p, lossy, requested, range.max_abs(), {p, p}});
}

}  // namespace

Result<comm::Report> allreduce_fused_ring(const void* send_dev, void* recv_dev, size_t n,
                                          Dtype d, const codec::ErrorBound& bound, MPI_Comm comm,
                                          cudaStream_t stream, DeviceWorkspace& ws) {
  if (d != Dtype::f32 && d != Dtype::f64)
    return Status{ErrorCode::unsupported, "the device fused ring sums f32 or f64"};
  COMMPRESS_RETURN_IF_ERROR(codec::check_bound(bound));
  int p = 1, r = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &r);
  comm::Report report;
  report.algorithm = Algorithm::FusedRing;
  report.codec = "szp";
  const size_t es = codec::dtype_size(d);
  if (p == 1) {
    if (send_dev != recv_dev)
      COMMPRESS_CUDA_TRY(
          cudaMemcpyAsync(recv_dev, send_dev, n * es, cudaMemcpyDeviceToDevice, stream));
    COMMPRESS_CUDA_TRY(cudaStreamSynchronize(stream));
    report.codec = "none";
    return report;
  }
  auto budget = plan(send_dev, n, d, bound, p, comm, stream, ws);
  COMMPRESS_RETURN_IF_ERROR(agree(budget.ok() ? Status{} : budget.status(), comm));
  report.guaranteed_abs_bound = budget->guaranteed;
  const codec::ErrorBound frame_bound = budget->step_bound > 0
                                            ? codec::ErrorBound::absolute(budget->step_bound)
                                            : codec::ErrorBound::lossless();

  const BlockLayout layout = BlockLayout::even(n, p);
  size_t largest = 0;
  for (int b = 0; b < p; ++b) largest = std::max(largest, layout.size(b));
  const size_t cap = szp_compress_bound(largest, d);
  DeviceBuffer cur, next, finals;
  PinnedBuffer out, in;
  const bool aware = mpi_is_cuda_aware();
  Status st = cur.allocate(cap);
  if (st.ok()) st = next.allocate(cap);
  if (st.ok()) st = finals.allocate(cap * size_t(p));
  if (st.ok() && !aware) st = out.allocate(cap);
  if (st.ok() && !aware) st = in.allocate(cap);
  COMMPRESS_RETURN_IF_ERROR(agree(st, comm));

  const auto* x = static_cast<const std::byte*>(send_dev);
  auto* y = static_cast<std::byte*>(recv_dev);
  const int to = (r + 1) % p, from = (r + p - 1) % p;
  auto block_at = [&](int b) { return x + layout.begin(b) * es; };
  Exchange ex(comm, aware, stream, out, in);

  // Reduce-scatter in the CPU ring's order (ring_reduce_scatter.cpp), so that raw blocks,
  // whose float sums depend on the order of the additions, come out the same: this rank
  // starts with block r - 1, at hop s adds its values to the partial of block r - s - 2 it
  // receives, and ends holding block r summed over all ranks.
  auto send_block = [&](int s) { return (r - s - 1 + 2 * p) % p; };
  auto recv_block = [&](int s) { return (r - s - 2 + 2 * p) % p; };
  auto first = szp_compress(block_at(send_block(0)), layout.size(send_block(0)), d, frame_bound,
                            cur.p, cap, stream, ws);
  COMMPRESS_RETURN_IF_ERROR(agree(first.ok() ? Status{} : first.status(), comm));
  size_t cur_size = *first;
  for (int s = 0; s < p - 1; ++s) {
    const int b = recv_block(s);
    auto got = ex.run(cur.p, cur_size, to, next.p, cap, from);
    Status hop = got.status();
    if (got.ok()) {
      report.raw_bytes += layout.size(send_block(s)) * es;
      std::byte* dst = s + 1 == p - 1 ? finals.p + size_t(b) * cap : cur.p;
      auto sum = combine_raw(block_at(b), layout.size(b), d, next.p, *got, dst, cap, stream, ws);
      if (sum.ok()) cur_size = *sum;
      hop = sum.status();
    }
    COMMPRESS_RETURN_IF_ERROR(agree(hop, comm));
  }

  // Allgather: the summed frame of block r travels round the ring.
  std::vector<size_t> sizes(size_t(p), 0);
  sizes[size_t(r)] = cur_size;
  for (int s = 0; s < p - 1; ++s) {
    const int send_b = (r - s + p) % p, recv_b = (r - s - 1 + p) % p;
    auto got = ex.run(finals.p + size_t(send_b) * cap, sizes[size_t(send_b)], to,
                      finals.p + size_t(recv_b) * cap, cap, from);
    if (got.ok()) {
      sizes[size_t(recv_b)] = *got;
      report.raw_bytes += layout.size(send_b) * es;
    }
    COMMPRESS_RETURN_IF_ERROR(agree(got.status(), comm));
  }
  Status decoded;
  for (int b = 0; b < p && decoded.ok(); ++b)
    decoded = szp_decompress(finals.p + size_t(b) * cap, sizes[size_t(b)], y + layout.begin(b) * es,
                             layout.size(b), d, stream, ws);
  COMMPRESS_RETURN_IF_ERROR(agree(decoded, comm));
  report.bytes_sent = ex.sent();
  return report;
}

}  // namespace commpress::cuda
