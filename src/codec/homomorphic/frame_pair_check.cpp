#include "codec/homomorphic/frame_pair_check.hpp"

#include <bit>
#include <cstdio>
#include <string>

#include "codec/lossy/szp/exact_blocks.hpp"

namespace commpress::codec::homomorphic {

namespace {

// Enough digits that two different doubles never print alike.
std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

Status mismatch(const std::string& what, const char* role_a, const std::string& va,
                const char* role_b, const std::string& vb) {
  return {ErrorCode::mismatch, "cannot combine: " + std::string(role_a) + " has " + what + " " +
                                   va + " but " + role_b + " has " + what + " " + vb};
}

}  // namespace

Result<SzpOperand> open_szp_frame(std::span<const std::byte> frame, const char* role) {
  auto info = inspect(frame);
  if (!info.ok())
    return Status{info.status().code(), std::string(role) + ": " + info.status().message()};
  if (info->codec != CodecId::szp)
    return Status{ErrorCode::mismatch, std::string(role) + " was written by codec id " +
                                           std::to_string(int(info->codec)) +
                                           "; homomorphic operations need szp frames (id " +
                                           std::to_string(int(CodecId::szp)) + ")"};
  if (!is_float(info->dtype))
    return Status{ErrorCode::corrupt_frame,
                  std::string(role) + " is an szp frame of dtype " + dtype_name(info->dtype) +
                      ", which szp cannot hold"};
  if (!(info->abs_bound >= 0))  // 0: exact values, which sum like any others
    return Status{ErrorCode::corrupt_frame, std::string(role) +
                                                " is an szp frame with a negative bound (" +
                                                exact(info->abs_bound) + ")"};
  if (info->abs_bound == 0) {
    Status exact = szp::check_exact_blocks(frame.subspan(kFrameHeaderSize), info->count);
    if (!exact.ok()) return Status{exact.code(), std::string(role) + ": " + exact.message()};
  }
  return SzpOperand{*info, frame.subspan(kFrameHeaderSize)};
}

Status check_pair(const FrameInfo& a, const char* role_a, const FrameInfo& b,
                  const char* role_b) {
  if (a.dtype != b.dtype) return mismatch("dtype", role_a, dtype_name(a.dtype), role_b, dtype_name(b.dtype));
  if (a.count != b.count)
    return mismatch("count", role_a, std::to_string(a.count), role_b, std::to_string(b.count));
  // The step 2*abs_bound is the unit of the quantized integers: only the very same double
  // makes integers of both operands commensurable.
  if (std::bit_cast<uint64_t>(a.abs_bound) != std::bit_cast<uint64_t>(b.abs_bound))
    return mismatch("abs_bound", role_a, exact(a.abs_bound), role_b, exact(b.abs_bound));
  return {};
}

Status check_op(CombineOp op) {
  if (op != CombineOp::sum)
    return {ErrorCode::invalid_argument,
            "unknown combine operation " + std::to_string(int(op)) + " (only sum exists)"};
  return {};
}

Result<uint32_t> summed_param(uint32_t k_a, uint32_t k_b) {
  uint64_t k = uint64_t(k_a) + uint64_t(k_b);
  if (k > UINT32_MAX)
    return Status{ErrorCode::overflow, "the result would sum " + std::to_string(k) +
                                           " inputs, more than the frame header can count (" +
                                           std::to_string(UINT32_MAX) + ")"};
  return uint32_t(k);
}

FrameInfo result_info(const FrameInfo& a, const FrameInfo& b, uint32_t param) {
  FrameInfo r;
  r.version = kFormatVersion;
  r.codec = CodecId::szp;
  r.dtype = a.dtype;
  r.count = a.count;
  r.abs_bound = a.abs_bound;
  r.param = param;
  bool same_request = a.mode == b.mode && std::bit_cast<uint64_t>(a.requested_bound) ==
                                              std::bit_cast<uint64_t>(b.requested_bound);
  // An absolute bound of 0 (exact operands) is no ABS request: the header allows it only as
  // lossless or REL.
  r.mode = same_request ? a.mode : a.abs_bound > 0 ? BoundMode::abs : BoundMode::lossless;
  r.requested_bound = same_request ? a.requested_bound : a.abs_bound;
  return r;
}

Workspace& thread_workspace() {
  thread_local Workspace ws;
  return ws;
}

}  // namespace commpress::codec::homomorphic
