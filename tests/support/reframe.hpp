// Rebuilds a frame around an altered payload or header with a fresh checksum, so a test can
// reach the codec's own decoder with damage the frame checksum would otherwise catch.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <vector>

#include "codec/format/frame_header.hpp"
#include "commpress/codec.hpp"

namespace commpress::testing {

inline std::vector<std::byte> reframe(const codec::FrameInfo& info,
                                      std::span<const std::byte> payload) {
  codec::FrameInfo fixed = info;
  fixed.payload_size = payload.size();
  std::vector<std::byte> out(codec::kFrameHeaderSize + payload.size());
  if (!payload.empty())
    std::copy(payload.begin(), payload.end(), out.begin() + codec::kFrameHeaderSize);
  codec::detail::write_frame_header(fixed, {out.data() + codec::kFrameHeaderSize, payload.size()},
                                    out.data());
  return out;
}

// The frame's payload and header fields, for editing before reframe().
struct OpenFrame {
  codec::FrameInfo info;
  std::vector<std::byte> payload;
};

inline OpenFrame open_frame(std::span<const std::byte> frame) {
  auto info = codec::inspect(frame);
  EXPECT_TRUE(info.ok()) << info.status().to_string();
  if (!info.ok()) return {};
  auto p = frame.subspan(codec::kFrameHeaderSize);
  return {*info, std::vector<std::byte>(p.begin(), p.end())};
}

inline std::vector<std::byte> reframe(const OpenFrame& f) { return reframe(f.info, f.payload); }

}  // namespace commpress::testing
