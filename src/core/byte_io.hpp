// Little-endian loads/stores and a bounded reader/writer. Decoders read every length from
// untrusted bytes, so each access is checked against what is actually left.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

#include "commpress/status.hpp"
#include "core/host_device.hpp"

namespace commpress::core {

static_assert(std::endian::native == std::endian::little,
              "commpress frames are little-endian; a big-endian port must byte-swap here");

template <class T>
COMMPRESS_HD inline T load_le(const std::byte* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <class T>
COMMPRESS_HD inline void store_le(std::byte* p, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(p, &v, sizeof(T));
}

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}

  size_t remaining() const { return in_.size() - pos_; }
  size_t position() const { return pos_; }

  template <class T>
  Status read(T& out, const char* what) {
    if (remaining() < sizeof(T)) return short_read(sizeof(T), what);
    out = load_le<T>(in_.data() + pos_);
    pos_ += sizeof(T);
    return {};
  }

  // A view of the next n bytes, consumed.
  Status take(size_t n, std::span<const std::byte>& out, const char* what) {
    if (remaining() < n) return short_read(n, what);
    out = in_.subspan(pos_, n);
    pos_ += n;
    return {};
  }

 private:
  Status short_read(size_t want, const char* what) const {
    return {ErrorCode::truncated, std::string(what) + " needs " + std::to_string(want) +
                                      " bytes at offset " + std::to_string(pos_) + " but only " +
                                      std::to_string(remaining()) + " remain"};
  }
  std::span<const std::byte> in_;
  size_t pos_ = 0;
};

class ByteWriter {
 public:
  explicit ByteWriter(std::span<std::byte> out) : out_(out) {}

  size_t written() const { return pos_; }
  size_t remaining() const { return out_.size() - pos_; }

  template <class T>
  Status write(T v) {
    if (remaining() < sizeof(T)) return overflow(sizeof(T));
    store_le<T>(out_.data() + pos_, v);
    pos_ += sizeof(T);
    return {};
  }

  Status write_bytes(std::span<const std::byte> bytes) {
    if (remaining() < bytes.size()) return overflow(bytes.size());
    if (!bytes.empty()) std::memcpy(out_.data() + pos_, bytes.data(), bytes.size());
    pos_ += bytes.size();
    return {};
  }

 private:
  Status overflow(size_t want) const {
    return {ErrorCode::capacity, "writing " + std::to_string(want) + " bytes at offset " +
                                     std::to_string(pos_) + " exceeds the " +
                                     std::to_string(out_.size()) + "-byte destination"};
  }
  std::span<std::byte> out_;
  size_t pos_ = 0;
};

}  // namespace commpress::core
