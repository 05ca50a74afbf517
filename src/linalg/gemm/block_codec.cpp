#include "linalg/gemm/block_codec.hpp"

#include <cstring>

namespace commpress::linalg::detail {

namespace {

template <class T>
void pack(const T* data, int64_t ld, int64_t rows, int64_t cols, T* out) {
  for (int64_t j = 0; j < cols; ++j) std::memcpy(out + j * rows, data + j * ld, size_t(rows) * sizeof(T));
}

template <class T>
void unpack(const T* in, int64_t rows, int64_t cols, T* data, int64_t ld) {
  for (int64_t j = 0; j < cols; ++j) std::memcpy(data + j * ld, in + j * rows, size_t(rows) * sizeof(T));
}

}  // namespace

Result<BlockCodec> BlockCodec::create(const std::string& codec, const codec::ErrorBound& bound) {
  BlockCodec out;
  out.bound_ = bound;
  if (codec == "none" || codec.empty()) return out;
  auto c = codec::get_codec(codec);
  if (!c.ok()) return c.status();
  out.codec_ = *c;
  return out;
}

size_t BlockCodec::max_bytes(int64_t n, codec::Dtype d) const {
  return raw() ? size_t(n) * codec::dtype_size(d) : codec_->compress_bound(size_t(n), d);
}

template <class T>
Status BlockCodec::encode(const T* data, int64_t ld, int64_t rows, int64_t cols,
                          std::vector<std::byte>& out) {
  const size_t n = size_t(rows * cols);
  const T* contiguous = data;
  if (raw()) {
    out.resize(n * sizeof(T));
    if (n) pack(data, ld, rows, cols, reinterpret_cast<T*>(out.data()));
    return {};
  }
  if (ld != rows && n) {
    packed_.resize(n * sizeof(T));
    pack(data, ld, rows, cols, reinterpret_cast<T*>(packed_.data()));
    contiguous = reinterpret_cast<const T*>(packed_.data());
  }
  return codec_->compress(contiguous, n, codec::dtype_of<T>(), bound_, out, workspace_);
}

template <class T>
Status BlockCodec::decode(std::span<const std::byte> bytes, T* data, int64_t ld, int64_t rows,
                          int64_t cols) {
  const size_t n = size_t(rows * cols);
  if (raw()) {
    if (bytes.size() != n * sizeof(T))
      return {ErrorCode::mismatch, "raw block of " + std::to_string(bytes.size()) +
                                       " bytes, expected " + std::to_string(n * sizeof(T))};
    if (n) unpack(reinterpret_cast<const T*>(bytes.data()), rows, cols, data, ld);
    return {};
  }
  if (ld == rows || n == 0)
    return codec_->decompress(bytes, data, n, codec::dtype_of<T>(), workspace_);
  packed_.resize(n * sizeof(T));
  COMMPRESS_RETURN_IF_ERROR(
      codec_->decompress(bytes, packed_.data(), n, codec::dtype_of<T>(), workspace_));
  unpack(reinterpret_cast<const T*>(packed_.data()), rows, cols, data, ld);
  return {};
}

template Status BlockCodec::encode<float>(const float*, int64_t, int64_t, int64_t,
                                          std::vector<std::byte>&);
template Status BlockCodec::encode<double>(const double*, int64_t, int64_t, int64_t,
                                           std::vector<std::byte>&);
template Status BlockCodec::decode<float>(std::span<const std::byte>, float*, int64_t, int64_t,
                                          int64_t);
template Status BlockCodec::decode<double>(std::span<const std::byte>, double*, int64_t, int64_t,
                                           int64_t);

}  // namespace commpress::linalg::detail
