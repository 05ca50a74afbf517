// compress, decompress, inspect and list: thin layers over the codec API that add only file
// handling and messages naming the file at fault.
#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "cli/codec_commands.hpp"
#include "cli/raw_io.hpp"
#include "commpress/codec.hpp"
#include "commpress/szp_mode.hpp"

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

namespace {

using Clock = std::chrono::steady_clock;

// Decoding a frame in pieces: large enough that handing a piece to the writer is small
// against decoding it, small enough to stay in the cores' caches until written.
constexpr size_t kPieceBytes = size_t{1} << 20;

// The rate a user sees: raw array bytes over the wall time from opening the input to the
// output's rename, reading and writing the files included.
std::string end_to_end(size_t raw_bytes, Clock::time_point start) {
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3f s end to end, %.3g GB/s", s,
                s > 0 ? double(raw_bytes) / s * 1e-9 : 0.0);
  return buf;
}

}  // namespace

Status run_compress(const CompressArgs& args) {
  const auto start = Clock::now();
  const bool automatic = args.codec == "auto";
  auto codec = automatic ? cc::get_codec("szp") : cc::get_codec(args.codec);
  if (!codec.ok()) return codec.status();
  auto dtype = cc::parse_dtype(args.dtype);
  if (!dtype.ok()) return dtype.status();
  auto bound = parse_bound(args);
  if (!bound.ok()) return bound.status();
  if ((*codec)->lossy() && bound->mode == cc::BoundMode::lossless)
    return {ErrorCode::invalid_argument,
            "codec " + args.codec + " is lossy: give an error bound with --abs or --rel"};
  auto data = MappedFile::open(args.in);
  if (!data.ok()) return data.status();
  const auto in = data->bytes();
  COMMPRESS_RETURN_IF_ERROR(check_array_size(args.in, in.size(), *dtype));
  const size_t n = in.size() / cc::dtype_size(*dtype);
  COMMPRESS_RETURN_IF_ERROR(with_file(cc::check_count(n), args.in));
  if (!args.shape.empty()) {
    uint64_t elements = 1;
    for (uint64_t d : args.shape)
      elements = d != 0 && elements > n / d ? n + 1 : elements * d;
    if (elements != n)
      return {ErrorCode::invalid_argument,
              args.in + " holds " + std::to_string(n) + " elements, not the product of --shape"};
  }
  bool use_shape = !args.shape.empty();
  if (automatic) {  // docs/szp-modes.md
    auto choice = cc::choose_szp_mode(in.data(), args.shape, n, *dtype, *bound);
    if (!choice.ok()) return with_file(choice.status(), args.in);
    codec = choice->codec;
    use_shape = choice->shaped;
    char nd[64] = "";
    if (choice->shaped_ratio > 0)
      std::snprintf(nd, sizeof nd, ", szp-eh with the shape %.4g", choice->shaped_ratio);
    std::printf("auto: %s%s (sampled ratios: szp %.4g, szp-eh flat %.4g%s)\n",
                std::string(choice->codec->name()).c_str(), choice->shaped ? " with the shape" : "",
                choice->szp_ratio, choice->szp_e_ratio, nd);
  }
  auto room = PageBuffer::allocate((*codec)->compress_bound(n, *dtype), "the frame");
  if (!room.ok()) return room.status();
  cc::Workspace ws;
  auto size = !use_shape
                  ? (*codec)->compress_into(in.data(), n, *dtype, *bound, room->bytes(), ws)
                  : (*codec)->compress_into(in.data(), args.shape, *dtype, *bound, room->bytes(),
                                            ws);
  if (!size.ok()) return with_file(size.status(), args.in);
  COMMPRESS_RETURN_IF_ERROR(write_file(args.out, room->bytes().first(*size), args.sync));
  std::printf("%s: %zu %s elements, %zu -> %zu bytes (ratio %.4g), %s\n", args.out.c_str(), n,
              cc::dtype_name(*dtype), in.size(), *size,
              *size == 0 ? 0.0 : double(in.size()) / double(*size),
              end_to_end(in.size(), start).c_str());
  return {};
}

Status run_decompress(const DecompressArgs& args) {
  const auto start = Clock::now();
  auto frame = MappedFile::open(args.in);
  if (!frame.ok()) return frame.status();
  auto info = cc::inspect(frame->bytes());
  if (!info.ok()) return with_file(info.status(), args.in);
  // inspect has refused a count the file's payload cannot hold (Codec::check_count_fits), so
  // what is written here is bounded by the file's size times its codec's densest coding.
  const size_t bytes = info->count * cc::dtype_size(info->dtype);
  auto codec = cc::codec_for_id(info->codec);
  if (codec.ok() && (*codec)->decodes_in_pieces()) {
    // Decoded a piece at a time into buffers that stay in cache, each piece written while
    // the next decodes: the output's pages are filled once, by write(), and memory stays two
    // pieces.
    auto pieces = PageBuffer::allocate(2 * kPieceBytes, "the decoded pieces");
    if (!pieces.ok()) return pieces.status();
    // The writer thread takes a core of its own: the decoders get the others.
    omp_set_num_threads(std::max(1, omp_get_max_threads() - 1));
    cc::Workspace ws;
    COMMPRESS_RETURN_IF_ERROR(write_file_streamed(
        args.out,
        [&](const cc::PieceSink& sink) {
          return with_file((*codec)->decompress_pieces(frame->bytes(), pieces->bytes(), sink, ws),
                           args.in);
        },
        args.sync));
  } else {
    COMMPRESS_RETURN_IF_ERROR(write_file_in_place(
        args.out, bytes,
        [&](std::span<std::byte> dst) {
          return with_file(cc::decompress(frame->bytes(), dst.data(), info->count, info->dtype),
                           args.in);
        },
        args.sync));
  }
  // Only when the output is a file: a pipe or the terminal gets the data alone.
  struct stat st {};
  if (stat(args.out.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    std::printf("%s: %zu %s elements, %zu -> %zu bytes, %s\n", args.out.c_str(),
                size_t(info->count), cc::dtype_name(info->dtype), frame->bytes().size(), bytes,
                end_to_end(bytes, start).c_str());
  return {};
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
