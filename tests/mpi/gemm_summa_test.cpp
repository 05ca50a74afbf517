// SUMMA and 2.5D SUMMA on every grid shape the world's size allows: awkward sizes (some ranks
// own nothing), all transposes, both dtypes, panel widths, look-ahead on and off, lossless
// codecs bit-identical to raw panels, lossy codecs within the bound the report promises.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "commpress/codec.hpp"
#include "commpress/linalg.hpp"
#include "gemm_test_support.hpp"
#include "mpi_harness.hpp"

namespace commpress::testing {
namespace {

using linalg::GemmAlgorithm;
using linalg::GemmOptions;
using linalg::Grid;
using linalg::Trans;

struct Shape {
  int rows, cols, layers;
};

std::string name_of(const Shape& s) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols) + "x" + std::to_string(s.layers);
}

// Every 2-D grid of the world's size.
std::vector<Shape> flat_shapes() {
  std::vector<Shape> out;
  const int p = mpi::size();
  for (int r = 1; r <= p; ++r)
    if (p % r == 0) out.push_back({r, p / r, 1});
  return out;
}

// Layered grids worth checking at this size (none when the world cannot stack layers).
std::vector<Shape> layered_shapes() {
  switch (mpi::size()) {
    case 2:
      return {{1, 1, 2}};
    case 4:
      return {{1, 1, 4}, {2, 1, 2}, {1, 2, 2}};
    case 6:
      return {{1, 3, 2}, {2, 1, 3}};
    case 8:
      return {{2, 2, 2}, {1, 2, 4}};
    default:
      return {};
  }
}

Grid make_grid(const Shape& s) {
  return *Grid::create(MPI_COMM_WORLD, s.rows, s.cols, s.layers);
}

struct Case {
  Trans ta = Trans::N, tb = Trans::N;
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;
  bool nan_c = false;  // C is NaN on entry (beta must be 0)
};

template <class T>
struct Outcome {
  LocalMatrix<T> c;
  linalg::GemmReport report;
  bool ok = false;
};

template <class T>
Outcome<T> multiply(const Grid& g, GemmAlgorithm alg, const Case& cs, const GemmOptions& base) {
  LocalMatrix<T> a(cs.ta == Trans::N ? cs.m : cs.k, cs.ta == Trans::N ? cs.k : cs.m, g, 21, 0, 1);
  LocalMatrix<T> b(cs.tb == Trans::N ? cs.k : cs.n, cs.tb == Trans::N ? cs.n : cs.k, g, 22);
  Outcome<T> out{LocalMatrix<T>(cs.m, cs.n, g, 23, 0, 2), {}, false};
  if (cs.nan_c) out.c.set_all(std::numeric_limits<T>::quiet_NaN());
  GemmOptions o = base;
  o.algorithm = alg;
  auto r = linalg::gemm<T>(cs.ta, cs.tb, T(cs.alpha), a.view, b.view, T(cs.beta), out.c.view, g, o);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (r.ok()) {
    out.report = *r;
    out.ok = true;
  }
  return out;
}

template <class T>
Expected expect(const Grid& g, const Case& cs) {
  return expected_block<T>(cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, 21, 22, cs.beta, 23, g);
}

template <class T>
void check_exact(const Shape& s, GemmAlgorithm alg, const Case& cs, const GemmOptions& o = {}) {
  Grid g = make_grid(s);
  Outcome<T> got = multiply<T>(g, alg, cs, o);
  EXPECT_LE(worst_error_ratio(got.c, expect<T>(g, cs)), 1.0)
      << linalg::gemm_algorithm_name(alg) << " on " << name_of(s) << " m,n,k=" << cs.m << ","
      << cs.n << "," << cs.k << " ta=" << int(cs.ta) << " tb=" << int(cs.tb) << " panel=" << o.panel
      << " overlap=" << o.overlap << " codec=" << o.codec;
  EXPECT_EQ(got.report.guaranteed_abs_bound, 0.0);
}

template <class T>
bool same_bits(const LocalMatrix<T>& x, const LocalMatrix<T>& y) {
  return x.storage.size() == y.storage.size() &&
         std::memcmp(x.storage.data(), y.storage.data(), x.storage.size() * sizeof(T)) == 0;
}

const Trans kTrans[2] = {Trans::N, Trans::T};

TEST(GemmSumma, AllTransposesOnAwkwardSizes) {
  for (const Shape& s : flat_shapes())
    for (Trans ta : kTrans)
      for (Trans tb : kTrans) {
        check_exact<double>(s, GemmAlgorithm::Summa, {ta, tb, 101, 77, 53, -0.75, 1.5});
        check_exact<float>(s, GemmAlgorithm::Summa, {ta, tb, 37, 29, 41, 2.0, -1.0});
      }
}

TEST(GemmSumma, TinyMatricesWhereRanksOwnNothing) {
  GemmOptions o;
  for (const Shape& s : flat_shapes())
    for (int64_t panel : {int64_t(0), int64_t(1), int64_t(7)}) {
      o.panel = panel;
      check_exact<double>(s, GemmAlgorithm::Summa, {Trans::N, Trans::N, 5, 3, 2, 1.0, 0.5}, o);
      check_exact<double>(s, GemmAlgorithm::Summa, {Trans::T, Trans::T, 5, 3, 2, -2.0, 0.0}, o);
      check_exact<double>(s, GemmAlgorithm::Summa, {Trans::N, Trans::T, 3, 5, 1, 1.0, 1.0}, o);
      check_exact<float>(s, GemmAlgorithm::Summa, {Trans::T, Trans::N, 1, 1, 9, 1.0, 0.0}, o);
    }
}

TEST(GemmSumma, BetaZeroOverwritesNaNAndEmptyKAppliesBeta) {
  for (const Shape& s : flat_shapes()) {
    check_exact<double>(s, GemmAlgorithm::Summa, {Trans::N, Trans::N, 23, 19, 17, 1.0, 0.0, true});
    check_exact<float>(s, GemmAlgorithm::Summa, {Trans::T, Trans::N, 23, 19, 17, 0.5, 0.0, true});
    check_exact<double>(s, GemmAlgorithm::Summa, {Trans::N, Trans::N, 23, 19, 0, 1.0, -3.0});
    check_exact<double>(s, GemmAlgorithm::Summa, {Trans::N, Trans::N, 23, 19, 0, 1.0, 0.0, true});
    check_exact<double>(s, GemmAlgorithm::Summa, {Trans::N, Trans::T, 23, 19, 17, 0.0, 2.0});
  }
}

// The wide case has blocks of C more than 64 columns wide, multiplied in column chunks.
TEST(GemmSumma, PanelWidthsAndLookAheadAgreeBitForBit) {
  const Case narrow{Trans::T, Trans::N, 45, 38, 61, 1.25, -0.5};
  const Case wide{Trans::N, Trans::N, 24, 290, 19, -1.0, 1.0};
  for (const Shape& s : flat_shapes()) {
    Grid g = make_grid(s);
    for (const auto& [cs, panel] : {std::pair{narrow, int64_t(0)}, std::pair{narrow, int64_t(1)},
                                    std::pair{narrow, int64_t(7)}, std::pair{wide, int64_t(0)},
                                    std::pair{wide, int64_t(5)}}) {
      GemmOptions o;
      o.panel = panel;
      o.overlap = true;
      Outcome<double> ahead = multiply<double>(g, GemmAlgorithm::Summa, cs, o);
      o.overlap = false;
      Outcome<double> blocking = multiply<double>(g, GemmAlgorithm::Summa, cs, o);
      EXPECT_LE(worst_error_ratio(ahead.c, expect<double>(g, cs)), 1.0)
          << name_of(s) << " panel " << panel;
      EXPECT_TRUE(same_bits(ahead.c, blocking.c)) << name_of(s) << " panel " << panel;
    }
  }
}

// Uncompressed, every element of op(A) and op(B) leaves its owner once per grid row (column)
// broadcast, so the ranks' raw bytes add up to the operands' sizes.
TEST(GemmSumma, ReportCountsEveryPanelOnce) {
  const Case cs{Trans::N, Trans::N, 30, 22, 26, 1.0, 0.0};
  for (const Shape& s : flat_shapes()) {
    Grid g = make_grid(s);
    Outcome<double> got = multiply<double>(g, GemmAlgorithm::Summa, cs, {});
    uint64_t raw = got.report.raw_bytes, sent = got.report.bytes_sent;
    MPI_Allreduce(MPI_IN_PLACE, &raw, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &sent, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    const uint64_t want = (s.cols > 1 ? cs.m * cs.k : 0) + (s.rows > 1 ? cs.k * cs.n : 0);
    EXPECT_EQ(raw, want * sizeof(double)) << name_of(s);
    EXPECT_EQ(sent, raw) << name_of(s);
    if (mpi::size() > 1) {
      EXPECT_GT(got.report.memory_bytes, 0u) << name_of(s);
    }
    EXPECT_EQ(got.report.algorithm, GemmAlgorithm::Summa);
  }
}

std::vector<std::string> lossless_codecs() {
  std::vector<std::string> out = {"zstd-1", "lz4"};
  for (const codec::Codec* c : codec::list_codecs())
    if (!c->lossy() && std::string(c->name()).rfind("blosc", 0) == 0) {
      out.emplace_back(c->name());
      break;
    }
  return out;
}

TEST(GemmSumma, LosslessCodecsAreBitIdenticalToRawPanels) {
  const Case cs{Trans::N, Trans::T, 41, 35, 47, -1.0, 0.5};
  for (const Shape& s : flat_shapes()) {
    Grid g = make_grid(s);
    for (bool overlap : {true, false}) {
      GemmOptions o;
      o.panel = 7;
      o.overlap = overlap;
      Outcome<double> plain = multiply<double>(g, GemmAlgorithm::Summa, cs, o);
      Outcome<float> plain32 = multiply<float>(g, GemmAlgorithm::Summa, cs, o);
      for (const std::string& name : lossless_codecs()) {
        o.codec = name;
        Outcome<double> packed = multiply<double>(g, GemmAlgorithm::Summa, cs, o);
        Outcome<float> packed32 = multiply<float>(g, GemmAlgorithm::Summa, cs, o);
        EXPECT_TRUE(same_bits(plain.c, packed.c)) << name << " on " << name_of(s);
        EXPECT_TRUE(same_bits(plain32.c, packed32.c)) << name << " f32 on " << name_of(s);
        EXPECT_EQ(packed.report.guaranteed_abs_bound, 0.0);
        if (mpi::size() > 1 && packed.ok) {
          EXPECT_GT(packed.report.raw_bytes, 0u);
        }
        o.codec = "none";
      }
    }
  }
}

// |C - exact| <= the promised bound (from the perturbed inputs) plus the rounding any
// summation order may produce.
template <class T>
void check_lossy(const Shape& s, GemmAlgorithm alg, const std::string& name, const Case& cs,
                 int64_t panel) {
  Grid g = make_grid(s);
  GemmOptions o;
  o.codec = name;
  o.bound = codec::ErrorBound::relative(1e-6);
  o.panel = panel;
  Outcome<T> got = multiply<T>(g, alg, cs, o);
  const Expected e = expect<T>(g, cs);
  const double bound = got.report.guaranteed_abs_bound;
  // On one rank no panel travels, so nothing is compressed and the product is exact.
  const bool travels = s.rows * s.cols * s.layers > 1;
  EXPECT_EQ(got.report.codec, travels ? name : std::string("none")) << name_of(s);
  if (travels) {
    EXPECT_GT(bound, 0.0) << name;
  } else {
    EXPECT_EQ(bound, 0.0) << name;
  }
  double worst = 0;
  for (int64_t j = 0; j < e.cols; ++j)
    for (int64_t i = 0; i < e.rows; ++i) {
      const size_t at = size_t(i + j * e.rows);
      const double d = std::fabs(double(got.c.at(i, j)) - e.value[at]);
      worst = std::max(worst, std::isnan(d) ? INFINITY : d / (bound + e.tolerance[at]));
    }
  EXPECT_LE(worst, 1.0) << name << " via " << linalg::gemm_algorithm_name(alg) << " on "
                        << name_of(s);
  // Doubles at a 1e-6 relative bound shrink well below their 64 bits, so the panels that
  // travelled (summed over the ranks) must have been compressed.
  uint64_t bytes[2] = {got.report.raw_bytes, got.report.bytes_sent};
  MPI_Allreduce(MPI_IN_PLACE, bytes, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (sizeof(T) == 8 && mpi::size() > 1) {
    EXPECT_LT(bytes[1], bytes[0]) << name << " on " << name_of(s);
  }
  if (std::getenv("COMMPRESS_TEST_VERBOSE") && mpi::rank() == 0)
    std::printf("%s %s on %s: raw %llu sent %llu bytes\n", name.c_str(),
                linalg::gemm_algorithm_name(alg), name_of(s).c_str(), (unsigned long long)bytes[0],
                (unsigned long long)bytes[1]);
}

TEST(GemmSumma, LossyCodecsStayWithinTheReportedBound) {
  for (const Shape& s : flat_shapes())
    for (const char* name : {"szp", "zfp"}) {
      check_lossy<double>(s, GemmAlgorithm::Summa, name, {Trans::N, Trans::N, 53, 44, 61, 1.5, 0.5},
                          0);
      check_lossy<float>(s, GemmAlgorithm::Summa, name, {Trans::T, Trans::T, 31, 26, 33, -1.0, 0.0},
                         7);
    }
}

// Where no panel travels nothing is compressed: the report names no codec and promises the
// exact product (rounding only), whatever codec was asked for.
TEST(GemmSumma, ReportsTheCodecOnlyWhereSomethingWasCompressed) {
  const Case cs{Trans::N, Trans::N, 45, 38, 52, 1.0, 0.0};
  GemmOptions o;
  o.bound = codec::ErrorBound::relative(1e-3);
  auto alone = Grid::create(MPI_COMM_SELF, 1, 1);
  ASSERT_TRUE(alone.ok()) << alone.status().to_string();
  for (const char* name : {"szp", "zfp", "zstd-1"}) {
    o.codec = name;
    if (std::string(name) == "zstd-1") o.bound = codec::ErrorBound::lossless();
    Outcome<double> got = multiply<double>(*alone, GemmAlgorithm::Summa, cs, o);
    EXPECT_EQ(got.report.codec, "none") << name;
    EXPECT_EQ(got.report.guaranteed_abs_bound, 0.0) << name;
    EXPECT_LE(worst_error_ratio(got.c, expect<double>(*alone, cs)), 1.0) << name;
  }
}

TEST(GemmSumma25D, OneLayerIsSumma) {
  const Case cs{Trans::T, Trans::N, 57, 41, 39, 0.75, 1.0};
  for (const Shape& s : flat_shapes()) {
    Grid g = make_grid(s);
    for (const char* name : {"none", "zstd-1"}) {
      GemmOptions o;
      o.codec = name;
      Outcome<double> flat = multiply<double>(g, GemmAlgorithm::Summa, cs, o);
      Outcome<double> stacked = multiply<double>(g, GemmAlgorithm::Summa25D, cs, o);
      EXPECT_TRUE(same_bits(flat.c, stacked.c)) << name << " on " << name_of(s);
    }
  }
}

TEST(GemmSumma25D, LayeredGridsMatchTheReference) {
  for (const Shape& s : layered_shapes()) {
    for (Trans ta : kTrans)
      for (Trans tb : kTrans)
        check_exact<double>(s, GemmAlgorithm::Summa25D, {ta, tb, 101, 77, 53, -0.75, 1.5});
    GemmOptions o;
    for (bool overlap : {true, false})
      for (int64_t panel : {int64_t(0), int64_t(1), int64_t(7)}) {
        o.overlap = overlap;
        o.panel = panel;
        check_exact<float>(s, GemmAlgorithm::Summa25D,
                           {Trans::N, Trans::T, 29, 31, 37, 2.0, 0.0, true}, o);
        check_exact<double>(s, GemmAlgorithm::Summa25D, {Trans::T, Trans::N, 5, 3, 2, 1.0, 0.5}, o);
        check_exact<double>(s, GemmAlgorithm::Summa25D,
                            {Trans::N, Trans::N, 4, 6, 1, 1.0, 0.0, true}, o);
      }
    check_exact<double>(s, GemmAlgorithm::Summa25D, {Trans::N, Trans::N, 7, 5, 0, 1.0, 2.0});
    check_exact<double>(s, GemmAlgorithm::Summa25D, {Trans::N, Trans::N, 7, 5, 0, 1.0, 0.0, true});
  }
}

TEST(GemmSumma25D, CompressedLayersLosslessAndLossy) {
  const Case cs{Trans::N, Trans::N, 43, 37, 50, 1.0, -1.0};
  for (const Shape& s : layered_shapes()) {
    Grid g = make_grid(s);
    GemmOptions o;
    o.panel = 5;
    Outcome<double> plain = multiply<double>(g, GemmAlgorithm::Summa25D, cs, o);
    EXPECT_LE(worst_error_ratio(plain.c, expect<double>(g, cs)), 1.0) << name_of(s);
    for (const std::string& name : lossless_codecs()) {
      o.codec = name;
      Outcome<double> packed = multiply<double>(g, GemmAlgorithm::Summa25D, cs, o);
      EXPECT_TRUE(same_bits(plain.c, packed.c)) << name << " on " << name_of(s);
    }
    for (const char* name : {"szp", "zfp"}) {
      check_lossy<double>(s, GemmAlgorithm::Summa25D, name, cs, 0);
      check_lossy<float>(s, GemmAlgorithm::Summa25D, name,
                         {Trans::T, Trans::N, 21, 18, 25, 0.5, 0.0}, 3);
    }
  }
}

TEST(GemmSumma, RefusesLayeredGrids) {
  for (const Shape& s : layered_shapes()) {
    Grid g = make_grid(s);
    LocalMatrix<double> a(6, 5, g, 1), b(5, 4, g, 2), c(6, 4, g, 3);
    GemmOptions o;
    o.algorithm = GemmAlgorithm::Summa;
    auto r = linalg::gemm<double>(Trans::N, Trans::N, 1.0, a.view, b.view, 0.0, c.view, g, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::invalid_argument) << r.status().to_string();
  }
}

}  // namespace
}  // namespace commpress::testing
