// Probed profiles kept between runs, per machine and job layout, in the XDG cache directory
// ($XDG_CACHE_HOME/commpress, else ~/.cache/commpress): one file per layout, named by a hash
// of its key and holding the key in full, so a file of another layout (a hash collision, a
// copied file) is never taken for this one. Writers write a temporary file and rename it
// over the old one, so concurrent jobs of one layout leave one whole file, never a mix.
#pragma once

#include <optional>
#include <string>

#include "commpress/model.hpp"

namespace commpress::comm::probe {

// The GNU build id of the library holding the probe (hex; "" where the linker wrote none):
// part of the cache key, so a rebuilt library never reuses what an older build of the same
// version probed (the probe itself may have changed).
std::string library_build_id();

// The directory ("" where neither variable is set: nothing is cached).
std::string cache_directory();

// The file of a layout key, in `directory`.
std::string cache_file(const std::string& directory, const std::string& key);

// The profile cached under key at path, or why there is none usable (a missing file, a
// corrupt one, one of another layout or library version).
struct CacheRead {
  std::optional<model::MachineProfile> profile;
  std::string why_not;  // empty when profile is set
};
CacheRead read_cached_profile(const std::string& path, const std::string& key);

// Writes atomically (temporary file and rename), creating the directory; "" or the error.
std::string write_cached_profile(const std::string& path, const std::string& key,
                                 const model::MachineProfile& profile);

}  // namespace commpress::comm::probe
