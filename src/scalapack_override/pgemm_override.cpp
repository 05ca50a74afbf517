// libcommpress_scalapack.so: pdgemm_ and psgemm_ for unmodified ScaLAPACK programs (C and
// Fortran callers alike: both call these names with pointer arguments), as COSMA's override
// library does. Each call runs commpress's multiply through commpress_pdgemm/psgemm, or
// ScaLAPACK's own routine (the next definition, found with dlsym(RTLD_NEXT, ...)) when
//   - COMMPRESS_GEMM_ALGORITHM=scalapack, or the policy is invalid (said once on stderr);
//   - commpress cannot take the call: a descriptor that is not a dense one, a BLACS context
//     Grid::from_blacs refuses, or commpress answering `unsupported` (C is untouched then);
//   - the model (plan_gemm) predicts ScaLAPACK's pdgemm faster on this grid (Auto only).
// Lossless unless COMMPRESS_BOUND=rel:<x> is given (the multiply bounds each input's
// perturbation relative to its value range; an ABS bound is refused). COMMPRESS_DEBUG=1
// prints one line per call from the grid's process (0, 0).
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "commpress/linalg.hpp"
#include "commpress/scalapack.h"
#include "pmpi/debug_flag.hpp"
#include "scalapack_override/override_guard.hpp"

namespace {

namespace la = commpress::linalg;

template <class T>
using Pgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const T*,
                       const T*, const int*, const int*, const int*, const T*, const int*,
                       const int*, const int*, const T*, T*, const int*, const int*, const int*);

using commpress::pmpi::debug_enabled;

struct Policy {
  bool scalapack_only = false;
  std::string problem;  // non-empty: invalid, ScaLAPACK runs every call
  std::string codec;
  double rel = 0;
  la::GemmAlgorithm algorithm = la::GemmAlgorithm::Auto;
};

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

Policy read_policy() {
  Policy p;
  const char* alg = env("COMMPRESS_GEMM_ALGORITHM");
  if (alg) {
    auto a = la::parse_gemm_algorithm(alg);
    if (!a.ok()) {
      p.problem = "COMMPRESS_GEMM_ALGORITHM: " + a.status().message();
      return p;
    }
    p.algorithm = *a;
    p.scalapack_only = *a == la::GemmAlgorithm::ScaLapack;
  }
  const char* codec = env("COMMPRESS_GEMM_CODEC");
  if (!codec) codec = env("COMMPRESS_CODEC");
  p.codec = codec ? codec : "auto";
  if (const char* bound = env("COMMPRESS_BOUND")) {
    const std::string b(bound);
    if (b.rfind("rel:", 0) == 0) {
      char* end = nullptr;
      p.rel = std::strtod(bound + 4, &end);
      if (end == bound + 4 || *end != '\0' || !(p.rel > 0))
        p.problem = "COMMPRESS_BOUND='" + b + "': expected rel:<fraction > 0>";
    } else if (b != "lossless" && b != "off") {
      p.problem = "COMMPRESS_BOUND='" + b +
                  "': the multiply takes rel:<fraction> or lossless (its bound is on the "
                  "inputs, relative to each matrix's value range)";
    }
  } else if (const char* rel = env("COMMPRESS_GEMM_REL_BOUND")) {
    p.rel = std::strtod(rel, nullptr);
  }
  if (p.problem.empty() && !p.scalapack_only &&
      commpress_gemm_set_options(la::gemm_algorithm_name(p.algorithm), p.codec.c_str(), p.rel) != 0) {
    char msg[512];
    commpress_gemm_last_error(msg, sizeof msg);
    p.problem = msg;
  }
  return p;
}

const Policy& policy() {
  static const Policy p = read_policy();
  static std::once_flag said;
  if (!p.problem.empty())
    std::call_once(said, [] {
      std::fprintf(stderr, "commpress_scalapack: %s; every multiply runs ScaLAPACK's own\n",
                   p.problem.c_str());
    });
  return p;
}

std::optional<la::Trans> trans(const char* t) {
  if (t == nullptr) return std::nullopt;
  switch (*t) {
    case 'N': case 'n': return la::Trans::N;
    case 'T': case 't': case 'C': case 'c': return la::Trans::T;
  }
  return std::nullopt;
}

template <class T>
struct Names;
template <>
struct Names<double> {
  static constexpr const char* scalapack = "pdgemm_";
  static constexpr la::Dtype dtype = la::Dtype::f64;
  static constexpr auto commpress = commpress_pdgemm;
};
template <>
struct Names<float> {
  static constexpr const char* scalapack = "psgemm_";
  static constexpr la::Dtype dtype = la::Dtype::f32;
  static constexpr auto commpress = commpress_psgemm;
};

void say(bool lead, const std::string& line) {
  if (debug_enabled() && lead) std::fprintf(stderr, "commpress_scalapack: %s\n", line.c_str());
}

void say_scalapack_only() {
  static std::once_flag said;
  std::call_once(said, [] {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    say(rank == 0, "ScaLAPACK's own p?gemm_ runs every call (COMMPRESS_GEMM_ALGORITHM=scalapack)");
  });
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

// What the model predicts for commpress's choice and for ScaLAPACK's pdgemm on this grid.
struct Decision {
  bool commpress = true;
  std::string why;
};

Decision decide(la::Trans ta, la::Trans tb, int m, int n, int k, la::Dtype dtype,
                const la::Grid& grid, const Policy& p) {
  la::GemmOptions o;
  o.algorithm = p.algorithm;
  o.codec = p.codec;
  o.bound = p.rel > 0 ? la::ErrorBound::relative(p.rel) : la::ErrorBound::lossless();
  auto ours = la::plan_gemm(ta, tb, m, n, k, dtype, grid, o);
  if (!ours.ok()) return {true, "plan: " + ours.status().message()};
  std::string what = std::string(la::gemm_algorithm_name(ours->algorithm)) + " codec " +
                     ours->codec + ", model " + seconds(ours->predicted_seconds);
  if (p.algorithm != la::GemmAlgorithm::Auto) return {true, what + " (forced)"};
  la::GemmOptions s;
  s.algorithm = la::GemmAlgorithm::ScaLapack;
  auto theirs = la::plan_gemm(ta, tb, m, n, k, dtype, grid, s);
  if (!theirs.ok() || theirs->predicted_seconds <= 0) return {true, what};
  what += " vs ScaLAPACK " + seconds(theirs->predicted_seconds);
  return {ours->predicted_seconds <= theirs->predicted_seconds, what};
}

template <class T>
void pgemm(const char* ta, const char* tb, const int* m, const int* n, const int* k,
           const T* alpha, const T* a, const int* ia, const int* ja, const int* desca,
           const T* b, const int* ib, const int* jb, const int* descb, const T* beta, T* c,
           const int* ic, const int* jc, const int* descc) {
  using N = Names<T>;
  auto scalapack = [&] {
    commpress_override::next<Pgemm<T>>(N::scalapack)(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic,
                          jc, descc);
  };
  if (commpress_override::inside > 0) return scalapack();
  const Policy& p = policy();
  if (!p.problem.empty() || desca == nullptr || desca[0] != 1 || !m || !n || !k)
    return scalapack();
  if (p.scalapack_only) {
    say_scalapack_only();
    return scalapack();
  }
  commpress_override::Inside guard;
  auto grid = la::Grid::from_blacs(desca[1]);
  if (!grid.ok()) return scalapack();  // this process is outside the grid, or an odd context
  const bool lead = grid->row() == 0 && grid->col() == 0;
  const std::string call = std::string(N::scalapack) + " " + std::to_string(*m) + "x" +
                           std::to_string(*n) + "x" + std::to_string(*k) + " " + (ta ? *ta : '?') +
                           (tb ? *tb : '?') + " on " + std::to_string(grid->rows()) + "x" +
                           std::to_string(grid->cols()) + ": ";
  const auto sta = trans(ta), stb = trans(tb);
  if (sta && stb) {
    const Decision d = decide(*sta, *stb, *m, *n, *k, N::dtype, *grid, p);
    if (!d.commpress) {
      say(lead, call + "ScaLAPACK's (" + d.why + ")");
      return scalapack();
    }
    say(lead, call + "commpress " + d.why);
  }
  N::commpress(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc, descc);
  char msg[512];
  const int code = commpress_gemm_last_error(msg, sizeof msg);
  if (code == int(commpress::ErrorCode::unsupported)) {
    say(lead, call + "ScaLAPACK's (commpress: " + msg + ")");
    scalapack();
  }
}

// commpress_p?gemm_ called by name: commpress's multiply, whatever the model says.
template <class T>
void by_name(const char* ta, const char* tb, const int* m, const int* n, const int* k,
             const T* alpha, const T* a, const int* ia, const int* ja, const int* desca,
             const T* b, const int* ib, const int* jb, const int* descb, const T* beta, T* c,
             const int* ic, const int* jc, const int* descc) {
  commpress_override::Inside guard;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  say(rank == 0, std::string("commpress_") + (Names<T>::scalapack + 0) +
                     " (called by name): commpress's multiply, options from COMMPRESS_GEMM_*");
  Names<T>::commpress(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic,
                      jc, descc);
}

}  // namespace

extern "C" {

void pdgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta,
             double* c, const int* ic, const int* jc, const int* descc) {
  pgemm(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc, descc);
}

void psgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
             const float* alpha, const float* a, const int* ia, const int* ja, const int* desca,
             const float* b, const int* ib, const int* jb, const int* descb, const float* beta,
             float* c, const int* ic, const int* jc, const int* descc) {
  pgemm(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc, descc);
}

// `call commpress_pdgemm(...)` from Fortran: always commpress's multiply (its options as for
// commpress_pdgemm: COMMPRESS_GEMM_*). The hidden lengths of the two characters are unused.
void commpress_pdgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                       const double* alpha, const double* a, const int* ia, const int* ja,
                       const int* desca, const double* b, const int* ib, const int* jb,
                       const int* descb, const double* beta, double* c, const int* ic,
                       const int* jc, const int* descc) {
  by_name(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc, descc);
}

void commpress_psgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* ia, const int* ja,
                       const int* desca, const float* b, const int* ib, const int* jb,
                       const int* descb, const float* beta, float* c, const int* ic,
                       const int* jc, const int* descc) {
  by_name(ta, tb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc, descc);
}

}  // extern "C"
