// What the ScaLAPACK-compatible triangular entry points (p?trsm, p?potrf) share: the grid's
// line communicators, one-letter options read as PBLAS reads them, and the agreement of a
// call's fields that remembers each field's argument position (for p?potrf's INFO).
#pragma once

#include <bit>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "comm/session/agreement.hpp"
#include "commpress/linalg.hpp"
#include "linalg/gemm/scalapack_agreement.hpp"
#include "linalg/layout/block_cyclic.hpp"
#include "linalg/triangular/triangular.hpp"
#include "linalg/triangular/triangular_options.hpp"

namespace commpress::linalg::detail {

inline LineGrid line_grid_of(const Grid& g) {
  return {g.row(), g.col(), g.rows(), g.cols(), g.row_comm(), g.col_comm()};
}

inline char upper_letter(const char* c) { return char(std::toupper((unsigned char)*c)); }

inline int64_t value_bits(double v) { return std::bit_cast<int64_t>(v); }

// A call's fields, each with the 1-based position of the argument it comes from.
struct CallFields {
  std::vector<comm::detail::Field> fields;
  std::vector<int> positions;
  void add(const char* name, int64_t value, int position) {
    fields.push_back({name, value});
    positions.push_back(position);
  }
  void add_all(const std::vector<comm::detail::Field>& more, int position) {
    for (const auto& f : more) add(f.name, f.value, position);
  }
  // The position of the field a mismatch message names ("processes disagree on X: ..."), or 0.
  int position_in(const std::string& message) const {
    for (size_t i = 0; i < fields.size(); ++i)
      if (message.find(std::string("disagree on ") + fields[i].name + ":") != std::string::npos)
        return positions[i];
    return 0;
  }
};

// The position a status names ("parameter 6 (DESCA): ..."), or 0.
inline int parameter_position(const std::string& message) {
  const std::string key = "parameter ";
  const size_t at = message.find(key);
  return at == std::string::npos ? 0 : std::atoi(message.c_str() + at + key.size());
}

// The codec a call's blocks travel through, from the options.
class CallWire {
 public:
  CallWire() {
    record_result_bound(0);
    record_moved_bytes(0);
  }
  // Local: this rank's options and codec (their failure is this rank's status).
  Status prepare(codec::Dtype dtype);  // dtype: the elements' that travel
  // The values every rank must share: the codec and its bound.
  void add_fields(CallFields& f, int position) const;
  TriangularWire& wire() { return wire_; }
  int layers() const { return options_.layers; }
  double memory_cap() const { return options_.memory_cap; }
  // Auto's layer count: plan_cholesky or plan_trsm (order n, nrhs right-hand sides) on the
  // profile in force with raw transfers, agreed over the grid (ranks that loaded different
  // profiles fail together).
  Result<int> planned_layers(bool cholesky, int64_t n, int64_t nrhs, int nb, int elem_size,
                             const Grid& grid) const;
  // The layer count the call runs: the option's, or Auto's (planned_layers) where it is 0;
  // more than one must divide the grid's processes.
  Result<int> run_layers(bool cholesky, int64_t n, int64_t nrhs, int nb, int elem_size,
                         const Grid& grid) const;
  // Collective over comm after the run: a failure on any rank fails all alike; records the
  // result's bound (-1 when bound_derived is false and a lossy codec ran).
  Status finish(MPI_Comm comm, bool bound_derived);

 private:
  TriangularOptions options_;
  std::optional<Wire> frames_;
  TriangularWire wire_;
};

}  // namespace commpress::linalg::detail
