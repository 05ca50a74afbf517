// Speed of the codec kernels in whichever build of the codec library the loader picks (a
// glibc-hwcaps level of the default build, its baseline, or a COMMPRESS_NATIVE build), so
// that bench/dispatch/run can set builds side by side in alternating rounds. Times on the
// calling thread's CPU clock (OMP_NUM_THREADS=1), which other processes on a shared machine
// barely move. Per kernel set the library can run (the one it chose; with GFNI chosen, also
// the plain AVX-512 one), one CSV line per codec step:
//   kernels,dtype,step,mb_per_s
// Usage: bench_dispatch [values (default 4194304)] [repeats (default 5)]
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "codec/homomorphic/kernel_dispatch.hpp"
#include "commpress/codec.hpp"
#include "commpress/homomorphic.hpp"

namespace cc = commpress::codec;
namespace hm = commpress::codec::homomorphic;

namespace {

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Median thread-CPU seconds of `repeats` calls, after one warm-up call.
double median_seconds(int repeats, const std::function<commpress::Status()>& body) {
  if (!body().ok()) std::exit(1);
  std::vector<double> s;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = thread_seconds();
    const commpress::Status st = body();
    s.push_back(thread_seconds() - t0);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.to_string().c_str());
      std::exit(1);
    }
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

// A smooth field with noise, as a simulation's would be; seed moves its phase.
template <class T>
std::vector<T> field(size_t n, double seed) {
  std::vector<T> x(n);
  uint64_t state = 0x9E3779B97F4A7C15ull * uint64_t(seed + 1);
  for (size_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double noise = double(state >> 11) * 0x1p-53 - 0.5;
    const double t = double(i) * 1e-4 + seed;
    x[i] = T(std::sin(t) + 0.5 * std::sin(7.3 * t) + 0.01 * noise);
  }
  return x;
}

template <class T>
void measure(const char* kernels, size_t n, int repeats) {
  const cc::Codec* szp = cc::find_codec("szp");
  const auto a = field<T>(n, 0), b = field<T>(n, 1.7);
  const double mb = double(n * sizeof(T)) / 1e6;
  const auto bound = cc::ErrorBound::absolute(1e-3);
  std::vector<std::byte> fa, fb, out;
  std::vector<T> back(n);
  const char* dtype = sizeof(T) == 4 ? "f32" : "f64";
  auto line = [&](const char* step, double s) {
    std::printf("%s,%s,%s,%.1f\n", kernels, dtype, step, mb / s);
  };
  line("szp_compress", median_seconds(repeats, [&] {
         return szp->compress(a.data(), n, cc::dtype_of<T>(), bound, fa);
       }));
  if (!szp->compress(b.data(), n, cc::dtype_of<T>(), bound, fb).ok()) std::exit(1);
  line("szp_decompress", median_seconds(repeats, [&] {
         return szp->decompress(fa, back.data(), n, cc::dtype_of<T>());
       }));
  line("combine", median_seconds(repeats, [&] {
         return cc::combine(fa, fb, cc::CombineOp::sum, out);
       }));
  line("combine_raw", median_seconds(repeats, [&] {
         return cc::combine_raw(std::span<const T>(b), fa, cc::CombineOp::sum, out);
       }));
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t(1) << 22;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<hm::Kernels> sets = {hm::active_kernels()};
  if (sets[0] == hm::Kernels::avx512_gfni) sets.push_back(hm::Kernels::avx512);
  for (hm::Kernels k : sets) {
    hm::use_kernels(k);
    measure<float>(hm::kernels_name(k), n, repeats);
    measure<double>(hm::kernels_name(k), n, repeats);
  }
  return 0;
}
