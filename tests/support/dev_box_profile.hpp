// The development machine's measured profile (dev_box_profile.json), the one the MPI tests
// run under: model tests that need a complete, realistic profile load it.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "comm/profile_io.hpp"
#include "commpress/model.hpp"

namespace commpress::testing {

inline ::commpress::model::MachineProfile dev_box_profile() {
  auto m = ::commpress::comm::load_profile(COMMPRESS_TEST_PROFILE);
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", m.status().to_string().c_str());
    std::abort();
  }
  return *m;
}

}  // namespace commpress::testing
