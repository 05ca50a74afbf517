// Parameterizes a test suite over every codec in the registry.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "commpress/codec.hpp"

namespace commpress::testing {

inline std::vector<std::string> registered_codec_names() {
  std::vector<std::string> names;
  for (const codec::Codec* c : codec::list_codecs()) names.emplace_back(c->name());
  return names;
}

inline std::string codec_param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace commpress::testing

#define COMMPRESS_INSTANTIATE_FOR_EVERY_CODEC(suite)                                     \
  INSTANTIATE_TEST_SUITE_P(Registry, suite,                                              \
                           ::testing::ValuesIn(::commpress::testing::registered_codec_names()), \
                           ::commpress::testing::codec_param_name)
