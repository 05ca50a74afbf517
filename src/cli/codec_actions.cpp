// compress, decompress, inspect and list: thin layers over the codec API that add only file
// handling and messages naming the file at fault.
#include <cmath>
#include <cstdio>
#include <new>
#include <string>

#include "cli/codec_commands.hpp"
#include "cli/raw_io.hpp"
#include "commpress/codec.hpp"

namespace commpress::cli {

namespace cc = commpress::codec;

namespace {

Result<cc::ErrorBound> parse_bound(const CompressArgs& args) {
  // CLI11 already refuses both; kept so the action is correct on its own.
  if (args.abs_bound && args.rel_bound)
    return Status{ErrorCode::invalid_argument, "give either --abs or --rel, not both"};
  if (!args.abs_bound && !args.rel_bound) return cc::ErrorBound::lossless();
  double v = args.abs_bound ? *args.abs_bound : *args.rel_bound;
  if (!std::isfinite(v) || v <= 0)
    return Status{ErrorCode::invalid_argument,
                  "error bound must be a positive finite number, got " + std::to_string(v)};
  return args.abs_bound ? cc::ErrorBound::absolute(v) : cc::ErrorBound::relative(v);
}

Status with_file(Status st, const std::string& path) {
  if (st.ok()) return st;
  return {st.code(), "'" + path + "': " + st.message()};
}

std::string dtype_list(const cc::Codec& codec) {
  std::string s;
  for (cc::Dtype d : {cc::Dtype::f32, cc::Dtype::f64, cc::Dtype::i32, cc::Dtype::i64, cc::Dtype::u8})
    if (codec.supports(d)) {
      if (!s.empty()) s += ',';
      s += cc::dtype_name(d);
    }
  return s;
}

}  // namespace

Status run_compress(const CompressArgs& args) {
  auto codec = cc::get_codec(args.codec);
  if (!codec.ok()) return codec.status();
  auto dtype = cc::parse_dtype(args.dtype);
  if (!dtype.ok()) return dtype.status();
  auto bound = parse_bound(args);
  if (!bound.ok()) return bound.status();
  if ((*codec)->lossy() && bound->mode == cc::BoundMode::lossless)
    return {ErrorCode::invalid_argument,
            "codec " + args.codec + " is lossy: give an error bound with --abs or --rel"};
  auto data = read_array(args.in, *dtype);
  if (!data.ok()) return data.status();
  size_t n = data->size() / cc::dtype_size(*dtype);
  std::vector<std::byte> frame;
  COMMPRESS_RETURN_IF_ERROR(
      with_file((*codec)->compress(data->data(), n, *dtype, *bound, frame), args.in));
  COMMPRESS_RETURN_IF_ERROR(write_file(args.out, frame));
  std::printf("%s: %zu %s elements, %zu -> %zu bytes (ratio %.4g)\n", args.out.c_str(), n,
              cc::dtype_name(*dtype), data->size(), frame.size(),
              frame.empty() ? 0.0 : double(data->size()) / double(frame.size()));
  return {};
}

Status run_decompress(const std::string& in, const std::string& out) {
  auto frame = read_file(in);
  if (!frame.ok()) return frame.status();
  auto info = cc::inspect(*frame);
  if (!info.ok()) return with_file(info.status(), in);
  size_t elem = cc::dtype_size(info->dtype);
  std::vector<std::byte> data;
  // inspect has refused a count the file's payload cannot hold (Codec::check_count_fits), so
  // what is allocated here is bounded by the file's size times its codec's densest coding;
  // a valid frame may still describe more than fits.
  try {
    data.resize(info->count * elem);
  } catch (const std::bad_alloc&) {
    return {ErrorCode::capacity, "'" + in + "' decodes to " + std::to_string(info->count) +
                                     " elements, more than this machine can allocate"};
  }
  COMMPRESS_RETURN_IF_ERROR(
      with_file(cc::decompress(*frame, data.data(), info->count, info->dtype), in));
  return write_file(out, data);
}

Status run_inspect(const std::string& in) {
  auto frame = read_file(in);
  if (!frame.ok()) return frame.status();
  auto info = cc::inspect(*frame);
  if (!info.ok()) return with_file(info.status(), in);
  std::fputs(cc::describe(*info).c_str(), stdout);
  return {};
}

Status run_list() {
  auto codecs = cc::list_codecs();
  size_t name_w = 4, dtype_w = 6;
  for (const cc::Codec* c : codecs) {
    name_w = std::max(name_w, c->name().size());
    dtype_w = std::max(dtype_w, dtype_list(*c).size());
  }
  int nw = int(name_w), dw = int(dtype_w);
  std::printf("%-*s  %3s  %-8s  %-*s  %s\n", nw, "name", "id", "kind", dw, "dtypes", "description");
  for (const cc::Codec* c : codecs) {
    std::string name(c->name()), desc(c->description());
    std::printf("%-*s  %3d  %-8s  %-*s  %s\n", nw, name.c_str(), int(c->id()),
                c->lossy() ? "lossy" : "lossless", dw, dtype_list(*c).c_str(), desc.c_str());
  }
  return {};
}

}  // namespace commpress::cli
