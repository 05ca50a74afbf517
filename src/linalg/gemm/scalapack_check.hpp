// The arguments of one p?gemm call and the checks ScaLAPACK's own p?gemm makes on them
// (PBLAS' rules: descriptor type, one context, block sizes, source processes, LLD against
// this process's local rows, submatrices inside their matrices).
#pragma once

#include <cstdint>
#include <vector>

#include "comm/session/agreement.hpp"
#include "commpress/linalg.hpp"
#include "commpress/status.hpp"
#include "linalg/layout/blacs.hpp"

namespace commpress::linalg::detail {

// Read from the caller's pointers (a null pointer is reported by read_pgemm_args).
struct PgemmArgs {
  char transa = 'N', transb = 'N';
  int m = 0, n = 0, k = 0;
  int64_t alpha_bits = 0, beta_bits = 0;  // for agreement only
  int ia = 1, ja = 1, ib = 1, jb = 1, ic = 1, jc = 1;
  Descriptor da{}, db{}, dc{};

  Trans ta() const { return transa == 'N' || transa == 'n' ? Trans::N : Trans::T; }
  Trans tb() const { return transb == 'N' || transb == 'n' ? Trans::N : Trans::T; }
  // The stored shapes of sub(A) and sub(B) (op(sub(A)) is m x k, op(sub(B)) is k x n).
  int64_t a_rows() const { return ta() == Trans::N ? m : k; }
  int64_t a_cols() const { return ta() == Trans::N ? k : m; }
  int64_t b_rows() const { return tb() == Trans::N ? k : n; }
  int64_t b_cols() const { return tb() == Trans::N ? n : k; }
};

// A null pointer among the integer and character arguments gives invalid_argument naming
// the parameter; otherwise fills args (alpha and beta are the caller's: their type varies).
Status read_pgemm_args(const char* transa, const char* transb, const int* m, const int* n,
                       const int* k, const int* ia, const int* ja, const int* desca,
                       const int* ib, const int* jb, const int* descb, const int* ic,
                       const int* jc, const int* descc, PgemmArgs& args);

// "parameter 6 (ALPHA) is a null pointer"
Status null_parameter(int position, const char* name);

// This process's verdict on the arguments over the grid of DESCA's context, the first
// illegal parameter named by its position in the p?gemm argument list.
Status check_pgemm_args(const PgemmArgs& args, const Grid& grid);

// The values every process must pass alike (all but the LLDs, which are per process).
std::vector<comm::detail::Field> pgemm_fields(const PgemmArgs& args);

// One whole matrix's descriptor, passed as parameter `position` of a call: the checks
// check_pgemm_args makes on each operand, over the grid of the descriptor's own context.
Status check_descriptor(const Descriptor& desc, const Grid& grid, int position);

// A descriptor's fields every process must pass alike (all but LLD).
std::vector<comm::detail::Field> descriptor_fields(const Descriptor& desc);

// sub(X) (rows x cols at the 1-based i, j of the matrix DESCX describes, DESCX at argument
// position dpos with I and J just before it, as in every PBLAS routine): the checks
// check_pgemm_args makes on each operand, against the context `context` (DESCA's).
Status check_submatrix(const char* name, int64_t rows, int64_t cols, int i, int j,
                       const Descriptor& desc, int dpos, int context, const Grid& grid);

// Appends DESC<name>'s shared entries (name 'A', 'B' or 'C') to a call's fields.
void append_descriptor_fields(std::vector<comm::detail::Field>& fields, const Descriptor& desc,
                              char name);

}  // namespace commpress::linalg::detail
