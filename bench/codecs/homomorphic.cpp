// Homomorphic sums of szp frames against the round trip they replace, per data set, REL
// bound and thread count. The second operand is the data set rotated by half its length:
// another array of the same statistics, as a peer rank would hold. Both operands are
// compressed with the same absolute bound eb (combine requires it).
//   combine(frame a, frame b)           vs  decompress a, decompress b, add, compress
//   combine_raw(raw b, frame a)         vs  decompress a, add b, compress
// Checked element-wise against the exact sum a + b: the homomorphic results within 2 eb
// (docs/format/homomorphic.md), the round trips within 3 eb (two decoded inputs plus the
// recompression), each plus floating-point rounding.
#include "codecs/homomorphic.hpp"

#if __has_include("commpress/homomorphic.hpp")
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "codecs/timing.hpp"
#include "commpress/codec.hpp"
#include "commpress/homomorphic.hpp"
#define COMMPRESS_BENCH_HAS_HOMOMORPHIC 1
#endif

namespace commpress::bench {

#ifndef COMMPRESS_BENCH_HAS_HOMOMORPHIC

std::string homomorphic_unavailable_reason() {
  return "include/commpress/homomorphic.hpp is not part of this build";
}
int run_homomorphic(const std::vector<Dataset>&, const Options&, std::ostream&) { return 2; }

#else

namespace {

using codec::CombineOp;

struct Op {
  const char* name;
  int k;  // bound in units of eb
  std::function<Status()> body;
};

// Everything one data set needs, allocated once and reused by every bound and thread count.
template <class T>
struct Operands {
  const codec::Codec* szp;
  const T* a;
  std::vector<T> b, ya, yb, check;
  std::vector<std::byte> fa, fb, out;
  codec::Workspace ws;
};

template <class T>
Status decode(Operands<T>& o, const std::vector<std::byte>& frame, std::vector<T>& y) {
  return o.szp->decompress(frame, y.data(), y.size(), codec::dtype_of<T>(), o.ws);
}

template <class T>
Status add_and_compress(Operands<T>& o, const T* addend, double eb) {
  const size_t n = o.ya.size();
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) o.ya[i] += addend[i];
  return o.szp->compress(o.ya.data(), n, codec::dtype_of<T>(), codec::ErrorBound::absolute(eb),
                         o.out, o.ws);
}

// Largest |y - (a + b)| and whether every element is within k eb plus the rounding of T
// (unit roundoff u, at most (k + 4) u per unit of |a| + |b| + k eb).
template <class T>
std::pair<double, bool> verify(Operands<T>& o, int k, double eb) {
  if (!decode(o, o.out, o.check).ok()) return {NAN, false};
  const double u = std::ldexp(1.0, -std::numeric_limits<T>::digits);
  double worst = 0;
  bool ok = true;
  for (size_t i = 0; i < o.check.size(); ++i) {
    double exact = double(o.a[i]) + double(o.b[i]);
    double err = std::fabs(double(o.check[i]) - exact);
    double tol = k * eb + (k + 4) * u * (std::fabs(double(o.a[i])) + std::fabs(double(o.b[i])) + k * eb);
    if (std::isnan(err) || err > worst) worst = err;
    ok = ok && err <= tol;
  }
  return {worst, ok};
}

std::string num(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

template <class T>
int run_dataset(const Dataset& d, const Options& opt, std::ostream& csv) {
  const size_t n = d.count();
  Operands<T> o;
  o.szp = codec::find_codec("szp");
  o.a = static_cast<const T*>(d.data());
  o.b.resize(n);
  for (size_t i = 0; i < n; ++i) o.b[i] = o.a[(i + n / 2) % n];
  o.ya.resize(n);
  o.yb.resize(n);
  o.check.resize(n);
  const codec::Dtype dt = codec::dtype_of<T>();
  int result = 0;
  for (double rel : opt.rels) {
    auto eb = codec::resolve_abs_bound(o.a, n, dt, codec::ErrorBound::relative(rel));
    if (!eb.ok()) return 2;
    const auto abs = codec::ErrorBound::absolute(*eb);
    if (!o.szp->compress(o.a, n, dt, abs, o.fa, o.ws).ok() ||
        !o.szp->compress(o.b.data(), n, dt, abs, o.fb, o.ws).ok())
      return 2;
    const Op ops[] = {
        {"combine(frame; frame)", 2,
         [&] { return codec::combine(o.fa, o.fb, CombineOp::sum, o.out, o.ws); }},
        {"decompress x2 + add + compress", 3,
         [&] {
           COMMPRESS_RETURN_IF_ERROR(decode(o, o.fa, o.ya));
           COMMPRESS_RETURN_IF_ERROR(decode(o, o.fb, o.yb));
           return add_and_compress(o, o.yb.data(), *eb);
         }},
        {"combine_raw(raw; frame)", 2,
         [&] {
           return codec::combine_raw(o.b.data(), n, dt, o.fa, CombineOp::sum, o.out, o.ws);
         }},
        {"decompress + add raw + compress", 3,
         [&] {
           COMMPRESS_RETURN_IF_ERROR(decode(o, o.fa, o.ya));
           return add_and_compress(o, o.b.data(), *eb);
         }},
    };
    for (int t : opt.threads) {
      omp_set_num_threads(t);
      double baseline_s[2] = {0, 0};
      for (int i = 3; i >= 0; --i) {  // round trips first: the speedup needs their time
        const Op& op = ops[i];
        auto warm = time_once(op.body);
        auto m = warm.ok() ? time_median(op.body, repeats_within(*warm, opt.budget_seconds,
                                                                   opt.repeats))
                           : Result<Timing>(warm.status());
        if (!m.ok()) {
          std::fprintf(stderr, "bench_codecs: %s on %s: %s\n", op.name, d.name.c_str(),
                       m.status().to_string().c_str());
          return 2;
        }
        auto [err, ok] = verify(o, op.k, *eb);
        if (i % 2) baseline_s[i / 2] = m->median_s;
        double speedup = baseline_s[i / 2] / m->median_s;
        double bytes = double(n * sizeof(T));
        csv << d.name << ',' << codec::dtype_name(dt) << ',' << n << ',' << num("%g", rel) << ','
            << num("%.6g", *eb) << ',' << t << ',' << op.name << ',' << m->repeats << ','
            << num("%.4g", m->median_s * 1e3) << ',' << num("%.3g", bytes / m->median_s / 1e9)
            << ',' << num("%.2f", speedup) << ',' << num("%.2f", bytes / double(o.out.size()))
            << ',' << num("%.3g", err) << ',' << num("%.3g", op.k * *eb) << ','
            << (ok ? "ok" : "VIOLATION") << '\n';
        csv.flush();
        std::fprintf(stderr, "homomorphic %-15s rel %-6g %dT %-32s %8.2f ms  x%.2f  err %.3g %s\n",
                     d.name.c_str(), rel, t, op.name, m->median_s * 1e3, speedup, err,
                     ok ? "ok" : "VIOLATION");
        if (!ok) result = 1;
      }
    }
  }
  return result;
}

}  // namespace

std::string homomorphic_unavailable_reason() {
  return codec::find_codec("szp") ? "" : "no szp codec is registered";
}

int run_homomorphic(const std::vector<Dataset>& sets, const Options& o, std::ostream& csv) {
  csv << "dataset,dtype,n,rel,abs_bound,threads,operation,repeats,ms,GB/s per operand,"
         "speedup vs round trip,ratio,max error,bound,check\n";
  int result = 0;
  for (const Dataset& d : sets) {
    int r = d.dtype == codec::Dtype::f32 ? run_dataset<float>(d, o, csv)
                                         : run_dataset<double>(d, o, csv);
    if (r == 2) return 2;
    result = std::max(result, r);
  }
  return result;
}

#endif

}  // namespace commpress::bench
