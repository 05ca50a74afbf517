// Runs the combining pass over all blocks of the result with OpenMP and writes the result
// frame. The blocks are cut into contiguous chunks (one per thread); each chunk codes into its
// own region of workspace scratch, sized for the worst case so no chunk waits for another, and
// the regions are then concatenated in block order. The bytes never depend on the thread count,
// nor on the kernels (kernel_dispatch.hpp) that code the chunks.
#pragma once

#include <omp.h>

#include <span>
#include <string>
#include <vector>

#include "codec/format/frame_header.hpp"
#include "codec/homomorphic/kernel_dispatch.hpp"
#include "codec/homomorphic/plane_transpose_gfni.hpp"
#include "codec/lossy/szp/block_driver.hpp"
#include "codec/lossy/szp/szp_block.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec::homomorphic {

// Workspace slots: 0 and 1 are the driver's; callers may use 2 and 3.
inline constexpr size_t kScratchSlot = 0, kChunkSlot = 1, kFirstCallerSlot = 2;

// Chunks of blocks for n values: the szp codec's choice of thread count.
inline size_t chunk_count(size_t n) { return size_t(szp::pick_threads(szp::block_count(n))); }

// Concatenates the block header bytes and the chunks' bodies behind a frame header for info
// into out, whose old contents may be an operand's storage (everything was read already).
Status assemble_frame(FrameInfo info, std::span<const std::byte> block_headers,
                      std::span<const std::byte* const> chunk_bodies,
                      std::span<const size_t> chunk_sizes, std::vector<std::byte>& out);

#if COMMPRESS_HOMOMORPHIC_GFNI
// code_chunk's GFNI instance, compiled for GFNI with everything it calls inlined into it (the
// transposes cannot inline into code of a lesser target).
template <class CodeChunk>
__attribute__((flatten)) COMMPRESS_GFNI_TARGET size_t code_chunk_gfni(
    const CodeChunk& code_chunk, size_t c, size_t lo, size_t hi, uint8_t* headers,
    std::byte* bodies) {
  return code_chunk.template operator()<true>(c, lo, hi, headers, bodies);
}
#endif

// code_chunk.operator()<bool Gfni>(size_t c, size_t lo, size_t hi, uint8_t* headers,
// std::byte* bodies) codes blocks [lo, hi) (chunk c): header b into headers[b], bodies
// consecutively from `bodies`, at most max_body_size<T>(lossy) bytes each; returns the bytes
// written. Gfni: with the plane transposes (only called so where the CPU has them).
template <class T, class CodeChunk>
Status write_combined_frame(const FrameInfo& info, size_t chunks, Workspace& ws,
                            const CodeChunk& code_chunk, std::vector<std::byte>& out) {
  constexpr size_t max_body = szp::max_body_size<T>(szp::Mode::lossy);
  const size_t n = info.count, nb = szp::block_count(n);
  std::byte* scratch = szp::workspace_array<std::byte>(ws, kScratchSlot, nb + nb * max_body);
  // sizes[c] and bodies[c] for every chunk, in one array of words.
  uintptr_t* words = szp::workspace_array<uintptr_t>(ws, kChunkSlot, 2 * chunks);
  if (!scratch || !words)
    return {ErrorCode::capacity,
            "out of memory for the combine scratch of " + std::to_string(n) + " values"};
  auto* sizes = reinterpret_cast<size_t*>(words);
  auto* bodies = reinterpret_cast<const std::byte**>(words + chunks);
  uint8_t* headers = reinterpret_cast<uint8_t*>(scratch);
  [[maybe_unused]] const bool gfni = active_kernels() == Kernels::avx512_gfni;
  // Whatever team size OpenMP grants, every chunk is coded exactly once.
#pragma omp parallel for num_threads(int(chunks)) schedule(static, 1)
  for (size_t c = 0; c < chunks; ++c) {
    const size_t lo = szp::chunk_begin(nb, chunks, c), hi = szp::chunk_begin(nb, chunks, c + 1);
    std::byte* dst = scratch + nb + lo * max_body;
#if COMMPRESS_HOMOMORPHIC_GFNI
    if (gfni) sizes[c] = code_chunk_gfni(code_chunk, c, lo, hi, headers, dst);
    else
#endif
      sizes[c] = code_chunk.template operator()<false>(c, lo, hi, headers, dst);
    bodies[c] = dst;
  }
  return assemble_frame(info, {scratch, nb}, {bodies, chunks}, {sizes, chunks}, out);
}

}  // namespace commpress::codec::homomorphic
