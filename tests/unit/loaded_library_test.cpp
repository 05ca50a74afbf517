// Which build of the codec library the dynamic loader chose (the baseline, or a glibc-hwcaps
// level): printed, so the portable-path tests can check they really ran the baseline.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "commpress/codec.hpp"

namespace {

std::string mapped_codec_library() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("libcommpress_codec.so") != std::string::npos)
      return line.substr(line.find('/'));
  return {};
}

TEST(LoadedLibrary, NamesTheCodecLibraryInUse) {
  ASSERT_NE(commpress::codec::find_codec("szp"), nullptr);  // the library is loaded and used
  const std::string path = mapped_codec_library();
  ASSERT_FALSE(path.empty());
  std::printf("codec library: %s (%s)\n", path.c_str(),
              path.find("/glibc-hwcaps/") == std::string::npos ? "baseline" : "hwcaps level");
}

}  // namespace
