// Canonical Huffman codes (canonical_huffman.hpp): lengths by the two-queue construction over
// counts in ascending order, halved counts where a length would pass kMaxLength, an encoder
// that writes several codes at a time without branching on the bits pending, and a decoder that
// resolves up to three codes within the next 12 bits with one table look-up and runs of a
// one-bit code at once.
#include "codec/lossy/szp/canonical_huffman.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <string>

#include "codec/lossy/szp/symbol_mask.hpp"
#include "core/leb128.hpp"

namespace commpress::codec::szp::huffman {

namespace {

// Huffman code lengths of the weights w (ascending, at least two): node k >= m merges the
// two lightest of the remaining leaves and merged nodes, which are made in ascending order.
void huffman_lengths(const std::vector<uint64_t>& w, std::vector<int>& depth) {
  const size_t m = w.size(), nodes = 2 * m - 1;
  std::vector<uint64_t> weight(nodes);
  std::vector<size_t> parent(nodes);
  std::copy(w.begin(), w.end(), weight.begin());
  size_t leaf = 0, merged = m;
  auto lightest = [&](size_t made) {
    if (leaf < m && (merged >= made || weight[leaf] <= weight[merged])) return leaf++;
    return merged++;
  };
  for (size_t k = m; k < nodes; ++k) {
    const size_t a = lightest(k), b = lightest(k);
    weight[k] = weight[a] + weight[b];
    parent[a] = parent[b] = k;
  }
  std::vector<int> d(nodes, 0);
  for (size_t k = nodes - 1; k-- > 0;) d[k] = d[parent[k]] + 1;  // parents come after children
  depth.assign(d.begin(), d.begin() + ptrdiff_t(m));
}

void put_leb128(std::byte*& p, uint64_t v) {
  auto* u = reinterpret_cast<uint8_t*>(p);
  core::put_leb128(u, v);
  p = reinterpret_cast<std::byte*>(u);
}

bool get_leb128(std::span<const std::byte> in, size_t& pos, uint64_t& v) {
  return core::get_leb128(reinterpret_cast<const uint8_t*>(in.data()), in.size(), pos, 64, v);
}

Status bad_table(const std::string& why) {
  return {ErrorCode::corrupt_frame, "szp-e Huffman table: " + why};
}

}  // namespace

Encoder::Encoder(const uint64_t* count) : entry_(kAlphabet, 0) {
  std::vector<uint8_t> length(kAlphabet, 0);
  std::vector<uint32_t> used;
  for (size_t s = 0; s < kAlphabet; ++s)
    if (count[s]) used.push_back(uint32_t(s));
  if (used.size() == 1) {
    length[used[0]] = 1;
  } else if (!used.empty()) {
    std::sort(used.begin(), used.end(), [&](uint32_t a, uint32_t b) {
      return count[a] != count[b] ? count[a] < count[b] : a < b;
    });
    std::vector<uint64_t> w(used.size());
    for (size_t i = 0; i < used.size(); ++i) w[i] = count[used[i]];
    std::vector<int> depth;
    for (;;) {
      huffman_lengths(w, depth);
      if (*std::max_element(depth.begin(), depth.end()) <= kMaxLength) break;
      for (uint64_t& x : w) x = (x + 1) / 2;  // flatter counts, shorter longest code
    }
    for (size_t i = 0; i < used.size(); ++i) length[used[i]] = uint8_t(depth[i]);
  }
  // Canonical codes: by length, then by symbol.
  std::vector<uint32_t> order;
  for (size_t s = 0; s < kAlphabet; ++s)
    if (length[s]) order.push_back(uint32_t(s));
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return length[a] < length[b]; });
  uint32_t code = 0;
  int prev = 0;
  for (uint32_t s : order) {
    code <<= (length[s] - prev);
    prev = length[s];
    entry_[s] = (code++ << 8) | length[s];
  }
  for (size_t s = 0; s < kAlphabet; ++s)
    if (entry_[s] == 1) zero_symbol_ = int32_t(s);  // length 1, code 0
  pair_.resize(kPairSymbols * kPairSymbols);
  for (size_t a = 0; a < kPairSymbols; ++a)
    for (size_t b = 0; b < kPairSymbols; ++b) {
      const uint64_t la = entry_[a] & 0xFF, lb = entry_[b] & 0xFF;
      const uint64_t code = (uint64_t(entry_[a] >> 8) << lb) | (entry_[b] >> 8);
      pair_[a * kPairSymbols + b] = (code << 8) | (la + lb);
    }
}

size_t Encoder::write_table(std::byte* dst) const {
  std::byte* p = dst;
  uint64_t used = 0;
  for (uint32_t e : entry_) used += (e & 0xFF) != 0;
  put_leb128(p, used);
  int64_t prev = -1;
  for (size_t s = 0; s < kAlphabet; ++s)
    if (entry_[s] & 0xFF) {
      put_leb128(p, uint64_t(int64_t(s) - prev - 1));
      *p++ = std::byte(uint8_t(entry_[s]));
      prev = int64_t(s);
    }
  return size_t(p - dst);
}

namespace {

// Bits written most significant first without a branch on how many are pending (a branch
// the codes' lengths make hard to predict): every put stores eight bytes at out, whose whole
// bytes stay and whose last, partial byte the next put stores again.
struct BitSink {
  // The most bits one put takes: with up to 7 pending they fill at most 63 of acc's bits.
  static constexpr uint32_t kMaxPut = 56;

  std::byte* out;
  uint64_t acc = 0;   // the low `bits` bits are pending, the bits above them already written
  uint32_t bits = 0;  // < 8 between puts

  // Appends the low len bits of code (1 <= len <= kMaxPut); writes out[0..8).
  void put(uint64_t code, uint32_t len) {
    acc = (acc << len) | code;
    bits += len;
    const uint64_t word = __builtin_bswap64(acc << (64 - bits));
    std::memcpy(out, &word, 8);
    out += bits >> 3;
    bits &= 7;
  }
  // put() that writes only whole bytes (a code of up to kMaxLength bits), for the stream's
  // end, where eight bytes may not fit.
  void put_bytes(uint64_t code, uint32_t len) {
    acc = (acc << len) | code;
    bits += len;
    for (; bits >= 8; bits -= 8) *out++ = std::byte(uint8_t(acc >> (bits - 8)));
  }
  // The end of the stream, its last bits padded with 0 bits to a whole byte.
  std::byte* finish() {
    if (bits) *out++ = std::byte(uint8_t(acc << (8 - bits)));
    bits = 0;
    return out;
  }
};

// Symbols of the fast loop's blocks (the width of differ_mask).
constexpr size_t kBlock = 32;
// Where the one-bit code 0 exists, a block with at most this many other symbols puts them
// one by one (with the 0 bits before each) instead of in joined groups of eight.
constexpr int kSparse = 6;
// Codes joined into one put where they fit: more would pass kMaxPut too often at tight
// bounds, mispredicting the branch that halves them.
constexpr size_t kJoined = 8;

// Codes joined into one, and their length: the code may be garbled where the length passes
// BitSink::kMaxPut, and is then not put.
struct Joined {
  uint64_t code;
  uint32_t len;
};

// The codes of one symbol (Single) or of a pair of symbols below kPairSymbols (Pair, one
// look-up in the pair table: half the look-ups and joins), joined.
struct Single {
  static constexpr size_t kLeaf = 1;
  const uint32_t* entry;
  Joined operator()(const uint16_t* syms) const {
    return {entry[syms[0]] >> 8, entry[syms[0]] & 0xFF};
  }
};
struct Pair {
  static constexpr size_t kLeaf = 2;
  const uint64_t* pair;
  Joined operator()(const uint16_t* syms) const {
    const uint64_t e = pair[size_t(syms[0]) * Encoder::kPairSymbols + syms[1]];
    return {e >> 8, uint32_t(e & 0xFF)};
  }
};

template <size_t K, class Leaf>
inline Joined joined(const Leaf& leaf, const uint16_t* syms) {
  if constexpr (K == Leaf::kLeaf) {
    return leaf(syms);
  } else {
    const Joined a = joined<K / 2>(leaf, syms), b = joined<K / 2>(leaf, syms + K / 2);
    return {(a.code << (b.len & 63)) | b.code, a.len + b.len};
  }
}

// The codes of syms[0..K) as one put, so that fewer puts, each of which waits on the one
// before, are made; halved where they pass kMaxPut bits, which only rare long codes make
// them do, so that the branch is seldom mispredicted.
template <size_t K, class Leaf>
inline void put_joined(BitSink& sink, const Leaf& leaf, const uint16_t* syms) {
  const Joined j = joined<K>(leaf, syms);
  if constexpr (K > 2) {  // two codes take at most 2 kMaxLength <= kMaxPut bits
    if (j.len > BitSink::kMaxPut) [[unlikely]] {
      put_joined<K / 2>(sink, leaf, syms);
      put_joined<K / 2>(sink, leaf, syms + K / 2);
      return;
    }
  }
  sink.put(j.code, j.len);
}

// Whether the kJoined symbols at syms are all below kPairSymbols (64: no bit above the low 6
// in any 16-bit lane).
inline bool small_group(const uint16_t* syms) {
  static_assert(kJoined == 8 && Encoder::kPairSymbols == 64);
  uint64_t w[2];
  std::memcpy(w, syms, 16);
  return ((w[0] | w[1]) & 0xFFC0FFC0FFC0FFC0ull) == 0;
}

}  // namespace

size_t Encoder::encode(const uint16_t* syms, size_t n, std::byte* dst) const {
  BitSink sink{dst};
  const uint32_t* entry = entry_.data();
  // The one-bit code 0, where there is one (the zero code at loose bounds, nearly every
  // symbol): a block's other symbols found by a mask, each put with the 0 bits before it.
  const bool runs = zero_symbol_ >= 0;
  // A put's eight bytes lie within max_encoded_size(n) while 3 symbols (9 bytes of codes at
  // most) remain after the block; the rest go a byte at a time.
  size_t i = 0;
  for (; i + kBlock + 3 <= n; i += kBlock) {
    if (runs) {
      uint32_t others = differ_mask(syms + i, uint16_t(zero_symbol_));
      if (std::popcount(others) <= kSparse) {
        // 0 bits up to each other symbol, then its code: at most 31 + kMaxLength bits.
        uint32_t done = 0;
        for (; others; others &= others - 1) {
          const uint32_t t = uint32_t(std::countr_zero(others)), e = entry[syms[i + t]];
          sink.put(e >> 8, t - done + (e & 0xFF));
          done = t + 1;
        }
        if (done < kBlock) sink.put(0, uint32_t(kBlock) - done);
        continue;
      }
    }
    for (size_t k = 0; k < kBlock; k += kJoined) {
      if (small_group(syms + i + k)) put_joined<kJoined>(sink, Pair{pair_.data()}, syms + i + k);
      else put_joined<kJoined>(sink, Single{entry}, syms + i + k);
    }
  }
  for (; i < n; ++i) sink.put_bytes(entry[syms[i]] >> 8, entry[syms[i]] & 0xFF);
  return size_t(sink.finish() - dst);
}

Result<size_t> Decoder::read_table(std::span<const std::byte> in) {
  size_t pos = 0;
  uint64_t used = 0;
  if (!get_leb128(in, pos, used) || used == 0 || used > kAlphabet)
    return bad_table("symbol count out of range or missing");
  std::vector<std::pair<uint16_t, uint8_t>> entries(used);
  int64_t sym = -1;
  std::fill(std::begin(count_), std::end(count_), 0u);
  for (auto& e : entries) {
    uint64_t gap = 0;
    if (!get_leb128(in, pos, gap) || gap >= kAlphabet || sym + 1 + int64_t(gap) >= int64_t(kAlphabet))
      return bad_table("symbol past the alphabet");
    sym += int64_t(gap) + 1;
    if (pos >= in.size()) return bad_table("ends inside its lengths");
    const uint8_t len = std::to_integer<uint8_t>(in[pos++]);
    if (len == 0 || len > kMaxLength) return bad_table("code length " + std::to_string(len));
    e = {uint16_t(sym), len};
    ++count_[len];
  }
  // Kraft: the lengths must leave room for a prefix code.
  uint64_t kraft = 0;
  for (int l = 1; l <= kMaxLength; ++l) kraft += uint64_t(count_[l]) << (kMaxLength - l);
  if (kraft > (uint64_t{1} << kMaxLength)) return bad_table("lengths of no prefix code");
  max_length_ = 0;
  uint32_t code = 0, index = 0;
  for (int l = 1; l <= kMaxLength; ++l) {
    first_code_[l] = code;
    first_index_[l] = index;
    end_[l] = (code + count_[l]) << (kMaxLength - l);
    code = (code + count_[l]) << 1;
    index += count_[l];
    if (count_[l]) max_length_ = l;
  }
  sorted_.resize(used);
  uint32_t next[kMaxLength + 1];
  std::copy(std::begin(first_index_), std::end(first_index_), next);
  for (const auto& e : entries) sorted_[next[e.second]++] = e.first;  // symbols ascending
  // First the one code each prefix starts with, then the codes that follow it within the
  // prefix (a code is only taken where all its bits are the prefix's own).
  constexpr size_t kSize = size_t{1} << kLutBits;
  std::vector<uint32_t> first(kSize, 0);  // (symbol << 8) | length
  for (int l = 1; l <= std::min(kLutBits, max_length_); ++l)
    for (uint32_t i = 0; i < count_[l]; ++i) {
      const uint32_t c = first_code_[l] + i, span = 1u << (kLutBits - l);
      const uint32_t entry = (uint32_t(sorted_[first_index_[l] + i]) << 8) | uint32_t(l);
      std::fill_n(first.begin() + ptrdiff_t(c * span), span, entry);
    }
  lut_.assign(kSize, 0);
  for (size_t p = 0; p < kSize; ++p) {
    if (!first[p]) continue;
    uint64_t entry = uint64_t(first[p] & 0xFF) << 48;
    int used = 0, taken = 0;
    while (taken < kLutSymbols) {
      const uint32_t e = first[(p << used) & (kSize - 1)];
      const int len = int(e & 0xFF);
      if (len == 0 || used + len > kLutBits) break;
      entry |= uint64_t(e >> 8) << (16 * taken++);
      used += len;
    }
    lut_[p] = entry | uint64_t(used) << 56 | uint64_t(taken) << 60;
  }
  return pos;
}

// One stream's place: its bytes, the next `bits` bits most significant first in buf, pos the
// bytes taken into buf (the zero bytes read past the end included), i of its n symbols done.
struct Decoder::Stream {
  const std::byte* data;
  size_t size;
  uint16_t* syms;
  size_t n;
  uint64_t buf = 0;
  int bits = 0;
  size_t pos = 0, i = 0;

  Stream(std::span<const std::byte> in, size_t n_, uint16_t* syms_)
      : data(in.data()), size(in.size()), syms(syms_), n(n_) {}

  // At least 57 bits in buf.
  void refill() {
    if (bits > 56) return;
    if (pos + 8 <= size) {  // eight bytes at once; the bits past the whole bytes are the
                            // stream's own, so the next refill ORs the same bits again
      uint64_t w;
      std::memcpy(&w, data + pos, 8);
      buf |= __builtin_bswap64(w) >> bits;
      const int take = (63 - bits) >> 3;
      pos += size_t(take);
      bits += 8 * take;
    } else {
      while (bits <= 56) {
        const uint64_t b = pos < size ? std::to_integer<uint8_t>(data[pos]) : 0;
        buf |= b << (56 - bits);
        bits += 8;
        ++pos;
      }
    }
  }
};

// What every look-up reads, in locals (the stores to syms would make members reload).
struct Decoder::Fast {
  const uint64_t* lut;
  // A symbol with the one-bit code 0 (the zero code at loose bounds) is decoded a run at a
  // time: as many as buf has leading zero bits.
  bool runs;
  uint16_t run_symbol;
  int max_length;
};

Decoder::Fast Decoder::fast() const {
  const bool runs = count_[1] == 1;
  return {lut_.data(), runs, runs ? sorted_[0] : uint16_t(0), max_length_};
}

namespace {

// dst[0..64) = sym, in a fixed number of stores: a run of up to 64 symbols written without
// a loop whose trip count (the run's length) the branch predictor cannot know.
inline void fill_64(uint16_t* dst, uint16_t sym) {
  const uint64_t four = uint64_t(sym) * 0x0001000100010001ull;
  for (int k = 0; k < 64; k += 4) std::memcpy(dst + k, &four, 8);
}

}  // namespace

// The run of one-bit codes that buf starts with, up to its bits and the symbols left: stored
// 64 at a time where that many slots are left.
inline void Decoder::take_run(Stream& s, const Fast& f) {
  size_t r = std::min<size_t>(s.buf ? size_t(__builtin_clzll(s.buf)) : 64, size_t(s.bits));
  r = std::min(r, s.n - s.i);
  if (s.n - s.i >= 64) fill_64(s.syms + s.i, f.run_symbol);
  else std::fill_n(s.syms + s.i, r, f.run_symbol);
  s.i += r;
  s.buf = r < 64 ? s.buf << r : 0;
  s.bits -= int(r);
}

// One look-up's symbols of s, whose buf holds at least the longest code; false where the
// code is of no symbol.
inline bool Decoder::take(Stream& s, const Fast& f) const {
  if (f.runs && (s.buf >> (64 - kLutBits)) == 0) {
    take_run(s, f);
    return true;
  }
  const uint64_t e = f.lut[s.buf >> (64 - kLutBits)];
  const int all = int(e >> 56) & 0xF;
  if (e >> 60 && all <= s.bits && s.n - s.i >= size_t(kLutSymbols)) {
    // The codes after the first are taken only where their bits are in buf (a refill near
    // the stream's end leaves 0 bits below `bits`) and the output has room; the slots past
    // the codes taken are written and then overwritten by the next ones.
    for (int t = 0; t < kLutSymbols; ++t) s.syms[s.i + size_t(t)] = uint16_t(e >> (16 * t));
    s.i += size_t(e >> 60);
    s.buf <<= all;
    s.bits -= all;
    return true;
  }
  int len = int(e >> 48) & 0xFF;
  uint32_t sym = uint16_t(e);
  if (len == 0) {
    // The code's length: one more than the lengths whose codes all lie below the next bits
    // (canonical codes of one length follow those of the length before), counted without
    // a branch; past the longest code, the bits are no symbol's.
    const uint32_t top = uint32_t(s.buf >> (64 - kMaxLength));
    len = kLutBits + 1;
    for (int l = kLutBits + 1; l <= kMaxLength; ++l) len += int(top >= end_[l]);
    if (len > f.max_length) return false;
    sym = sorted_[first_index_[len] + (uint32_t(s.buf >> (64 - len)) - first_code_[len])];
  }
  s.syms[s.i++] = uint16_t(sym);
  s.buf <<= len;
  s.bits -= len;
  return true;
}

// take() far from both ends of a stream: a run of the one-bit code (where there is one) of
// kLutBits codes or more is taken (64 slots are free) and refilled after; otherwise the look-up's
// symbols are stored as one 8-byte word (its fourth slot the next look-up overwrites) and
// taken without the checks near the ends; a code longer than the table's bits goes to
// take() between two refills. Needs at least kLutBits bits in buf and 64 free slots in
// syms for a run, 4 otherwise.
inline bool Decoder::take_short(Stream& s, const Fast& f) const {
  const uint64_t top = s.buf >> (64 - kLutBits);
  if (f.runs && top == 0) {  // kLutBits or more one-bit codes
    take_run(s, f);
    s.refill();
    return true;
  }
  const uint64_t e = f.lut[top];
  if (e >> 60) [[likely]] {
    std::memcpy(s.syms + s.i, &e, 8);
    s.i += size_t(e >> 60);
    const int all = int(e >> 56) & 0xF;
    s.buf <<= all;
    s.bits -= all;
    return true;
  }
  s.refill();
  const bool ok = take(s, f);
  s.refill();  // (the look-ups left after this one have their bits again)
  return ok;
}

namespace {

Status no_symbol() {
  return {ErrorCode::corrupt_frame, "szp-e Huffman stream holds a code of no symbol"};
}

}  // namespace

// The rest of s's symbols, then the check that they end with its last byte.
Status Decoder::finish(Stream& s, const Fast& f) const {
  while (s.i < s.n) {
    s.refill();
    // After a refill at least 57 bits are in buf: symbols are taken while the longest code
    // still fits, without refilling in between.
    do {
      if (!take(s, f)) return no_symbol();
    } while (s.i < s.n && s.bits >= f.max_length);
  }
  const uint64_t consumed = uint64_t(s.pos) * 8 - uint64_t(s.bits);
  if ((consumed + 7) / 8 != s.size)
    return {ErrorCode::corrupt_frame, "szp-e Huffman stream of " + std::to_string(s.size) +
                                          " bytes does not end with its " +
                                          std::to_string(s.n) + " codes"};
  return {};
}

Status Decoder::decode(std::span<const std::byte> in, size_t n, uint16_t* syms) const {
  Stream s(in, n, syms);
  return finish(s, fast());
}

std::pair<Status, Status> Decoder::decode_pair(std::span<const std::byte> in_a, size_t n_a,
                                               uint16_t* syms_a,
                                               std::span<const std::byte> in_b, size_t n_b,
                                               uint16_t* syms_b) const {
  Stream a(in_a, n_a, syms_a), b(in_b, n_b, syms_b);
  const Fast f = fast();
  bool b_failed = false;
  // Far from the ends: after a refill (57 bits or more) four look-ups of at most kLutBits
  // bits each, or runs (each refilled after), with no check between them: at most 12
  // symbols, or 4 runs of up to 64, whose bits then all lie within the stream (a symbol
  // takes at least a bit).
  const size_t slack = f.runs ? 4 * 64 + 16 : 4 * kLutSymbols + 4;
  while (a.n - a.i >= slack && b.n - b.i >= slack && a.pos + 8 <= a.size &&
         b.pos + 8 <= b.size) {
    a.refill();
    b.refill();
    bool ok_a = true, ok_b = true;
    for (int k = 0; k < 4; ++k) {
      ok_a &= take_short(a, f);
      ok_b &= take_short(b, f);
    }
    if (!ok_a) return {no_symbol(), {}};
    if (!ok_b) {
      b_failed = true;
      break;
    }
  }
  while (!b_failed && a.i < a.n && b.i < b.n) {
    a.refill();
    b.refill();
    bool ok_a = true, ok_b = true;
    do {
      ok_a = take(a, f);
      ok_b = take(b, f);
    } while (ok_a && ok_b && a.i < a.n && b.i < b.n && a.bits >= f.max_length &&
             b.bits >= f.max_length);
    if (!ok_a) return {no_symbol(), {}};
    if (!ok_b) {
      b_failed = true;
      break;
    }
  }
  Status sa = finish(a, f);
  if (!sa.ok()) return {sa, {}};
  return {sa, b_failed ? no_symbol() : finish(b, f)};
}

}  // namespace commpress::codec::szp::huffman
