// Lossless mode's view of a float: its bit pattern as a signed integer that orders like the
// value (negative floats have their magnitude bits flipped). Neighbouring values become
// neighbouring integers, +0.0 becomes 0, and the map is a bijection on all bit patterns, so
// NaN payloads, -0.0 and denormals survive.
#pragma once

#include <bit>

#include "codec/lossy/szp/block_header.hpp"
#include "core/host_device.hpp"

namespace commpress::codec::szp {

template <class T>
struct FloatOrderMap {
  using Int = typename BlockTraits<T>::Int;
  using UInt = typename BlockTraits<T>::UInt;
  static constexpr UInt kMagnitude = ~UInt(0) >> 1;

  // An involution: applying it twice gives back the input bits.
  COMMPRESS_HD static Int flip(Int v) { return Int(UInt(v) ^ (UInt(v >> (BlockTraits<T>::kBits - 1)) & kMagnitude)); }
  COMMPRESS_HD static Int to_ordered(T x) { return flip(std::bit_cast<Int>(x)); }
  COMMPRESS_HD static T from_ordered(Int v) { return std::bit_cast<T>(flip(v)); }
};

}  // namespace commpress::codec::szp
