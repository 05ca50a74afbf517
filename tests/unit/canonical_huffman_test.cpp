// szp-e's canonical Huffman code (src/codec/lossy/szp/canonical_huffman.hpp): symbols come
// back through the written table and stream for skewed, flat and one-symbol alphabets; counts
// that would make codes longer than kMaxLength are flattened; damaged tables and streams are
// refused.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "codec/lossy/szp/canonical_huffman.hpp"

namespace hf = commpress::codec::szp::huffman;
using commpress::ErrorCode;

namespace {

struct Coded {
  std::vector<std::byte> table, stream;
};

Coded encode(const std::vector<uint16_t>& syms) {
  std::vector<uint64_t> count(hf::kAlphabet, 0);
  for (uint16_t s : syms) ++count[s];
  const hf::Encoder code(count.data());
  Coded c;
  c.table.resize(hf::kMaxTableSize);
  c.table.resize(code.write_table(c.table.data()));
  c.stream.resize(hf::max_encoded_size(syms.size()));
  c.stream.resize(code.encode(syms.data(), syms.size(), c.stream.data()));
  return c;
}

std::vector<uint16_t> decode(const Coded& c, size_t n) {
  hf::Decoder d;
  auto used = d.read_table(c.table);
  EXPECT_TRUE(used.ok()) << used.status().to_string();
  if (!used.ok()) return {};
  EXPECT_EQ(*used, c.table.size());
  std::vector<uint16_t> out(n);
  auto st = d.decode(c.stream, n, out.data());
  EXPECT_TRUE(st.ok()) << st.to_string();
  return out;
}

TEST(CanonicalHuffman, RoundTripsSkewedFlatAndSingleAlphabets) {
  std::mt19937 rng(5);
  std::geometric_distribution<int> geo(0.3);
  std::vector<uint16_t> skewed(50000), flat(70000), single(1000, 777);
  for (auto& s : skewed) s = uint16_t(std::min(geo(rng), 65535));
  for (auto& s : flat) s = uint16_t(rng());
  for (const auto* syms : {&skewed, &flat, &single}) {
    const Coded c = encode(*syms);
    EXPECT_EQ(decode(c, syms->size()), *syms);
  }
  // One symbol costs one bit.
  EXPECT_EQ(encode(single).stream.size(), single.size() / 8);
}

TEST(CanonicalHuffman, LengthsStayWithinTheLimit) {
  // Fibonacci counts give a Huffman code as deep as there are symbols.
  std::vector<uint16_t> syms;
  uint64_t a = 1, b = 1;
  for (uint16_t s = 0; s < 30; ++s) {
    syms.insert(syms.end(), size_t(a), s);
    const uint64_t c = a + b;
    a = b;
    b = c;
  }
  const Coded c = encode(syms);
  for (size_t i = 1; i + 1 < c.table.size(); i += 2)  // gap 0 (one byte), then the length
    EXPECT_LE(int(c.table[i + 1]), hf::kMaxLength);
  EXPECT_EQ(decode(c, syms.size()), syms);
}

TEST(CanonicalHuffman, DamagedTablesAndStreamsAreRefused) {
  std::vector<uint16_t> syms;
  for (int i = 0; i < 4000; ++i) syms.push_back(uint16_t(i % 7 == 0 ? 3 : i % 3));
  const Coded good = encode(syms);
  hf::Decoder d;
  auto table_refused = [&](std::vector<std::byte> t, const char* what) {
    auto r = d.read_table(t);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.status().code(), ErrorCode::corrupt_frame) << what;
  };
  table_refused({}, "empty");
  table_refused({std::byte{0}}, "no symbol");
  table_refused({std::byte{1}, std::byte{0}, std::byte{0}}, "length 0");
  table_refused({std::byte{1}, std::byte{0}, std::byte{25}}, "length 25");
  table_refused({std::byte{3}, std::byte{0}, std::byte{1}, std::byte{0}, std::byte{1},
                 std::byte{0}, std::byte{1}}, "three codes of one bit");
  table_refused({std::byte{2}, std::byte{0xFF}, std::byte{0xFF}, std::byte{0x03}, std::byte{1},
                 std::byte{0}, std::byte{1}}, "symbol past the alphabet");
  table_refused({good.table.begin(), good.table.end() - 1}, "cut");
  ASSERT_TRUE(d.read_table(good.table).ok());
  std::vector<uint16_t> out(syms.size() + 64);
  auto stream_refused = [&](std::vector<std::byte> s, size_t n, const char* what) {
    auto st = d.decode(s, n, out.data());
    EXPECT_EQ(st.code(), ErrorCode::corrupt_frame) << what;
  };
  stream_refused({good.stream.begin(), good.stream.end() - 1}, syms.size(), "cut");
  auto longer = good.stream;
  longer.push_back(std::byte{0});
  stream_refused(longer, syms.size(), "a byte too many");
  stream_refused(good.stream, syms.size() + 64, "more symbols than it holds");
}

}  // namespace
