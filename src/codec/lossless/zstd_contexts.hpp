// Per-thread zstd contexts, created on first use and reused, so a warm call does not allocate.
// Shared by the zstd codec and by szp-e's entropy stage. nullptr when memory ran out.
#pragma once

#include <zstd.h>

#include <memory>

namespace commpress::codec::detail {

struct ZstdCCtxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct ZstdDCtxFree {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

inline ZSTD_CCtx* thread_zstd_cctx() {
  thread_local std::unique_ptr<ZSTD_CCtx, ZstdCCtxFree> ctx(ZSTD_createCCtx());
  return ctx.get();
}

inline ZSTD_DCtx* thread_zstd_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, ZstdDCtxFree> ctx(ZSTD_createDCtx());
  return ctx.get();
}

}  // namespace commpress::codec::detail
