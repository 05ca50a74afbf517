#include "comm/session/node_key.hpp"

#include <mpi.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <fstream>
#include <string>

#include "comm/session/agreement.hpp"

namespace commpress::comm::detail {

double node_key() {
#ifdef COMMPRESS_SMPI
  // Under SimGrid's SMPI every simulated host runs in this one process, so this machine's
  // name would put every rank on one node: the node is the simulated host the rank runs on,
  // which SMPI reports as the processor name (and MPI_COMM_TYPE_SHARED follows). Not kept in
  // a static: without smpi/privatization the ranks would share it.
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  return double(fingerprint(std::string(host, size_t(len))) & ((int64_t{1} << 52) - 1));
#else
  static const double key = [] {
    char host[HOST_NAME_MAX + 1] = {};
    gethostname(host, sizeof host - 1);
    std::string boot;
    std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
    return double(fingerprint(std::string(host) + '\n' + boot) & ((int64_t{1} << 52) - 1));
  }();
  return key;
#endif
}

}  // namespace commpress::comm::detail
