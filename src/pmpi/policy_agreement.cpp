#include "pmpi/policy_agreement.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace commpress::pmpi {

namespace {

// Longer texts are cut; the validity flag and a length field keep a cut text distinct.
constexpr size_t kTextBytes = 240;

struct Entry {
  int32_t valid = 0;
  int32_t length = 0;
  char text[kTextBytes] = {};
};

// "0-2,4,7-8"
std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!s.empty()) s += ",";
    s += std::to_string(ranks[i]);
    if (j > i) {  // appended in two steps: GCC 12 warns falsely (-Wrestrict) on "-" + string
      s += '-';
      s += std::to_string(ranks[j]);
    }
    i = j + 1;
  }
  return s;
}

std::string shown(const Entry& e) {
  std::string t(e.text, strnlen(e.text, kTextBytes));
  if (size_t(e.length) > t.size()) t += "...";
  return e.valid ? t : "invalid: " + t;
}

}  // namespace

Status agree_policy(MPI_Comm comm, const std::string& text, bool valid, double timeout_seconds) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  Entry mine;
  mine.valid = valid ? 1 : 0;
  mine.length = int32_t(std::min<size_t>(text.size(), INT32_MAX));
  std::memcpy(mine.text, text.data(), std::min(text.size(), kTextBytes));
  std::vector<Entry> all(static_cast<size_t>(size));
  if (timeout_seconds <= 0) {
    if (PMPI_Allgather(&mine, int(sizeof mine), MPI_BYTE, all.data(), int(sizeof mine),
                       MPI_BYTE, comm) != MPI_SUCCESS)
      return {ErrorCode::mpi, "MPI_Allgather failed while agreeing on the policy"};
  } else {
    MPI_Request request;
    if (PMPI_Iallgather(&mine, int(sizeof mine), MPI_BYTE, all.data(), int(sizeof mine),
                        MPI_BYTE, comm, &request) != MPI_SUCCESS)
      return {ErrorCode::mpi, "MPI_Iallgather failed while agreeing on the policy"};
    const double deadline = PMPI_Wtime() + timeout_seconds;
    int done = 0;
    while (!done) {
      PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (!done && PMPI_Wtime() > deadline)
        return {ErrorCode::mpi, "not every rank joined the policy agreement within " +
                                    std::to_string(int(timeout_seconds)) +
                                    " s: is every rank started with LD_PRELOAD="
                                    "libcommpress_mpi.so (with mpirun's ':' syntax, -x in "
                                    "each application context)?"};
    }
  }

  bool same = true, all_valid = true;
  for (const Entry& e : all) {
    same = same && std::memcmp(&e, &all[0], sizeof e) == 0;
    all_valid = all_valid && e.valid;
  }
  if (same && all_valid) return {};

  // Group the ranks by what they hold, in order of first appearance.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int r = 0; r < size; ++r) {
    const std::string s = shown(all[size_t(r)]);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == s; });
    if (it == groups.end()) groups.push_back({s, {r}});
    else it->second.push_back(r);
  }
  std::string msg = same ? "the policy is invalid: " : "ranks disagree on the policy: ";
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto& [value, ranks] = groups[i];
    msg += (i ? "; " : "") + std::string(ranks.size() > 1 ? "ranks " : "rank ") +
           rank_list(ranks) + ": " + value;
  }
  return {same ? ErrorCode::invalid_argument : ErrorCode::mismatch, msg};
}

}  // namespace commpress::pmpi
