// The library wrappers beyond what the registry-wide tests check: integer dtypes, the
// chunk layout, zstd levels and frame checks, Blosc shuffles, thread safety, and damage that
// passes the frame checksum (payload edited, checksum recomputed).
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <stdexcept>
#include <thread>

#include "codec/lossless/chunked_stream.hpp"
#include "commpress/codec.hpp"
#include "core/byte_io.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"
#include "support/guarded_buffer.hpp"
#include "support/reframe.hpp"

namespace cc = commpress::codec;
namespace ct = commpress::testing;
using commpress::ErrorCode;
using ct::Shape;

namespace {

const std::vector<std::string>& wrapper_names() {
  static const std::vector<std::string> names = {
      "lz4",    "zstd-1", "zstd-3", "zstd-9", "zstd-19", "zlib-1", "zlib-6",
      "blosc-blosclz-noshuffle", "blosc-blosclz-shuffle", "blosc-blosclz-bitshuffle",
      "blosc-lz4-noshuffle",     "blosc-lz4-shuffle",     "blosc-lz4-bitshuffle",
      "blosc-zstd-noshuffle",    "blosc-zstd-shuffle",    "blosc-zstd-bitshuffle",
      "zfp-reversible"};
  return names;
}

// Throws (which fails the calling test) when the name is not registered.
const cc::Codec& codec(const std::string& name) {
  if (const cc::Codec* c = cc::find_codec(name)) return *c;
  throw std::runtime_error(name + " is not registered");
}

std::vector<std::byte> compress_f32(const cc::Codec& c, const std::vector<float>& x) {
  auto frame = c.compress(std::span<const float>(x), cc::ErrorBound::lossless());
  EXPECT_TRUE(frame.ok()) << c.name() << ": " << frame.status().to_string();
  return frame.ok() ? *frame : std::vector<std::byte>{};
}

template <class T>
std::vector<T> extreme_ints(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> x(n);
  for (size_t i = 0; i < n; ++i) {
    switch (i % 5) {
      case 0: x[i] = std::numeric_limits<T>::min(); break;
      case 1: x[i] = std::numeric_limits<T>::max(); break;
      default: x[i] = static_cast<T>(rng());
    }
  }
  return x;
}

template <class T>
void expect_int_roundtrip(const cc::Codec& c) {
  for (size_t n : ct::awkward_sizes()) {
    auto x = extreme_ints<T>(n, n + 1);
    auto frame = c.compress(std::span<const T>(x), cc::ErrorBound::lossless());
    ASSERT_TRUE(frame.ok()) << c.name() << ": " << frame.status().to_string();
    std::vector<T> y(n);
    ASSERT_TRUE(c.decompress(*frame, std::span<T>(y)).ok()) << c.name() << " n=" << n;
    ASSERT_TRUE(ct::bit_equal<T>(x, y)) << c.name() << " n=" << n;
  }
}

std::string param_name(std::string s) {
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

// Per-codec checks; the parameter is the registry name.
class Wrapper : public ::testing::TestWithParam<std::string> {};

TEST_P(Wrapper, IsRegisteredAndLossless) {
  const cc::Codec* c = cc::find_codec(GetParam());
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->lossy());
  EXPECT_TRUE(c->supports(cc::Dtype::f32) && c->supports(cc::Dtype::f64));
}

TEST_P(Wrapper, IntegerDtypesAreBitExact) {
  const cc::Codec& c = codec(GetParam());
  ASSERT_TRUE(c.supports(cc::Dtype::i32) && c.supports(cc::Dtype::i64));
  expect_int_roundtrip<int32_t>(c);
  expect_int_roundtrip<int64_t>(c);
  if (c.supports(cc::Dtype::u8)) expect_int_roundtrip<uint8_t>(c);
}

// A reused workspace and per-thread library contexts must not carry state between calls.
TEST_P(Wrapper, RepeatedCallsGiveIdenticalFrames) {
  const cc::Codec& c = codec(GetParam());
  auto smooth = ct::make_data<float>(Shape::smooth3d, 20000, 3);
  auto noise = ct::make_data<float>(Shape::gaussian, 5000, 4);
  cc::Workspace ws;
  std::vector<std::byte> first, other, again;
  ASSERT_TRUE(c.compress(smooth.data(), smooth.size(), cc::Dtype::f32, {}, first, ws).ok());
  for (const char* between : {"zstd-19", "zlib-1", "zfp-reversible"})
    ASSERT_TRUE(codec(between).compress(noise.data(), noise.size(), cc::Dtype::f32, {}, other, ws).ok());
  ASSERT_TRUE(c.compress(smooth.data(), smooth.size(), cc::Dtype::f32, {}, again, ws).ok());
  EXPECT_EQ(first, again);
}

TEST_P(Wrapper, ConcurrentThreadsRoundTrip) {
  const cc::Codec& c = codec(GetParam());
  int failures[4] = {};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &c, &failures] {
      auto x = ct::make_data<double>(Shape::random_walk, 3000 + 17 * t, t);
      std::vector<double> y(x.size());
      for (int rep = 0; rep < 8; ++rep) {
        auto frame = c.compress(std::span<const double>(x), cc::ErrorBound::lossless());
        if (!frame.ok() || !c.decompress(*frame, std::span<double>(y)).ok() ||
            !ct::bit_equal<double>(x, y))
          ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

INSTANTIATE_TEST_SUITE_P(lossless, Wrapper, ::testing::ValuesIn(wrapper_names()),
                         [](const auto& info) { return param_name(info.param); });

// The parameter is the level.
class ZstdLevel : public ::testing::TestWithParam<int> {};

TEST_P(ZstdLevel, IsRecordedAndFrameIsZstd) {
  // Small integers in runs: data where a higher level finds more to gain.
  std::mt19937 rng(1);
  std::vector<int32_t> x(60000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = i % 16 < 8 ? int32_t(rng() % 24) : x[i - 8];
  const int level = GetParam();
  const cc::Codec& c = codec("zstd-" + std::to_string(level));
  EXPECT_EQ(c.param(), uint32_t(level));
  auto frame = c.compress(std::span<const int32_t>(x), cc::ErrorBound::lossless());
  auto fast = codec("zstd-1").compress(std::span<const int32_t>(x), cc::ErrorBound::lossless());
  ASSERT_TRUE(frame.ok() && fast.ok());
  auto f = ct::open_frame(*frame);
  EXPECT_EQ(f.info.param, uint32_t(level));
  EXPECT_EQ(f.info.codec, cc::CodecId::zstd);
  ASSERT_GE(f.payload.size(), 4u);
  EXPECT_EQ(commpress::core::load_le<uint32_t>(f.payload.data()), 0xFD2FB528u);  // zstd magic
  // Levels are not monotonic step by step, but 19 must beat 1 on this data.
  if (level == 19) {
    EXPECT_LT(frame->size(), fast->size());
  }
  // Every level's frame decodes through any zstd codec.
  std::vector<int32_t> y(x.size());
  ASSERT_TRUE(codec("zstd-1").decompress(*frame, std::span<int32_t>(y)).ok());
  ASSERT_TRUE(ct::bit_equal<int32_t>(x, y));
}

// A valid zstd frame for the wrong byte count, or followed by a second frame, is refused.
TEST_P(ZstdLevel, ContentSizeMustMatchAndFrameMustBeAlone) {
  const cc::Codec& c = codec("zstd-" + std::to_string(GetParam()));
  auto x = ct::make_data<float>(Shape::gaussian, 1000, 1);
  auto shorter = std::vector<float>(x.begin(), x.end() - 1);
  auto good = ct::open_frame(compress_f32(c, x));
  auto other = ct::open_frame(compress_f32(c, shorter));
  std::vector<float> y(x.size());

  auto wrong = ct::reframe(good.info, other.payload);
  EXPECT_EQ(c.decompress(wrong, std::span<float>(y)).code(), ErrorCode::corrupt_frame);

  auto doubled = good.payload;
  doubled.insert(doubled.end(), good.payload.begin(), good.payload.end());
  EXPECT_EQ(c.decompress(ct::reframe(good.info, doubled), std::span<float>(y)).code(),
            ErrorCode::corrupt_frame);
}

INSTANTIATE_TEST_SUITE_P(lossless, ZstdLevel, ::testing::Values(1, 3, 9, 19));

// The parameter is Blosc's inner compressor.
class BloscShuffles : public ::testing::TestWithParam<std::string> {};

TEST_P(BloscShuffles, DifferAndAllRoundTrip) {
  auto x = ct::make_data<double>(Shape::smooth3d, 30000, 2);
  std::vector<std::vector<std::byte>> payloads;
  int shuffle_flag = 0;
  for (const char* shuffle : {"noshuffle", "shuffle", "bitshuffle"}) {
    std::string name = "blosc-" + GetParam() + "-" + shuffle;
    const cc::Codec& c = codec(name);
    auto frame = c.compress(std::span<const double>(x), cc::ErrorBound::lossless());
    ASSERT_TRUE(frame.ok()) << name;
    std::vector<double> y(x.size());
    ASSERT_TRUE(c.decompress(*frame, std::span<double>(y)).ok()) << name;
    ASSERT_TRUE(ct::bit_equal<double>(x, y)) << name;
    auto f = ct::open_frame(*frame);
    EXPECT_EQ(f.info.param, c.param());
    // After the 4-byte chunk length: Blosc header version, versionlz, flags, typesize.
    ASSERT_GT(f.payload.size(), 4u + 16u);
    int flags = std::to_integer<int>(f.payload[4 + 2]);
    EXPECT_EQ(std::to_integer<int>(f.payload[4 + 3]), 8) << name << ": typesize";
    EXPECT_EQ(flags & 0x5, shuffle_flag) << name << ": shuffle flags";
    shuffle_flag = shuffle_flag == 0 ? 0x1 : 0x4;
    for (const auto& p : payloads) EXPECT_NE(p, f.payload) << name;
    payloads.push_back(f.payload);
  }
}

INSTANTIATE_TEST_SUITE_P(lossless, BloscShuffles,
                         ::testing::Values("blosclz", "lz4", "zstd"));

// A chunker with tiny chunks, so the multi-chunk layout is exercised without gigabytes.
class TinyChunks final : public cc::detail::ChunkCodec {
 public:
  explicit TinyChunks(size_t bytes) : bytes_(bytes) {}
  size_t chunk_bytes() const override { return bytes_; }
  size_t chunk_bound(size_t raw) const override { return raw + 1; }
  size_t chunk_min(size_t raw) const override { return raw + 1; }
  commpress::Status check_declared(std::span<const std::byte> in, size_t raw) const override {
    if (in.empty() || std::to_integer<size_t>(in[0]) != raw)
      return {ErrorCode::corrupt_frame, "tiny chunk declares another size"};
    return {};
  }
  commpress::Result<size_t> compress_chunk(std::span<const std::byte> in,
                                           std::span<std::byte> out) const override {
    out[0] = std::byte(in.size());
    for (size_t i = 0; i < in.size(); ++i) out[i + 1] = in[i] ^ std::byte{0x5a};
    return in.size() + 1;
  }
  commpress::Status decompress_chunk(std::span<const std::byte> in,
                                     std::span<std::byte> out) const override {
    if (in.empty() || std::to_integer<size_t>(in[0]) != out.size() || in.size() != out.size() + 1)
      return {ErrorCode::corrupt_frame, "bad tiny chunk"};
    for (size_t i = 0; i < out.size(); ++i) out[i] = in[i + 1] ^ std::byte{0x5a};
    return {};
  }

 private:
  size_t bytes_;
};

// The parameter is the chunk size.
class ChunkedStream : public ::testing::TestWithParam<size_t> {};

TEST_P(ChunkedStream, ManyChunksRoundTripAndLayoutIsAsDocumented) {
  const size_t c = GetParam();
  TinyChunks tiny(c);
  for (size_t bytes : {0, 1, 6, 7, 8, 14, 15, 100}) {
    std::vector<std::byte> in(bytes);
    for (size_t i = 0; i < bytes; ++i) in[i] = std::byte(i * 37 + 1);
    size_t chunks = (bytes + c - 1) / c;
    EXPECT_EQ(cc::detail::chunked_max_payload(tiny, bytes), bytes + chunks * 5);
    std::vector<std::byte> payload(cc::detail::chunked_max_payload(tiny, bytes));
    auto n = cc::detail::chunked_encode(tiny, in, payload);
    ASSERT_TRUE(n.ok());
    ASSERT_EQ(*n, payload.size());
    // Each chunk: u32 length, then the chunk's bytes.
    size_t pos = 0;
    for (size_t k = 0; k < chunks; ++k) {
      uint32_t len = commpress::core::load_le<uint32_t>(payload.data() + pos);
      EXPECT_EQ(len, std::min<size_t>(c, bytes - c * k) + 1);
      pos += 4 + len;
    }
    EXPECT_EQ(pos, payload.size());
    std::vector<std::byte> out(bytes);
    ASSERT_TRUE(cc::detail::chunked_decode(tiny, payload, out).ok());
    EXPECT_EQ(in, out);
  }
}

TEST_P(ChunkedStream, DamagedLayoutIsRejected) {
  const size_t c = GetParam();
  TinyChunks tiny(c);
  std::vector<std::byte> in(3 * c - 1, std::byte{3}), out(in.size());
  std::vector<std::byte> payload(cc::detail::chunked_max_payload(tiny, in.size()));
  ASSERT_TRUE(cc::detail::chunked_encode(tiny, in, payload).ok());
  for (size_t len = 0; len < payload.size(); ++len)
    EXPECT_FALSE(cc::detail::chunked_decode(tiny, {payload.data(), len}, out).ok()) << len;
  auto longer = payload;
  longer.push_back(std::byte{0});
  EXPECT_EQ(cc::detail::chunked_decode(tiny, longer, out).code(), ErrorCode::corrupt_frame);
  auto huge_len = payload;
  commpress::core::store_le<uint32_t>(huge_len.data(), 0xFFFFFFF0u);
  EXPECT_EQ(cc::detail::chunked_decode(tiny, huge_len, out).code(), ErrorCode::corrupt_frame);
  auto bad_chunk = payload;
  bad_chunk[4 + (c + 1) + 4] = std::byte{0};  // the second chunk's own length byte
  auto st = cc::detail::chunked_decode(tiny, bad_chunk, out);
  EXPECT_EQ(st.code(), ErrorCode::corrupt_frame);
  EXPECT_NE(st.message().find("chunk 1"), std::string::npos) << st.message();
}

// What inspect() relies on before anyone allocates the frame's count.
TEST_P(ChunkedStream, FitCheckNeedsEveryChunksMinimumAndDeclaredSize) {
  const size_t c = GetParam();
  TinyChunks tiny(c);
  std::vector<std::byte> in(3 * c - 1, std::byte{3});
  std::vector<std::byte> payload(cc::detail::chunked_max_payload(tiny, in.size()));
  ASSERT_TRUE(cc::detail::chunked_encode(tiny, in, payload).ok());
  cc::FrameInfo info;
  info.count = in.size();
  EXPECT_TRUE(cc::detail::chunked_check_fits(tiny, payload, in.size(), info, "tiny").ok());
  auto st = cc::detail::chunked_check_fits(tiny, payload, uint64_t{1} << 40, info, "tiny");
  EXPECT_EQ(st.code(), ErrorCode::corrupt_frame);
  EXPECT_NE(st.message().find("cannot hold"), std::string::npos) << st.message();
  auto wrong_size = payload;
  wrong_size[4] = std::byte(c - 1);  // the first chunk's own length byte
  EXPECT_EQ(cc::detail::chunked_check_fits(tiny, wrong_size, in.size(), info, "tiny").code(),
            ErrorCode::corrupt_frame);
}

INSTANTIATE_TEST_SUITE_P(lossless, ChunkedStream, ::testing::Values(size_t{1}, size_t{7}, size_t{64}));

// Damage that passes the checksum reaches the library decoders: truncations and edited length
// fields must be errors; arbitrary edits must never crash (they may decode to other data).
// Frame and destination end at an inaccessible page, so any overrun inside a library faults.
class RechecksummedDamage : public ::testing::TestWithParam<std::string> {};

commpress::Status guarded_decode(const cc::Codec& c, const std::vector<std::byte>& frame,
                                 size_t n) {
  ct::GuardedBuffer in(frame), out(n * sizeof(float));
  return c.decompress(in.bytes(), out.as<float>());
}

TEST_P(RechecksummedDamage, TruncatedPayloadsAreErrors) {
  const cc::Codec& c = codec(GetParam());
  auto x = ct::make_data<float>(Shape::nonfinite, 700, 5);
  auto f = ct::open_frame(compress_f32(c, x));
  for (size_t len = 0; len < f.payload.size(); ++len) {
    auto frame = ct::reframe(f.info, {f.payload.data(), len});
    EXPECT_FALSE(guarded_decode(c, frame, x.size()).ok()) << "payload cut to " << len;
  }
  auto longer = f.payload;
  longer.push_back(std::byte{0});
  EXPECT_FALSE(guarded_decode(c, ct::reframe(f.info, longer), x.size()).ok());
}

// Byte-stream wrappers know the exact byte count. A zfp stream carries no element count, so
// a count altered within the last block (or into zero padding) can decode, safely, to another
// length; counts a block or more shorter, or far longer, use up a different stream length.
TEST_P(RechecksummedDamage, PayloadOfAnotherCountIsRejected) {
  const cc::Codec& c = codec(GetParam());
  const bool zfp = c.id() == cc::CodecId::zfp_reversible;
  auto x = ct::make_data<float>(Shape::random_walk, 400, 6);
  auto f = ct::open_frame(compress_f32(c, x));
  for (size_t n : {396, 399, 401, 404, 800}) {
    auto info = f.info;
    info.count = n;
    auto st = guarded_decode(c, ct::reframe(info, f.payload), n);
    if (!zfp || n == 396 || n == 800) {
      EXPECT_FALSE(st.ok()) << n;
    }
  }
}

TEST_P(RechecksummedDamage, EditedPayloadsNeverCrash) {
  const cc::Codec& c = codec(GetParam());
  auto x = ct::make_data<float>(Shape::smooth3d, 2000, 7);
  auto f = ct::open_frame(compress_f32(c, x));
  std::mt19937 rng(11);
  int rejected = 0;
  const int trials = 1500;
  for (int t = 0; t < trials; ++t) {
    auto p = f.payload;
    int edits = 1 + t % 4;
    for (int e = 0; e < edits; ++e) {
      size_t at = t % 3 == 0 ? rng() % std::min<size_t>(p.size(), 32) : rng() % p.size();
      p[at] = std::byte(rng());
    }
    rejected += !guarded_decode(c, ct::reframe(f.info, p), x.size()).ok();
  }
  // A third of the trials hit the first 32 bytes (lengths, library headers): some must fail.
  EXPECT_GT(rejected, 0);
  RecordProperty("rejected", rejected);
}

TEST_P(RechecksummedDamage, RandomPayloadsNeverCrash) {
  const cc::Codec& c = codec(GetParam());
  std::mt19937_64 rng(13);
  cc::FrameInfo info = ct::open_frame(compress_f32(c, std::vector<float>(257, 1.5f))).info;
  for (int t = 0; t < 300; ++t) {
    std::vector<std::byte> p(rng() % 1200);
    for (auto& b : p) b = std::byte(rng());
    if (t % 2 && p.size() >= 4)  // a plausible first chunk length
      commpress::core::store_le<uint32_t>(p.data(), uint32_t(p.size() - 4));
    (void)guarded_decode(c, ct::reframe(info, p), 257);
  }
}

INSTANTIATE_TEST_SUITE_P(lossless, RechecksummedDamage, ::testing::ValuesIn(wrapper_names()),
                         [](const auto& info) { return param_name(info.param); });

}  // namespace
