// The range of the finite values: the one full pass a REL bound costs before compression,
// so it is written to vectorize (finiteness from the exponent bits, no branches) and to use
// every OpenMP thread on large arrays.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <omp.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "commpress/codec.hpp"

namespace commpress::codec {

namespace {

// Folds v into the running min and max of the finite values.
template <class T, class U>
inline void fold_finite(T v, T& mn, T& mx) {
  constexpr U kExp = std::is_same_v<T, float> ? U(0x7f800000u) : U(0x7ff0000000000000ull);
  constexpr T kInf = std::numeric_limits<T>::infinity();
  bool finite = (std::bit_cast<U>(v) & kExp) != kExp;
  T lo_v = finite ? v : kInf, hi_v = finite ? v : -kInf;
  // Written as the compare-select that min/max instructions implement, so it vectorizes.
  mn = lo_v < mn ? lo_v : mn;
  mx = hi_v > mx ? hi_v : mx;
}

// Copies from a sixteenth of the last-level cache up bypass the caches (non-temporal stores):
// the copy is then written once instead of read for ownership and written back, and with
// every rank of a node copying, copies this large leave the cache before MPI reads them back.
// glibc's memcpy streams only from 3/4 of the cache up, too late for that. Below the limit
// the cached copy measured faster (docs/measured-choices.md).
size_t stream_from() {
  static const size_t bytes = [] {
#ifdef _SC_LEVEL3_CACHE_SIZE
    const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc > 0) return std::max(size_t{4} << 20, size_t(llc) / 16);
#endif
    return size_t{32} << 20;
  }();
  return bytes;
}

// 64 bytes from src to the 64-byte aligned dst, around the caches.
inline void stream_line(std::byte* dst, const std::byte* src) {
#if defined(__AVX512F__)
  _mm512_stream_si512(reinterpret_cast<__m512i*>(dst), _mm512_loadu_si512(src));
#elif defined(__AVX__)
  for (int k = 0; k < 64; k += 32)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + k),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k)));
#elif defined(__SSE2__)
  for (int k = 0; k < 64; k += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k)));
#else
  std::memcpy(dst, src, 64);
#endif
}

// One thread's pass, copying to `out` too when kCopy. Kept apart from the parallel split: GCC
// does not vectorize the serial fallback of an `omp parallel for simd ... if (...)` loop, which
// made small arrays many times slower. kLanes running minima and maxima instead of one vector
// of each: with a single pair every min waits for the latency of the previous one, and
// independent lanes hide it (docs/measured-choices.md).
// kStream (with kCopy): the copy goes around the caches, 64-byte lines at a time.
template <class T, class U, bool kCopy, bool kStream = false>
void range_pass(const T* x, size_t n, T& mn, T& mx, T* out) {
  constexpr size_t kLanes = 64;
  constexpr T kInf = std::numeric_limits<T>::infinity();
  alignas(64) T lo[kLanes], hi[kLanes];
  for (size_t j = 0; j < kLanes; ++j) lo[j] = mn, hi[j] = mx;
  size_t i = 0;
  if constexpr (kStream)  // up to the first element of out on a 64-byte boundary
    for (; i < n && reinterpret_cast<uintptr_t>(out + i) % 64 != 0; ++i) {
      out[i] = x[i];
      fold_finite<T, U>(x[i], lo[0], hi[0]);
    }
  for (; i + kLanes <= n; i += kLanes) {
    // ivdep: out never overlaps x. (An omp simd pragma here crashes clang 14 under UBSan.)
#pragma GCC ivdep
    for (size_t j = 0; j < kLanes; ++j) {
      T v = x[i + j];
      if constexpr (kCopy && !kStream) out[i + j] = v;
      fold_finite<T, U>(v, lo[j], hi[j]);
    }
    if constexpr (kStream)  // the lanes just read, still in L1
      for (size_t b = 0; b < kLanes * sizeof(T); b += 64)
        stream_line(reinterpret_cast<std::byte*>(out + i) + b,
                    reinterpret_cast<const std::byte*>(x + i) + b);
  }
  for (; i < n; ++i) {
    if constexpr (kCopy) out[i] = x[i];
    fold_finite<T, U>(x[i], lo[0], hi[0]);
  }
#if defined(__SSE2__)
  if constexpr (kStream) _mm_sfence();  // the streamed stores are visible before the copy is read
#endif
  T a = kInf, b = -kInf;
  for (size_t j = 0; j < kLanes; ++j) a = lo[j] < a ? lo[j] : a, b = hi[j] > b ? hi[j] : b;
  mn = a;
  mx = b;
}

template <class T, class U, bool kCopy>
void range_of(const T* x, size_t n, T& lo, T& hi, T* out) {
  constexpr T kInf = std::numeric_limits<T>::infinity();
  constexpr size_t kPerThread = size_t{1} << 18;  // below this, threads cost more than they save
  T mn = kInf, mx = -kInf;
  const bool stream = kCopy && n * sizeof(T) >= stream_from();
  auto pass = [&](const T* from, size_t count, T& low, T& high, T* to) {
    if (stream)
      range_pass<T, U, true, true>(from, count, low, high, to);
    else
      range_pass<T, U, kCopy>(from, count, low, high, to);
  };
  if (n <= kPerThread) {
    pass(x, n, mn, mx, out);
  } else {
#pragma omp parallel reduction(min : mn) reduction(max : mx)
    {
      const size_t threads = size_t(omp_get_num_threads()), t = size_t(omp_get_thread_num());
      const size_t begin = n * t / threads, end = n * (t + 1) / threads;
      pass(x + begin, end - begin, mn, mx, kCopy ? out + begin : nullptr);
    }
  }
  lo = mn;
  hi = mx;
}

template <bool kCopy>
ValueRange range_and_copy(const void* data, size_t n, Dtype d, void* copy) {
  ValueRange r;
  if (d == Dtype::f32) {
    float lo, hi;
    range_of<float, uint32_t, kCopy>(static_cast<const float*>(data), n, lo, hi,
                                     static_cast<float*>(copy));
    r = {double(lo), double(hi), lo <= hi};
  } else if (d == Dtype::f64) {
    range_of<double, uint64_t, kCopy>(static_cast<const double*>(data), n, r.min, r.max,
                                      static_cast<double*>(copy));
    r.any_finite = r.min <= r.max;
  } else if (kCopy && n) {
    std::memcpy(copy, data, n * dtype_size(d));
  }
  if (!r.any_finite) r.min = r.max = 0;
  return r;
}

}  // namespace

double ValueRange::max_abs() const { return any_finite ? std::max(std::fabs(min), std::fabs(max)) : 0.0; }

ValueRange finite_range(const void* data, size_t n, Dtype d) {
  return range_and_copy<false>(data, n, d, nullptr);
}

ValueRange finite_range_copy(const void* data, size_t n, Dtype d, void* copy) {
  return range_and_copy<true>(data, n, d, copy);
}

namespace {

// The extended type holds every difference of two doubles and every product of such a
// difference with a double without overflow or underflow, so rounding is the only error left.
using Wide = long double;
using Narrow = std::numeric_limits<double>;
static_assert(std::numeric_limits<Wide>::max_exponent > 2 * Narrow::max_exponent &&
                  std::numeric_limits<Wide>::min_exponent <
                      2 * (Narrow::min_exponent - Narrow::digits),
              "rel_to_abs needs a long double whose exponent range covers double products");

// The error-free transformations (TwoSum, and the fused multiply-add for a product) tell
// whether a result was rounded up; stepping it down then makes it a lower bound.
Wide difference_down(Wide a, Wide b) {
  const Wide s = a - b, bv = s - a, err = (a - (s - bv)) + (-b - bv);
  return err < 0 ? std::nextafter(s, Wide(0)) : s;
}

Wide product_down(Wide a, Wide b) {
  const Wide p = a * b;
  return std::fma(a, b, -p) < 0 ? std::nextafter(p, Wide(0)) : p;
}

}  // namespace

double rel_to_abs(double rel, const ValueRange& r, Dtype d) {
  if (!r.any_finite || !(r.max > r.min) || !(rel > 0)) return 0.0;  // only exact values fit rel x 0
  const Wide bound = product_down(Wide(rel), difference_down(Wide(r.max), Wide(r.min)));
  if (bound >= Wide(std::numeric_limits<double>::max())) return std::numeric_limits<double>::max();
  double eb = double(bound);
  if (Wide(eb) > bound) eb = std::nextafter(eb, 0.0);
  // Below the dtype's smallest normal number a quantizer's step is subnormal or 0 and its
  // inverse overflows: such a bound is honoured by carrying the data exactly, as a range of 0.
  const double smallest = d == Dtype::f32 ? double(std::numeric_limits<float>::min())
                                          : std::numeric_limits<double>::min();
  return eb < smallest ? 0.0 : eb;
}

}  // namespace commpress::codec
