#include "pmpi/p2p_peers.hpp"

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace commpress::pmpi {

namespace {

struct Announcement {
  uint64_t key = 0;
  int32_t decodes = 0;
  int32_t unused = 0;
};

uint64_t job_key = 0;
bool me_decodes = false;
std::vector<char> world_decodes;  // by MPI_COMM_WORLD rank
MPI_Group world_group = MPI_GROUP_NULL;

}  // namespace

void start_p2p_peers(bool c_program) {
  int level = MPI_THREAD_SINGLE, size = 0;
  PMPI_Query_thread(&level);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  Announcement mine;
  mine.key = std::random_device{}() * 0x9e3779b97f4a7c15ull ^ uint64_t(PMPI_Wtime() * 1e9);
  const char* off = std::getenv("COMMPRESS_P2P_DECODE");
  const bool refused = off != nullptr && std::strcmp(off, "0") == 0;
  mine.decodes = c_program && level == MPI_THREAD_MULTIPLE && !refused ? 1 : 0;
  std::vector<Announcement> all(static_cast<size_t>(size));
  PMPI_Allgather(&mine, int(sizeof mine), MPI_BYTE, all.data(), int(sizeof mine), MPI_BYTE,
                 MPI_COMM_WORLD);
  job_key = all[0].key;
  me_decodes = mine.decodes != 0;
  world_decodes.resize(size_t(size));
  for (int r = 0; r < size; ++r) world_decodes[size_t(r)] = char(all[size_t(r)].decodes);
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
}

uint64_t p2p_key() { return job_key; }
bool this_rank_decodes() { return me_decodes; }

bool peer_decodes(MPI_Comm comm, int peer) {
  if (peer < 0 || world_group == MPI_GROUP_NULL) return false;  // MPI_PROC_NULL, before init
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return false;
  int world_rank = peer;
  if (comm != MPI_COMM_WORLD) {
    MPI_Group group;
    if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS) return false;
    const int rc = PMPI_Group_translate_ranks(group, 1, &peer, world_group, &world_rank);
    PMPI_Group_free(&group);
    if (rc != MPI_SUCCESS) return false;
  }
  return world_rank >= 0 && size_t(world_rank) < world_decodes.size() &&
         world_decodes[size_t(world_rank)] != 0;
}

}  // namespace commpress::pmpi
