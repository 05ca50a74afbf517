#include "commpress/blas_info.hpp"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <random>
#include <sstream>
#include <vector>

namespace commpress::linalg {

namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string widest_isa() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512f";
  if (__builtin_cpu_supports("avx2")) return "avx2";
#endif
  return "";
}

}  // namespace

bool blas_core_has_avx2(const std::string& core) {
  // OpenBLAS's x86 kernels built on AVX2 or AVX-512 (Zen reuses Haswell's).
  static constexpr std::array<const char*, 6> kAvx2 = {"haswell",    "zen",       "skylakex",
                                                       "cooperlake", "sapphirerapids",
                                                       "excavator"};
  const std::string c = lower(core);
  return std::any_of(kAvx2.begin(), kAvx2.end(), [&](const char* k) { return c == k; });
}

BlasInfo blas_info() {
  BlasInfo info;
  const char* config = openblas_get_config();
  const char* core = openblas_get_corename();
  info.config = config ? config : "";
  info.core = core ? core : "";
  std::istringstream words(info.config);  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..."
  words >> info.library >> info.version;
  info.threads = openblas_get_num_threads();
  info.cpu_isa = widest_isa();
  info.fit_core = info.cpu_isa == "avx512f" ? "SkylakeX" : info.cpu_isa == "avx2" ? "Haswell" : "";
  info.fallback = !info.fit_core.empty() && !blas_core_has_avx2(info.core);
  return info;
}

std::string BlasInfo::describe() const {
  std::ostringstream s;
  s << library << " " << version << ", kernel " << core << ", " << threads << " thread(s)";
  if (fallback)
    s << "; FALLBACK: the CPU has " << cpu_isa << " but this kernel has no AVX2 code: start the"
      << " program with OPENBLAS_CORETYPE=" << fit_core;
  return s.str();
}

double measure_dgemm_flops(int64_t n, int reps, int threads) {
  if (threads > 0) openblas_set_num_threads(threads);
  n = std::max<int64_t>(n, 1);
  const size_t size = size_t(n * n);
  std::vector<double> a(size), b(size), c(size);
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> u(-1, 1);
  for (size_t i = 0; i < size; ++i) a[i] = u(gen), b[i] = u(gen);
  const blasint bn = blasint(n);
  auto product = [&] {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, bn, bn, bn, 1.0, a.data(), bn,
                b.data(), bn, 0.0, c.data(), bn);
  };
  product();
  double best = 0;
  for (int i = 0; i < std::max(reps, 1); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    product();
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = i == 0 ? t : std::min(best, t);
  }
  return best > 0 ? 2.0 * double(n) * double(n) * double(n) / best : 0;
}

}  // namespace commpress::linalg
