// Block-level primitives of the szp payload (docs/format/szp.md), for the codecs in this
// folder and for operations that work on szp frames without fully decoding them (e.g.
// homomorphic sums: decode two blocks to residuals, add, re-encode).
//
// A payload of n values is ceil(n/32) header bytes followed by the block bodies in block
// order. Block b holds values [32b, min(32b+32, n)). Inside a block the stages are
//   lossy:    x --LinearQuantizer--> q --LorenzoPredictor--> r --FixedLengthEncoder--> body
//   lossless: x --FloatOrderMap-----> q --LorenzoPredictor--> r --FixedLengthEncoder--> body
// and a block whose values do not survive the lossy path is stored raw (values verbatim).
//
// Conventions for every function below:
//  - T is float or double; Int = BlockTraits<T>::Int (int32_t / int64_t).
//  - Residual and integer arrays always have kBlockValues (32) lanes, also for the last,
//    partial block: lanes past the valid count are padding. Encoders pad by repeating the
//    last valid value, so padding residuals are zero.
//  - Integer arithmetic on q and r wraps modulo 2^bits (decoders never hit undefined
//    behaviour, whatever the bytes).
//  - Body pointers for writing must have room for max_body_size<T>(mode) bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/lossy/szp/block_header.hpp"
#include "codec/lossy/szp/fixed_length_encoder.hpp"
#include "codec/lossy/szp/float_order_map.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"
#include "codec/lossy/szp/lorenzo_predictor.hpp"
#include "codec/lossy/szp/portable_block.hpp"
#include "commpress/status.hpp"

namespace commpress::codec::szp {

// --- residual level ----------------------------------------------------------------------

// Encodes 32 residuals as the smallest of zero / plain / outlier (never raw), writing the
// body; returns its size. In lossless mode the outlier form stores the first value's own bit
// pattern, FloatOrderMap<T>::from_ordered(r[0]). Lossy outlier needs zigzag(r[0]) to fit in 4
// bytes and the other residuals in 31 bits; otherwise plain is used.
template <class T>
size_t encode_residuals(const IntOf<T>* r, Mode mode, uint8_t& header, std::byte* body);

// The size encode_residuals would produce, and its header, without writing anything.
template <class T>
size_t plan_residuals(const IntOf<T>* r, Mode mode, uint8_t& header);

// Reads the 32 residuals of a zero / plain / outlier block. Returns false for raw or invalid
// headers or when body is shorter than body_size() says; extra bytes are ignored.
template <class T>
bool decode_residuals(uint8_t header, Mode mode, std::span<const std::byte> body, IntOf<T>* r);

// --- lossy, value level --------------------------------------------------------------------

// Quantizes x[0..valid) into q[0..32) (padding repeats q[valid-1]). Returns false when some
// value is not finite, out of the quantizer's range, or not reconstructed within the bound:
// the block must then be stored raw.
template <class T>
bool quantize_block(const T* x, size_t valid, const LinearQuantizer<T>& qz, IntOf<T>* q);

// The whole lossy block: quantize, predict, encode; raw when quantization fails or when the
// encoded body would not be smaller than the raw values. Returns the body size. Uses the
// SIMD kernels when built with them; the bytes are identical to encode_lossy_block_portable.
template <class T>
size_t encode_lossy_block(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                          uint8_t& header, std::byte* body);
template <class T>
size_t encode_lossy_block_portable(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                                   uint8_t& header, std::byte* body);

// Decodes one lossy block into out[0..valid). The header must be valid (not
// BlockKind::invalid) and body must hold body_size<T>(header, valid, Mode::lossy) bytes.
template <class T>
void decode_lossy_block(uint8_t header, const std::byte* body, size_t valid,
                        const LinearQuantizer<T>& qz, T* out);
template <class T>
void decode_lossy_block_portable(uint8_t header, const std::byte* body, size_t valid,
                                 const LinearQuantizer<T>& qz, T* out);

// --- lossless, value level -----------------------------------------------------------------

// Same contracts as the lossy pair, on order-mapped bit patterns; bit-exact.
template <class T>
size_t encode_lossless_block(const T* x, size_t valid, uint8_t& header, std::byte* body);
template <class T>
size_t encode_lossless_block_portable(const T* x, size_t valid, uint8_t& header,
                                      std::byte* body);
template <class T>
void decode_lossless_block(uint8_t header, const std::byte* body, size_t valid, T* out);
template <class T>
void decode_lossless_block_portable(uint8_t header, const std::byte* body, size_t valid,
                                    T* out);

// --- raw blocks ----------------------------------------------------------------------------

// header kRawHeader; the body is the valid values' bytes, little-endian, nothing else.
template <class T>
size_t write_raw_block(const T* x, size_t valid, std::byte* body);
template <class T>
void read_raw_block(const std::byte* body, size_t valid, T* out);

// --- payload layout ------------------------------------------------------------------------

struct PayloadView {
  std::span<const uint8_t> headers;  // one per block
  std::span<const std::byte> bodies;  // the rest of the payload
};

// Splits a payload of n values into its header bytes and bodies (truncated if too short).
Result<PayloadView> split_payload(std::span<const std::byte> payload, size_t n);

// Validates every header byte and computes each block's body offset into
// PayloadView::bodies: offsets has block_count(n) + 1 entries, offsets[b] = start of block b,
// offsets.back() = total; the bodies must fill the payload exactly. corrupt_frame otherwise.
template <class T>
Status block_offsets(std::span<const std::byte> payload, size_t n, Mode mode,
                     std::vector<uint64_t>& offsets);

}  // namespace commpress::codec::szp
