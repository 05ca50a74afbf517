// Where every szp block's body starts, on the device: body sizes per block (from the header
// bytes, or from a planning kernel), then an exclusive prefix sum (CUB's single-pass scan with
// decoupled look-back). Shared by the device decoder, encoder and homomorphic sums.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/device_workspace.hpp"

namespace commpress::cuda {

inline constexpr int kThreadsPerCta = 256;
inline unsigned ctas_for(size_t items) {
  return unsigned((items + kThreadsPerCta - 1) / kThreadsPerCta);
}

// Per-block sizes (slot kSizes) and offsets (offsets_slot), nb + 1 entries each.
Status scan_buffers(DeviceWorkspace& ws, size_t nb, DeviceSlot offsets_slot, uint64_t** sizes,
                    uint64_t** offsets);

// offsets_dev[0..nb] = exclusive prefix sum of sizes_dev[0..nb), so offsets_dev[nb] is the
// total (sizes_dev has room for nb + 1 entries; the last is set to 0).
Status exclusive_sum(uint64_t* sizes_dev, uint64_t* offsets_dev, size_t nb,
                     cudaStream_t stream, DeviceWorkspace& ws);

// Validates the header bytes of a lossy szp payload of n values (as szp::block_offsets does,
// with its messages) and leaves each block's body offset in the slot `slot`; *offsets_dev
// points there. abs_bound == 0 also refuses blocks other than zero and raw
// (szp::check_exact_blocks). T: float or double.
template <class T>
Status device_block_offsets(const std::byte* payload_dev, size_t payload_size, size_t n,
                            double abs_bound, DeviceSlot slot, const uint64_t** offsets_dev,
                            cudaStream_t stream, DeviceWorkspace& ws);

// Reads one value of type V from device memory (through the pinned small buffer).
template <class V>
Result<V> read_back(const V* dev, cudaStream_t stream, DeviceWorkspace& ws) {
  Status err;
  auto* host = static_cast<V*>(ws.state().pinned(kHostSmall, 64, err));
  if (!host) return err;
  COMMPRESS_CUDA_TRY(cudaMemcpyAsync(host, dev, sizeof(V), cudaMemcpyDeviceToHost, stream));
  COMMPRESS_CUDA_TRY(cudaStreamSynchronize(stream));
  return *host;
}

}  // namespace commpress::cuda
