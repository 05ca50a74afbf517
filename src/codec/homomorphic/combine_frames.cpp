// combine(): the sum of two szp frames, block by block on their residuals (docs/format/
// homomorphic.md). A zero block on either side makes the other block the result as is.
#include "codec/homomorphic/block_operands.hpp"
#include "codec/homomorphic/combine_driver.hpp"
#include "codec/homomorphic/frame_pair_check.hpp"
#include "commpress/homomorphic.hpp"

namespace commpress::codec {

namespace {

using homomorphic::FrameCursor;
using homomorphic::SzpOperand;

Status with_role(const char* role, Status st) {
  if (st.ok()) return st;
  return {st.code(), std::string(role) + ": " + st.message()};
}

template <class T>
Status combine_as(const SzpOperand& a, const SzpOperand& b, const FrameInfo& info,
                  std::vector<std::byte>& out, Workspace& ws) {
  const size_t n = info.count, nb = szp::block_count(n), chunks = homomorphic::chunk_count(n);
  uint64_t* starts = szp::workspace_array<uint64_t>(ws, homomorphic::kFirstCallerSlot, 2 * (chunks + 1));
  if (!starts) return {ErrorCode::capacity, "out of memory for the combine scratch"};
  uint64_t* starts_a = starts;
  uint64_t* starts_b = starts + chunks + 1;
  COMMPRESS_RETURN_IF_ERROR(
      with_role("first frame", homomorphic::scan_payload<T>(a.payload, n, chunks, starts_a)));
  COMMPRESS_RETURN_IF_ERROR(
      with_role("second frame", homomorphic::scan_payload<T>(b.payload, n, chunks, starts_b)));
  const auto* ha = reinterpret_cast<const uint8_t*>(a.payload.data());
  const auto* hb = reinterpret_cast<const uint8_t*>(b.payload.data());
  const std::byte* ba = a.payload.data() + nb;
  const std::byte* bb = b.payload.data() + nb;
  const szp::LinearQuantizer<T> qz(info.abs_bound);
  return homomorphic::write_combined_frame<T>(
      info, chunks, ws,
      [&]<bool Gfni>(size_t c, size_t lo, size_t hi, uint8_t* headers, std::byte* bodies) {
        FrameCursor<T> x(ha, ba, lo, starts_a[c]), y(hb, bb, lo, starts_b[c]);
        size_t pos = 0;
        for (size_t blk = lo; blk < hi; ++blk) {
          const size_t valid = szp::valid_in_block(n, blk);
          pos += homomorphic::combine_frame_blocks<T, Gfni>(x.next(valid), y.next(valid), valid, qz,
                                               headers[blk], bodies + pos);
        }
        return pos;
      },
      out);
}

}  // namespace

Status combine(std::span<const std::byte> a, std::span<const std::byte> b, CombineOp op,
               std::vector<std::byte>& out, Workspace& ws) {
  COMMPRESS_RETURN_IF_ERROR(homomorphic::check_op(op));
  auto fa = homomorphic::open_szp_frame(a, "first frame");
  if (!fa.ok()) return fa.status();
  auto fb = homomorphic::open_szp_frame(b, "second frame");
  if (!fb.ok()) return fb.status();
  COMMPRESS_RETURN_IF_ERROR(
      homomorphic::check_pair(fa->info, "first frame", fb->info, "second frame"));
  auto param = homomorphic::summed_param(summed_inputs(fa->info), summed_inputs(fb->info));
  if (!param.ok()) return param.status();
  FrameInfo info = homomorphic::result_info(fa->info, fb->info, *param);
  if (info.dtype == Dtype::f64) return combine_as<double>(*fa, *fb, info, out, ws);
  return combine_as<float>(*fa, *fb, info, out, ws);
}

Status combine(std::span<const std::byte> a, std::span<const std::byte> b, CombineOp op,
               std::vector<std::byte>& out) {
  return combine(a, b, op, out, homomorphic::thread_workspace());
}

}  // namespace commpress::codec
