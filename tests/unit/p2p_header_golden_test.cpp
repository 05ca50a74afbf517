// Pins the point-to-point message header (its own wire format, src/comm/transport/p2p_header.hpp)
// with committed bytes, as the golden frames pin the frame format: today's writer must give
// the same 80 bytes, and the committed bytes must still parse to the same fields. A change to
// either is a wire-format change: bump the header's version and regenerate with
// COMMPRESS_WRITE_GOLDEN=1 (tests/golden/README.md).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "comm/transport/p2p_header.hpp"

namespace {

namespace cd = commpress::comm::detail;
namespace cc = commpress::codec;
namespace fs = std::filesystem;

struct Case {
  const char* file;
  cd::MessageHeader header;
};

std::vector<Case> cases() {
  cd::MessageHeader lossy;
  lossy.dtype = cc::Dtype::f32;
  lossy.mode = cc::BoundMode::rel;
  lossy.count = 1000003;
  lossy.chunk_elems = 262144;
  lossy.chunk_capacity = 1056840;
  lossy.requested_bound = 1e-4;
  lossy.abs_bound = 0.0123;
  lossy.codec = "szp";
  cd::MessageHeader failed;
  failed.sender_status = commpress::ErrorCode::overflow;
  failed.dtype = cc::Dtype::f64;
  failed.count = 77;
  failed.codec = "zstd-1";
  failed.plain = true;
  return {{"p2p-header.lossy.bin", lossy}, {"p2p-header.failed.bin", failed}};
}

fs::path golden_dir() {
  const char* src = std::getenv("COMMPRESS_SOURCE_DIR");
  return src ? fs::path(src) / "tests" / "golden" : fs::path();
}

TEST(P2pHeaderGolden, WriterAndParserMatchTheCommittedBytes) {
  const fs::path dir = golden_dir();
  ASSERT_FALSE(dir.empty()) << "set COMMPRESS_SOURCE_DIR to the source tree";
  for (const Case& c : cases()) {
    const auto bytes = cd::write_header(c.header);
    const fs::path path = dir / c.file;
    if (std::getenv("COMMPRESS_WRITE_GOLDEN")) {
      std::ofstream(path, std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path << " is missing: a deleted golden file must not pass";
    std::vector<char> committed((std::istreambuf_iterator<char>(in)), {});
    ASSERT_EQ(committed.size(), bytes.size()) << c.file;
    EXPECT_EQ(0, std::memcmp(committed.data(), bytes.data(), bytes.size()))
        << c.file << ": the header writer no longer gives the committed bytes";
    auto parsed = cd::parse_header(std::as_bytes(std::span(committed)));
    ASSERT_TRUE(parsed.ok()) << c.file << ": " << parsed.status().to_string();
    EXPECT_EQ(parsed->sender_status, c.header.sender_status);
    EXPECT_EQ(parsed->dtype, c.header.dtype);
    EXPECT_EQ(parsed->mode, c.header.mode);
    EXPECT_EQ(parsed->count, c.header.count);
    EXPECT_EQ(parsed->chunk_elems, c.header.chunk_elems);
    EXPECT_EQ(parsed->chunk_capacity, c.header.chunk_capacity);
    EXPECT_EQ(parsed->requested_bound, c.header.requested_bound);
    EXPECT_EQ(parsed->abs_bound, c.header.abs_bound);
    EXPECT_EQ(parsed->codec, c.header.codec);
    EXPECT_EQ(parsed->plain, c.header.plain);
  }
}

}  // namespace
