#include "linalg/gemm/scalapack_check.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace commpress::linalg::detail {

namespace {

enum : int { kDtype = 0, kCtxt, kM, kN, kMb, kNb, kRsrc, kCsrc, kLld };

Status bad(int position, const std::string& name, const std::string& what,
           ErrorCode code = ErrorCode::invalid_argument) {
  return {code, "parameter " + std::to_string(position) + " (" + name + "): " + what};
}

std::string str(int64_t v) { return std::to_string(v); }

bool valid_trans(char t) {
  return t == 'N' || t == 'n' || t == 'T' || t == 't' || t == 'C' || t == 'c';
}

// One operand: sub(X) is rows x cols at (i, j) of the matrix DESCX describes; DESCX sits at
// argument position dpos, with I and J two and one places before it (as in p?gemm).
struct Operand {
  const char* name;  // "A"
  int64_t rows, cols;
  int i, j;
  const Descriptor& desc;
  int dpos;
};

Status check_operand(const Operand& x, int context, const Grid& g) {
  const std::string d = std::string("DESC") + x.name, ip = std::string("I") + x.name,
                    jp = std::string("J") + x.name;
  const Descriptor& desc = x.desc;
  if (x.i < 1) return bad(x.dpos - 2, ip, ip + " = " + str(x.i) + " must be at least 1");
  if (x.j < 1) return bad(x.dpos - 1, jp, jp + " = " + str(x.j) + " must be at least 1");
  if (desc[kDtype] != 1)
    return bad(x.dpos, d, d + "[DTYPE] = " + str(desc[kDtype]) +
                              ", only 1 (two-dimensional block-cyclic) is accepted");
  if (desc[kCtxt] != context)
    return bad(x.dpos, d, d + "[CTXT] = " + str(desc[kCtxt]) +
                              " differs from DESCA's context " + str(context));
  if (desc[kMb] < 1) return bad(x.dpos, d, d + "[MB] = " + str(desc[kMb]) + " must be >= 1");
  if (desc[kNb] < 1) return bad(x.dpos, d, d + "[NB] = " + str(desc[kNb]) + " must be >= 1");
  if (desc[kRsrc] == -1 || desc[kCsrc] == -1)
    return bad(x.dpos, d, "replicated matrices (" + d + "[RSRC] or [CSRC] = -1)",
               ErrorCode::unsupported);
  if (desc[kRsrc] < 0 || desc[kRsrc] >= g.rows())
    return bad(x.dpos, d, d + "[RSRC] = " + str(desc[kRsrc]) + " is outside the " +
                              str(g.rows()) + " process rows");
  if (desc[kCsrc] < 0 || desc[kCsrc] >= g.cols())
    return bad(x.dpos, d, d + "[CSRC] = " + str(desc[kCsrc]) + " is outside the " +
                              str(g.cols()) + " process columns");
  if (x.rows == 0 || x.cols == 0) {
    // An empty submatrix touches nothing, so only the descriptor's own sanity matters.
    if (desc[kM] < 0 || desc[kN] < 0)
      return bad(x.dpos, d, d + " is " + str(desc[kM]) + "x" + str(desc[kN]));
    if (desc[kLld] < 1)
      return bad(x.dpos, d, d + "[LLD] = " + str(desc[kLld]) + " must be at least 1");
    return {};
  }
  if (desc[kM] < 1 || desc[kN] < 1)
    return bad(x.dpos, d, d + " is " + str(desc[kM]) + "x" + str(desc[kN]) +
                              ", too small for a non-empty submatrix");
  if (x.i + x.rows - 1 > desc[kM])
    return bad(x.dpos - 2, ip, "rows " + str(x.i) + ".." + str(x.i + x.rows - 1) + " of sub(" +
                                   x.name + ") exceed " + d + "[M] = " + str(desc[kM]));
  if (x.j + x.cols - 1 > desc[kN])
    return bad(x.dpos - 1, jp, "columns " + str(x.j) + ".." + str(x.j + x.cols - 1) +
                                   " of sub(" + x.name + ") exceed " + d + "[N] = " +
                                   str(desc[kN]));
  const int prow = g.row(), pcol = g.col(), nprow = g.rows(), npcol = g.cols();
  const int np = numroc_(&desc[kM], &desc[kMb], &prow, &desc[kRsrc], &nprow);
  const int nq = numroc_(&desc[kN], &desc[kNb], &pcol, &desc[kCsrc], &npcol);
  if (desc[kLld] < 1)
    return bad(x.dpos, d, d + "[LLD] = " + str(desc[kLld]) + " must be at least 1");
  // As in PBLAS: a process that holds no column of the matrix may pass any positive LLD.
  if (nq > 0 && desc[kLld] < std::max(1, np))
    return bad(x.dpos, d, d + "[LLD] = " + str(desc[kLld]) + " is below the " + str(np) +
                              " local rows of process (" + str(prow) + ", " + str(pcol) + ")");
  return {};
}

}  // namespace

Status null_parameter(int position, const char* name) {
  return bad(position, name, "null pointer");
}

Status read_pgemm_args(const char* transa, const char* transb, const int* m, const int* n,
                       const int* k, const int* ia, const int* ja, const int* desca,
                       const int* ib, const int* jb, const int* descb, const int* ic,
                       const int* jc, const int* descc, PgemmArgs& args) {
  struct Named {
    const void* p;
    int position;
    const char* name;
  };
  const std::array<Named, 14> pointers{{{transa, 1, "TRANSA"},
                                        {transb, 2, "TRANSB"},
                                        {m, 3, "M"},
                                        {n, 4, "N"},
                                        {k, 5, "K"},
                                        {ia, 8, "IA"},
                                        {ja, 9, "JA"},
                                        {desca, 10, "DESCA"},
                                        {ib, 12, "IB"},
                                        {jb, 13, "JB"},
                                        {descb, 14, "DESCB"},
                                        {ic, 17, "IC"},
                                        {jc, 18, "JC"},
                                        {descc, 19, "DESCC"}}};
  for (const Named& p : pointers)
    if (p.p == nullptr) return null_parameter(p.position, p.name);
  args.transa = *transa;
  args.transb = *transb;
  args.m = *m;
  args.n = *n;
  args.k = *k;
  args.ia = *ia;
  args.ja = *ja;
  args.ib = *ib;
  args.jb = *jb;
  args.ic = *ic;
  args.jc = *jc;
  std::copy(desca, desca + 9, args.da.begin());
  std::copy(descb, descb + 9, args.db.begin());
  std::copy(descc, descc + 9, args.dc.begin());
  return {};
}

Status check_pgemm_args(const PgemmArgs& a, const Grid& g) {
  if (!valid_trans(a.transa))
    return bad(1, "TRANSA", std::string{'\'', a.transa, '\''} + " is not N, T or C");
  if (!valid_trans(a.transb))
    return bad(2, "TRANSB", std::string{'\'', a.transb, '\''} + " is not N, T or C");
  if (a.m < 0) return bad(3, "M", "M = " + str(a.m) + " must be at least 0");
  if (a.n < 0) return bad(4, "N", "N = " + str(a.n) + " must be at least 0");
  if (a.k < 0) return bad(5, "K", "K = " + str(a.k) + " must be at least 0");
  const int context = a.da[kCtxt];
  COMMPRESS_RETURN_IF_ERROR(
      check_operand({"A", a.a_rows(), a.a_cols(), a.ia, a.ja, a.da, 10}, context, g));
  COMMPRESS_RETURN_IF_ERROR(
      check_operand({"B", a.b_rows(), a.b_cols(), a.ib, a.jb, a.db, 14}, context, g));
  return check_operand({"C", a.m, a.n, a.ic, a.jc, a.dc, 19}, context, g);
}

namespace {

// The names of a descriptor's shared entries as a field of one call (Field keeps the pointer):
// a lone descriptor, then pdgemm's DESCA, DESCB and DESCC.
constexpr std::array<std::array<const char*, 8>, 4> kDescriptorNames{{
    {"DESC[DTYPE]", "DESC[CTXT]", "DESC[M]", "DESC[N]", "DESC[MB]", "DESC[NB]", "DESC[RSRC]",
     "DESC[CSRC]"},
    {"DESCA[DTYPE]", "DESCA[CTXT]", "DESCA[M]", "DESCA[N]", "DESCA[MB]", "DESCA[NB]",
     "DESCA[RSRC]", "DESCA[CSRC]"},
    {"DESCB[DTYPE]", "DESCB[CTXT]", "DESCB[M]", "DESCB[N]", "DESCB[MB]", "DESCB[NB]",
     "DESCB[RSRC]", "DESCB[CSRC]"},
    {"DESCC[DTYPE]", "DESCC[CTXT]", "DESCC[M]", "DESCC[N]", "DESCC[MB]", "DESCC[NB]",
     "DESCC[RSRC]", "DESCC[CSRC]"},
}};

void append_descriptor(std::vector<comm::detail::Field>& f, const Descriptor& desc, size_t which) {
  for (size_t e = 0; e < kDescriptorNames[which].size(); ++e)
    f.push_back({kDescriptorNames[which][e], desc[e]});
}

}  // namespace

std::vector<comm::detail::Field> pgemm_fields(const PgemmArgs& a) {
  std::vector<comm::detail::Field> f{{"TRANSA", a.transa}, {"TRANSB", a.transb},
                                     {"M", a.m},           {"N", a.n},
                                     {"K", a.k},           {"ALPHA (bits)", a.alpha_bits},
                                     {"IA", a.ia},         {"JA", a.ja},
                                     {"IB", a.ib},         {"JB", a.jb},
                                     {"BETA (bits)", a.beta_bits},
                                     {"IC", a.ic},         {"JC", a.jc}};
  append_descriptor(f, a.da, 1);
  append_descriptor(f, a.db, 2);
  append_descriptor(f, a.dc, 3);
  return f;
}

Status check_descriptor(const Descriptor& desc, const Grid& grid, int position) {
  return check_operand({"", desc[kM], desc[kN], 1, 1, desc, position}, desc[kCtxt], grid);
}

Status check_submatrix(const char* name, int64_t rows, int64_t cols, int i, int j,
                       const Descriptor& desc, int dpos, int context, const Grid& grid) {
  return check_operand({name, rows, cols, i, j, desc, dpos}, context, grid);
}

void append_descriptor_fields(std::vector<comm::detail::Field>& fields, const Descriptor& desc,
                              char name) {
  append_descriptor(fields, desc, name == 'A' ? 1 : name == 'B' ? 2 : 3);
}

std::vector<comm::detail::Field> descriptor_fields(const Descriptor& desc) {
  std::vector<comm::detail::Field> f;
  append_descriptor(f, desc, 0);
  return f;
}

}  // namespace commpress::linalg::detail
