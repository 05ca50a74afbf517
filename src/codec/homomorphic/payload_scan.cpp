#include "codec/homomorphic/payload_scan.hpp"

#include <string>

#include "codec/lossy/szp/block_driver.hpp"
#include "codec/lossy/szp/szp_block.hpp"

namespace commpress::codec::homomorphic {

template <class T>
Status scan_payload(std::span<const std::byte> payload, size_t n, size_t chunks,
                    uint64_t* starts) {
  auto view = szp::split_payload(payload, n);
  if (!view.ok()) return view.status();
  const size_t nb = view->headers.size();
  const uint8_t* h = view->headers.data();
  const auto& table = szp::kBodySizeTable<T>[int(szp::Mode::lossy)];
  uint64_t pos = 0;
  uint32_t seen = 0;
  for (size_t c = 0; c < chunks; ++c) {
    starts[c] = pos;
    const size_t hi = szp::chunk_begin(nb, chunks, c + 1);
    for (size_t b = szp::chunk_begin(nb, chunks, c); b < hi; ++b) {
      const uint16_t s = table[h[b]];
      pos += s;
      seen |= s;
    }
  }
  if (seen & szp::kInvalidEntry) {
    size_t b = 0;
    while (table[h[b]] != szp::kInvalidEntry) ++b;
    return {ErrorCode::corrupt_frame, "szp block " + std::to_string(b) +
                                          " has invalid header byte " + std::to_string(h[b])};
  }
  // The table holds full-block sizes; a raw last block holds only its valid values.
  if (nb > 0 && h[nb - 1] == szp::kRawHeader)
    pos -= (szp::kBlockValues - szp::valid_in_block(n, nb - 1)) * sizeof(T);
  starts[chunks] = pos;
  if (pos != view->bodies.size())
    return {ErrorCode::corrupt_frame, "szp block bodies need " + std::to_string(pos) +
                                          " bytes but the payload holds " +
                                          std::to_string(view->bodies.size())};
  return {};
}

template Status scan_payload<float>(std::span<const std::byte>, size_t, size_t, uint64_t*);
template Status scan_payload<double>(std::span<const std::byte>, size_t, size_t, uint64_t*);

}  // namespace commpress::codec::homomorphic
