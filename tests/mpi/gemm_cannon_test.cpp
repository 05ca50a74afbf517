// Cannon and 2.5D Cannon on the grids the world size allows (1x1, 2x2, 3x3 for Cannon;
// 1x1x1, 1x1x4, 2x2x2, 3x3x1 for 2.5D): every transpose combination on sizes that divide
// nothing (some ranks own nothing), against the serial reference; lossless codecs and the
// overlap switch bit-identical to the plain run; lossy codecs within the reported bound;
// sparse inputs that compress; refused grids failing alike on every rank.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "commpress/linalg.hpp"
#include "gemm_test_support.hpp"
#include "mpi_harness.hpp"

namespace commpress::testing {
namespace {

using linalg::GemmAlgorithm;
using linalg::GemmOptions;
using linalg::GemmReport;
using linalg::Grid;
using linalg::Trans;

constexpr uint64_t kSeedA = 11, kSeedB = 12, kSeedC = 13;

// Cannon's square grid for this world size, if it has one.
std::optional<Grid> cannon_grid() {
  const int p = mpi::size();
  for (int q = 1; q <= 3; ++q)
    if (q * q == p) return *Grid::create(MPI_COMM_WORLD, q, q);
  return std::nullopt;
}

// A 2.5D grid for every world size this test runs at (more layers than steps at 4 ranks).
Grid grid_25d() {
  const int p = mpi::size();
  if (p == 8) return *Grid::create(MPI_COMM_WORLD, 2, 2, 2);
  if (p == 9) return *Grid::create(MPI_COMM_WORLD, 3, 3, 1);
  return *Grid::create(MPI_COMM_WORLD, 1, 1, p);
}

struct Case {
  Trans ta = Trans::N, tb = Trans::N;
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;
  double zeros = 0;  // fraction of exact zeros in A and B
};

std::string describe(const Case& c, const GemmOptions& o, const char* type) {
  return std::string(type) + " " + (c.ta == Trans::N ? "N" : "T") +
         (c.tb == Trans::N ? "N" : "T") + " " + std::to_string(c.m) + "x" + std::to_string(c.n) +
         "x" + std::to_string(c.k) + " alpha=" + std::to_string(c.alpha) +
         " beta=" + std::to_string(c.beta) + " codec=" + o.codec +
         " overlap=" + std::to_string(o.overlap);
}

template <class T>
const char* type_name() {
  return sizeof(T) == 4 ? "f32" : "f64";
}

template <class T>
struct Outcome {
  LocalMatrix<T> c;
  Result<GemmReport> report;
};

// C (NaN on entry when beta == 0, which must not survive) = alpha op(A) op(B) + beta C.
template <class T>
Outcome<T> multiply(const Grid& g, const Case& cs, const GemmOptions& o) {
  LocalMatrix<T> a(cs.ta == Trans::N ? cs.m : cs.k, cs.ta == Trans::N ? cs.k : cs.m, g, kSeedA,
                   cs.zeros, 1);
  LocalMatrix<T> b(cs.tb == Trans::N ? cs.k : cs.n, cs.tb == Trans::N ? cs.n : cs.k, g, kSeedB,
                   cs.zeros);
  LocalMatrix<T> c(cs.m, cs.n, g, kSeedC, 0, 2);
  if (cs.beta == 0) c.set_all(std::numeric_limits<T>::quiet_NaN());
  auto r = linalg::gemm<T>(cs.ta, cs.tb, T(cs.alpha), a.view, b.view, T(cs.beta), c.view, g, o);
  return {std::move(c), std::move(r)};
}

template <class T>
Expected reference(const Grid& g, const Case& cs) {
  return expected_block<T>(cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, kSeedA, kSeedB, cs.beta,
                           kSeedC, g, cs.zeros, cs.zeros);
}

// Same bits in every element this rank owns (padding excluded).
template <class T>
bool same_bits(const LocalMatrix<T>& x, const LocalMatrix<T>& y, const Grid& g) {
  for (int64_t j = 0; j < x.view.local_cols(g); ++j)
    for (int64_t i = 0; i < x.view.local_rows(g); ++i) {
      const T u = x.at(i, j), v = y.at(i, j);
      if (std::memcmp(&u, &v, sizeof(T)) != 0) return false;
    }
  return true;
}

std::vector<Case> awkward_cases() {
  std::vector<Case> out;
  for (Trans ta : {Trans::N, Trans::T})
    for (Trans tb : {Trans::N, Trans::T}) {
      out.push_back({ta, tb, 101, 77, 53, 1.0, 0.0});
      out.push_back({ta, tb, 101, 77, 53, -0.5, 2.0});
      out.push_back({ta, tb, 5, 3, 2, 1.5, 0.0});   // most ranks own little or nothing
      out.push_back({ta, tb, 7, 9, 1, 2.0, -1.0});  // k = 1: one non-empty k block
    }
  out.push_back({Trans::N, Trans::N, 6, 5, 0, 1.0, 0.5});  // k = 0: C = beta C
  out.push_back({Trans::N, Trans::T, 6, 5, 0, 1.0, 0.0});  // k = 0, beta = 0: zeros
  out.push_back({Trans::T, Trans::N, 0, 4, 3, 1.0, 1.0});  // empty C
  return out;
}

GemmOptions options(GemmAlgorithm alg, const std::string& codec, bool overlap,
                    codec::ErrorBound bound = codec::ErrorBound::lossless()) {
  GemmOptions o;
  o.algorithm = alg;
  o.codec = codec;
  o.overlap = overlap;
  o.bound = bound;
  return o;
}

// Every awkward case, both overlaps, against the reference; overlap on and off give the same
// bits (the same products in the same order).
template <class T>
void check_exact(const Grid& g, GemmAlgorithm alg) {
  for (const Case& cs : awkward_cases()) {
    auto off = multiply<T>(g, cs, options(alg, "none", false));
    auto on = multiply<T>(g, cs, options(alg, "none", true));
    const std::string what = describe(cs, options(alg, "none", true), type_name<T>());
    ASSERT_TRUE(on.report.ok()) << what << ": " << on.report.status().to_string();
    ASSERT_TRUE(off.report.ok()) << what << ": " << off.report.status().to_string();
    EXPECT_EQ(on.report->algorithm, alg) << what;
    EXPECT_EQ(on.report->guaranteed_abs_bound, 0.0) << what;
    EXPECT_EQ(on.report->raw_bytes, on.report->bytes_sent) << what << ": nothing compressed";
    EXPECT_LE(worst_error_ratio(on.c, reference<T>(g, cs)), 1.0) << what;
    EXPECT_TRUE(same_bits(on.c, off.c, g)) << what << ": overlap changed the result";
  }
}

// Lossless codecs circulate the same values: bit-identical to the uncompressed run.
template <class T>
void check_lossless(const Grid& g, GemmAlgorithm alg) {
  for (const char* codec : {"zstd-1", "lz4", "szp-lossless"})
    for (bool overlap : {true, false})
      for (const Case& cs : {Case{Trans::N, Trans::N, 101, 77, 53, 1.0, 0.0},
                             Case{Trans::T, Trans::T, 64, 33, 29, -2.0, 0.5},
                             Case{Trans::T, Trans::N, 5, 3, 2, 1.0, 1.0}}) {
        const GemmOptions o = options(alg, codec, overlap);
        const std::string what = describe(cs, o, type_name<T>());
        auto plain = multiply<T>(g, cs, options(alg, "none", overlap));
        auto packed = multiply<T>(g, cs, o);
        ASSERT_TRUE(packed.report.ok()) << what << ": " << packed.report.status().to_string();
        ASSERT_TRUE(plain.report.ok()) << what;
        EXPECT_EQ(packed.report->codec, codec) << what;
        EXPECT_EQ(packed.report->guaranteed_abs_bound, 0.0) << what;
        EXPECT_EQ(packed.report->raw_bytes, plain.report->raw_bytes) << what;
        EXPECT_TRUE(same_bits(packed.c, plain.c, g)) << what << ": differs from uncompressed";
      }
}

// Lossy codecs: |C - C_exact| within the reported bound plus the rounding tolerance.
template <class T>
void check_lossy(const Grid& g, GemmAlgorithm alg) {
  for (const char* codec : {"szp", "zfp"})
    for (double rel : {1e-6, 1e-3})
      for (const Case& cs : {Case{Trans::N, Trans::T, 101, 77, 53, 1.5, -1.0},
                             Case{Trans::T, Trans::N, 40, 31, 17, -1.0, 0.0}}) {
        const GemmOptions o = options(alg, codec, true, codec::ErrorBound::relative(rel));
        const std::string what = describe(cs, o, type_name<T>()) + " rel=" + std::to_string(rel);
        auto out = multiply<T>(g, cs, o);
        ASSERT_TRUE(out.report.ok()) << what << ": " << out.report.status().to_string();
        const double bound = out.report->guaranteed_abs_bound;
        EXPECT_GT(bound, 0.0) << what;
        const Expected e = reference<T>(g, cs);
        double worst = 0;
        for (int64_t j = 0; j < e.cols; ++j)
          for (int64_t i = 0; i < e.rows; ++i) {
            const size_t x = size_t(i + j * e.rows);
            const double d = std::fabs(double(out.c.at(i, j)) - e.value[x]);
            const double r = std::isnan(d) ? std::numeric_limits<double>::infinity()
                                           : d / (bound + e.tolerance[x]);
            worst = std::max(worst, r);
          }
        EXPECT_LE(worst, 1.0) << what << ": bound " << bound;
      }
}

// Half the entries zero: zstd-1 moves fewer bytes than it represents, exactly.
template <class T>
void check_sparse(const Grid& g, GemmAlgorithm alg) {
  const Case cs{Trans::N, Trans::T, 120, 90, 75, 1.0, 0.0, 0.5};
  const GemmOptions o = options(alg, "zstd-1", true);
  auto out = multiply<T>(g, cs, o);
  ASSERT_TRUE(out.report.ok()) << out.report.status().to_string();
  EXPECT_LE(worst_error_ratio(out.c, reference<T>(g, cs)), 1.0);
  uint64_t totals[2] = {out.report->raw_bytes, out.report->bytes_sent};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (totals[1] == 0) {
    EXPECT_EQ(totals[0], 0u) << "nothing sent on one rank";
    return;
  }
  EXPECT_GT(double(totals[0]) / double(totals[1]), 1.0)
      << totals[0] << " raw bytes sent as " << totals[1];
  EXPECT_GT(out.report->memory_bytes, 0u);
}

template <class T>
void check_all(const Grid& g, GemmAlgorithm alg) {
  check_exact<T>(g, alg);
  check_lossless<T>(g, alg);
  check_lossy<T>(g, alg);
  check_sparse<T>(g, alg);
}

TEST(GemmCannon, DoublesMatchReferenceAndCodecs) {
  auto g = cannon_grid();
  if (!g) GTEST_SKIP() << "no square 2-D grid at " << mpi::size() << " ranks";
  check_all<double>(*g, GemmAlgorithm::Cannon);
}

TEST(GemmCannon, FloatsMatchReferenceAndCodecs) {
  auto g = cannon_grid();
  if (!g) GTEST_SKIP() << "no square 2-D grid at " << mpi::size() << " ranks";
  check_all<float>(*g, GemmAlgorithm::Cannon);
}

TEST(GemmCannon25D, DoublesMatchReferenceAndCodecs) {
  check_all<double>(grid_25d(), GemmAlgorithm::Cannon25D);
}

TEST(GemmCannon25D, FloatsMatchReferenceAndCodecs) {
  check_all<float>(grid_25d(), GemmAlgorithm::Cannon25D);
}

// One layer of 2.5D Cannon is Cannon: the same bits.
TEST(GemmCannon25D, OneLayerEqualsCannon) {
  auto g = cannon_grid();
  if (!g) GTEST_SKIP() << "no square 2-D grid at " << mpi::size() << " ranks";
  for (const Case& cs : awkward_cases())
    for (const char* codec : {"none", "zstd-1"}) {
      auto x = multiply<double>(*g, cs, options(GemmAlgorithm::Cannon, codec, true));
      auto y = multiply<double>(*g, cs, options(GemmAlgorithm::Cannon25D, codec, true));
      ASSERT_TRUE(x.report.ok() && y.report.ok());
      EXPECT_TRUE(same_bits(x.c, y.c, *g)) << describe(cs, options(GemmAlgorithm::Cannon, codec, true), "f64");
    }
}

// Every rank gets the same error code, and every rank's message names the grid.
void expect_refused_everywhere(const Grid& g, const char* shape) {
  LocalMatrix<double> a(8, 6, g, 1), b(6, 4, g, 2), c(8, 4, g, 3);
  auto r = linalg::gemm<double>(Trans::N, Trans::N, 1.0, a.view, b.view, 0.0, c.view, g,
                                options(GemmAlgorithm::Cannon, "none", true));
  const int code = r.ok() ? -1 : int(r.status().code());
  int range[2] = {code, -code};
  MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_EQ(range[0], -range[1]) << "ranks disagree on the error code";
  ASSERT_FALSE(r.ok()) << shape;
  EXPECT_EQ(r.status().code(), ErrorCode::invalid_argument) << shape;
  EXPECT_NE(r.status().message().find("square"), std::string::npos) << r.status().to_string();
  EXPECT_NE(r.status().message().find(shape), std::string::npos) << r.status().to_string();
}

TEST(GemmCannon, NonSquareGridRefusedOnEveryRank) {
  const int p = mpi::size();
  if (p == 1) GTEST_SKIP() << "every 1-rank grid is square";
  const int rows = p == 8 ? 2 : 1;
  const std::string shape = std::to_string(rows) + "x" + std::to_string(p / rows) + "x1";
  expect_refused_everywhere(*Grid::create(MPI_COMM_WORLD, rows, p / rows), shape.c_str());
  if (p == 8) expect_refused_everywhere(*Grid::create(MPI_COMM_WORLD, 2, 2, 2), "2x2x2");
}

}  // namespace
}  // namespace commpress::testing
