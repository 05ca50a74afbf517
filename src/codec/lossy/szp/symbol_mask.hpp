// Which of 32 Huffman symbols differ from one common symbol, as a bit mask: the step that
// lets the symbol counts and the encoder skip the zero code's symbols (nearly all of them
// at loose bounds) and visit only the others.
#pragma once

#include <cstdint>

#if defined(__AVX512BW__)
#include <immintrin.h>
#endif

namespace commpress::codec::szp {

// Bit t set where syms[t] != common, t < 32.
inline uint32_t differ_mask(const uint16_t* syms, uint16_t common) {
#if defined(__AVX512BW__)
  return _mm512_cmpneq_epi16_mask(_mm512_loadu_si512(syms), _mm512_set1_epi16(int16_t(common)));
#else
  uint32_t mask = 0;
  for (uint32_t t = 0; t < 32; ++t) mask |= uint32_t(syms[t] != common) << t;
  return mask;
#endif
}

}  // namespace commpress::codec::szp
