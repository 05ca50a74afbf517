// extern "C" shims over the distributed multiply: gemm options and commpress_dgemm/sgemm with
// BLAS's argument order on block-distributed local blocks.
#include <string>

#include "capi/capi_support.hpp"
#include "capi/linalg_capi.hpp"
#include "commpress/gemm_model.hpp"

using namespace commpress;
using namespace commpress::capi;

namespace {

static_assert(int(COMMPRESS_NO_TRANS) == int(linalg::Trans::N));
static_assert(int(COMMPRESS_TRANS) == int(linalg::Trans::T));
using linalg::GemmAlgorithm;
// commpress.h's values are the C++ enum's, row by row of the algorithm table.
static_assert(int(COMMPRESS_GEMM_AUTO) == int(GemmAlgorithm::Auto));
#define COMMPRESS_GEMM_ALGORITHM(Id, C_ID, name, literature, codec, grid, candidate, model_time, \
                                 model_memory, plan, runner)                                   \
  static_assert(int(COMMPRESS_GEMM_##C_ID) == int(GemmAlgorithm::Id));
#include "model/gemm_algorithms.def"
#undef COMMPRESS_GEMM_ALGORITHM

bool known_algorithm(int v) {
  return v == int(GemmAlgorithm::Auto) ||
         model::gemm_algorithm_info(GemmAlgorithm(uint8_t(v))) != nullptr;
}

bool valid_trans(commpress_trans t) { return t == COMMPRESS_NO_TRANS || t == COMMPRESS_TRANS; }

void fill_report(const linalg::GemmReport& r, commpress_gemm_report* out) {
  out->algorithm = static_cast<commpress_gemm_algorithm>(r.algorithm);
  out->grid_rows = r.grid_rows;
  out->grid_cols = r.grid_cols;
  out->layers = r.layers;
  copy_name(r.codec, out->codec);
  out->raw_bytes = r.raw_bytes;
  out->bytes_sent = r.bytes_sent;
  out->ratio = r.ratio();
  out->memory_bytes = r.memory_bytes;
  out->predicted_seconds = r.predicted_seconds;
  out->guaranteed_abs_bound = r.guaranteed_abs_bound;
}

template <class T>
commpress_status gemm_shim(const char* function, commpress_trans transa, commpress_trans transb,
                           int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
                           const T* b, int64_t ldb, T beta, T* c, int64_t ldc,
                           const commpress_grid* grid, const commpress_gemm_options* options,
                           commpress_gemm_report* report) {
  return guarded(function, [&] {
    if (report) *report = commpress_gemm_report{};
    if (grid == nullptr) return null_argument(function, "grid");
    const linalg::Grid& g = grid->grid;
    // The C++ call takes any non-N value as T, so an unknown value is refused here, on every
    // rank together (one rank's typo must not leave the others waiting in the multiply).
    int bad = valid_trans(transa) && valid_trans(transb) ? 0 : 1;
    if (MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, g.comm()) != MPI_SUCCESS)
      return fail(ErrorCode::mpi, std::string(function) + ": MPI_Allreduce failed");
    if (bad)
      return fail(ErrorCode::invalid_argument,
                  std::string(function) +
                      ": transa and transb must be COMMPRESS_NO_TRANS or COMMPRESS_TRANS on "
                      "every rank (this rank passed " +
                      std::to_string(int(transa)) + " and " + std::to_string(int(transb)) + ")");
    const auto ta = linalg::Trans(transa), tb = linalg::Trans(transb);
    const bool na = ta == linalg::Trans::N, nb = tb == linalg::Trans::N;
    // gemm only reads A and B; DistMatrix has one pointer type for every operand.
    const linalg::DistMatrix<T> da{na ? m : k, na ? k : m, const_cast<T*>(a), lda};
    const linalg::DistMatrix<T> db{nb ? k : n, nb ? n : k, const_cast<T*>(b), ldb};
    linalg::DistMatrix<T> dc{m, n, c, ldc};
    static const linalg::GemmOptions defaults;
    auto r = linalg::gemm<T>(ta, tb, alpha, da, db, beta, dc, g,
                             options ? options->options : defaults);
    if (!r.ok()) return record(r.status());
    if (report) fill_report(*r, report);
    return COMMPRESS_OK;
  });
}

}  // namespace

extern "C" {

commpress_status commpress_gemm_options_create(commpress_gemm_options** options) {
  return guarded("commpress_gemm_options_create", [&] {
    if (options == nullptr) return null_argument("commpress_gemm_options_create", "options");
    *options = new commpress_gemm_options{};
    return COMMPRESS_OK;
  });
}

commpress_status commpress_gemm_options_destroy(commpress_gemm_options* options) {
  delete options;
  return COMMPRESS_OK;
}

commpress_status commpress_gemm_options_set_algorithm(commpress_gemm_options* options,
                                                      commpress_gemm_algorithm algorithm) {
  return guarded("commpress_gemm_options_set_algorithm", [&] {
    if (options == nullptr)
      return null_argument("commpress_gemm_options_set_algorithm", "options");
    const int v = int(algorithm);
    if (v < 0 || v > 255 || !known_algorithm(v))
      return fail(ErrorCode::invalid_argument,
                  "commpress_gemm_options_set_algorithm: unknown algorithm " + std::to_string(v));
    options->options.algorithm = linalg::GemmAlgorithm(v);
    return COMMPRESS_OK;
  });
}

commpress_status commpress_gemm_options_set_codec(commpress_gemm_options* options,
                                                  const char* codec) {
  return guarded("commpress_gemm_options_set_codec", [&] {
    if (options == nullptr) return null_argument("commpress_gemm_options_set_codec", "options");
    if (codec == nullptr) return null_argument("commpress_gemm_options_set_codec", "codec");
    options->options.codec = codec;
    return COMMPRESS_OK;
  });
}

commpress_status commpress_gemm_options_set_bound(commpress_gemm_options* options,
                                                  commpress_bound_mode mode, double value) {
  return guarded("commpress_gemm_options_set_bound", [&] {
    if (options == nullptr) return null_argument("commpress_gemm_options_set_bound", "options");
    auto bound = to_bound(mode, value);
    if (!bound.ok()) return record(bound.status());
    options->options.bound = *bound;
    return COMMPRESS_OK;
  });
}

commpress_status commpress_gemm_options_set_overlap(commpress_gemm_options* options,
                                                    int overlap) {
  return guarded("commpress_gemm_options_set_overlap", [&] {
    if (options == nullptr) return null_argument("commpress_gemm_options_set_overlap", "options");
    options->options.overlap = overlap != 0;
    return COMMPRESS_OK;
  });
}

commpress_status commpress_gemm_options_set_panel(commpress_gemm_options* options,
                                                  int64_t panel) {
  return guarded("commpress_gemm_options_set_panel", [&] {
    if (options == nullptr) return null_argument("commpress_gemm_options_set_panel", "options");
    if (panel < 0)
      return fail(ErrorCode::invalid_argument,
                  "commpress_gemm_options_set_panel: panel must be >= 0, got " +
                      std::to_string(panel));
    options->options.panel = panel;
    return COMMPRESS_OK;
  });
}

commpress_status commpress_dgemm(commpress_trans transa, commpress_trans transb, int64_t m,
                                 int64_t n, int64_t k, double alpha, const double* a,
                                 int64_t lda, const double* b, int64_t ldb, double beta,
                                 double* c, int64_t ldc, const commpress_grid* grid,
                                 const commpress_gemm_options* options,
                                 commpress_gemm_report* report) {
  return gemm_shim<double>("commpress_dgemm", transa, transb, m, n, k, alpha, a, lda, b, ldb,
                           beta, c, ldc, grid, options, report);
}

commpress_status commpress_sgemm(commpress_trans transa, commpress_trans transb, int64_t m,
                                 int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                                 const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                                 const commpress_grid* grid,
                                 const commpress_gemm_options* options,
                                 commpress_gemm_report* report) {
  return gemm_shim<float>("commpress_sgemm", transa, transb, m, n, k, alpha, a, lda, b, ldb,
                          beta, c, ldc, grid, options, report);
}

}  // extern "C"
