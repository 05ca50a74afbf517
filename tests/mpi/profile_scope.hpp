// A machine profile installed for one test, with the number of ranks the launcher says share
// this node (one per core unless told: ctest oversubscribes), both restored afterwards.
#pragma once

#include <cstdlib>
#include <string>
#include <utility>

#include "comm/select.hpp"
#include "comm/session/environment.hpp"
#include "commpress/model.hpp"

namespace commpress::testing::comm {

struct ProfileScope {
  explicit ProfileScope(model::MachineProfile m, int local_ranks = 1) {
    commpress::comm::detail::set_machine_profile(std::move(m));
    if (const char* v = std::getenv(kVar)) saved_ = v;
    setenv(kVar, std::to_string(local_ranks).c_str(), 1);
    commpress::comm::detail::reread_environment_for_testing();  // read once per process
  }
  ~ProfileScope() {
    commpress::comm::detail::set_machine_profile(std::nullopt);
    if (saved_.empty()) unsetenv(kVar);
    else setenv(kVar, saved_.c_str(), 1);
    commpress::comm::detail::reread_environment_for_testing();
  }
  ProfileScope(const ProfileScope&) = delete;
  ProfileScope& operator=(const ProfileScope&) = delete;
  static constexpr const char* kVar = "OMPI_COMM_WORLD_LOCAL_SIZE";
  std::string saved_;
};

}  // namespace commpress::testing::comm
