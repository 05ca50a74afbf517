// libcommpress_scalapack.so: pdtrsm_/pstrsm_ and pdpotrf_/pspotrf_ for unmodified ScaLAPACK
// programs. Each call runs commpress's triangular solve or Cholesky through commpress_p?trsm /
// commpress_p?potrf, or ScaLAPACK's own routine (the next definition) when
//   - COMMPRESS_TRIANGULAR_ALGORITHM=scalapack;
//   - commpress cannot take the call: a descriptor that is not a dense one, a process outside
//     the BLACS grid, or commpress answering `unsupported` (nothing is written then);
//   - this thread is inside commpress already.
// COMMPRESS_DEBUG=1 prints one line per call from the grid's process (0, 0).
#include <cstdlib>
#include <cstring>
#include <string>

#include "commpress/scalapack.h"
#include "commpress/status.hpp"
#include "pmpi/debug_flag.hpp"
#include "scalapack_override/override_guard.hpp"

extern "C" void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);

namespace {

template <class T>
using Ptrsm = void (*)(const char*, const char*, const char*, const char*, const int*,
                       const int*, const T*, const T*, const int*, const int*, const int*, T*,
                       const int*, const int*, const int*);
template <class T>
using Ppotrf = void (*)(const char*, const int*, T*, const int*, const int*, const int*, int*);

bool scalapack_only() {
  static const bool only = [] {
    const char* v = std::getenv("COMMPRESS_TRIANGULAR_ALGORITHM");
    return v != nullptr && std::strcmp(v, "scalapack") == 0;
  }();
  return only;
}

// Whether commpress can take a call on DESCA's grid from this process (else ScaLAPACK's own
// runs), and whether this process is the grid's (0, 0), which speaks for it.
bool takes(const int* desca, bool& lead) {
  if (commpress_override::inside > 0 || scalapack_only() || desca == nullptr || desca[0] != 1)
    return false;
  int rows = -1, cols = -1, row = -1, col = -1;
  Cblacs_gridinfo(desca[1], &rows, &cols, &row, &col);
  lead = row == 0 && col == 0;
  return row >= 0 && col >= 0;
}

// commpress ran; true when it answered `unsupported` and ScaLAPACK's must run instead.
bool declined(bool lead, const char* routine) {
  char msg[512];
  const int code = commpress_gemm_last_error(msg, sizeof msg);
  const bool no = code == int(commpress::ErrorCode::unsupported);
  if (commpress::pmpi::debug_enabled() && lead)
    std::fprintf(stderr, "commpress_scalapack: %s: %s\n", routine,
                 no ? (std::string("ScaLAPACK's (commpress: ") + msg + ")").c_str() : "commpress");
  return no;
}

template <class T>
void ptrsm(const char* name, void (*ours)(const char*, const char*, const char*, const char*,
                                          const int*, const int*, const T*, const T*,
                                          const int*, const int*, const int*, T*, const int*,
                                          const int*, const int*),
           const char* side, const char* uplo, const char* transa, const char* diag,
           const int* m, const int* n, const T* alpha, const T* a, const int* ia, const int* ja,
           const int* desca, T* b, const int* ib, const int* jb, const int* descb) {
  bool lead = false;
  if (takes(desca, lead)) {
    commpress_override::Inside guard;
    ours(side, uplo, transa, diag, m, n, alpha, a, ia, ja, desca, b, ib, jb, descb);
    if (!declined(lead, name)) return;
  }
  commpress_override::next<Ptrsm<T>>(name)(side, uplo, transa, diag, m, n, alpha, a, ia, ja,
                                           desca, b, ib, jb, descb);
}

template <class T>
void ppotrf(const char* name,
            void (*ours)(const char*, const int*, T*, const int*, const int*, const int*, int*),
            const char* uplo, const int* n, T* a, const int* ia, const int* ja, const int* desca,
            int* info) {
  bool lead = false;
  if (takes(desca, lead)) {
    commpress_override::Inside guard;
    ours(uplo, n, a, ia, ja, desca, info);
    if (!declined(lead, name)) return;
  }
  commpress_override::next<Ppotrf<T>>(name)(uplo, n, a, ia, ja, desca, info);
}

}  // namespace

extern "C" {

void pdtrsm_(const char* side, const char* uplo, const char* transa, const char* diag,
             const int* m, const int* n, const double* alpha, const double* a, const int* ia,
             const int* ja, const int* desca, double* b, const int* ib, const int* jb,
             const int* descb) {
  ptrsm<double>("pdtrsm_", commpress_pdtrsm, side, uplo, transa, diag, m, n, alpha, a, ia, ja,
                desca, b, ib, jb, descb);
}

void pstrsm_(const char* side, const char* uplo, const char* transa, const char* diag,
             const int* m, const int* n, const float* alpha, const float* a, const int* ia,
             const int* ja, const int* desca, float* b, const int* ib, const int* jb,
             const int* descb) {
  ptrsm<float>("pstrsm_", commpress_pstrsm, side, uplo, transa, diag, m, n, alpha, a, ia, ja,
               desca, b, ib, jb, descb);
}

void pdpotrf_(const char* uplo, const int* n, double* a, const int* ia, const int* ja,
              const int* desca, int* info) {
  ppotrf<double>("pdpotrf_", commpress_pdpotrf, uplo, n, a, ia, ja, desca, info);
}

void pspotrf_(const char* uplo, const int* n, float* a, const int* ia, const int* ja,
              const int* desca, int* info) {
  ppotrf<float>("pspotrf_", commpress_pspotrf, uplo, n, a, ia, ja, desca, info);
}

}  // extern "C"
