#include <cub/device/device_scan.cuh>

#include <string>

#include "codec/lossy/szp/block_header.hpp"
#include "cuda/block_scan.hpp"

namespace commpress::cuda {

namespace {

inline constexpr uint64_t kNone = ~uint64_t(0);

// flags[0]: first block with an invalid header; flags[1]: first non-zero, non-raw block of an
// exact (bound 0) frame. Lowest index wins, as the CPU's in-order scan reports it.
template <class T>
__global__ void body_sizes(const uint8_t* headers, size_t n, size_t nb, bool exact,
                           uint64_t* sizes, unsigned long long* flags) {
  const size_t b = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= nb) return;
  const uint8_t h = headers[b];
  size_t s = codec::szp::body_size<T>(h, codec::szp::valid_in_block(n, b), codec::szp::Mode::lossy);
  if (s == SIZE_MAX) {
    atomicMin(&flags[0], (unsigned long long)b);
    s = 0;
  }
  if (exact && h != codec::szp::kZeroHeader && h != codec::szp::kRawHeader)
    atomicMin(&flags[1], (unsigned long long)b);
  sizes[b] = s;
}

}  // namespace

Status scan_buffers(DeviceWorkspace& ws, size_t nb, DeviceSlot offsets_slot, uint64_t** sizes,
                    uint64_t** offsets) {
  Status err;
  *sizes = static_cast<uint64_t*>(ws.state().device(kSizes, (nb + 1) * sizeof(uint64_t), err));
  if (!*sizes) return err;
  *offsets =
      static_cast<uint64_t*>(ws.state().device(offsets_slot, (nb + 1) * sizeof(uint64_t), err));
  return *offsets ? Status{} : err;
}

Status exclusive_sum(uint64_t* sizes_dev, uint64_t* offsets_dev, size_t nb,
                     cudaStream_t stream, DeviceWorkspace& ws) {
  COMMPRESS_CUDA_TRY(cudaMemsetAsync(sizes_dev + nb, 0, sizeof(uint64_t),
                                     stream));  // so offsets_dev[nb] is the total
  size_t temp_bytes = 0;
  COMMPRESS_CUDA_TRY(
      cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, sizes_dev, offsets_dev, nb + 1, stream));
  Status err;
  void* temp = ws.state().device(kScanTemp, temp_bytes, err);
  if (!temp) return err;
  COMMPRESS_CUDA_TRY(
      cub::DeviceScan::ExclusiveSum(temp, temp_bytes, sizes_dev, offsets_dev, nb + 1, stream));
  return {};
}

template <class T>
Status device_block_offsets(const std::byte* payload_dev, size_t payload_size, size_t n,
                            double abs_bound, DeviceSlot slot, const uint64_t** offsets_dev,
                            cudaStream_t stream, DeviceWorkspace& ws) {
  const size_t nb = codec::szp::block_count(n);
  if (payload_size < nb)
    return {ErrorCode::truncated, "szp payload of " + std::to_string(payload_size) +
                                      " bytes cannot hold the " + std::to_string(nb) +
                                      " block headers of " + std::to_string(n) + " values"};
  uint64_t *sizes = nullptr, *offsets = nullptr;
  COMMPRESS_RETURN_IF_ERROR(scan_buffers(ws, nb, slot, &sizes, &offsets));
  if (nb == 0) {  // an empty array (a ring's empty block): no blocks, no kernel to launch
    if (payload_size != 0)
      return {ErrorCode::corrupt_frame, "szp payload of an empty array must be empty"};
    COMMPRESS_CUDA_TRY(cudaMemsetAsync(offsets, 0, sizeof(uint64_t), stream));
    *offsets_dev = offsets;
    return {};
  }
  Status err;
  auto& st = ws.state();
  auto* flags = static_cast<unsigned long long*>(st.device(kFlags, 64, err));
  if (!flags) return err;
  COMMPRESS_CUDA_TRY(cudaMemsetAsync(flags, 0xFF, 2 * sizeof(unsigned long long), stream));
  const auto* headers = reinterpret_cast<const uint8_t*>(payload_dev);
  body_sizes<T><<<ctas_for(nb), kThreadsPerCta, 0, stream>>>(headers, n, nb, abs_bound == 0,
                                                                 sizes, flags);
  COMMPRESS_CUDA_TRY(cudaGetLastError());
  COMMPRESS_RETURN_IF_ERROR(exclusive_sum(sizes, offsets, nb, stream, ws));
  // One read-back of both flags and the total.
  auto* host = static_cast<uint64_t*>(st.pinned(kHostSmall, 64, err));
  if (!host) return err;
  COMMPRESS_CUDA_TRY(cudaMemcpyAsync(host, flags, 2 * sizeof(uint64_t), cudaMemcpyDeviceToHost,
                                     stream));
  COMMPRESS_CUDA_TRY(cudaMemcpyAsync(host + 2, offsets + nb, sizeof(uint64_t),
                                     cudaMemcpyDeviceToHost, stream));
  COMMPRESS_CUDA_TRY(cudaStreamSynchronize(stream));
  const uint64_t bad = host[0], inexact = host[1], total = host[2];
  auto header_at = [&](uint64_t b) -> Result<uint8_t> { return read_back(headers + b, stream, ws); };
  if (bad != kNone) {
    auto h = header_at(bad);
    if (!h.ok()) return h.status();
    return {ErrorCode::corrupt_frame, "szp block " + std::to_string(bad) +
                                          " has invalid header byte " + std::to_string(*h)};
  }
  if (inexact != kNone) {
    auto h = header_at(inexact);
    if (!h.ok()) return h.status();
    return {ErrorCode::corrupt_frame,
            "szp block " + std::to_string(inexact) + " has header byte " + std::to_string(*h) +
                " in a frame of bound 0, which holds only zero and raw blocks"};
  }
  if (total != payload_size - nb)
    return {ErrorCode::corrupt_frame, "szp block bodies need " + std::to_string(total) +
                                          " bytes but the payload holds " +
                                          std::to_string(payload_size - nb)};
  *offsets_dev = offsets;
  return {};
}

template Status device_block_offsets<float>(const std::byte*, size_t, size_t, double, DeviceSlot,
                                            const uint64_t**, cudaStream_t, DeviceWorkspace&);
template Status device_block_offsets<double>(const std::byte*, size_t, size_t, double, DeviceSlot,
                                             const uint64_t**, cudaStream_t, DeviceWorkspace&);

}  // namespace commpress::cuda
