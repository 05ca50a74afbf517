// extern "C" shims over the codec registry: compress, decompress, frame inspection.
#include <span>
#include <string>

#include "capi/capi_support.hpp"

static_assert(COMMPRESS_MAX_COUNT == commpress::codec::kMaxCount);

namespace commpress::capi {

namespace {

// Scratch reused across calls on this thread, so repeated C calls allocate nothing.
codec::Workspace& workspace() {
  thread_local codec::Workspace ws;
  return ws;
}

Result<const codec::Codec*> lookup(const char* function, const char* name) {
  if (name == nullptr)
    return Status{ErrorCode::invalid_argument, std::string(function) + ": codec name is NULL"};
  return codec::get_codec(name);
}

// Among the registered codecs writing frames of this id, the one whose parameter matches
// (zstd-3 rather than zstd-1), so the name says how the frame was made.
std::string_view writer_name(const codec::FrameInfo& info) {
  std::string_view any;
  for (const codec::Codec* c : codec::list_codecs()) {
    if (c->id() != info.codec) continue;
    if (c->param() == info.param) return c->name();
    if (any.empty()) any = c->name();
  }
  return any;
}

}  // namespace

}  // namespace commpress::capi

using namespace commpress;
using namespace commpress::capi;

namespace {

// commpress_compress (shape null: n elements) and commpress_compress_shaped (n from the shape).
commpress_status compress_frame(const char* fn, const char* codec_name, const void* data, size_t n,
                                const uint64_t* shape, size_t ndim, commpress_dtype dtype,
                                commpress_bound_mode mode, double bound, void* out,
                                size_t out_capacity, size_t* out_size) {
  return guarded(fn, [&] {
    if (out_size == nullptr) return null_argument(fn, "out_size");
    *out_size = 0;
    if (shape == nullptr && ndim > 0) return null_argument(fn, "shape");
    std::span<const uint64_t> dims(shape, ndim);
    if (shape != nullptr) {
      n = 1;
      for (uint64_t d : dims) {
        if (d != 0 && n > codec::kMaxCount / d)
          return record({ErrorCode::overflow, std::string(fn) + ": the shape holds more than " +
                                                  std::to_string(codec::kMaxCount) + " elements"});
        n *= size_t(d);
      }
    }
    if (data == nullptr && n > 0) return null_argument(fn, "data");
    if (out == nullptr && out_capacity > 0) return null_argument(fn, "out");
    auto c = lookup(fn, codec_name);
    if (!c.ok()) return record(c.status());
    if (Status st = check_dtype(dtype); !st.ok()) return record(st);
    auto eb = to_bound(mode, bound);
    if (!eb.ok()) return record(eb.status());
    std::span<std::byte> dest(static_cast<std::byte*>(out), out_capacity);
    auto size = shape != nullptr
                    ? (*c)->compress_into(data, dims, to_dtype(dtype), *eb, dest, workspace())
                    : (*c)->compress_into(data, n, to_dtype(dtype), *eb, dest, workspace());
    if (!size.ok()) return record(size.status());
    *out_size = *size;
    return COMMPRESS_OK;
  });
}

}  // namespace

extern "C" {

commpress_status commpress_compress_bound(const char* codec_name, size_t n, commpress_dtype dtype,
                                          size_t* bound) {
  return guarded("commpress_compress_bound", [&] {
    if (bound == nullptr) return null_argument("commpress_compress_bound", "bound");
    *bound = 0;
    auto c = lookup("commpress_compress_bound", codec_name);
    if (!c.ok()) return record(c.status());
    if (Status st = check_dtype(dtype); !st.ok()) return record(st);
    if (Status st = codec::check_count(n); !st.ok())
      return record({st.code(), "commpress_compress_bound: " + st.message()});
    *bound = (*c)->compress_bound(n, to_dtype(dtype));
    return COMMPRESS_OK;
  });
}

commpress_status commpress_compress(const char* codec_name, const void* data, size_t n,
                                    commpress_dtype dtype, commpress_bound_mode mode,
                                    double bound, void* out, size_t out_capacity,
                                    size_t* out_size) {
  return compress_frame("commpress_compress", codec_name, data, n, nullptr, 0, dtype, mode, bound,
                        out, out_capacity, out_size);
}

commpress_status commpress_compress_shaped(const char* codec_name, const void* data,
                                           const uint64_t* shape, size_t ndim,
                                           commpress_dtype dtype, commpress_bound_mode mode,
                                           double bound, void* out, size_t out_capacity,
                                           size_t* out_size) {
  return compress_frame("commpress_compress_shaped", codec_name, data, 0, shape, ndim, dtype,
                        mode, bound, out, out_capacity, out_size);
}

commpress_status commpress_decompress(const void* frame, size_t frame_size, void* out, size_t n,
                                      commpress_dtype dtype) {
  return guarded("commpress_decompress", [&] {
    if (frame == nullptr && frame_size > 0) return null_argument("commpress_decompress", "frame");
    if (out == nullptr && n > 0) return null_argument("commpress_decompress", "out");
    if (Status st = check_dtype(dtype); !st.ok()) return record(st);
    std::span<const std::byte> bytes(static_cast<const std::byte*>(frame), frame_size);
    return record(codec::decompress(bytes, out, n, to_dtype(dtype)));
  });
}

commpress_status commpress_frame_info(const void* frame, size_t frame_size,
                                      commpress_frame_header* info) {
  return guarded("commpress_frame_info", [&] {
    if (info == nullptr) return null_argument("commpress_frame_info", "info");
    *info = commpress_frame_header{};
    if (frame == nullptr && frame_size > 0) return null_argument("commpress_frame_info", "frame");
    std::span<const std::byte> bytes(static_cast<const std::byte*>(frame), frame_size);
    auto parsed = codec::inspect(bytes);
    if (!parsed.ok()) return record(parsed.status());
    const codec::FrameInfo& f = *parsed;
    info->format_version = f.version;
    info->codec_id = int(f.codec);
    copy_name(writer_name(f), info->codec);
    info->dtype = static_cast<commpress_dtype>(f.dtype);
    info->mode = static_cast<commpress_bound_mode>(f.mode);
    info->count = f.count;
    info->requested_bound = f.requested_bound;
    info->abs_bound = f.abs_bound;
    info->payload_size = f.payload_size;
    info->frame_size = f.frame_size();
    info->param = f.param;
    return COMMPRESS_OK;
  });
}

}  // extern "C"
