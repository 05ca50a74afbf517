// ScaLapackMatrix and descriptor_of: ScaLAPACK matrices in any block-cyclic layout seen as
// commpress matrices (in place or copied) and back, commpress matrices handed to ScaLAPACK,
// and bad descriptors refused alike on every process.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "blacs_test_support.hpp"
#include "comm/session/agreement.hpp"
#include "commpress/linalg.hpp"
#include "commpress/scalapack_matrix.hpp"
#include "gemm_test_support.hpp"
#include "mpi_harness.hpp"

namespace commpress::testing {
namespace {

using linalg::ScaLapackMatrix;

struct Layout {
  int mb, nb, rsrc, csrc;
};

// Block-cyclic layouts of an m x n matrix over g, the block layout (in place) last.
std::vector<Layout> layouts(int m, int n, const BlacsGrid& g) {
  return {{1, 1, 0, 0},
          {2, 3, g.nprow - 1, 0},
          {5, 2, 0, g.npcol - 1},
          {blocks_of(m, g.nprow), blocks_of(n, g.npcol), 0, 0}};
}

// Every local element of the view equals the seeded global value it stands for.
template <class T>
int wrong_elements(const linalg::DistMatrix<T>& v, const linalg::Grid& grid, uint64_t seed) {
  const int64_t r0 = v.row_split(grid).offset(grid.row());
  const int64_t c0 = v.col_split(grid).offset(grid.col());
  int wrong = 0;
  for (int64_t j = 0; j < v.local_cols(grid); ++j)
    for (int64_t i = 0; i < v.local_rows(grid); ++i)
      wrong += v.data[i + j * v.ld] != T(linalg::detail::matrix_value(seed, r0 + i, c0 + j));
  return wrong;
}

template <class T>
void multiply_in_every_layout() {
  BlacsGrid g = world_grid();
  ASSERT_TRUE(g.member());
  const int m = 29, n = 23, k = 17;
  for (const Layout& l : layouts(m, n, g)) {
    const std::string label = "MB " + std::to_string(l.mb) + " NB " + std::to_string(l.nb) +
                              " source (" + std::to_string(l.rsrc) + ", " + std::to_string(l.csrc) +
                              ")";
    ScaMatrix<T> a(m, k, l.mb, l.nb, l.rsrc, l.csrc, g, 31, 1);
    ScaMatrix<T> b(k, n, l.nb, l.mb, 0, l.csrc, g, 32);
    ScaMatrix<T> c(m, n, l.mb, l.nb, l.rsrc, l.csrc, g, 33, 2);
    ScaMatrix<T> ref = c;
    auto va = ScaLapackMatrix<T>::attach(a.local.data(), a.desc);
    auto vb = ScaLapackMatrix<T>::attach(b.local.data(), b.desc);
    auto vc = ScaLapackMatrix<T>::attach(c.local.data(), c.desc);
    ASSERT_TRUE(va.ok() && vb.ok() && vc.ok()) << label << ": " << va.status().to_string();
    const bool block_layout = l.mb == blocks_of(m, g.nprow) && l.nb == blocks_of(k, g.npcol);
    EXPECT_EQ(va->in_place(), block_layout) << label;
    if (va->in_place()) {
      EXPECT_EQ(va->matrix().data, a.local.data()) << label;
    }
    EXPECT_EQ(wrong_elements(va->matrix(), va->grid(), 31), 0) << label;
    EXPECT_EQ(wrong_elements(vc->matrix(), vc->grid(), 33), 0) << label;

    linalg::GemmOptions opts;
    opts.algorithm = linalg::GemmAlgorithm::Summa;
    auto report = linalg::gemm<T>(linalg::Trans::N, linalg::Trans::N, T(1.5), va->matrix(),
                                  vb->matrix(), T(-0.5), vc->matrix(), vc->grid(), opts);
    ASSERT_TRUE(report.ok()) << label << ": " << report.status().to_string();
    vc->write_back();

    const char nn = 'N';
    const int one = 1;
    const T alpha = T(1.5), beta = T(-0.5);
    if constexpr (std::is_same_v<T, double>)
      pdgemm_(&nn, &nn, &m, &n, &k, &alpha, a.local.data(), &one, &one, a.desc.data(),
              b.local.data(), &one, &one, b.desc.data(), &beta, ref.local.data(), &one, &one,
              ref.desc.data());
    else
      psgemm_(&nn, &nn, &m, &n, &k, &alpha, a.local.data(), &one, &one, a.desc.data(),
              b.local.data(), &one, &one, b.desc.data(), &beta, ref.local.data(), &one, &one,
              ref.desc.data());
    const double tol = 2 * (k + 2) * std::numeric_limits<T>::epsilon() * (1.5 * k + 0.5);
    int wrong = 0;
    for (size_t e = 0; e < c.local.size(); ++e)
      wrong += !(std::fabs(double(c.local[e]) - double(ref.local[e])) <= tol);
    EXPECT_EQ(wrong, 0) << label << ": the result written back differs from pdgemm_'s";
  }
}

TEST(ScaLapackMatrix, MultipliesInEveryLayoutAndWritesBackDoubles) {
  multiply_in_every_layout<double>();
}
TEST(ScaLapackMatrix, MultipliesInEveryLayoutAndWritesBackFloats) {
  multiply_in_every_layout<float>();
}

// The other way: commpress matrices described to ScaLAPACK, which computes on them in place.
TEST(DescriptorOf, ScaLapackComputesOnCommpressMatrices) {
  BlacsGrid g = world_grid();
  ASSERT_TRUE(g.member());
  auto grid = linalg::Grid::from_blacs(g.context);
  ASSERT_TRUE(grid.ok()) << grid.status().to_string();
  const int m = 21, n = 19, k = 11;
  LocalMatrix<double> a(m, k, *grid, 41, 0, 2), b(k, n, *grid, 42), c(m, n, *grid, 43, 0, 1);
  const auto da = linalg::descriptor_of(a.view, *grid, g.context);
  const auto db = linalg::descriptor_of(b.view, *grid, g.context);
  const auto dc = linalg::descriptor_of(c.view, *grid, g.context);
  EXPECT_EQ(da[8], a.view.ld);
  const char nn = 'N';
  const int one = 1;
  const double alpha = 2.0, beta = 0.25;
  pdgemm_(&nn, &nn, &m, &n, &k, &alpha, a.view.data, &one, &one, da.data(), b.view.data, &one, &one,
          db.data(), &beta, c.view.data, &one, &one, dc.data());
  const Expected e = expected_block<double>(linalg::Trans::N, linalg::Trans::N, m, n, k, alpha, 41,
                                            42, beta, 43, *grid);
  EXPECT_LE(worst_error_ratio(c, e), 1.0);
  // And attaching to such a descriptor uses the array in place.
  auto back = ScaLapackMatrix<double>::attach(c.view.data, dc);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(back->in_place());
}

// Every process returns the same error, whichever process holds the bad value.
void expect_refused_everywhere(const Result<ScaLapackMatrix<double>>& r, const std::string& part) {
  ASSERT_FALSE(r.ok());
  const std::string message = r.status().message();
  EXPECT_NE(message.find(part), std::string::npos) << message;
  int64_t fp[2] = {comm::detail::fingerprint(message), -comm::detail::fingerprint(message)};
  MPI_Allreduce(MPI_IN_PLACE, fp, 2, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_EQ(fp[0], -fp[1]) << "processes hold different messages; this one: " << message;
}

TEST(ScaLapackMatrix, BadDescriptorsAreRefusedOnEveryProcess) {
  BlacsGrid g = world_grid();
  ASSERT_TRUE(g.member());
  ScaMatrix<double> a(12, 9, 2, 2, 0, 0, g, 1);
  Descriptor bad = a.desc;
  bad[4] = 0;
  expect_refused_everywhere(ScaLapackMatrix<double>::attach(a.local.data(), bad),
                            "DESC[MB] = 0 must be >= 1");
  bad = a.desc;
  bad[7] = g.npcol;
  expect_refused_everywhere(ScaLapackMatrix<double>::attach(a.local.data(), bad),
                            "DESC[CSRC] = " + std::to_string(g.npcol) + " is outside");
  // One process alone describes a smaller matrix (valid by itself): a mismatch everywhere.
  bad = a.desc;
  if (mpi::rank() == mpi::size() - 1) bad[2] = 11;
  auto r = ScaLapackMatrix<double>::attach(a.local.data(), bad);
  if (mpi::size() > 1)
    expect_refused_everywhere(r, "DESC[M]");
  else
    EXPECT_TRUE(r.ok()) << r.status().to_string();
}

}  // namespace
}  // namespace commpress::testing
