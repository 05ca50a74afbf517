// szp-e's canonical Huffman code (src/codec/lossy/szp/canonical_huffman.hpp): symbols come
// back through the written table and stream for skewed, flat and one-symbol alphabets; counts
// that would make codes longer than kMaxLength are flattened; damaged tables and streams are
// refused; the decoder's table of several codes a look-up, and two streams decoded at once,
// give the same symbols and the same refusals as reading one bit at a time, on random codes
// and random streams; the encoder writes the bits one code at a time would (runs of a
// one-bit code, long codes, every stream length) and nothing past max_encoded_size.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
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

// The canonical code of every symbol with a length (by length, then by symbol), as the
// format fixes it.
std::vector<uint32_t> canonical_codes(const std::vector<int>& length) {
  std::vector<std::pair<int, uint16_t>> order;
  for (size_t s = 0; s < length.size(); ++s)
    if (length[s]) order.push_back({length[s], uint16_t(s)});
  std::sort(order.begin(), order.end());
  std::vector<uint32_t> code(length.size(), 0);
  uint32_t c = 0;
  int prev = 0;
  for (const auto& [l, s] : order) {
    c <<= (l - prev);
    prev = l;
    code[s] = c++;
  }
  return code;
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
  // Two symbols of one bit: accepted with its count spelled short, refused spelled long.
  ASSERT_TRUE(d.read_table(std::vector<std::byte>{std::byte{2}, std::byte{0}, std::byte{1},
                                                  std::byte{0}, std::byte{1}})
                  .ok());
  table_refused({std::byte{0x82}, std::byte{0}, std::byte{0}, std::byte{1}, std::byte{0},
                 std::byte{1}}, "a count spelled longer than it needs");
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

// The reference: n symbols read one bit at a time against the canonical code of `length`
// (per symbol, 0 = unused); false where a code is of no symbol or the stream does not end
// with the n-th code's byte.
bool bitwise_decode(const std::vector<int>& length, const std::vector<std::byte>& in, size_t n,
                    std::vector<uint16_t>& out) {
  std::vector<std::pair<int, uint16_t>> order;  // canonical order: by length, then symbol
  for (size_t s = 0; s < length.size(); ++s)
    if (length[s]) order.push_back({length[s], uint16_t(s)});
  std::sort(order.begin(), order.end());
  std::vector<std::pair<uint32_t, int>> codes;  // (code, length) in that order
  uint32_t code = 0;
  int prev = 0;
  for (const auto& [l, s] : order) {
    code <<= (l - prev);
    prev = l;
    codes.push_back({code++, l});
  }
  size_t bit = 0;
  auto next_bit = [&]() -> uint32_t {
    const size_t byte = bit / 8;
    const uint32_t b = byte < in.size() ? (std::to_integer<uint32_t>(in[byte]) >> (7 - bit % 8)) & 1 : 0;
    ++bit;
    return b;
  };
  out.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    uint32_t c = 0;
    int l = 0;
    for (;;) {
      c = (c << 1) | next_bit();
      ++l;
      if (l > hf::kMaxLength) return false;
      auto it = std::find(codes.begin(), codes.end(), std::pair<uint32_t, int>{c, l});
      if (it != codes.end()) {
        out[i] = order[size_t(it - codes.begin())].second;
        break;
      }
    }
  }
  return (bit + 7) / 8 == in.size();
}

TEST(CanonicalHuffman, SeveralCodesALookUpDecodeAsOneBitAtATime) {
  std::mt19937 rng(18);
  for (int trial = 0; trial < 400; ++trial) {
    // Random lengths of a few symbols (complete or not, short or past the look-up's bits),
    // written as a table.
    const int used = 1 + int(rng() % 12);
    std::vector<int> length(64, 0);
    uint64_t kraft = 0;
    for (int k = 0; k < used; ++k) {
      const int l = 1 + int(rng() % (trial % 3 == 0 ? 16 : 5));
      const uint16_t s = uint16_t(rng() % length.size());
      if (length[s] || kraft + (uint64_t{1} << (hf::kMaxLength - l)) > (uint64_t{1} << hf::kMaxLength))
        continue;
      length[s] = l;
      kraft += uint64_t{1} << (hf::kMaxLength - l);
    }
    std::vector<std::byte> table{std::byte(std::count_if(length.begin(), length.end(),
                                                         [](int l) { return l != 0; }))};
    int prev = -1;
    for (int s = 0; s < int(length.size()); ++s)
      if (length[size_t(s)]) {
        table.push_back(std::byte(s - prev - 1));
        table.push_back(std::byte(length[size_t(s)]));
        prev = s;
      }
    hf::Decoder d;
    auto r = d.read_table(table);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    // Random streams and counts: mostly refused, some whole; and in pairs, each the same as
    // alone.
    std::vector<std::byte> prev_in;
    std::vector<uint16_t> prev_want;
    bool prev_ok = false;
    for (int k = 0; k < 20; ++k) {
      std::vector<std::byte> in(rng() % 40);
      for (auto& b : in) b = std::byte(uint8_t(rng()));
      const size_t n = rng() % 200;
      std::vector<uint16_t> want, got(n + 8, 0xFFFF);
      const bool ok = bitwise_decode(length, in, n, want);
      auto st = d.decode(in, n, got.data());
      ASSERT_EQ(st.ok(), ok) << "trial " << trial << " stream " << k << ": " << st.to_string();
      if (k > 0) {
        std::vector<uint16_t> got_a(prev_want.size() + 8), got_b(n + 8);
        auto [sa, sb] = d.decode_pair(prev_in, prev_want.size(), got_a.data(), in, n,
                                      got_b.data());
        ASSERT_EQ(sa.ok(), prev_ok) << "trial " << trial << " pair " << k;
        if (prev_ok) {
          got_a.resize(prev_want.size());
          EXPECT_EQ(got_a, prev_want) << "trial " << trial << " pair " << k;
          ASSERT_EQ(sb.ok(), ok) << "trial " << trial << " pair " << k;
          got_b.resize(n);
          if (ok) {
            EXPECT_EQ(got_b, want) << "trial " << trial << " pair " << k;
          }
        }
      }
      prev_in = in;
      prev_want = want;
      prev_ok = ok;
      if (!ok) {
        EXPECT_EQ(st.code(), ErrorCode::corrupt_frame);
        continue;
      }
      got.resize(n);
      EXPECT_EQ(got, want) << "trial " << trial << " stream " << k;
    }
    // Streams the encoder wrote for random symbols of this code.
    std::vector<uint16_t> syms(rng() % 3000);
    std::vector<uint16_t> live;
    for (size_t s = 0; s < length.size(); ++s)
      if (length[s]) live.push_back(uint16_t(s));
    for (auto& s : syms) s = live[rng() % live.size()];
    std::vector<std::byte> in((syms.size() * size_t(hf::kMaxLength) + 7) / 8 + 1);
    {
      std::vector<uint16_t> want;
      size_t bit = 0;
      // (the encoder's own code for these lengths is the canonical one written here)
      const std::vector<uint32_t> code = canonical_codes(length);
      for (uint16_t s : syms)
        for (int b = length[s] - 1; b >= 0; --b, ++bit)
          if ((code[s] >> b) & 1) in[bit / 8] |= std::byte(uint8_t(0x80 >> (bit % 8)));
      in.resize((bit + 7) / 8);
    }
    std::vector<uint16_t> got(syms.size());
    auto st = d.decode(in, syms.size(), got.data());
    ASSERT_TRUE(st.ok()) << "trial " << trial << ": " << st.to_string();
    EXPECT_EQ(got, syms) << "trial " << trial;
    // With a shorter stream of the same symbols beside it, and a damaged one.
    const size_t half = syms.size() / 2;
    std::vector<std::byte> head(in.begin(), in.begin() + ptrdiff_t(in.size() / 2));
    std::vector<uint16_t> head_want;
    const bool head_ok = bitwise_decode(length, head, half, head_want);
    std::vector<uint16_t> got_a(syms.size() + 8), got_b(half + 8);
    auto [sa, sb] = d.decode_pair(in, syms.size(), got_a.data(), head, half, got_b.data());
    ASSERT_TRUE(sa.ok()) << "trial " << trial << ": " << sa.to_string();
    got_a.resize(syms.size());
    EXPECT_EQ(got_a, syms) << "trial " << trial;
    ASSERT_EQ(sb.ok(), head_ok) << "trial " << trial << ": " << sb.to_string();
    got_b.resize(half);
    if (head_ok) {
      EXPECT_EQ(got_b, head_want) << "trial " << trial;
    }
    auto [sc, sd] = d.decode_pair(head, half, got_b.data(), in, syms.size(), got_a.data());
    ASSERT_EQ(sc.ok(), head_ok) << "trial " << trial;
    if (head_ok) {
      ASSERT_TRUE(sd.ok()) << "trial " << trial << ": " << sd.to_string();
      EXPECT_EQ(got_a, syms) << "trial " << trial;
    }
  }
}

// The lengths an encoder's table gives its symbols (0 = unused).
std::vector<int> table_lengths(const hf::Encoder& code) {
  std::vector<std::byte> table(hf::kMaxTableSize);
  table.resize(code.write_table(table.data()));
  std::vector<int> length(hf::kAlphabet, 0);
  size_t pos = 0;
  auto leb = [&] {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = std::to_integer<uint8_t>(table[pos++]);
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
  };
  const uint64_t used = leb();
  int64_t sym = -1;
  for (uint64_t k = 0; k < used; ++k) {
    sym += int64_t(leb()) + 1;
    length[size_t(sym)] = std::to_integer<int>(table[pos++]);
  }
  return length;
}

// The reference: the canonical codes of syms written one bit at a time.
std::vector<std::byte> bitwise_encode(const std::vector<int>& length,
                                      const std::vector<uint16_t>& syms) {
  const std::vector<uint32_t> codes = canonical_codes(length);
  std::vector<std::byte> out(hf::max_encoded_size(syms.size()), std::byte{0});
  size_t bit = 0;
  for (uint16_t s : syms)
    for (int b = length[s] - 1; b >= 0; --b, ++bit)
      if ((codes[s] >> b) & 1) out[bit / 8] |= std::byte(uint8_t(0x80 >> (bit % 8)));
  out.resize((bit + 7) / 8);
  return out;
}

// encode() of syms against the reference, with guard bytes past max_encoded_size(n): the
// encoder may write there no byte.
void expect_bitwise(const hf::Encoder& code, const std::vector<int>& length,
                    const std::vector<uint16_t>& syms, const std::string& what) {
  constexpr size_t kGuard = 64;
  const size_t room = hf::max_encoded_size(syms.size());
  std::vector<std::byte> got(room + kGuard, std::byte{0xA5});
  const size_t bytes = code.encode(syms.data(), syms.size(), got.data());
  ASSERT_TRUE(std::all_of(got.begin() + ptrdiff_t(room), got.end(),
                          [](std::byte b) { return b == std::byte{0xA5}; }))
      << what << ": written past max_encoded_size";
  ASSERT_LE(bytes, room) << what;
  got.resize(bytes);
  ASSERT_EQ(got, bitwise_encode(length, syms)) << what;
}

TEST(CanonicalHuffman, RunsOfTheOneBitCodeAreWrittenAsOneCodeAtATime) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    // Runs of a dominant symbol (one bit) of every length, between other symbols.
    const uint16_t dominant = uint16_t(rng() % 50);
    std::vector<uint16_t> syms;
    const size_t n = 1 + rng() % 5000;
    while (syms.size() < n) {
      const size_t run = rng() % 4 == 0 ? rng() % 300 : rng() % 9;
      syms.insert(syms.end(), std::min(run, n - syms.size()), dominant);
      if (syms.size() < n && rng() % 8 != 0) syms.push_back(uint16_t(rng() % (trial % 2 ? 5 : 900)));
    }
    std::vector<uint64_t> count(hf::kAlphabet, 0);
    for (uint16_t s : syms) ++count[s];
    const hf::Encoder code(count.data());
    const std::vector<int> length = table_lengths(code);
    expect_bitwise(code, length, syms, "trial " + std::to_string(trial));
    if (syms.size() > 100) {
      EXPECT_EQ(length[dominant], 1) << "trial " << trial;
    }
  }
}

// Codes up to kMaxLength bits (counts halving from symbol to symbol), in streams of every
// length around the encoder's blocks, a block's end and the stream's last bytes: the same
// bits as one code at a time, and nothing written past max_encoded_size, also where four
// long codes in a row pass what one write takes.
TEST(CanonicalHuffman, LongAndShortCodesOfEveryStreamLengthAreWrittenAsOneCodeAtATime) {
  std::vector<uint64_t> count(hf::kAlphabet, 0);
  for (size_t s = 0; s < 40; ++s) count[s] = (uint64_t{1} << 40) >> s;
  const hf::Encoder code(count.data());
  const std::vector<int> length = table_lengths(code);
  ASSERT_EQ(length[39], hf::kMaxLength);
  std::mt19937 rng(11);
  for (int mix = 0; mix < 4; ++mix)
    for (size_t n = 0; n < 300; ++n) {
      auto draw = [&]() -> uint16_t {
        if (mix == 0) return uint16_t(rng() % 40);       // any length
        if (mix == 1) return uint16_t(30 + rng() % 10);  // only long codes
        if (mix == 2) return uint16_t(rng() % 3);        // only short ones
        return rng() % 16 ? 0 : uint16_t(rng() % 40);    // runs of the one-bit code
      };
      std::vector<uint16_t> syms(n);
      for (auto& s : syms) s = draw();
      expect_bitwise(code, length, syms, "mix " + std::to_string(mix) + ", n " + std::to_string(n));
    }
  // A piece's length, and runs that end at and across block edges.
  for (size_t n : {size_t{65536}, size_t{65535}, size_t{65533}, size_t{4099}}) {
    std::vector<uint16_t> syms(n, 0);
    for (size_t i = 0; i < n; i += 1 + rng() % 97) syms[i] = uint16_t(rng() % 40);
    expect_bitwise(code, length, syms, "long, n " + std::to_string(n));
  }
}

}  // namespace
