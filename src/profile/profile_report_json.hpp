// The profile file `commpress profile` writes: the profile the selection reads, plus the raw
// measurements behind it for the record (the selection ignores them).
#pragma once

#include <string>

#include "profile/measure_profile.hpp"

namespace commpress::profile {

std::string profile_report_to_json(const ProfileReport& report);

}  // namespace commpress::profile
