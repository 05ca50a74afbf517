#include "comm/session/agreement.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "comm/session/private_comm.hpp"
#include "comm/session/yielding_wait.hpp"

namespace commpress::comm::detail {

namespace {

// One allreduce(MIN) over [v..., ~v..., failing rank, -code, mins...] gives min and max of
// every field, the lowest failing rank, the largest error code and the minimum of each
// double in `mins` in a single round trip.
struct Verdict {
  std::vector<int64_t> lo, hi;
  int64_t first_bad_rank = 0;
  int64_t worst_code = 0;
};

// Doubles as int64 whose signed order is the doubles' order (negative ones' magnitude bits
// flipped), so MPI_MIN on int64 takes the minimum double.
int64_t ordered_bits(double x) {
  const int64_t b = std::bit_cast<int64_t>(x);
  return b < 0 ? b ^ INT64_MAX : b;
}
double from_ordered_bits(int64_t b) {
  return std::bit_cast<double>(b < 0 ? b ^ INT64_MAX : b);
}

Result<Verdict> reduce_verdict(MPI_Comm comm, const std::vector<int64_t>& values,
                               const Status& local, std::vector<double>& mins) {
  int rank = 0, size = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &size));
  size_t k = values.size();
  std::vector<int64_t> buf(2 * k + 2 + mins.size());
  for (size_t i = 0; i < k; ++i) {
    buf[i] = values[i];
    buf[k + i] = ~values[i];  // order-reversing like negation, without INT64_MIN's overflow
  }
  buf[2 * k] = local.ok() ? int64_t(size) : int64_t(rank);
  buf[2 * k + 1] = -int64_t(local.code());
  for (size_t i = 0; i < mins.size(); ++i) buf[2 * k + 2 + i] = ordered_bits(mins[i]);
  COMMPRESS_MPI(
      allreduce_yielding(MPI_IN_PLACE, buf.data(), int(buf.size()), MPI_INT64_T, MPI_MIN, comm));
  Verdict v;
  v.lo.reserve(k);
  v.hi.reserve(k);
  for (size_t i = 0; i < k; ++i) {
    v.lo.push_back(buf[i]);
    v.hi.push_back(~buf[k + i]);
  }
  v.first_bad_rank = buf[2 * k] < size ? buf[2 * k] : -1;
  v.worst_code = -buf[2 * k + 1];
  for (size_t i = 0; i < mins.size(); ++i) mins[i] = from_ordered_bits(buf[2 * k + 2 + i]);
  return v;
}

Status remote_failure(const Verdict& v, const Status& local, int rank) {
  if (!local.ok() && rank == v.first_bad_rank) return local;
  return {static_cast<ErrorCode>(v.worst_code),
          "rank " + std::to_string(v.first_bad_rank) + " failed" +
              (local.ok() ? "" : "; this rank: " + local.message())};
}

constexpr uint64_t kSignBit = uint64_t{1} << 63;

std::string show_unsigned(int64_t v) { return std::to_string(uint64_t(v) ^ kSignBit); }

std::string show(const Field& f, int64_t v) { return f.show ? f.show(v) : std::to_string(v); }

Status disagreement(const Field& f, int64_t lo, int64_t hi) {
  std::string what = std::string("ranks disagree on ") + f.name;
  if (!f.ordered)
    return {ErrorCode::mismatch, what + ": values include " + show(f, lo) + " and " + show(f, hi)};
  return {ErrorCode::mismatch, what + ": values range from " + show(f, lo) + " to " + show(f, hi) +
                                   " (this rank: " + show(f, f.value) + ")"};
}

}  // namespace

Field unsigned_field(const char* name, size_t value) {
  return {name, int64_t(uint64_t(value) ^ kSignBit), show_unsigned};
}

Status agree(MPI_Comm comm, const std::vector<Field>& fields, const Status& local) {
  std::vector<double> none;
  return agree(comm, fields, local, none, fields.size());
}

Status agree(MPI_Comm comm, const std::vector<Field>& fields, const Status& local,
             std::vector<double>& mins, size_t late) {
  std::vector<int64_t> values;
  values.reserve(fields.size());
  for (const Field& f : fields) values.push_back(f.value);
  auto v = reduce_verdict(comm, values, local, mins);
  if (!v.ok()) return v.status();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  auto first_mismatch = [&](size_t from, size_t to) -> Status {
    for (size_t i = from; i < to; ++i)
      if (v->lo[i] != v->hi[i]) return disagreement(fields[i], v->lo[i], v->hi[i]);
    return {};
  };
  late = std::min(late, fields.size());
  COMMPRESS_RETURN_IF_ERROR(first_mismatch(0, late));
  if (v->first_bad_rank >= 0) return remote_failure(*v, local, rank);
  return first_mismatch(late, fields.size());
}

Status agree_outcome(MPI_Comm comm, const Status& local) { return agree(comm, {}, local); }

int64_t fingerprint(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return int64_t(h >> 1);
}

}  // namespace commpress::comm::detail
