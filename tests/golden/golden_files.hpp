// What tests/golden/ holds and how it was made: shared by the generator (make_golden.cpp) and
// the test that checks the files (tests/unit/golden_frames_test.cpp), so both agree on names,
// inputs and bounds.
#pragma once

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commpress/codec.hpp"

namespace commpress::testing::golden {

namespace fs = std::filesystem;

inline constexpr size_t kCount = 200;
inline constexpr codec::Dtype kDtypes[] = {codec::Dtype::f32, codec::Dtype::f64};

inline std::string input_name(codec::Dtype d) { return std::string("input.") + codec::dtype_name(d); }

// "<codec name>.<dtype>", with anything unusual in the name replaced so it is a safe file name.
inline std::string stem(std::string_view codec_name, codec::Dtype d) {
  std::string s(codec_name);
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '+') c = '_';
  return s + "." + codec::dtype_name(d);
}
inline std::string frame_name(std::string_view codec_name, codec::Dtype d) {
  return stem(codec_name, d) + ".frame";
}
inline std::string decoded_name(std::string_view codec_name, codec::Dtype d) {
  return stem(codec_name, d) + ".decoded";
}

// Codecs with more than one payload layout get more pairs of files, "<codec><suffix>.<dtype>":
// the input taken as the 2-D array kShape (szp-e's and szp-eh's shaped payloads) and, for
// szp-eh, the flat input at a loose REL bound, where its chunks are sparse
// (docs/format/szp-e.md).
inline constexpr uint64_t kShape[] = {8, 25};
struct Variant {
  std::string_view suffix;
  bool shaped = false;     // compressed as kShape
  double loose_rel = 0;    // > 0: this REL bound instead of bound_for's
};
inline std::vector<Variant> variants_of(std::string_view codec_name) {
  std::vector<Variant> v;
  if (codec_name == "szp-e" || codec_name == "szp-eh") v.push_back({"+shape", true, 0});
  if (codec_name == "szp-eh") v.push_back({"+sparse", false, 0.3});
  return v;
}
inline std::string variant_name(std::string_view codec_name, const Variant& v) {
  return std::string(codec_name) + std::string(v.suffix);
}

// Lossy frames use both bound modes: ABS for f32, REL for f64. The test reads the bound back
// from each frame's header, so changing these only affects newly generated files.
inline codec::ErrorBound bound_for(const codec::Codec& c, codec::Dtype d) {
  if (!c.lossy()) return codec::ErrorBound::lossless();
  return d == codec::Dtype::f32 ? codec::ErrorBound::absolute(1e-3)
                                : codec::ErrorBound::relative(1e-6);
}
inline codec::ErrorBound bound_for(const codec::Codec& c, codec::Dtype d, const Variant& v) {
  return v.loose_rel > 0 ? codec::ErrorBound::relative(v.loose_rel) : bound_for(c, d);
}

// The committed inputs were made by this generator. It uses integer arithmetic and IEEE
// basic operations only (no libm), so it gives the same bits on every platform: a random walk
// on a gentle polynomial trend, with -0, a subnormal, NaN, +Inf and -Inf placed in it.
template <class T>
std::vector<T> make_input() {
  std::vector<T> x(kCount);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  double walk = 0;
  for (size_t i = 0; i < kCount; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    walk += double(state >> 11) * 0x1.0p-53 - 0.5;
    double t = double(i) / double(kCount);
    x[i] = T(walk + 4.0 * t * t - 3.0 * t + 1.0);
  }
  x[25] = T(-0.0);
  x[75] = T(std::numeric_limits<T>::denorm_min() * T(3));
  x[50] = std::numeric_limits<T>::quiet_NaN();
  x[100] = std::numeric_limits<T>::infinity();
  x[150] = -std::numeric_limits<T>::infinity();
  return x;
}

inline std::optional<std::vector<std::byte>> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  for (size_t i = 0; i < chars.size(); ++i) bytes[i] = std::byte(chars[i]);
  return bytes;
}

inline bool write_bytes(const fs::path& p, const void* data, size_t n) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
  return bool(out);
}

}  // namespace commpress::testing::golden
