// szp-e's streams through zstd where that pays (zstd_stream.hpp).
#include "codec/lossy/szp/zstd_stream.hpp"

#include <zstd.h>
#include <zstd_errors.h>

#include <cstring>
#include <string>

#include "codec/lossless/zstd_contexts.hpp"

namespace commpress::codec::szp {

namespace {

constexpr size_t kDenseRatio = 16;
// Streams shorter than this are stored as they are: a zstd frame's own header and block
// header would eat what little it could save.
constexpr size_t kZstdMinInput = 32;

}  // namespace

Result<size_t> put_stream(const void* src, size_t len, size_t raw_bytes, std::byte* dst,
                          uint8_t flag, uint8_t& coding) {
  const int level = len * kDenseRatio < raw_bytes ? kZstdDenseLevel : kZstdFastLevel;
  return put_stream_at(src, len, level, dst, flag, coding);
}

Result<size_t> put_stream_at(const void* src, size_t len, int level, std::byte* dst,
                             uint8_t flag, uint8_t& coding) {
  if (len >= kZstdMinInput) {
    ZSTD_CCtx* cctx = codec::detail::thread_zstd_cctx();
    if (!cctx) return Status{ErrorCode::capacity, "ZSTD_createCCtx failed (out of memory)"};
    // A capacity one byte short of the input: zstd fails when it cannot save anything.
    size_t z = ZSTD_compressCCtx(cctx, dst, len - 1, src, len, level);
    if (!ZSTD_isError(z)) {
      coding |= flag;
      return z;
    }
    if (ZSTD_getErrorCode(z) != ZSTD_error_dstSize_tooSmall)
      return Status{ErrorCode::internal, std::string("zstd: ") + ZSTD_getErrorName(z)};
  }
  if (len) std::memcpy(dst, src, len);  // an empty stream may come from an empty vector
  return len;
}

Result<std::span<const std::byte>> get_stream(std::span<const std::byte> stored, bool zstd,
                                              size_t most, size_t exact,
                                              std::vector<std::byte>& scratch,
                                              const char* what) {
  if (!zstd) return stored;
  const unsigned long long content = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN ||
      content > most || (exact != SIZE_MAX && content != exact))
    return Status{ErrorCode::corrupt_frame,
                  std::string("szp-e ") + what + " stream is not a zstd frame of the right size"};
  const size_t frame_len = ZSTD_findFrameCompressedSize(stored.data(), stored.size());
  if (ZSTD_isError(frame_len) || frame_len != stored.size())
    return Status{ErrorCode::corrupt_frame,
                  std::string("szp-e ") + what + " stream is not exactly one zstd frame"};
  if (scratch.size() < content) scratch.resize(content);
  ZSTD_DCtx* dctx = codec::detail::thread_zstd_dctx();
  if (!dctx) return Status{ErrorCode::capacity, "ZSTD_createDCtx failed (out of memory)"};
  const size_t r = ZSTD_decompressDCtx(dctx, scratch.data(), content, stored.data(), stored.size());
  if (ZSTD_isError(r) || r != content)
    return Status{ErrorCode::corrupt_frame, std::string("szp-e ") + what + " stream: " +
                                                (ZSTD_isError(r) ? ZSTD_getErrorName(r)
                                                                 : "short zstd content")};
  return std::span<const std::byte>(scratch.data(), content);
}

}  // namespace commpress::codec::szp
