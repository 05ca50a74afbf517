// `commpress codec compare`: error statistics, plus ratio and bound check when the frame is
// given. Prints `key: value` lines so scripts can grep them.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "cli/codec_commands.hpp"
#include "cli/error_metrics.hpp"
#include "cli/raw_io.hpp"
#include "commpress/codec.hpp"

namespace commpress::cli {

namespace cc = commpress::codec;

namespace {

template <class T>
std::vector<T> as_array(const std::vector<std::byte>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

template <class T>
ErrorMetrics metrics_of(const std::vector<std::byte>& x, const std::vector<std::byte>& y) {
  auto a = as_array<T>(x), b = as_array<T>(y);
  return compare_arrays(std::span<const T>(a), std::span<const T>(b));
}

// The frame's header, checked against the arrays it is supposed to describe.
Result<cc::FrameInfo> load_frame(const std::string& path, cc::Dtype dtype, uint64_t count) {
  auto frame = read_file(path);
  if (!frame.ok()) return frame.status();
  auto info = cc::inspect(*frame);
  if (!info.ok())
    return Status{info.status().code(), "'" + path + "': " + info.status().message()};
  if (info->dtype != dtype || info->count != count)
    return Status{ErrorCode::mismatch, "'" + path + "' holds " + std::to_string(info->count) +
                                           " " + cc::dtype_name(info->dtype) +
                                           " elements, the arrays " + std::to_string(count) +
                                           " " + cc::dtype_name(dtype)};
  return info;
}

void print_metrics(const ErrorMetrics& m) {
  std::printf("count: %llu\n", static_cast<unsigned long long>(m.count));
  std::printf("min: %.17Lg\nmax: %.17Lg\nrange: %.17Lg\n", m.min, m.max, m.max - m.min);
  std::printf("max_abs_error: %.17Lg\n", m.max_abs_error);
  std::printf("rmse: %.9Lg\nnrmse: %.9Lg\npsnr_db: %.6Lg\n", m.rmse, m.nrmse, m.psnr);
  std::printf("nonfinite: %llu\nnonfinite_differ: %llu\n",
              static_cast<unsigned long long>(m.nonfinite),
              static_cast<unsigned long long>(m.nonfinite_differ));
}

// The bound the request promised, from the original's own range rather than the frame's word:
// a REL frame must honour rel x (max - min) whatever absolute bound it records.
long double promised_bound(const cc::FrameInfo& info, const ErrorMetrics& m) {
  const long double recorded = info.abs_bound;
  if (info.mode != cc::BoundMode::rel) return recorded;
  return std::min(recorded, (long double)info.requested_bound * (m.max - m.min));
}

void print_frame_summary(const cc::FrameInfo& info, size_t original_bytes, const ErrorMetrics& m) {
  std::printf("frame_bytes: %zu\n", info.frame_size());
  std::printf("ratio: %.9g\n", double(original_bytes) / double(info.frame_size()));
  std::printf("abs_bound: %.17g\n", info.abs_bound);
  const long double promised = promised_bound(info, m);
  std::printf("promised_bound: %.17Lg\n", promised);
  bool within = m.max_abs_error <= promised && m.nonfinite_differ == 0;
  std::printf("within_bound: %s\n", within ? "yes" : "no");
}

}  // namespace

Status run_compare(const CompareArgs& args) {
  auto dtype = cc::parse_dtype(args.dtype);
  if (!dtype.ok()) return dtype.status();
  if (!cc::is_float(*dtype))
    return {ErrorCode::invalid_argument,
            std::string("compare works on f32 or f64 arrays, not ") + cc::dtype_name(*dtype)};
  auto x = read_array(args.original, *dtype);
  if (!x.ok()) return x.status();
  auto y = read_array(args.decoded, *dtype);
  if (!y.ok()) return y.status();
  if (x->size() != y->size())
    return {ErrorCode::mismatch, "'" + args.original + "' has " + std::to_string(x->size()) +
                                     " bytes but '" + args.decoded + "' has " +
                                     std::to_string(y->size())};
  uint64_t count = x->size() / cc::dtype_size(*dtype);
  std::optional<cc::FrameInfo> info;
  if (!args.frame.empty()) {
    auto r = load_frame(args.frame, *dtype, count);
    if (!r.ok()) return r.status();
    info = *r;
  }
  ErrorMetrics m = *dtype == cc::Dtype::f32 ? metrics_of<float>(*x, *y) : metrics_of<double>(*x, *y);
  print_metrics(m);
  if (info) print_frame_summary(*info, x->size(), m);
  return {};
}

}  // namespace commpress::cli
