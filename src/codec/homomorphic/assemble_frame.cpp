#include <new>
#include <stdexcept>
#include <string>

#include "codec/homomorphic/combine_driver.hpp"

namespace commpress::codec::homomorphic {

Status assemble_frame(FrameInfo info, std::span<const std::byte> block_headers,
                      std::span<const std::byte* const> chunk_bodies,
                      std::span<const size_t> chunk_sizes, std::vector<std::byte>& out) {
  size_t payload = block_headers.size();
  for (size_t s : chunk_sizes) payload += s;
  try {
    // clear + reserve + insert copies the bytes once and never zero-fills.
    out.clear();
    out.reserve(kFrameHeaderSize + payload);
    out.resize(kFrameHeaderSize);
    out.insert(out.end(), block_headers.begin(), block_headers.end());
    for (size_t c = 0; c < chunk_bodies.size(); ++c)
      out.insert(out.end(), chunk_bodies[c], chunk_bodies[c] + chunk_sizes[c]);
  } catch (const std::exception&) {
    out.clear();
    return {ErrorCode::capacity,
            "cannot allocate a result frame of " + std::to_string(kFrameHeaderSize + payload) +
                " bytes"};
  }
  info.payload_size = payload;
  codec::detail::write_frame_header(info, std::span<const std::byte>(out).subspan(kFrameHeaderSize),
                             out.data());
  return {};
}

}  // namespace commpress::codec::homomorphic
