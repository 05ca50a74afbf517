#include "comm/probe/profile_cache.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "comm/profile_io.hpp"
#include "comm/session/agreement.hpp"

namespace commpress::comm::probe {

namespace {
using nlohmann::json;
constexpr const char* kFormat = "commpress-probed-profile";
constexpr int kVersion = 1;
}  // namespace

std::string cache_directory() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return std::string(xdg) + "/commpress";  // XDG: relative paths are invalid
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/commpress";
  return "";
}

std::string cache_file(const std::string& directory, const std::string& key) {
  char name[64];
  std::snprintf(name, sizeof name, "probed-%016llx.json",
                static_cast<unsigned long long>(comm::detail::fingerprint(key)));
  return directory + "/" + name;
}

CacheRead read_cached_profile(const std::string& path, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {std::nullopt, "no file " + path};
  std::ostringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.value("format", std::string()) != kFormat ||
      !j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int>() != kVersion || !j.contains("profile"))
    return {std::nullopt, path + " is not a probed profile of this library (corrupt?)"};
  if (!j.contains("key") || !j["key"].is_string() || j["key"].get<std::string>() != key)
    return {std::nullopt, path + " was probed for another layout"};
  auto m = profile_from_json(j["profile"].dump());
  if (!m.ok()) return {std::nullopt, path + ": " + m.status().message()};
  return {*m, ""};
}

std::string write_cached_profile(const std::string& path, const std::string& key,
                                 const model::MachineProfile& profile) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(path);
  fs::create_directories(target.parent_path(), ec);
  if (ec) return "cannot create " + target.parent_path().string() + ": " + ec.message();
  json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["key"] = key;
  j["profile"] = json::parse(profile_to_json(profile));
  // Unique per process and host: writers on a shared home directory never share a file.
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string tmp = path + ".tmp." + host + "." + std::to_string(getpid());
  const Status st = save_text(tmp, j.dump(2) + "\n");
  if (!st.ok()) {
    fs::remove(tmp, ec);
    return st.message();
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return "cannot rename onto " + path + ": " + ec.message();
  }
  return "";
}

}  // namespace commpress::comm::probe
