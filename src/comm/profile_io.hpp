// Machine profiles as JSON files (written by `commpress profile`, read by the selection).
// The model itself stays free of I/O; this is its only reader and writer.
#pragma once

#include <string>
#include <string_view>

#include "comm/profile.hpp"
#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::comm {

// The profile plus, when given, the raw measurements behind it (for the record).
std::string profile_to_json(const model::MachineProfile& m, const ProfileReport* measured = nullptr);

// Parses and validates (every number finite and non-negative, known dtypes); a field that
// is missing or wrong is named in the error. Unknown fields are ignored.
Result<model::MachineProfile> profile_from_json(std::string_view text);

Result<model::MachineProfile> load_profile(const std::string& path);
Status save_text(const std::string& path, const std::string& text);

}  // namespace commpress::comm
