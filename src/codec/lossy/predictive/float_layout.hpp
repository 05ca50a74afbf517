// IEEE-754 field widths for the two float types the predictive codecs handle, so bit-level
// code is written once for f32 and f64.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

namespace commpress::codec::predictive {

template <class T>
struct FloatLayout;

template <>
struct FloatLayout<float> {
  using Bits = uint32_t;
  static constexpr int kWidth = 32;
  static constexpr int kExponentBits = 8;
  static constexpr int kMantissaBits = 23;
  static constexpr int kBias = 127;
};

template <>
struct FloatLayout<double> {
  using Bits = uint64_t;
  static constexpr int kWidth = 64;
  static constexpr int kExponentBits = 11;
  static constexpr int kMantissaBits = 52;
  static constexpr int kBias = 1023;
};

template <class T>
typename FloatLayout<T>::Bits to_bits(T v) {
  return std::bit_cast<typename FloatLayout<T>::Bits>(v);
}

template <class T>
T from_bits(typename FloatLayout<T>::Bits b) {
  return std::bit_cast<T>(b);
}

}  // namespace commpress::codec::predictive
