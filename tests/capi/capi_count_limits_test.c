/* Counts near SIZE_MAX through every C codec entry point, compiled as C99: a count no frame
 * can hold is refused with a clear status (COMMPRESS_OVERFLOW where the caller asked for
 * it, COMMPRESS_CORRUPT_FRAME or COMMPRESS_MISMATCH where a frame claims it), never a crash
 * and never a frame. Forged frames carry a valid checksum, so the count is what is refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "capi_check.h"

enum { N = 1000, HEADER = 56, COUNT_AT = 8, CHECKSUM_AT = 48 };

/* One codec of every codec id. */
static const char* const codecs[] = {"raw",    "lz4",          "zstd-3",    "zlib-6",
                                     "blosc-lz4-shuffle", "zfp-reversible", "szp",
                                     "szp-lossless", "pred-byte", "pred-bit", "zfp"};

static const uint64_t huge_counts[] = {
    (uint64_t)SIZE_MAX,          (uint64_t)SIZE_MAX / 2,        (uint64_t)1 << 62,
    ((uint64_t)1 << 61) + 1,     COMMPRESS_MAX_COUNT + 1,       COMMPRESS_MAX_COUNT,
    (uint64_t)1 << 40,           (uint64_t)1 << 28};

static void store_u64(unsigned char* p, uint64_t v) {
  int i;
  for (i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

/* The header's checksum (docs/format.md): XXH3-64 of bytes 0..47 followed by the payload. */
static void reseal(unsigned char* frame, size_t size) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, frame, CHECKSUM_AT);
  XXH3_64bits_update(state, frame + HEADER, size - HEADER);
  store_u64(frame + CHECKSUM_AT, XXH3_64bits_digest(state));
  XXH3_freeState(state);
}

static int is_lossy(const char* codec) {
  return strcmp(codec, "szp") == 0 || strcmp(codec, "zfp") == 0 ||
         strcmp(codec, "pred-byte") == 0 || strcmp(codec, "pred-bit") == 0;
}

static void one_codec(const char* codec) {
  static double in[N], out[N];
  static unsigned char frame[16 * N];
  const commpress_bound_mode mode = is_lossy(codec) ? COMMPRESS_ABS : COMMPRESS_LOSSLESS;
  size_t i, k, size = 0, written = 1, bound = 1;
  commpress_frame_header info;
  for (i = 0; i < N; ++i) in[i] = (double)i * 0.25;
  CHECK_OK(commpress_compress(codec, in, N, COMMPRESS_F64, mode, 1e-3, frame, sizeof frame,
                              &size));
  for (k = 0; k < sizeof huge_counts / sizeof huge_counts[0]; ++k) {
    const uint64_t n = huge_counts[k];
    /* Every count the size_t arithmetic could wrap on is above what a frame may hold. */
    if (n > COMMPRESS_MAX_COUNT) {
      bound = 1;
      CHECK_STATUS(commpress_compress_bound(codec, (size_t)n, COMMPRESS_F64, &bound),
                   COMMPRESS_OVERFLOW);
      CHECK(bound == 0, "%s: bound %zu for %llu elements", codec, bound, (unsigned long long)n);
      /* `in` holds N elements: nothing may read further before the count is refused. */
      CHECK_STATUS(commpress_compress(codec, in, (size_t)n, COMMPRESS_F64, mode, 1e-3, out,
                                      sizeof out, &written),
                   COMMPRESS_OVERFLOW);
      CHECK(written == 0, "%s: %zu bytes written for %llu elements", codec, written,
            (unsigned long long)n);
    }
    CHECK_STATUS(commpress_decompress(frame, size, out, (size_t)n, COMMPRESS_F64),
                 COMMPRESS_MISMATCH);
    {
      unsigned char forged[16 * N];
      memcpy(forged, frame, size);
      store_u64(forged + COUNT_AT, n);
      reseal(forged, size);
      CHECK_STATUS(commpress_frame_info(forged, size, &info), COMMPRESS_CORRUPT_FRAME);
      CHECK_STATUS(commpress_decompress(forged, size, out, N, COMMPRESS_F64),
                   COMMPRESS_CORRUPT_FRAME);
    }
  }
}

int main(void) {
  size_t c;
  for (c = 0; c < sizeof codecs / sizeof codecs[0]; ++c) one_codec(codecs[c]);
  if (capi_failures) {
    fprintf(stderr, "capi_count_limits_test: %d check(s) failed\n", capi_failures);
    return 1;
  }
  printf("capi_count_limits_test: all checks passed\n");
  return 0;
}
