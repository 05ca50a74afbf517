// Tiles of szp blocks in shared memory, for kernels that run one block per thread: a block's
// 32 values (or its body) are contiguous per thread, which reading or writing global memory
// directly would make a strided access. A CTA of kTileBlocks<T> threads moves its tile with
// coalesced accesses instead, and writes the bodies it coded as one contiguous run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/lossy/szp/block_header.hpp"
#include "cuda/block_scan.hpp"

namespace commpress::cuda {

// 32 KiB of values per tile; one padding value after every block keeps the threads of a warp
// on distinct banks.
template <class T>
inline constexpr unsigned kTileBlocks = 32768 / (sizeof(T) * codec::szp::kBlockValues);
inline constexpr size_t kStride = codec::szp::kBlockValues + 1;

template <class T>
unsigned tiles_for(size_t nb) {
  return unsigned((nb + kTileBlocks<T> - 1) / kTileBlocks<T>);
}

template <class T>
__device__ void load_tile(const T* x, size_t n, size_t first_block, T* tile) {
  const size_t base = first_block * codec::szp::kBlockValues;
  const size_t count = min(size_t(kTileBlocks<T>) * codec::szp::kBlockValues, n - base);
  for (size_t i = threadIdx.x; i < count; i += blockDim.x)
    tile[i + i / codec::szp::kBlockValues] = x[base + i];
  __syncthreads();
}

template <class T>
__device__ void store_tile(const T* tile, size_t n, size_t first_block, T* out) {
  __syncthreads();
  const size_t base = first_block * codec::szp::kBlockValues;
  const size_t count = min(size_t(kTileBlocks<T>) * codec::szp::kBlockValues, n - base);
  for (size_t i = threadIdx.x; i < count; i += blockDim.x)
    out[base + i] = tile[i + i / codec::szp::kBlockValues];
}

// Codes the bodies of the tile's blocks [first, first + kTileBlocks) that exist (below nb),
// one per thread through code(body), into run (shared memory, room for the tile's largest
// bodies) at their offsets relative to the first, then writes the run to bodies with
// coalesced stores: a tile's bodies are one contiguous stretch of the payload.
template <class T, class Code>
__device__ void code_run(std::byte* run, const uint64_t* offsets, size_t first, size_t nb,
                         std::byte* bodies, Code code) {
  static_assert(codec::szp::max_body_size<T>(codec::szp::Mode::lossy) <= kStride * sizeof(T),
                "a block's body fits the tile space its values take");
  const size_t b = first + threadIdx.x, end = min(first + kTileBlocks<T>, nb);
  const uint64_t base = offsets[first];
  if (b < nb) code(run + (offsets[b] - base));
  __syncthreads();
  const uint64_t length = offsets[end] - base;
  for (uint64_t i = threadIdx.x; i < length; i += blockDim.x) bodies[base + i] = run[i];
}

// The two passes of every payload writer (the encoder, the homomorphic sums): launch(plan)
// runs the planning kernel over the tiles (headers at the payload's start, body sizes), the
// sizes are scanned into offsets, launch(code) runs the coding kernel. Returns the payload's
// size. Each launcher is called as f(ctas, threads, headers or offsets, sizes or bodies).
template <class T, class Plan, class Code>
Result<size_t> write_payload(size_t nb, std::byte* payload, cudaStream_t stream,
                             DeviceWorkspace& ws, Plan plan, Code code) {
  if (nb == 0) return size_t{0};
  uint64_t *sizes = nullptr, *offsets = nullptr;
  COMMPRESS_RETURN_IF_ERROR(scan_buffers(ws, nb, kOffsets, &sizes, &offsets));
  plan(tiles_for<T>(nb), kTileBlocks<T>, reinterpret_cast<uint8_t*>(payload), sizes);
  COMMPRESS_CUDA_TRY(cudaGetLastError());
  COMMPRESS_RETURN_IF_ERROR(exclusive_sum(sizes, offsets, nb, stream, ws));
  code(tiles_for<T>(nb), kTileBlocks<T>, static_cast<const uint64_t*>(offsets), payload + nb);
  COMMPRESS_CUDA_TRY(cudaGetLastError());
  auto total = read_back(offsets + nb, stream, ws);
  if (!total.ok()) return total.status();
  return nb + size_t(*total);
}

}  // namespace commpress::cuda
