// Machine profiles as JSON files (written by `commpress profile`, read by the selection).
// The model itself stays free of I/O; this is its only reader and writer.
#pragma once

#include <string>
#include <string_view>

#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::comm {

// The profile alone; `commpress profile` adds the raw measurements behind it
// (profile/profile_report_json.hpp).
std::string profile_to_json(const model::MachineProfile& m);

// Parses and validates (every number finite and non-negative, known dtypes); a field that
// is missing or wrong is named in the error. Unknown fields are ignored.
Result<model::MachineProfile> profile_from_json(std::string_view text);

Result<model::MachineProfile> load_profile(const std::string& path);
Status save_text(const std::string& path, const std::string& text);

}  // namespace commpress::comm
