// Validation shared by the homomorphic operations: each operand must be an intact szp frame,
// and the operands must agree on everything the quantized arithmetic depends on.
#pragma once

#include <cstdint>
#include <span>

#include "commpress/codec.hpp"
#include "commpress/homomorphic.hpp"

namespace commpress::codec::homomorphic {

struct SzpOperand {
  FrameInfo info;
  std::span<const std::byte> payload;
};

// inspect() (magic, length, checksum) plus what only szp frames need: codec id, a float dtype
// and a positive bound. `role` names the operand in messages ("first frame").
Result<SzpOperand> open_szp_frame(std::span<const std::byte> frame, const char* role);

// Same dtype, same count, bit-identical abs_bound; ErrorCode::mismatch naming both values.
Status check_pair(const FrameInfo& a, const char* role_a, const FrameInfo& b,
                  const char* role_b);

Status check_op(CombineOp op);

// Inputs summed by the result: k_a + k_b, refused with ErrorCode::overflow past u32.
Result<uint32_t> summed_param(uint32_t k_a, uint32_t k_b);

// Header fields of the result frame (payload size and checksum are filled when written).
// The bound mode and requested bound are kept when both operands agree on them; otherwise
// the result states the absolute bound it shares with both.
FrameInfo result_info(const FrameInfo& a, const FrameInfo& b, uint32_t param);

Workspace& thread_workspace();

}  // namespace commpress::codec::homomorphic
