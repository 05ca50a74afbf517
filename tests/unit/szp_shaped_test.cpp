// szp-e and szp-eh given a shape (docs/format/szp-e.md, "Shaped payload" and "Huffman-coded
// shaped payload"): the bound on every data shape and dimension combination (odd sizes,
// dimensions of 1, more than three, slabs that end inside a chunk), the ratio the N-D
// prediction exists for, flat coding where a shape cannot help, and forged prefixes refused;
// szp-eh's slabs decoded a piece at a time match those decoded whole.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "codec/lossy/szp/canonical_huffman.hpp"
#include "codec/lossy/szp/entropy_chunk.hpp"
#include "codec/lossy/szp/shaped_huffman.hpp"
#include "codec/lossy/szp/shaped_prefix.hpp"
#include "commpress/codec.hpp"
#include "core/byte_io.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"
#include "support/reframe.hpp"

namespace cc = commpress::codec;
namespace szp = commpress::codec::szp;
using commpress::ErrorCode;
using commpress::Status;
using Dims = std::vector<uint64_t>;

namespace {

// The codec under test: szp-e (shaped payloads of szp blocks) or szp-eh (Huffman-coded).
const cc::Codec* current = nullptr;
const cc::Codec& codec() { return *current; }

class SzpShaped : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    current = cc::find_codec(GetParam());
    ASSERT_NE(current, nullptr);
  }
};

uint64_t count_of(const Dims& d) {
  uint64_t n = 1;
  for (uint64_t s : d) n *= s;
  return n;
}

std::string dims_name(const Dims& d) {
  std::string s;
  for (uint64_t v : d) {
    if (!s.empty()) s += 'x';
    s += std::to_string(v);
  }
  return s;
}

// The frame holds the shaped payload the codec under test writes.
bool shaped(const std::vector<std::byte>& frame) {
  const uint8_t tag = codec().name() == "szp-eh" ? szp::kShapedHuffmanTag : szp::kShapedTag;
  return frame.size() > cc::kFrameHeaderSize &&
         std::to_integer<uint8_t>(frame[cc::kFrameHeaderSize]) == tag;
}

template <class T>
std::vector<std::byte> round_trip(const std::vector<T>& x, const Dims& dims,
                                  const cc::ErrorBound& bound, const std::string& what) {
  std::vector<std::byte> frame;
  Status st = codec().compress(x.data(), dims, cc::dtype_of<T>(), bound, frame);
  EXPECT_TRUE(st.ok()) << what << ": " << st.to_string();
  if (!st.ok()) return {};
  EXPECT_LE(frame.size(), codec().compress_bound(x.size(), cc::dtype_of<T>())) << what;
  std::vector<T> y(x.size());
  st = codec().decompress(frame, std::span<T>(y));
  EXPECT_TRUE(st.ok()) << what << ": " << st.to_string();
  const long double promised = commpress::testing::promised_bound<T>(x, bound);
  auto err = commpress::testing::check_bound<T>(x, y, promised);
  EXPECT_TRUE(err.empty()) << what << ": " << err;
  return frame;
}

// Two and three dimensions, odd and block-unaligned sizes, dimensions of 1 (dropped), four
// dimensions (the slowest merged), slabs that end inside chunks and chunks inside rows.
const std::vector<Dims>& every_dims() {
  static const std::vector<Dims> d = {{2, 3},        {7, 13},        {1, 33, 1, 5},
                                      {150, 257},    {5, 7, 11},     {3, 4, 5, 67},
                                      {33, 17, 65},  {70, 1, 1100},  {9, 33, 131},
                                      {2, 33000}};
  return d;
}

template <class T>
void every_data_every_dims() {
  for (const Dims& dims : every_dims())
    for (auto s : commpress::testing::all_shapes())
      for (cc::ErrorBound b : {cc::ErrorBound::relative(1e-2), cc::ErrorBound::relative(1e-5),
                               cc::ErrorBound::absolute(1e-39)}) {  // a subnormal f32 step
        auto x = commpress::testing::make_data<T>(s, count_of(dims), 11);
        auto frame = round_trip(x, dims, b,
                                dims_name(dims) + " " + commpress::testing::shape_name(s) + " " +
                                    cc::dtype_name(cc::dtype_of<T>()));
        // A positive bound and two dimensions other than 1: the shaped payload, always.
        auto info = cc::inspect(frame);
        ASSERT_TRUE(info.ok());
        if (info->abs_bound > 0) {
          EXPECT_TRUE(shaped(frame)) << dims_name(dims) << " " << commpress::testing::shape_name(s);
        }
      }
}

TEST_P(SzpShaped, EveryDataEveryDimsF32) { every_data_every_dims<float>(); }
TEST_P(SzpShaped, EveryDataEveryDimsF64) { every_data_every_dims<double>(); }

// A smooth 3-D field: predicting across all three axes leaves residuals of 0 where the flat
// chain meets the slope along x at every value.
TEST_P(SzpShaped, SmoothFieldFarDenserThanFlat) {
  const Dims dims = {40, 64, 96};
  std::vector<float> x(count_of(dims));
  for (size_t z = 0, i = 0; z < dims[0]; ++z)
    for (size_t y = 0; y < dims[1]; ++y)
      for (size_t v = 0; v < dims[2]; ++v, ++i)
        x[i] = float(std::sin(0.11 * double(v)) * std::cos(0.07 * double(y)) +
                     0.5 * std::sin(0.05 * double(z) + 0.03 * double(v)));
  for (double rel : {1e-2, 1e-3}) {
    const auto b = cc::ErrorBound::relative(rel);
    auto nd = round_trip(x, dims, b, "shaped");
    auto flat = codec().compress(std::span<const float>(x), b);
    ASSERT_TRUE(flat.ok());
    EXPECT_LT(2 * nd.size(), flat->size()) << "REL " << rel;
  }
}

TEST_P(SzpShaped, FlatWhereTheShapeCannotHelp) {
  std::vector<float> x = commpress::testing::make_data<float>(
      commpress::testing::Shape::random_walk, 1000, 3);
  for (const Dims& dims : {Dims{1000}, Dims{1, 1000, 1}}) {
    auto frame = round_trip(x, dims, cc::ErrorBound::relative(1e-3), dims_name(dims));
    auto flat = codec().compress(std::span<const float>(x), cc::ErrorBound::relative(1e-3));
    ASSERT_TRUE(flat.ok());
    EXPECT_EQ(frame, *flat) << dims_name(dims);
  }
  // Bound 0: exact frames are coded flat.
  auto exact = round_trip(x, Dims{10, 100}, cc::ErrorBound::lossless(), "exact");
  EXPECT_FALSE(shaped(exact));
  // A shape of more elements than a frame may hold.
  std::vector<std::byte> out;
  EXPECT_EQ(codec().compress(x.data(), Dims{uint64_t{1} << 40, uint64_t{1} << 40}, cc::Dtype::f32,
                             cc::ErrorBound::relative(1e-3), out).code(),
            ErrorCode::overflow);
}

TEST_P(SzpShaped, OtherCodecsIgnoreTheShape) {
  std::vector<float> x = commpress::testing::make_data<float>(
      commpress::testing::Shape::smooth3d, 6 * 7 * 8, 5);
  const cc::Codec* szp_codec = cc::find_codec("szp");
  ASSERT_NE(szp_codec, nullptr);
  std::vector<std::byte> out;
  ASSERT_TRUE(szp_codec->compress(x.data(), Dims{6, 7, 8}, cc::Dtype::f32,
                                  cc::ErrorBound::relative(1e-3), out).ok());
  auto flat = szp_codec->compress(std::span<const float>(x), cc::ErrorBound::relative(1e-3));
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(out, *flat);
}

TEST_P(SzpShaped, ForgedPrefixesAndChunksAreRefused) {
  const Dims dims = {6, 7, 9};
  std::vector<float> x = commpress::testing::make_data<float>(
      commpress::testing::Shape::smooth3d, count_of(dims), 5);
  auto frame = round_trip(x, dims, cc::ErrorBound::relative(1e-2), "good");
  ASSERT_TRUE(shaped(frame));
  const auto good = commpress::testing::open_frame(frame);
  std::vector<float> y(x.size());
  auto refused = [&](auto edit, const char* what) {
    auto f = good;
    edit(f);
    Status st = codec().decompress(commpress::testing::reframe(f), std::span<float>(y));
    EXPECT_EQ(st.code(), ErrorCode::corrupt_frame) << what << ": " << st.to_string();
  };
  using F = commpress::testing::OpenFrame;
  const size_t prefix = 3 + 3 * 8 + 8;
  refused([](F& f) { f.payload[1] = std::byte{4}; }, "4 dimensions");
  refused([](F& f) { f.payload[1] = std::byte{1}; }, "1 dimension");
  refused([](F& f) { f.payload[2] = std::byte{3}; }, "predictor 3");
  refused([](F& f) { f.payload[3] = std::byte{7}; }, "dimensions not the count");
  refused([](F& f) { f.payload[3] = std::byte{0}; }, "dimension 0");
  refused([&](F& f) { f.payload[prefix - 8] = std::byte{0}; }, "slab of 0 planes");
  refused([&](F& f) { f.payload[prefix - 8] = std::byte{7}; }, "slab past the array");
  if (codec().name() == "szp-e")
    refused([&](F& f) { f.payload[prefix] = std::byte{0x01}; }, "flat mode in a shaped payload");
  else
    refused([&](F& f) { f.payload[prefix] = std::byte{0x00}; }, "Huffman table of no symbol");
  refused([](F& f) { f.payload.resize(5); }, "truncated prefix");
  refused([](F& f) { f.payload.pop_back(); }, "truncated chunk");
  refused([](F& f) { f.info.abs_bound = 0; f.info.requested_bound = 0;
                     f.info.mode = cc::BoundMode::abs; }, "bound 0");
  // A smaller count that the dimensions no longer multiply to.
  auto f = good;
  f.info.count -= 9;
  std::vector<float> z(f.info.count);
  EXPECT_EQ(codec().decompress(commpress::testing::reframe(f), std::span<float>(z)).code(),
            ErrorCode::corrupt_frame);
}

// An szp-eh frame of data of this kind and shape, checked to round-trip and be shaped.
std::vector<std::byte> huffman_frame(commpress::testing::Shape kind, const Dims& dims,
                                     double rel, void (*alter)(std::vector<float>&)) {
  current = cc::find_codec("szp-eh");
  EXPECT_NE(current, nullptr);
  auto x = commpress::testing::make_data<float>(kind, count_of(dims), 3);
  if (alter) alter(x);
  auto frame = round_trip(x, dims, cc::ErrorBound::relative(rel), "good");
  EXPECT_TRUE(shaped(frame));
  return frame;
}

// Damage a checksum cannot catch (the frame rebuilt around it): every truncation of a
// Huffman-coded shaped payload is refused, and a byte changed anywhere is refused or decodes,
// never crashes, reads outside the payload (ASan builds) or reports an internal error.
TEST(SzpShapedHuffman, DamagedPayloadsAreRefusedOrDecodedSafely) {
  const Dims dims = {9, 10, 75};
  const auto frame = huffman_frame(commpress::testing::Shape::nonfinite, dims, 1e-3,
                                   [](std::vector<float>& x) {
                                     x[5] = std::numeric_limits<float>::denorm_min();
                                   });
  const auto good = commpress::testing::open_frame(frame);
  std::vector<float> y(count_of(dims));
  for (size_t len = 0; len < good.payload.size(); ++len) {
    auto f = good;
    f.payload.resize(len);
    Status st = codec().decompress(commpress::testing::reframe(f), std::span<float>(y));
    ASSERT_EQ(st.code(), ErrorCode::corrupt_frame) << "cut to " << len << ": " << st.to_string();
  }
  for (size_t at = 0; at < good.payload.size(); ++at)
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      auto f = good;
      f.payload[at] ^= std::byte(mask);
      Status st = codec().decompress(commpress::testing::reframe(f), std::span<float>(y));
      ASSERT_TRUE(st.ok() || st.code() == ErrorCode::corrupt_frame)
          << "byte " << at << " ^ " << int(mask) << ": " << st.to_string();
    }
}

// A forged shape of far more values than the payload's piece headers can stand for is
// refused by inspect(), before anyone allocates the count.
TEST(SzpShapedHuffman, ForgedCountsAreRefusedBeforeDecoding) {
  const Dims dims = {40, 50, 60};
  const auto frame = huffman_frame(commpress::testing::Shape::smooth3d, dims, 1e-2, nullptr);
  for (uint64_t d0 : {uint64_t{1} << 20, uint64_t{1} << 30, uint64_t{1} << 40}) {
    auto f = commpress::testing::open_frame(frame);
    f.info.count = d0 * dims[1] * dims[2];
    commpress::core::store_le<uint64_t>(f.payload.data() + 3, d0);
    commpress::core::store_le<uint64_t>(f.payload.data() + 3 + 3 * 8, d0);  // one slab
    auto info = cc::inspect(commpress::testing::reframe(f));
    ASSERT_FALSE(info.ok()) << d0;
    EXPECT_EQ(info.status().code(), ErrorCode::corrupt_frame) << info.status().to_string();
  }
}

// A slab decoded a piece at a time in the visit order (as slabs too large to hold whole
// are) gives the same values, bit for bit, and the same refusals as one decoded whole, level
// by level plane by plane: for slabs of one to four pieces, values the bound refuses, loose
// bounds (the zstd-coded stream) and tight ones, intact and damaged.
TEST(SzpShapedHuffman, SlabsDecodedAPieceAtATimeMatchWholeSlabs) {
  std::mt19937 rng(3);
  const szp::Box boxes[] = {{9, 10, 75, 9}, {20, 64, 70, 20}, {30, 50, 100, 30}, {33, 65, 97, 33}};
  for (const szp::Box& b : boxes)
    for (double eb : {1e-1, 1e-3, 1e-6}) {
      SCOPED_TRACE(testing::Message() << b.nz << "x" << b.ny << "x" << b.nx << " eb " << eb);
      std::vector<float> x(b.count());
      std::normal_distribution<float> noise(0.f, 1e-3f);
      for (size_t j = 0; j < x.size(); ++j)
        x[j] = std::sin(float(j % b.nx) * 0.05f) * std::cos(float(j / b.plane()) * 0.1f) +
               noise(rng) + (rng() % 200 == 0 ? 1e6f : 0.f);
      x[x.size() / 3] = std::numeric_limits<float>::quiet_NaN();
      std::vector<std::byte> slab;
      ASSERT_TRUE(szp::encode_huffman_slab(x.data(), b, 0, b.nz, eb, slab).ok());
      auto decode = [&](const std::vector<std::byte>& bytes, size_t limit, std::vector<float>& y) {
        y.assign(x.size(), 0.f);
        return szp::decode_huffman_slab<float>(bytes, b, 0, b.nz, eb, y.data(), limit);
      };
      std::vector<float> whole, piecewise;
      ASSERT_TRUE(decode(slab, szp::kWholeSlabSymbols, whole).ok());
      ASSERT_TRUE(decode(slab, 0, piecewise).ok());
      ASSERT_EQ(std::memcmp(whole.data(), piecewise.data(), x.size() * sizeof(float)), 0);
      for (size_t j = 0; j < x.size(); ++j)
        if (!std::isnan(x[j])) {
          ASSERT_LE(std::fabs(double(whole[j]) - double(x[j])), eb * (1 + 1e-6)) << j;
        }
      for (int k = 0; k < 60; ++k) {
        auto damaged = slab;
        damaged[rng() % damaged.size()] ^= std::byte(uint8_t(1 + rng() % 255));
        const Status a = decode(damaged, szp::kWholeSlabSymbols, whole);
        const Status c = decode(damaged, 0, piecewise);
        ASSERT_EQ(a.code(), c.code()) << a.to_string() << " / " << c.to_string();
        EXPECT_EQ(a.to_string(), c.to_string());
        if (a.ok()) {
          ASSERT_EQ(std::memcmp(whole.data(), piecewise.data(), x.size() * sizeof(float)), 0);
        }
      }
    }
}

// A slab's stream goes through zstd where its codes are short (loose bounds: nearly all the
// one-bit zero code) or where a sample shows zstd shrinking it by 1/16 or more (here: planes
// that all repeat, so their codes do), and is stored as it is where the codes are dense and
// zstd would save less (Gaussian noise).
TEST(SzpShapedHuffman, TheStreamGoesThroughZstdWhereItPays) {
  const szp::Box b{32, 64, 64, 32};
  auto coding_of = [&](const std::vector<float>& x, double eb) {
    std::vector<std::byte> slab;
    EXPECT_TRUE(szp::encode_huffman_slab(x.data(), b, 0, b.nz, eb, slab).ok());
    szp::huffman::Decoder table;
    auto t = table.read_table(slab);
    EXPECT_TRUE(t.ok());
    std::vector<float> y(x.size());
    EXPECT_TRUE(szp::decode_huffman_slab<float>(slab, b, 0, b.nz, eb, y.data()).ok());
    for (size_t j = 0; j < x.size(); ++j) EXPECT_LE(std::fabs(double(y[j]) - x[j]), eb * 1.000001);
    return std::to_integer<int>(slab[*t]);
  };
  std::mt19937 rng(5);
  std::normal_distribution<float> noise(0.f, 1.f);
  std::vector<float> smooth(b.count()), noisy(b.count()), repeated(b.count()), plane(b.plane());
  for (auto& v : plane) v = noise(rng);
  for (size_t j = 0; j < b.count(); ++j) {
    smooth[j] = std::sin(float(j % b.nx) * 0.05f) * std::cos(float(j / b.plane()) * 0.1f);
    noisy[j] = noise(rng);
    repeated[j] = plane[j % b.plane()];
  }
  EXPECT_EQ(coding_of(smooth, 0.1), 1);
  EXPECT_EQ(coding_of(noisy, 0.7), 0);  // over 2 bits a value; zstd shrinks it, but little
  EXPECT_EQ(coding_of(repeated, 0.05), 1);
}

INSTANTIATE_TEST_SUITE_P(Codecs, SzpShaped, ::testing::Values("szp-e", "szp-eh"),
                         [](const auto& info) { return info.param == "szp-e" ? "szp_e" : "szp_eh"; });

}  // namespace
