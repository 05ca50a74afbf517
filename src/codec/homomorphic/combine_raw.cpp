// combine_raw(): local values + a received szp frame in one pass over the blocks. Each local
// block is quantized with the frame's bound right where the frame's block is decoded, so
// neither a full quantized array nor a compressed copy of local is ever made.
#include "codec/homomorphic/block_operands.hpp"
#include "codec/homomorphic/combine_driver.hpp"
#include "codec/homomorphic/frame_pair_check.hpp"
#include "commpress/homomorphic.hpp"

namespace commpress::codec {

namespace {

using homomorphic::FrameCursor;
using homomorphic::SzpOperand;

template <class T>
Status combine_raw_as(const T* local, const SzpOperand& f, const FrameInfo& info,
                      std::vector<std::byte>& out, Workspace& ws) {
  const size_t n = info.count, nb = szp::block_count(n), chunks = homomorphic::chunk_count(n);
  uint64_t* starts = szp::workspace_array<uint64_t>(ws, homomorphic::kFirstCallerSlot, chunks + 1);
  if (!starts) return {ErrorCode::capacity, "out of memory for the combine scratch"};
  Status st = homomorphic::scan_payload<T>(f.payload, n, chunks, starts);
  if (!st.ok()) return {st.code(), "frame: " + st.message()};
  const auto* hf = reinterpret_cast<const uint8_t*>(f.payload.data());
  const std::byte* bf = f.payload.data() + nb;
  const szp::LinearQuantizer<T> qz(info.abs_bound);
  return homomorphic::write_combined_frame<T>(
      info, chunks, ws,
      [&]<bool Gfni>(size_t c, size_t lo, size_t hi, uint8_t* headers, std::byte* bodies) {
        FrameCursor<T> y(hf, bf, lo, starts[c]);
        size_t pos = 0;
        for (size_t blk = lo; blk < hi; ++blk) {
          const size_t valid = szp::valid_in_block(n, blk);
          // Same operand order as combine(compress(local), frame), hence the same bytes.
          pos += homomorphic::combine_local_block<T, Gfni>(local + blk * szp::kBlockValues, valid,
                                                     y.next(valid), qz, headers[blk], bodies + pos);
        }
        return pos;
      },
      out);
}

}  // namespace

Status combine_raw(const void* local, size_t n, Dtype d, std::span<const std::byte> frame,
                   CombineOp op, std::vector<std::byte>& out, Workspace& ws) {
  COMMPRESS_RETURN_IF_ERROR(homomorphic::check_op(op));
  if (n > 0 && local == nullptr)
    return {ErrorCode::invalid_argument, "null local array with a non-zero count"};
  auto f = homomorphic::open_szp_frame(frame, "frame");
  if (!f.ok()) return f.status();
  // The local array is one more quantized input with the frame's bound, as if compressed
  // with that absolute bound.
  FrameInfo local_info = f->info;
  local_info.dtype = d;
  local_info.count = n;
  local_info.mode = f->info.abs_bound > 0 ? BoundMode::abs : BoundMode::lossless;
  local_info.requested_bound = f->info.abs_bound;
  local_info.param = 1;
  COMMPRESS_RETURN_IF_ERROR(homomorphic::check_pair(local_info, "local array", f->info, "frame"));
  auto param = homomorphic::summed_param(1, summed_inputs(f->info));
  if (!param.ok()) return param.status();
  FrameInfo info = homomorphic::result_info(local_info, f->info, *param);
  if (d == Dtype::f64)
    return combine_raw_as<double>(static_cast<const double*>(local), *f, info, out, ws);
  return combine_raw_as<float>(static_cast<const float*>(local), *f, info, out, ws);
}

Status combine_raw(const void* local, size_t n, Dtype d, std::span<const std::byte> frame,
                   CombineOp op, std::vector<std::byte>& out) {
  return combine_raw(local, n, d, frame, op, out, homomorphic::thread_workspace());
}

}  // namespace commpress::codec
