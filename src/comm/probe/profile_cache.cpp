#include "comm/probe/profile_cache.hpp"

#include <elf.h>
#include <link.h>
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

namespace {

// dl_iterate_phdr's walk: the loaded object whose segments hold `address`, and the
// NT_GNU_BUILD_ID note among its program headers.
struct BuildIdSearch {
  const void* address;  // a function of this library
  std::string hex;
};

int find_build_id(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<BuildIdSearch*>(data);
  const auto at = reinterpret_cast<ElfW(Addr)>(search->address);
  bool ours = false;
  for (int i = 0; i < info->dlpi_phnum && !ours; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    ours = ph.p_type == PT_LOAD && at >= info->dlpi_addr + ph.p_vaddr &&
           at < info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
  }
  if (!ours) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
    const unsigned char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const unsigned char* name = p + sizeof(ElfW(Nhdr));
      const unsigned char* desc = name + ((note->n_namesz + 3) & ~3u);
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          std::string(reinterpret_cast<const char*>(name), 3) == "GNU") {
        static const char digits[] = "0123456789abcdef";
        for (unsigned j = 0; j < note->n_descsz && desc + j < end; ++j) {
          search->hex += digits[desc[j] >> 4];
          search->hex += digits[desc[j] & 15];
        }
        return 1;
      }
      p = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  return 1;  // ours, without a build id
}

}  // namespace

std::string library_build_id() {
  static const std::string id = [] {
    BuildIdSearch search{reinterpret_cast<const void*>(&library_build_id), {}};
    dl_iterate_phdr(find_build_id, &search);
    return search.hex;
  }();
  return id;
}

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
