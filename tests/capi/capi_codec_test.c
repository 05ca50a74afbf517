/* The codec half of the C API, compiled as C99: round trips with their promised bounds,
 * and every error path a C caller meets (unknown names, small buffers, damaged frames). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"

enum { N = 10007 }; /* not a multiple of any block size */

static void fill_sine(float* x, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i) x[i] = (float)(3.0 * sin(0.0137 * (double)i) + 0.25 * cos(0.9 * (double)i));
}

static unsigned char* compress_or_null(const char* codec, const void* data, size_t n,
                                       commpress_dtype dtype, commpress_bound_mode mode,
                                       double bound, size_t* size) {
  size_t cap = 0;
  unsigned char* frame;
  *size = 0;
  CHECK_OK(commpress_compress_bound(codec, n, dtype, &cap));
  if (cap == 0) return NULL;
  frame = (unsigned char*)malloc(cap);
  CHECK(frame != NULL, "out of memory");
  if (!frame) return NULL;
  CHECK_OK(commpress_compress(codec, data, n, dtype, mode, bound, frame, cap, size));
  CHECK(*size > 0 && *size <= cap, "frame size %zu outside (0, %zu]", *size, cap);
  return frame;
}

static void szp_abs_round_trip(void) {
  static float in[N], out[N];
  const double bound = 1e-3;
  commpress_frame_header info;
  size_t size, i;
  double worst = 0;
  unsigned char* frame;
  fill_sine(in, N);
  frame = compress_or_null("szp", in, N, COMMPRESS_F32, COMMPRESS_ABS, bound, &size);
  if (!frame) return;
  CHECK(size < N * sizeof(float) / 2, "szp at 1e-3 should compress a sine: %zu bytes", size);
  CHECK_OK(commpress_frame_info(frame, size, &info));
  CHECK(strcmp(info.codec, "szp") == 0, "frame codec is '%s'", info.codec);
  CHECK(info.dtype == COMMPRESS_F32, "frame dtype %d", (int)info.dtype);
  CHECK(info.mode == COMMPRESS_ABS, "frame mode %d", (int)info.mode);
  CHECK(info.count == N, "frame count %llu", (unsigned long long)info.count);
  CHECK(info.frame_size == size, "frame_size %llu vs %zu", (unsigned long long)info.frame_size, size);
  CHECK(info.requested_bound == bound, "requested bound %g", info.requested_bound);
  CHECK(info.abs_bound > 0 && info.abs_bound <= bound, "abs bound %g", info.abs_bound);
  CHECK_OK(commpress_decompress(frame, size, out, N, COMMPRESS_F32));
  for (i = 0; i < N; ++i) {
    double e = fabs((double)out[i] - (double)in[i]);
    if (!(e <= worst)) worst = e; /* NaN propagates into worst and fails below */
  }
  CHECK(worst <= bound, "max error %g exceeds the bound %g", worst, bound);
  free(frame);
}

/* szp-e given a 2-D shape (its shaped payload, tag 0x20 after the 56-byte header): the bound
 * holds, and a shape is checked like a count. */
static void szp_e_shaped_round_trip(void) {
  enum { ROWS = 97, COLS = 103 };
  static float in[ROWS * COLS], out[ROWS * COLS];
  const uint64_t shape[2] = {ROWS, COLS};
  const uint64_t huge[2] = {(uint64_t)1 << 40, (uint64_t)1 << 40};
  const double bound = 1e-3;
  size_t cap = 0, size = 0, i;
  double worst = 0;
  unsigned char* frame;
  for (i = 0; i < ROWS * COLS; ++i)
    in[i] = (float)(sin(0.05 * (double)(i % COLS)) * cos(0.04 * (double)(i / COLS)));
  CHECK_OK(commpress_compress_bound("szp-e", ROWS * COLS, COMMPRESS_F32, &cap));
  frame = (unsigned char*)malloc(cap);
  CHECK(frame != NULL, "out of memory");
  if (!frame) return;
  CHECK_OK(commpress_compress_shaped("szp-e", in, shape, 2, COMMPRESS_F32, COMMPRESS_ABS, bound,
                                     frame, cap, &size));
  CHECK(size > 56 && frame[56] == 0x20, "no shaped payload (%zu bytes)", size);
  CHECK_OK(commpress_decompress(frame, size, out, ROWS * COLS, COMMPRESS_F32));
  for (i = 0; i < ROWS * COLS; ++i) {
    double e = fabs((double)out[i] - (double)in[i]);
    if (!(e <= worst)) worst = e;
  }
  CHECK(worst <= bound, "max error %g exceeds the bound %g", worst, bound);
  CHECK_STATUS(commpress_compress_shaped("szp-e", in, NULL, 2, COMMPRESS_F32, COMMPRESS_ABS,
                                         bound, frame, cap, &size),
               COMMPRESS_INVALID_ARGUMENT);
  CHECK_STATUS(commpress_compress_shaped("szp-e", in, huge, 2, COMMPRESS_F32, COMMPRESS_ABS,
                                         bound, frame, cap, &size),
               COMMPRESS_OVERFLOW);
  free(frame);
}

static void zstd_lossless_round_trip(void) {
  static double in[N], out[N];
  commpress_frame_header info;
  size_t size, i;
  unsigned char* frame;
  for (i = 0; i < N; ++i) in[i] = (double)(i % 97) * 0.1 + sin((double)i) * 1e-9;
  frame = compress_or_null("zstd-3", in, N, COMMPRESS_F64, COMMPRESS_LOSSLESS, 0, &size);
  if (!frame) return;
  CHECK_OK(commpress_frame_info(frame, size, &info));
  CHECK(strcmp(info.codec, "zstd-3") == 0, "frame codec is '%s'", info.codec);
  CHECK(info.mode == COMMPRESS_LOSSLESS && info.abs_bound == 0, "mode %d abs bound %g",
        (int)info.mode, info.abs_bound);
  memset(out, 0xab, sizeof out);
  CHECK_OK(commpress_decompress(frame, size, out, N, COMMPRESS_F64));
  CHECK(memcmp(in, out, sizeof in) == 0, "zstd-3 round trip is not bit-exact");

  /* The destination must match the frame's count and dtype. */
  CHECK_STATUS(commpress_decompress(frame, size, out, N - 1, COMMPRESS_F64), COMMPRESS_MISMATCH);
  CHECK_STATUS(commpress_decompress(frame, size, out, N, COMMPRESS_F32), COMMPRESS_MISMATCH);

  /* A flipped payload byte: the checksum (or the parser) must notice. */
  frame[size - 3] ^= 0x5a;
  {
    commpress_status st = commpress_decompress(frame, size, out, N, COMMPRESS_F64);
    CHECK(st == COMMPRESS_CHECKSUM_MISMATCH || st == COMMPRESS_CORRUPT_FRAME,
          "damaged frame gave %s: %s", commpress_status_name(st), commpress_last_error());
    st = commpress_frame_info(frame, size, &info);
    CHECK(st == COMMPRESS_CHECKSUM_MISMATCH || st == COMMPRESS_CORRUPT_FRAME,
          "damaged frame info gave %s", commpress_status_name(st));
  }
  frame[size - 3] ^= 0x5a;
  {
    commpress_status st = commpress_decompress(frame, size - 1, out, N, COMMPRESS_F64);
    CHECK(st == COMMPRESS_TRUNCATED || st == COMMPRESS_CORRUPT_FRAME,
          "truncated frame gave %s", commpress_status_name(st));
  }
  /* Bytes that are no frame at all. */
  memset(frame, 0x11, 64);
  {
    commpress_status st = commpress_decompress(frame, 64, out, N, COMMPRESS_F64);
    CHECK(st == COMMPRESS_CORRUPT_FRAME, "garbage gave %s", commpress_status_name(st));
  }
  free(frame);
}

static void argument_errors(void) {
  float in[16] = {0};
  unsigned char small[64];
  size_t cap = 0, size = 99;
  const char* msg;

  /* Too small a destination: CAPACITY, and nothing reported as written. */
  CHECK_OK(commpress_compress_bound("lz4", 16, COMMPRESS_F32, &cap));
  CHECK(cap > sizeof small, "lz4 bound %zu unexpectedly small", cap);
  CHECK_STATUS(commpress_compress("lz4", in, 16, COMMPRESS_F32, COMMPRESS_LOSSLESS, 0, small,
                                  sizeof small, &size),
               COMMPRESS_CAPACITY);
  CHECK(size == 0, "out_size %zu after a failure", size);

  /* An unknown codec is named in the message, which outlives later successful calls. */
  CHECK_STATUS(commpress_compress_bound("no-such-codec", 16, COMMPRESS_F32, &cap),
               COMMPRESS_INVALID_ARGUMENT);
  CHECK(strstr(commpress_last_error(), "no-such-codec") != NULL, "message: %s",
        commpress_last_error());
  CHECK_OK(commpress_compress_bound("raw", 16, COMMPRESS_F32, &cap));
  CHECK(strstr(commpress_last_error(), "no-such-codec") != NULL, "message lost: %s",
        commpress_last_error());
  CHECK_STATUS(commpress_compress("no-such-codec", in, 16, COMMPRESS_F32, COMMPRESS_LOSSLESS, 0,
                                  small, sizeof small, &size),
               COMMPRESS_INVALID_ARGUMENT);

  /* Null pointers, unknown enum values, a lossy codec with a bound of 0. */
  CHECK_STATUS(commpress_compress_bound(NULL, 16, COMMPRESS_F32, &cap), COMMPRESS_INVALID_ARGUMENT);
  CHECK_STATUS(commpress_compress_bound("raw", 16, COMMPRESS_F32, NULL), COMMPRESS_INVALID_ARGUMENT);
  CHECK_STATUS(commpress_compress("raw", NULL, 16, COMMPRESS_F32, COMMPRESS_LOSSLESS, 0, small,
                                  sizeof small, &size),
               COMMPRESS_INVALID_ARGUMENT);
  msg = commpress_last_error();
  CHECK(strstr(msg, "data") != NULL, "message does not name the argument: %s", msg);
  CHECK_STATUS(commpress_compress_bound("raw", 16, (commpress_dtype)257, &cap),
               COMMPRESS_INVALID_ARGUMENT);
  CHECK_STATUS(commpress_compress("szp", in, 16, COMMPRESS_F32, (commpress_bound_mode)7, 1e-3,
                                  small, sizeof small, &size),
               COMMPRESS_INVALID_ARGUMENT);
  CHECK_STATUS(commpress_compress("szp", in, 16, COMMPRESS_F32, COMMPRESS_REL, 0, small,
                                  sizeof small, &size),
               COMMPRESS_INVALID_ARGUMENT);
  CHECK_STATUS(commpress_decompress(NULL, 10, in, 16, COMMPRESS_F32), COMMPRESS_INVALID_ARGUMENT);
  CHECK_STATUS(commpress_frame_info(small, sizeof small, NULL), COMMPRESS_INVALID_ARGUMENT);

  CHECK(strcmp(commpress_status_name(COMMPRESS_CAPACITY), "capacity") == 0, "%s",
        commpress_status_name(COMMPRESS_CAPACITY));
  CHECK(strcmp(commpress_status_name((commpress_status)99), "unknown") == 0, "%s",
        commpress_status_name((commpress_status)99));
  CHECK(strcmp(commpress_algorithm_name(COMMPRESS_ALG_FUSED_RING), "fused_ring") == 0, "%s",
        commpress_algorithm_name(COMMPRESS_ALG_FUSED_RING));
  CHECK(strcmp(commpress_algorithm_name(COMMPRESS_ALG_PLAIN_RING), "plain_ring") == 0, "%s",
        commpress_algorithm_name(COMMPRESS_ALG_PLAIN_RING));
  CHECK(strcmp(commpress_algorithm_name(COMMPRESS_ALG_PLAIN_BINOMIAL), "plain_binomial") == 0, "%s",
        commpress_algorithm_name(COMMPRESS_ALG_PLAIN_BINOMIAL));
  /* Every row of the algorithm table, the last ones included, and nothing past it. */
  CHECK(strcmp(commpress_algorithm_name(COMMPRESS_ALG_PAIRWISE), "pairwise") == 0, "%s",
        commpress_algorithm_name(COMMPRESS_ALG_PAIRWISE));
  CHECK(strcmp(commpress_algorithm_name(COMMPRESS_ALG_BRUCK), "bruck") == 0, "%s",
        commpress_algorithm_name(COMMPRESS_ALG_BRUCK));
  CHECK(strcmp(commpress_algorithm_name((commpress_algorithm)(COMMPRESS_ALG_BRUCK + 1)), "?") == 0,
        "%s", commpress_algorithm_name((commpress_algorithm)(COMMPRESS_ALG_BRUCK + 1)));
  commpress_options* o = NULL;
  CHECK_OK(commpress_options_create(&o));
  CHECK_OK(commpress_options_set_algorithm(o, COMMPRESS_ALG_BRUCK));
  CHECK_STATUS(commpress_options_set_algorithm(o, (commpress_algorithm)(COMMPRESS_ALG_BRUCK + 1)),
               COMMPRESS_INVALID_ARGUMENT);
  commpress_options_destroy(o);
}

int main(void) {
  szp_abs_round_trip();
  zstd_lossless_round_trip();
  szp_e_shaped_round_trip();
  argument_errors();
  if (capi_failures) {
    fprintf(stderr, "capi_codec_test: %d check(s) failed\n", capi_failures);
    return 1;
  }
  printf("capi_codec_test: all checks passed\n");
  return 0;
}
