// The largest buffer a communication call accepts, checked before anything is computed from
// a caller's count: a count past it describes no buffer any machine holds (its byte size may
// not even fit in size_t), and every size derived from an accepted count stays exact.
#pragma once

#include <cstddef>

#include "commpress/codec.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::detail {

// 2^56 bytes: the largest virtual address space of today's 64-bit processors.
inline constexpr size_t kMaxBufferBytes = size_t{1} << 56;

// Whether `blocks` runs of `count` elements of `dtype` fit in kMaxBufferBytes (an unknown
// dtype counts as one byte per element; it is refused elsewhere).
bool count_fits(size_t count, codec::Dtype dtype, size_t blocks = 1);

// count * blocks, or SIZE_MAX where that overflows (which no count_fits accepts).
size_t saturating_blocks(size_t count, size_t blocks);

// ok, or ErrorCode::overflow naming the operation and the count.
Status check_count(const char* op, size_t count, codec::Dtype dtype, size_t blocks = 1);

}  // namespace commpress::comm::detail
