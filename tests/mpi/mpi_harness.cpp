#include "mpi/mpi_harness.hpp"

#include <cstdint>

namespace commpress::testing::mpi {

int rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

int size(MPI_Comm comm) {
  int s = 0;
  MPI_Comm_size(comm, &s);
  return s;
}

bool any_rank(bool flag, MPI_Comm comm) {
  int local = flag ? 1 : 0, global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, comm);
  return global != 0;
}

void FailureCollector::OnTestStart(const ::testing::TestInfo& info) {
  current_test_ = std::string(info.test_suite_name()) + "." + info.name();
}

void FailureCollector::OnTestPartResult(const ::testing::TestPartResult& result) {
  if (!result.failed()) return;
  std::string where = result.file_name() ? std::string(result.file_name()) + ":" +
                                               std::to_string(result.line_number())
                                         : std::string("unknown location");
  failures_.push_back(current_test_ + " at " + where + ": " + result.message());
}

namespace {

// Failures travel as one buffer per rank: each text followed by a NUL.
std::string pack(const std::vector<std::string>& texts) {
  std::string buf;
  for (const auto& t : texts) {
    buf += t;
    buf += '\0';
  }
  return buf;
}

}  // namespace

std::vector<RankFailure> gather_failures(const std::vector<std::string>& local, int root,
                                         MPI_Comm comm) {
  const int me = rank(comm), n = size(comm);
  std::string mine = pack(local);
  int my_len = static_cast<int>(mine.size());
  std::vector<int> lens(me == root ? n : 0), offsets(me == root ? n : 0);
  MPI_Gather(&my_len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, comm);
  std::string all;
  if (me == root) {
    int64_t total = 0;
    for (int r = 0; r < n; ++r) {
      offsets[r] = static_cast<int>(total);
      total += lens[r];
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(mine.data(), my_len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR,
              root, comm);
  std::vector<RankFailure> out;
  if (me != root) return out;
  for (int r = 0; r < n; ++r) {
    size_t pos = static_cast<size_t>(offsets[r]), end = pos + static_cast<size_t>(lens[r]);
    while (pos < end) {
      size_t nul = all.find('\0', pos);
      out.push_back({r, all.substr(pos, nul - pos)});
      pos = nul + 1;
    }
  }
  return out;
}

}  // namespace commpress::testing::mpi
