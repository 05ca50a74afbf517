#include "comm/session/node_key.hpp"

#include <unistd.h>

#include <climits>
#include <cstdint>
#include <fstream>
#include <string>

#include "comm/session/agreement.hpp"

namespace commpress::comm::detail {

double node_key() {
  static const double key = [] {
    char host[HOST_NAME_MAX + 1] = {};
    gethostname(host, sizeof host - 1);
    std::string boot;
    std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
    return double(fingerprint(std::string(host) + '\n' + boot) & ((int64_t{1} << 52) - 1));
  }();
  return key;
}

}  // namespace commpress::comm::detail
