// Codec::decompress_pieces: the pieces, in order, are decompress()'s array bit for bit, for
// every piece size and thread count, and each stays put until the next is handed over; a
// damaged frame is refused before the first piece; a sink's error ends the decode as it is;
// codecs that decode only whole frames say so.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <vector>

#include "codec/lossy/szp/block_header.hpp"
#include "commpress/codec.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"
#include "support/reframe.hpp"

namespace cc = commpress::codec;
namespace szp = commpress::codec::szp;
using commpress::ErrorCode;
using commpress::Status;
using commpress::testing::Shape;

namespace {

const cc::Codec& szp_codec() {
  const cc::Codec* c = cc::find_codec("szp");
  EXPECT_NE(c, nullptr);
  return *c;
}

struct Pieces {
  std::vector<std::byte> bytes;  // the pieces back to back
  std::vector<size_t> sizes;
  bool previous_kept = true;  // each piece unchanged when the next arrived
};

template <class T>
Status decode_pieces(const std::vector<std::byte>& frame, size_t buffer_values, Pieces& got) {
  std::vector<T> buffer(buffer_values);
  cc::Workspace ws;
  std::span<const std::byte> previous;
  return szp_codec().decompress_pieces(
      frame, std::as_writable_bytes(std::span<T>(buffer)),
      [&](std::span<const std::byte> p) {
        if (!previous.empty() &&
            std::memcmp(previous.data(), got.bytes.data() + got.bytes.size() - previous.size(),
                        previous.size()) != 0)
          got.previous_kept = false;
        got.bytes.insert(got.bytes.end(), p.begin(), p.end());
        got.sizes.push_back(p.size());
        previous = p;
        return Status{};
      },
      ws);
}

template <class T>
void pieces_are_the_array() {
  const int saved = omp_get_max_threads();
  for (size_t n : {size_t(1), size_t(31), size_t(32), size_t(33), size_t(1000003)}) {
    auto x = commpress::testing::make_data<T>(Shape::nonfinite, n, 7);
    auto frame = szp_codec().compress(std::span<const T>(x), cc::ErrorBound::relative(1e-4));
    ASSERT_TRUE(frame.ok());
    std::vector<T> whole(n);
    ASSERT_TRUE(szp_codec().decompress(*frame, std::span<T>(whole)).ok());
    const size_t blocks = szp::block_count(n);
    // One block, a few, a piece several threads share, and more than the array.
    for (size_t piece_blocks : {size_t(1), size_t(3), size_t(10000), blocks + 5}) {
      if (piece_blocks > 3 && piece_blocks < blocks && n < 1000) continue;
      for (int threads : {1, 3}) {
        omp_set_num_threads(threads);
        Pieces got;
        // Two pieces and a spare value: only whole blocks are used.
        Status st = decode_pieces<T>(*frame, 2 * piece_blocks * szp::kBlockValues + 1, got);
        std::string what = "n=" + std::to_string(n) + " piece_blocks=" +
                           std::to_string(piece_blocks) + " threads=" + std::to_string(threads);
        ASSERT_TRUE(st.ok()) << what << ": " << st.to_string();
        ASSERT_EQ(got.bytes.size(), n * sizeof(T)) << what;
        EXPECT_EQ(std::memcmp(got.bytes.data(), whole.data(), got.bytes.size()), 0) << what;
        ASSERT_EQ(got.sizes.size(), (blocks + piece_blocks - 1) / piece_blocks) << what;
        for (size_t i = 0; i + 1 < got.sizes.size(); ++i)
          EXPECT_EQ(got.sizes[i], piece_blocks * szp::kBlockValues * sizeof(T)) << what;
        EXPECT_TRUE(got.previous_kept) << what;
      }
    }
  }
  omp_set_num_threads(saved);
}

TEST(DecodeInPieces, PiecesAreTheArrayF32) { pieces_are_the_array<float>(); }
TEST(DecodeInPieces, PiecesAreTheArrayF64) { pieces_are_the_array<double>(); }

TEST(DecodeInPieces, EmptyArrayGivesNoPiece) {
  auto frame = szp_codec().compress(std::span<const float>(), cc::ErrorBound::absolute(1e-3));
  ASSERT_TRUE(frame.ok());
  Pieces got;
  EXPECT_TRUE(decode_pieces<float>(*frame, 128, got).ok());
  EXPECT_TRUE(got.sizes.empty());
}

// The frame of 10000 walk values, its payload opened for damage.
commpress::testing::OpenFrame walk_frame() {
  auto x = commpress::testing::make_data<float>(Shape::random_walk, 10000, 3);
  auto frame = szp_codec().compress(std::span<const float>(x), cc::ErrorBound::absolute(1e-3));
  EXPECT_TRUE(frame.ok());
  return commpress::testing::open_frame(*frame);
}

TEST(DecodeInPieces, DamageIsRefusedBeforeAnyPiece) {
  uint8_t invalid = 0;
  while (szp::kBodySizeTable<float>[0][invalid] != szp::kInvalidEntry) ++invalid;
  auto bad_header = walk_frame();
  bad_header.payload[200] = std::byte{invalid};  // a block well after the first piece's
  auto short_bodies = walk_frame();
  short_bodies.payload.pop_back();
  std::vector<std::byte> checksum_broken = commpress::testing::reframe(walk_frame());
  checksum_broken.back() ^= std::byte{1};
  const std::pair<const char*, std::vector<std::byte>> cases[] = {
      {"invalid header", commpress::testing::reframe(bad_header)},
      {"bodies one byte short", commpress::testing::reframe(short_bodies)},
      {"checksum", checksum_broken},
  };
  for (const auto& [what, frame] : cases) {
    Pieces got;
    Status st = decode_pieces<float>(frame, 128, got);
    EXPECT_FALSE(st.ok()) << what;
    EXPECT_TRUE(got.sizes.empty()) << what << ": " << got.sizes.size() << " pieces first";
  }
}

TEST(DecodeInPieces, SinkErrorEndsTheDecodeAsItIs) {
  auto frame = commpress::testing::reframe(walk_frame());
  std::vector<float> buffer(128);
  int calls = 0;
  cc::Workspace ws;
  Status st = szp_codec().decompress_pieces(
      frame, std::as_writable_bytes(std::span<float>(buffer)),
      [&](std::span<const std::byte>) {
        return ++calls == 2 ? Status{ErrorCode::io, "disk full"} : Status{};
      },
      ws);
  EXPECT_EQ(st.code(), ErrorCode::io);
  EXPECT_EQ(st.message(), "disk full");
  EXPECT_EQ(calls, 2);
}

TEST(DecodeInPieces, BufferBelowTwoBlocksIsRefused) {
  auto frame = commpress::testing::reframe(walk_frame());
  Pieces got;
  EXPECT_EQ(decode_pieces<float>(frame, 2 * szp::kBlockValues - 1, got).code(),
            ErrorCode::invalid_argument);
  EXPECT_TRUE(got.sizes.empty());
}

TEST(DecodeInPieces, WholeFrameCodecsSaySo) {
  const cc::Codec* zstd = cc::find_codec("zstd-1");
  ASSERT_NE(zstd, nullptr);
  EXPECT_FALSE(zstd->decodes_in_pieces());
  EXPECT_TRUE(szp_codec().decodes_in_pieces());
  std::vector<float> x(100, 1.5f);
  auto frame = zstd->compress(std::span<const float>(x), cc::ErrorBound::lossless());
  ASSERT_TRUE(frame.ok());
  std::vector<float> buffer(128);
  bool called = false;
  cc::Workspace ws;
  Status st = zstd->decompress_pieces(
      *frame, std::as_writable_bytes(std::span<float>(buffer)),
      [&](std::span<const std::byte>) {
        called = true;
        return Status{};
      },
      ws);
  EXPECT_EQ(st.code(), ErrorCode::unsupported);
  EXPECT_FALSE(called);
}

}  // namespace
