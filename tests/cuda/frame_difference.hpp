// Where two szp frames differ, in words a failing GPU test can act on: the header field, or
// the first payload byte that differs, named by block header or body offset. "" when equal.
#pragma once

#include <cstddef>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "commpress/codec.hpp"

namespace commpress::testing {

inline std::string frame_difference(const std::vector<std::byte>& want,
                                    const std::vector<std::byte>& got) {
  if (want == got) return "";
  auto a = codec::inspect(want), b = codec::inspect(got);
  if (!a.ok() || !b.ok())
    return "frame refused by inspect: want " + a.status().message() + ", got " +
           b.status().message();
  std::string s = "sizes " + std::to_string(want.size()) + " vs " + std::to_string(got.size()) +
                  "; abs_bound " + std::to_string(a->abs_bound) + " vs " +
                  std::to_string(b->abs_bound) + "; count " + std::to_string(a->count) +
                  " vs " + std::to_string(b->count);
  const size_t nb = (a->count + 31) / 32;
  const size_t h = codec::kFrameHeaderSize;
  const size_t common = std::min(want.size(), got.size());
  size_t headers_differing = 0, first_header = SIZE_MAX;
  for (size_t i = 0; i < nb && h + i < common; ++i)
    if (want[h + i] != got[h + i]) {
      ++headers_differing;
      if (first_header == SIZE_MAX) first_header = i;
    }
  if (first_header != SIZE_MAX) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "; %zu of %zu block headers differ, first block %zu: 0x%02x vs 0x%02x",
                  headers_differing, nb, first_header, unsigned(want[h + first_header]),
                  unsigned(got[h + first_header]));
    return s + buf;
  }
  for (size_t i = h + nb; i < common; ++i)
    if (want[i] != got[i])
      return s + "; block headers equal, first body byte differing at body offset " +
             std::to_string(i - h - nb);
  if (want.size() != got.size()) return s + "; one payload is a prefix of the other";
  for (size_t i = 0; i < h; ++i)
    if (want[i] != got[i]) return s + "; payloads equal, frame header byte " + std::to_string(i);
  return s;
}

}  // namespace commpress::testing
