// Collective argument checking: every rank contributes its view of the call, and all ranks
// reach the same verdict, so a mismatch (different counts, dtypes, roots, codecs...) or a bad
// argument on one rank makes every rank return the same error instead of deadlocking.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::comm::detail {

struct Field {
  const char* name;
  int64_t value;
  std::string (*show)(int64_t) = nullptr;  // how a value reads in a message (null: the number)
  // A mismatch names the smallest and largest value seen and this rank's; false for values
  // whose order means nothing (names): it names two of the values seen, the same message on
  // every rank.
  bool ordered = true;
};

// A size_t as a field: ordered as the unsigned values are, shown as them.
Field unsigned_field(const char* name, size_t value);

// Compares fields across comm (same names in the same order on every rank) and folds in each
// rank's local verdict. Returns on every rank: ok, or the same error (mismatch naming the
// field and the smallest and largest values seen, or the first failing rank's error code).
Status agree(MPI_Comm comm, const std::vector<Field>& fields, const Status& local);

// The same, with `mins` (same length on every rank, no NaN) replaced by their minimum over
// the ranks in the same single allreduce: [lo, -hi] gives a global value range for free.
// Fields from index `late` on are judged after the local verdicts (a failing rank's error
// beats their mismatch), as if agreed in a second round.
Status agree(MPI_Comm comm, const std::vector<Field>& fields, const Status& local,
             std::vector<double>& mins, size_t late);

// After an operation: if any rank failed, every rank returns an error naming the lowest
// failing rank (its own message on that rank).
Status agree_outcome(MPI_Comm comm, const Status& local);

// A stable 63-bit fingerprint of a string (codec names) for use as a Field value.
int64_t fingerprint(const std::string& s);

}  // namespace commpress::comm::detail
