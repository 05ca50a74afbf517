// The AVX-512 and AVX2 kernels of the interpolation runs of step 2 and 4
// (interpolation_kernels_avx512.hpp, interpolation_kernels_avx2.hpp) against the portable
// path (interpolation_runs.hpp, interpolation_quantizer.hpp), walked as the Huffman-coded
// shaped payloads walk them (shaped_huffman.cpp): the kernel first, the portable path for
// what it leaves. Symbols and values must be the same bit for bit, on every run kind,
// partial groups, values the bound refuses and stored values. tests/CMakeLists.txt builds
// this file twice, for x86-64-v4 (the AVX-512 kernels) and x86-64-v3 (the AVX2 ones); each
// skips on a CPU without its instructions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "codec/lossy/szp/interpolation_kernels_avx2.hpp"
#include "codec/lossy/szp/interpolation_kernels_avx512.hpp"
#include "codec/lossy/szp/interpolation_quantizer.hpp"
#include "codec/lossy/szp/interpolation_runs.hpp"

#if defined(COMMPRESS_INTERPOLATION_KERNEL_LANES)

namespace szp = commpress::codec::szp;

namespace {

constexpr size_t kBlock = 512;  // values a run is taken in, as the codec does

constexpr size_t kLanes = COMMPRESS_INTERPOLATION_KERNEL_LANES;  // values a kernel's group holds

bool cpu_has_kernels() {
  if (kLanes == 8)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
           __builtin_cpu_supports("bmi2");
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
}

// The runs the kernels take, as the codec gives them.
bool strided(const szp::InterpRun& r) {
  return (r.step == 2 || r.step == 4) && r.kind != szp::RunKind::zero;
}

// What the kernels did, to check the test reaches what it means to.
struct Seen {
  size_t by_kind[5] = {};  // values the kernels took, by RunKind
  size_t by_step[2] = {};  // ... of runs of step 2 and 4
  size_t partial = 0;      // calls whose values ended inside a group
  size_t stopped = 0;      // calls that left values of their block to the portable path
};

// Values from x, predictions from and reconstructions into v (the same indices).
void encode_portable(float* v, const float* x, const szp::InterpRun& r, size_t i0, size_t m,
                     float h, float accept, uint16_t* sym) {
  std::vector<float> pred(m), val(m), out(m);
  szp::predict_run<float, true>(v, r, i0, m, pred.data());
  szp::gather_run(x, r, i0, m, val.data());
  szp::quantize_block(val.data(), pred.data(), m, h, 1.0f / h, accept, sym, out.data());
  szp::scatter_run(out.data(), r, i0, m, v);
}

// A stored value (symbol 0) decodes to what the test says was stored at its code index.
float stored_at(size_t code) {
  return float(code) * 0.25f - 3.0f;
}

void decode_portable(float* v, const szp::InterpRun& r, size_t i0, size_t m, float h,
                     const uint16_t* sym) {
  std::vector<float> pred(m), val(m);
  szp::predict_run<float, true>(v, r, i0, m, pred.data());
  szp::reconstruct_block(pred.data(), sym, m, h, val.data());
  for (size_t t = 0; t < m; ++t)
    if (sym[t] == 0) val[t] = stored_at(r.code + i0 + t);
  szp::scatter_run(val.data(), r, i0, m, v);
}

// Smooth values with noise, and a few so large that their codes overflow (refused).
std::vector<float> field(const szp::Box& b, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  std::vector<float> x(b.count());
  for (size_t z = 0; z < b.nz; ++z)
    for (size_t y = 0; y < b.ny; ++y)
      for (size_t q = 0; q < b.nx; ++q)
        x[(z * b.ny + y) * b.nx + q] = std::sin(0.3f * float(z)) * std::cos(0.2f * float(y)) +
                                       0.5f * std::sin(0.15f * float(q + z)) + noise(rng);
  for (int k = 0; k < 6; ++k) x[rng() % x.size()] = 1e30f;
  return x;
}

void check_box(const szp::Box& b, float h, uint64_t seed, Seen& seen) {
  SCOPED_TRACE(testing::Message() << b.nz << "x" << b.ny << "x" << b.nx << " h " << h);
  const std::vector<float> x = field(b, seed);
  const size_t len = b.count();
  const float accept = h * 0.5f;
  // The portable path starts from the values; the kernels' reconstructions start as NaN,
  // which would change symbols if a prediction read a position no earlier pass wrote. As
  // the codec does, the kernels do not write back the last pass (the x-pass of stride 1).
  std::vector<float> fast(len, std::nanf("")), slow = x;
  std::vector<uint16_t> sym_fast(len, 0xFFFF), sym_slow(len, 0xFFFF);
  szp::interpolation_runs(
      b,
      [&](const szp::InterpRun& r) {
        const bool keep = !(r.stride == 1 && r.sd == 1 && r.kind == szp::RunKind::row);
        for (size_t b0 = 0; b0 < r.n; b0 += kBlock) {
          const size_t m = std::min(kBlock, r.n - b0);
          encode_portable(slow.data(), slow.data(), r, b0, m, h, accept,
                          sym_slow.data() + r.code + b0);
          size_t done = 0;
          if (strided(r)) {
            uint16_t* sym = sym_fast.data() + r.code + b0;
            done = r.step == 2
                       ? szp::detail::quantize_strided<2>(fast.data(), x.data(), len, r, b0, m, h,
                                                          1.0f / h, accept, sym, keep)
                       : szp::detail::quantize_strided<4>(fast.data(), x.data(), len, r, b0, m, h,
                                                          1.0f / h, accept, sym, keep);
            seen.by_kind[int(r.kind)] += done;
            seen.by_step[r.step / 4] += done;
            seen.partial += done % kLanes != 0;
            seen.stopped += done < m;
          }
          if (done < m)
            encode_portable(fast.data(), x.data(), r, b0 + done, m - done, h, accept,
                            sym_fast.data() + r.code + b0 + done);
        }
      },
      true, true);
  ASSERT_EQ(sym_fast, sym_slow);
  for (size_t j = 0; j < len; ++j)  // (odd x: the last pass, whose values no one reads)
    if (j % b.nx % 2 == 0) {
      ASSERT_EQ(std::memcmp(&fast[j], &slow[j], sizeof(float)), 0) << "at " << j;
    }

  // Decoding the symbols: stored values (the refused ones, and symbols set to 0 here) in
  // some groups; the output starts as garbage that must not matter.
  std::vector<uint16_t> sym = sym_slow;
  for (size_t c = 5; c < len; c += 997) sym[c] = 0;
  std::vector<float> out_fast(len, 7.0f), out_slow(len, -2.0f);
  szp::interpolation_runs(
      b,
      [&](const szp::InterpRun& r) {
        for (size_t b0 = 0; b0 < r.n; b0 += kBlock) {
          const size_t m = std::min(kBlock, r.n - b0);
          const uint16_t* s = sym.data() + r.code + b0;
          decode_portable(out_slow.data(), r, b0, m, h, s);
          size_t done = 0;
          if (strided(r)) {
            done = r.step == 2
                       ? szp::detail::reconstruct_strided<2>(out_fast.data(), len, r, b0, m, h, s)
                       : szp::detail::reconstruct_strided<4>(out_fast.data(), len, r, b0, m, h, s);
            seen.stopped += done < m;
          }
          if (done < m) decode_portable(out_fast.data(), r, b0 + done, m - done, h, s + done);
        }
      },
      true, true);
  ASSERT_EQ(std::memcmp(out_fast.data(), out_slow.data(), len * sizeof(float)), 0);
}

TEST(InterpolationKernels, StridedRunsMatchThePortablePathBitForBit) {
  if (!cpu_has_kernels()) GTEST_SKIP() << "the CPU lacks the kernels' instructions";
  Seen seen;
  const std::vector<szp::Box> boxes = {{12, 10, 70, 12}, {9, 33, 40, 9}, {5, 7, 130, 5},
                                       {20, 20, 20, 20}, {3, 2, 300, 3}, {16, 16, 33, 16}};
  uint64_t seed = 1;
  for (const szp::Box& b : boxes)
    for (float h : {0.002f, 0.05f, 0.6f}) check_box(b, h, seed++, seen);
  for (szp::RunKind k :
       {szp::RunKind::left, szp::RunKind::linear, szp::RunKind::cubic, szp::RunKind::row})
    EXPECT_GT(seen.by_kind[int(k)], 0u) << "kind " << int(k) << " never reached the kernels";
  EXPECT_GT(seen.by_step[0], 0u);
  EXPECT_GT(seen.by_step[1], 0u);
  EXPECT_GT(seen.partial, 0u);
  EXPECT_GT(seen.stopped, 0u);
}

}  // namespace

#else

TEST(InterpolationKernels, StridedRunsMatchThePortablePathBitForBit) {
  GTEST_SKIP() << "built without AVX2 or AVX-512 (tests/CMakeLists.txt builds this file for both)";
}

#endif
