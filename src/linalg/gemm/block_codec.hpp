// A matrix block as it travels between ranks: its rows x cols elements (read from or written
// to a column-major array with any ld) packed contiguously, either raw or as one frame of the
// call's codec. Compressing a block once and forwarding the bytes is how the compressed
// algorithms circulate A and B without recompressing at every hop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "commpress/codec.hpp"
#include "commpress/status.hpp"

namespace commpress::linalg::detail {

class BlockCodec {
 public:
  // codec: "none" (raw bytes) or a registry name; bound: the absolute bound for lossy codecs.
  static Result<BlockCodec> create(const std::string& codec, const codec::ErrorBound& bound);

  bool raw() const { return codec_ == nullptr; }
  // Largest encoding of a block of n elements (size receive buffers with it).
  size_t max_bytes(int64_t n, codec::Dtype d) const;

  // Packs and (unless raw) compresses; out is resized to the encoding (capacity kept).
  template <class T>
  Status encode(const T* data, int64_t ld, int64_t rows, int64_t cols, std::vector<std::byte>& out);
  // The inverse; bytes must be exactly what encode produced for a rows x cols block.
  template <class T>
  Status decode(std::span<const std::byte> bytes, T* data, int64_t ld, int64_t rows, int64_t cols);

 private:
  const codec::Codec* codec_ = nullptr;
  codec::ErrorBound bound_ = codec::ErrorBound::lossless();
  codec::Workspace workspace_;
  std::vector<std::byte> packed_;  // contiguous copy when ld > rows
};

}  // namespace commpress::linalg::detail
