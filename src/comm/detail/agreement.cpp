#include "comm/detail/agreement.hpp"

#include "comm/detail/private_comm.hpp"

namespace commpress::comm::detail {

namespace {

// One allreduce(MIN) over [v..., -v..., failing rank, -code] gives min and max of every
// field plus the lowest failing rank and the largest error code in a single round trip.
struct Verdict {
  std::vector<int64_t> lo, hi;
  int64_t first_bad_rank = 0;
  int64_t worst_code = 0;
};

Result<Verdict> reduce_verdict(MPI_Comm comm, const std::vector<int64_t>& values,
                               const Status& local) {
  int rank = 0, size = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &size));
  size_t k = values.size();
  std::vector<int64_t> buf(2 * k + 2);
  for (size_t i = 0; i < k; ++i) {
    buf[i] = values[i];
    buf[k + i] = -values[i];
  }
  buf[2 * k] = local.ok() ? int64_t(size) : int64_t(rank);
  buf[2 * k + 1] = -int64_t(local.code());
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, buf.data(), int(buf.size()), MPI_INT64_T, MPI_MIN, comm));
  Verdict v;
  for (size_t i = 0; i < k; ++i) {
    v.lo.push_back(buf[i]);
    v.hi.push_back(-buf[k + i]);
  }
  v.first_bad_rank = buf[2 * k] < size ? buf[2 * k] : -1;
  v.worst_code = -buf[2 * k + 1];
  return v;
}

Status remote_failure(const Verdict& v, const Status& local, int rank) {
  if (!local.ok() && rank == v.first_bad_rank) return local;
  return {static_cast<ErrorCode>(v.worst_code),
          "rank " + std::to_string(v.first_bad_rank) + " failed" +
              (local.ok() ? "" : "; this rank: " + local.message())};
}

}  // namespace

Status agree(MPI_Comm comm, const std::vector<Field>& fields, const Status& local) {
  std::vector<int64_t> values;
  for (const Field& f : fields) values.push_back(f.value);
  auto v = reduce_verdict(comm, values, local);
  if (!v.ok()) return v.status();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  for (size_t i = 0; i < fields.size(); ++i)
    if (v->lo[i] != v->hi[i])
      return {ErrorCode::mismatch, std::string("ranks disagree on ") + fields[i].name +
                                       ": values range from " + std::to_string(v->lo[i]) +
                                       " to " + std::to_string(v->hi[i]) + " (this rank: " +
                                       std::to_string(fields[i].value) + ")"};
  if (v->first_bad_rank >= 0) return remote_failure(*v, local, rank);
  return {};
}

Status agree_outcome(MPI_Comm comm, const Status& local) { return agree(comm, {}, local); }

int64_t fingerprint(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return int64_t(h >> 1);
}

}  // namespace commpress::comm::detail
