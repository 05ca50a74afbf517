#include "comm/probe/codec_rates.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "comm/probe/timing.hpp"
#include "commpress/homomorphic.hpp"

namespace commpress::comm::probe {

template <class T>
Result<CodecRow> measure_codec(const codec::Codec& c, double rel, const T* a, const T* b,
                               size_t n, int reps, Clocking clock) {
  constexpr codec::Dtype dt = codec::dtype_of<T>();
  codec::ErrorBound bound = codec::ErrorBound::lossless();
  if (c.lossy()) {
    auto abs = codec::resolve_abs_bound(a, n, dt, codec::ErrorBound::relative(rel));
    if (!abs.ok()) return abs.status();
    bound = codec::ErrorBound::absolute(*abs);
  }
  CodecRow row{std::string(c.name()), dt, c.lossy() ? rel : 0.0};
  const double bytes = double(n * sizeof(T));
  codec::Workspace ws;
  std::vector<std::byte> fa, fb, out;
  std::vector<T> back(n);
  Status st;
  auto timed = [clock](auto&& f, int runs, Status& status) {
    return clock == Clocking::on_core ? timed_on_core(f, runs, status) : probe::timed(f, runs, status);
  };
  row.compress = rate(bytes, timed([&] { return c.compress(a, n, dt, bound, fa, ws); }, reps, st));
  if (st.ok()) st = c.compress(b, n, dt, bound, fb, ws);
  row.ratio = fa.empty() ? 0 : bytes / double(fa.size());
  if (st.ok())
    row.decompress = rate(bytes, timed([&] { return c.decompress(fa, back.data(), n, dt, ws); }, reps, st));
  // At least 2: the first run also sizes the combines' output, which a fastest of one kept.
  const int combine_reps = std::max(2, reps * 3 / 5);
  if (st.ok() && c.id() == codec::CodecId::szp) {
    row.combine = rate(bytes, timed([&] { return codec::combine(fa, fb, codec::CombineOp::sum, out, ws); },
                                    combine_reps, st));
    if (st.ok())
      row.combine_raw = rate(bytes, timed([&] {
        return codec::combine_raw(b, n, dt, fa, codec::CombineOp::sum, out, ws);
      }, combine_reps, st));
  }
  if (!st.ok()) return Status{st.code(), row.codec + ": " + st.message()};
  return row;
}

template <class T>
double measure_call_overhead(const codec::Codec& c, const CodecRow& row) {
  constexpr size_t n = 1024;
  constexpr codec::Dtype dt = codec::dtype_of<T>();
  const auto a = random_walk<T>(n, 13);
  codec::ErrorBound bound = c.lossy() ? codec::ErrorBound::relative(row.rel_bound)
                                      : codec::ErrorBound::lossless();
  codec::Workspace ws;
  std::vector<std::byte> frame;
  std::vector<T> back(n);
  double best_c = INFINITY, best_d = INFINITY;
  for (int i = 0; i < 50; ++i) {
    auto t0 = Clock::now();
    if (!c.compress(a.data(), n, dt, bound, frame, ws).ok()) return 0;
    best_c = std::min(best_c, seconds_since(t0));
    t0 = Clock::now();
    if (!c.decompress(frame, back.data(), n, dt, ws).ok()) return 0;
    best_d = std::min(best_d, seconds_since(t0));
  }
  const double bytes = double(n * sizeof(T));
  const double oc = best_c - (row.compress > 0 ? bytes / row.compress : 0);
  const double od = best_d - (row.decompress > 0 ? bytes / row.decompress : 0);
  return std::max(0.0, 0.5 * (oc + od));
}

model::CodecRates summarize(std::span<const CodecRow> rows, double call_overhead) {
  model::CodecRates r{rows.front().codec, rows.front().dtype};
  auto hmean = [&](double CodecRow::*field) {
    double inv = 0;
    for (const CodecRow& row : rows) {
      if (row.*field <= 0) return 0.0;
      inv += 1.0 / (row.*field);
    }
    return double(rows.size()) / inv;
  };
  r.compress = hmean(&CodecRow::compress);
  r.decompress = hmean(&CodecRow::decompress);
  r.combine = hmean(&CodecRow::combine);
  r.combine_raw = hmean(&CodecRow::combine_raw);
  r.call_overhead = call_overhead;
  const CodecRow* typical = &rows.front();
  auto off = [](const CodecRow& row) { return std::abs(std::log10(row.rel_bound + 1e-300) + 4); };
  for (const CodecRow& row : rows)
    if (off(row) < off(*typical)) typical = &row;
  r.typical_ratio = typical->ratio;
  return r;
}

template Result<CodecRow> measure_codec<float>(const codec::Codec&, double, const float*,
                                               const float*, size_t, int, Clocking);
template Result<CodecRow> measure_codec<double>(const codec::Codec&, double, const double*,
                                                const double*, size_t, int, Clocking);
template double measure_call_overhead<float>(const codec::Codec&, const CodecRow&);
template double measure_call_overhead<double>(const codec::Codec&, const CodecRow&);

}  // namespace commpress::comm::probe
