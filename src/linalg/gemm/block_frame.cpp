#include "linalg/gemm/block_frame.hpp"

#include <climits>
#include <cstring>
#include <string>
#include <vector>

namespace commpress::linalg::detail {

template <class T>
Result<Wire> block_wire(const std::string& codec, const codec::ErrorBound& bound) {
  return Wire::resolved(codec, codec::dtype_of<T>(),
                        bound.mode == codec::BoundMode::abs ? bound.value : 0.0);
}

template <class T>
Result<size_t> encode_block_frame_into(const Wire& wire, const T* data, int64_t ld, int64_t rows,
                                       int64_t cols, std::span<std::byte> out) {
  if (wire.elem_size() != sizeof(T))
    return Status{ErrorCode::internal, "block of " + std::to_string(sizeof(T)) +
                                           "-byte elements on a wire of " +
                                           std::to_string(wire.elem_size()) + "-byte ones"};
  const size_t n = size_t(rows * cols);
  if (ld == rows || cols <= 1 || n == 0) return wire.encode_into(data, n, out);
  if (out.size() < wire.frame_capacity(n))
    return Status{ErrorCode::internal, "frame buffer below capacity"};
  // Uncompressed, packing is the encoding; else the codec reads a packed copy.
  thread_local std::vector<T> packed;
  T* to = wire.compressed() ? (packed.resize(n), packed.data()) : reinterpret_cast<T*>(out.data());
  for (int64_t j = 0; j < cols; ++j)
    std::memcpy(to + j * rows, data + j * ld, size_t(rows) * sizeof(T));
  if (!wire.compressed()) return n * sizeof(T);
  return wire.encode_into(packed.data(), n, out);
}

Status check_message_capacity(size_t bytes, const char* what) {
  if (bytes <= size_t(INT_MAX)) return {};
  return {ErrorCode::unsupported, std::string(what) + " blocks may encode to " +
                                      std::to_string(bytes) +
                                      " bytes, above one MPI message's limit of " +
                                      std::to_string(INT_MAX) + ": use a larger grid"};
}

template Result<Wire> block_wire<float>(const std::string&, const codec::ErrorBound&);
template Result<Wire> block_wire<double>(const std::string&, const codec::ErrorBound&);
template Result<size_t> encode_block_frame_into<float>(const Wire&, const float*, int64_t, int64_t,
                                                       int64_t, std::span<std::byte>);
template Result<size_t> encode_block_frame_into<double>(const Wire&, const double*, int64_t,
                                                        int64_t, int64_t, std::span<std::byte>);

}  // namespace commpress::linalg::detail
