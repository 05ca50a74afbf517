#include "codecs/measure.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "codecs/timing.hpp"
#include "codecs/verify.hpp"

namespace commpress::bench {
namespace {

// Every codec is first timed on this many values to decide whether the whole array fits
// the time budget; subsets are whole multiples of the quantum (a 256x256 slab).
constexpr size_t kProbeCount = size_t(1) << 18;
constexpr size_t kSubsetQuantum = size_t(1) << 16;

Row base_row(const char* source, std::string codec, const Dataset& d, int threads) {
  Row r;
  r.source = source;
  r.codec = std::move(codec);
  r.dataset = d.name;
  r.dtype = codec::dtype_name(d.dtype);
  r.n = r.n_used = d.count();
  r.bytes_in = d.bytes();
  r.threads = threads;
  return r;
}

Row failed(Row r, const Status& st) {
  r.check = "error";
  r.note = st.to_string();
  return r;
}

void add_note(Row& r, const std::string& note) { r.note += (r.note.empty() ? "" : "; ") + note; }

// Values to measure: all of them, unless one compress plus one decompress of the whole
// would take longer than subset_s.
Result<size_t> values_to_measure(const codec::Codec& c, const Dataset& d,
                                 const codec::ErrorBound& bound, const MeasureConfig& cfg,
                                 void* out, Buffers& b) {
  size_t n = d.count();
  if (n <= kProbeCount) return n;
  size_t frame_size = 0;
  auto tc = time_once([&]() -> Status {
    auto s = c.compress_into(d.data(), kProbeCount, d.dtype, bound, b.frame(), b.workspace());
    if (s.ok()) frame_size = *s;
    return s.status();
  });
  if (!tc.ok()) return tc.status();
  auto td = time_once([&] {
    return c.decompress(std::span<const std::byte>(b.frame().data(), frame_size), out,
                        kProbeCount, d.dtype, b.workspace());
  });
  if (!td.ok()) return td.status();
  double whole = (*tc + *td) * double(n) / double(kProbeCount);
  if (whole <= cfg.subset_s) return n;
  size_t used = size_t(double(n) * cfg.subset_s / whole) / kSubsetQuantum * kSubsetQuantum;
  return std::clamp(used, kProbeCount, n);
}

}  // namespace

void* Buffers::decoded_for(const Dataset& d) {
  if (d.dtype == codec::Dtype::f32) {
    if (out32_.size() < d.count()) out32_.resize(d.count());
    return out32_.data();
  }
  if (out64_.size() < d.count()) out64_.resize(d.count());
  return out64_.data();
}

Row measure_codec(const codec::Codec& c, const Dataset& d, double rel, int threads,
                  size_t n_used, const MeasureConfig& cfg, Buffers& b, bool shaped) {
  omp_set_num_threads(threads);
  Row r = base_row("commpress", std::string(c.name()) + (shaped ? kShapedSuffix : ""), d,
                   threads);
  codec::ErrorBound bound = codec::ErrorBound::lossless();
  double whole_abs = 0;
  if (rel > 0) {
    r.mode = "rel";
    r.rel = rel;
    bound = codec::ErrorBound::relative(rel);
    auto a = codec::resolve_abs_bound(d.data(), d.count(), d.dtype, bound);
    if (!a.ok()) return failed(r, a.status());
    whole_abs = *a;
  }
  if (b.frame().size() < c.compress_bound(d.count(), d.dtype))
    b.frame().resize(c.compress_bound(d.count(), d.dtype));
  void* out = b.decoded_for(d);

  Result<size_t> used = std::min(n_used, d.count());
  if (n_used == 0) used = values_to_measure(c, d, bound, cfg, out, b);
  if (!used.ok()) return failed(r, used.status());
  r.n_used = *used;
  r.bytes_in = *used * codec::dtype_size(d.dtype);
  if (*used < d.count()) {
    // A prefix has its own range; keep the bound the whole array resolves to.
    if (rel > 0) bound = codec::ErrorBound::absolute(whole_abs);
    add_note(r, "measured on the first " + std::to_string(*used) + " values (slow codec)");
  }

  // Shaped: the data set's shape, its slowest dimension cut to the values measured (a
  // subset is whole planes: the quantum is one).
  std::vector<uint64_t> shape;
  if (shaped && d.shape.size() > 1 && *used % (d.count() / d.shape[0]) == 0) {
    shape.assign(d.shape.begin(), d.shape.end());
    shape[0] = *used / (d.count() / d.shape[0]);
    r.layout = d.shape_string();
    if (*used < d.count()) r.layout = std::to_string(shape[0]) + r.layout.substr(r.layout.find('x'));
  }
  size_t frame_size = 0;
  auto compress = [&]() -> Status {
    auto s = shape.empty()
                 ? c.compress_into(d.data(), *used, d.dtype, bound, b.frame(), b.workspace())
                 : c.compress_into(d.data(), shape, d.dtype, bound, b.frame(), b.workspace());
    if (!s.ok()) return s.status();
    frame_size = *s;
    return {};
  };
  auto decompress = [&] {
    return c.decompress(std::span<const std::byte>(b.frame().data(), frame_size), out, *used,
                        d.dtype, b.workspace());
  };

  auto tc = time_once(compress);
  if (!tc.ok()) return failed(r, tc.status());
  auto info = codec::inspect(std::span<const std::byte>(b.frame().data(), frame_size));
  if (!info.ok()) return failed(r, info.status());
  r.bytes_out = frame_size;
  r.abs_bound = info->abs_bound;
  auto td = time_once(decompress);
  if (!td.ok()) return failed(r, td.status());

  Verdict v = c.lossy() ? check_within(d, *used, out, info->abs_bound) : check_exact(d, *used, out);
  r.max_abs_err = v.max_abs_err;
  if (!v.ok) {
    r.check = "VIOLATION";
    add_note(r, v.detail);
  }
  if (c.lossy() && !(info->abs_bound <= whole_abs * (1 + 1e-12))) {
    r.check = "VIOLATION";
    add_note(r, "frame promises " + std::to_string(info->abs_bound) + ", looser than range*rel = " +
                    std::to_string(whole_abs));
  }

  auto mc = time_median(compress, repeats_within(*tc, cfg.budget_s, cfg.max_repeats));
  if (!mc.ok()) return failed(r, mc.status());
  if (frame_size != r.bytes_out) add_note(r, "frame size varies between runs");
  auto md = time_median(decompress, repeats_within(*td, cfg.budget_s, cfg.max_repeats));
  if (!md.ok()) return failed(r, md.status());
  r.compress_s = mc->median_s;
  r.repeats_c = mc->repeats;
  r.decompress_s = md->median_s;
  r.repeats_d = md->repeats;
  return r;
}

Row measure_memcpy(const Dataset& d, int threads, const MeasureConfig& cfg, Buffers& b) {
  Row r = base_row("reference", "memcpy", d, threads);
  auto* dst = static_cast<std::byte*>(b.decoded_for(d));
  const auto* src = static_cast<const std::byte*>(d.data());
  size_t bytes = d.bytes();
  auto copy = [&]() -> Status {
#pragma omp parallel num_threads(threads)
    {
      size_t k = size_t(omp_get_num_threads()), t = size_t(omp_get_thread_num());
      size_t lo = bytes * t / k, hi = bytes * (t + 1) / k;
      std::memcpy(dst + lo, src + lo, hi - lo);
    }
    return {};
  };
  auto warm = time_once(copy);
  auto m = time_median(copy, repeats_within(*warm, cfg.budget_s, cfg.max_repeats));
  r.bytes_out = bytes;
  r.compress_s = r.decompress_s = m->median_s;
  r.repeats_c = r.repeats_d = m->repeats;
  return r;
}

}  // namespace commpress::bench
