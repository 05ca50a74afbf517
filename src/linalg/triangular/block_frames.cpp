#include "linalg/triangular/block_frames.hpp"

#include <string>

namespace commpress::linalg::detail {

using comm::detail::Buffer;
using comm::detail::Wire;

Status encode_blocks(const Wire& w, const void* data, std::span<const int64_t> sizes,
                     Buffer& out, std::vector<size_t>& offsets) {
  out.clear();
  offsets.assign(1, 0);
  Buffer one;
  const auto* src = static_cast<const std::byte*>(data);
  for (size_t b = 0; b < sizes.size(); ++b) {
    const Status st = w.encode_block(src, size_t(sizes[b]), one);
    if (!st.ok()) {
      out.clear();
      offsets.clear();
      return {st.code(), "block " + std::to_string(b) + ": " + st.message()};
    }
    out.insert(out.end(), one.begin(), one.end());
    offsets.push_back(out.size());
    src += size_t(sizes[b]) * w.elem_size();
  }
  return {};
}

Status decode_blocks(const Wire& w, std::span<const std::byte> bytes,
                     std::span<const int64_t> sizes, void* data, std::vector<size_t>& offsets) {
  offsets.assign(1, 0);
  auto* dst = static_cast<std::byte*>(data);
  for (size_t b = 0; b < sizes.size(); ++b) {
    const size_t n = size_t(sizes[b]);
    auto len = w.block_extent(bytes.subspan(offsets.back()), n);
    Status st = len.ok() ? w.decode_block(bytes.subspan(offsets.back(), *len), dst, n)
                         : len.status();
    if (!st.ok()) {
      offsets.clear();
      return {st.code(), "block " + std::to_string(b) + " of " + std::to_string(sizes.size()) +
                             ": " + st.message()};
    }
    offsets.push_back(offsets.back() + *len);
    dst += n * w.elem_size();
  }
  if (offsets.back() != bytes.size()) {
    const size_t stray = bytes.size() - offsets.back();
    offsets.clear();
    return {ErrorCode::corrupt_frame,
            std::to_string(stray) + " bytes trail the " + std::to_string(sizes.size()) + " blocks"};
  }
  return {};
}

size_t blocks_capacity(const Wire& w, std::span<const int64_t> sizes) {
  size_t cap = 0;
  for (int64_t n : sizes) cap += w.block_capacity(size_t(n));
  return cap;
}

}  // namespace commpress::linalg::detail
