// One compress-decompress round trip under gtest: the frame within the codec's worst case,
// decoded, and the codec's promise checked element by element (bound_check.hpp).
#pragma once

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "commpress/codec.hpp"
#include "support/bound_check.hpp"

namespace commpress::testing {

// The frame of x (empty where compression failed, a failure recorded).
template <class T>
std::vector<std::byte> checked_round_trip(const codec::Codec& c, const std::vector<T>& x,
                                          const codec::ErrorBound& bound,
                                          const std::string& what) {
  auto frame = c.compress(std::span<const T>(x), bound);
  EXPECT_TRUE(frame.ok()) << what << ": " << frame.status().to_string();
  if (!frame.ok()) return {};
  EXPECT_LE(frame->size(), c.compress_bound(x.size(), codec::dtype_of<T>())) << what;
  std::vector<T> y(x.size());
  auto st = c.decompress(*frame, std::span<T>(y));
  EXPECT_TRUE(st.ok()) << what << ": " << st.to_string();
  auto err = check_bound<T>(x, y, promised_bound<T>(x, bound));
  EXPECT_TRUE(err.empty()) << what << ": " << err;
  return *frame;
}

}  // namespace commpress::testing
