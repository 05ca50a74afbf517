// BLACS and ScaLAPACK from C++: the Fortran/C entry points Debian's libscalapack-openmpi
// exports (declared here: Debian ships no header), a BLACS context over a Grid's ranks, and
// array descriptors for the block layout of DistMatrix.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>

#include "commpress/linalg.hpp"
#include "commpress/scalapack_matrix.hpp"

extern "C" {
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
void Cblacs_gridmap(int* context, int* usermap, int ldumap, int rows, int cols);
int Cblacs_pnum(int context, int row, int col);
void Cblacs_get(int context, int what, int* value);
MPI_Comm Cblacs2sys_handle(int handle);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ictxt, const int* lld, int* info);
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta,
             double* c, const int* ic, const int* jc, const int* descc);
void psgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const float* alpha, const float* a, const int* ia, const int* ja, const int* desca,
             const float* b, const int* ib, const int* jb, const int* descb, const float* beta,
             float* c, const int* ic, const int* jc, const int* descc);
void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja,
               const int* desca, double* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);
void psgemr2d_(const int* m, const int* n, const float* a, const int* ia, const int* ja,
               const int* desca, float* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);
}

namespace commpress::linalg::detail {

using linalg::Descriptor;
using linalg::descriptor_of;

// p?gemr2d_ by element type: sub(A) (m x n at ia, ja) copied into sub(B) at ib, jb, any two
// block-cyclic layouts on one context.
inline void gemr2d(int m, int n, const double* a, int ia, int ja, const int* desca, double* b,
                   int ib, int jb, const int* descb, int context) {
  pdgemr2d_(&m, &n, a, &ia, &ja, desca, b, &ib, &jb, descb, &context);
}
inline void gemr2d(int m, int n, const float* a, int ia, int ja, const int* desca, float* b,
                   int ib, int jb, const int* descb, int context) {
  psgemr2d_(&m, &n, a, &ia, &ja, desca, b, &ib, &jb, descb, &context);
}

// A BLACS context over the grid's layer-0 ranks in the grid's row-major order, released on
// destruction. Ranks of other layers hold no context (valid() is false there).
class BlacsContext {
 public:
  explicit BlacsContext(const Grid& grid);
  ~BlacsContext();
  BlacsContext(const BlacsContext&) = delete;
  BlacsContext& operator=(const BlacsContext&) = delete;
  bool valid() const { return context_ >= 0; }
  int context() const { return context_; }

 private:
  int system_ = -1;
  int context_ = -1;
};

}  // namespace commpress::linalg::detail
