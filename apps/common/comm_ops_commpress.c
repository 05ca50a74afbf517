/* The native build: the same verbs through commpress's C API, with the codec, the bound and
 * the choice of algorithm given on the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_ops.h"
#include "commpress.h"
#include "ops_accounting.h"

static char codec_name[COMMPRESS_NAME_MAX] = "none";
static char bound_text[64] = "lossless";
static commpress_bound_mode bound_mode = COMMPRESS_LOSSLESS;
static double bound_value = 0;
/* 0: Auto everywhere (the cost model may send uncompressed where compressing would not pay);
 * 1: always a compressed algorithm, so the codec is exercised whatever the model thinks. */
static int force_compressed = 0;
static commpress_options* p2p_opts;
static commpress_options* bcast_opts;
static commpress_options* reduce_opts;
static commpress_options* alltoall_opts;

static int parse_bound(const char* text, char* err, size_t err_size) {
  char* end = NULL;
  if (strcmp(text, "lossless") == 0) {
    bound_mode = COMMPRESS_LOSSLESS;
    bound_value = 0;
  } else if (strncmp(text, "abs:", 4) == 0 || strncmp(text, "rel:", 4) == 0) {
    bound_mode = text[0] == 'a' ? COMMPRESS_ABS : COMMPRESS_REL;
    bound_value = strtod(text + 4, &end);
    if (end == text + 4 || *end != '\0' || !(bound_value > 0)) {
      snprintf(err, err_size, "--bound %s: the value must be a positive number", text);
      return -1;
    }
  } else {
    snprintf(err, err_size, "--bound %s: expected lossless, abs:VALUE or rel:VALUE", text);
    return -1;
  }
  snprintf(bound_text, sizeof bound_text, "%s", text);
  return 1;
}

int ops_parse_flag(int argc, char** argv, int* i, char* err, size_t err_size) {
  const char* flag = argv[*i];
  int takes_value = strcmp(flag, "--codec") == 0 || strcmp(flag, "--bound") == 0 ||
                    strcmp(flag, "--algorithm") == 0;
  if (!takes_value) return 0;
  if (*i + 1 >= argc) {
    snprintf(err, err_size, "%s needs a value", flag);
    return -1;
  }
  const char* value = argv[++*i];
  if (strcmp(flag, "--codec") == 0) {
    if (strlen(value) >= sizeof codec_name) {
      snprintf(err, err_size, "--codec %s: name too long", value);
      return -1;
    }
    snprintf(codec_name, sizeof codec_name, "%s", value);
    return 1;
  }
  if (strcmp(flag, "--bound") == 0) return parse_bound(value, err, err_size);
  if (strcmp(value, "auto") == 0 || strcmp(value, "compressed") == 0) {
    force_compressed = value[0] == 'c';
    return 1;
  }
  snprintf(err, err_size, "--algorithm %s: expected auto or compressed", value);
  return -1;
}

const char* ops_usage(void) {
  return "  --codec NAME          commpress codec (szp, pred-byte, pred-bit, zfp, zstd-1, ...; "
         "default none)\n"
         "  --bound SPEC          lossless | abs:VALUE | rel:VALUE (default lossless)\n"
         "  --algorithm MODE      auto (the cost model chooses, may send uncompressed) or\n"
         "                        compressed (always a compressed algorithm; default auto)\n";
}
const char* ops_variant(void) {
  return "commpress";
}
const char* ops_codec(void) {
  return codec_name;
}
const char* ops_bound(void) {
  return bound_text;
}

static void check(commpress_status st, const char* verb) {
  if (st != COMMPRESS_OK) ops_fail(verb, commpress_last_error());
}

static commpress_options* make_options(commpress_algorithm forced) {
  commpress_options* o = NULL;
  check(commpress_options_create(&o), "options");
  check(commpress_options_set_codec(o, codec_name), "options");
  check(commpress_options_set_bound(o, bound_mode, bound_value), "options");
  if (force_compressed) check(commpress_options_set_algorithm(o, forced), "options");
  return o;
}

void ops_init(void) {
  ops_set_sent_known(1);
  p2p_opts = make_options(COMMPRESS_ALG_DIRECT);
  bcast_opts = make_options(COMMPRESS_ALG_BINOMIAL);
  /* The fused homomorphic ring needs szp frames; any other codec decodes, adds, encodes. */
  int fused = strcmp(codec_name, "szp") == 0 && bound_mode != COMMPRESS_LOSSLESS;
  reduce_opts = make_options(fused ? COMMPRESS_ALG_FUSED_RING : COMMPRESS_ALG_DOC_RING);
  alltoall_opts = make_options(COMMPRESS_ALG_PAIRWISE);
}

void ops_finalize(void) {
  commpress_options_destroy(p2p_opts);
  commpress_options_destroy(bcast_opts);
  commpress_options_destroy(reduce_opts);
  commpress_options_destroy(alltoall_opts);
  p2p_opts = bcast_opts = reduce_opts = alltoall_opts = NULL;
}

/* Ends a blocking call: fails the job on an error, else books its time and report. */
static void finish(commpress_status st, const char* verb, double t0, const commpress_report* r) {
  check(st, verb);
  ops_account(MPI_Wtime() - t0, r->raw_bytes, r->bytes_sent);
  ops_account_predicted(r->predicted_seconds);
}

void ops_send_f32(const float* buf, size_t n, int dest, int tag, MPI_Comm comm) {
  commpress_report r;
  double t0 = MPI_Wtime();
  finish(commpress_send(buf, n, COMMPRESS_F32, dest, tag, comm, p2p_opts, &r), "commpress_send", t0,
         &r);
}

void ops_recv_f32(float* buf, size_t n, int source, int tag, MPI_Comm comm) {
  commpress_report r;
  double t0 = MPI_Wtime();
  check(commpress_recv(buf, n, COMMPRESS_F32, source, tag, comm, p2p_opts, &r), "commpress_recv");
  ops_account(MPI_Wtime() - t0, 0, 0);
}

/* Receives are waited for before sends: a compressed isend completes only once its receiver
 * has progressed the matching irecv. */
static void wait_all(commpress_request** req, int n, const char* verb) {
  for (int i = 0; i < n; ++i) {
    commpress_report r;
    if (!req[i]) continue;
    check(commpress_wait(&req[i], &r), verb);
    ops_account(0, r.raw_bytes, r.bytes_sent);
    ops_account_predicted(r.predicted_seconds);
  }
}

void ops_halo_f32(const float* send_lo, float* recv_lo, int lo, const float* send_hi,
                  float* recv_hi, int hi, size_t n, MPI_Comm comm) {
  commpress_request* req[4] = {NULL, NULL, NULL, NULL};
  double t0 = MPI_Wtime();
  if (lo != MPI_PROC_NULL) {
    check(commpress_irecv(recv_lo, n, COMMPRESS_F32, lo, 1, comm, p2p_opts, &req[0]), "irecv");
    check(commpress_isend(send_lo, n, COMMPRESS_F32, lo, 0, comm, p2p_opts, &req[2]), "isend");
  }
  if (hi != MPI_PROC_NULL) {
    check(commpress_irecv(recv_hi, n, COMMPRESS_F32, hi, 0, comm, p2p_opts, &req[1]), "irecv");
    check(commpress_isend(send_hi, n, COMMPRESS_F32, hi, 1, comm, p2p_opts, &req[3]), "isend");
  }
  wait_all(req, 4, "halo wait");
  ops_account(MPI_Wtime() - t0, 0, 0);
}

void ops_bcast_f64(double* buf, size_t n, int root, MPI_Comm comm) {
  commpress_report r;
  double t0 = MPI_Wtime();
  finish(commpress_bcast(buf, n, COMMPRESS_F64, root, comm, bcast_opts, &r), "commpress_bcast", t0,
         &r);
}

void ops_scatter_f64(const double* send, double* recv, size_t n, int root, MPI_Comm comm) {
  commpress_report r;
  double t0 = MPI_Wtime();
  finish(commpress_scatter(send, recv, n, COMMPRESS_F64, root, comm, bcast_opts, &r),
         "commpress_scatter", t0, &r);
}

void ops_allreduce_sum_f64(double* inout, size_t n, MPI_Comm comm) {
  commpress_report r;
  double t0 = MPI_Wtime();
  finish(commpress_allreduce(inout, inout, n, COMMPRESS_F64, COMMPRESS_SUM, comm, reduce_opts, &r),
         "commpress_allreduce", t0, &r);
}

void ops_allreduce_sum_i64(int64_t* inout, size_t n, MPI_Comm comm) {
  commpress_report r;
  double t0 = MPI_Wtime();
  finish(commpress_allreduce(inout, inout, n, COMMPRESS_I64, COMMPRESS_SUM, comm, NULL, &r),
         "commpress_allreduce", t0, &r);
}

/* commpress's all-to-all: each block is compressed once by its owner and every element
 * received is within the bound of what its sender had (Pairwise where a compressed algorithm
 * is forced: one exchange per peer, the way MPI's own large-message all-to-all runs). */
void ops_alltoall_f64(const double* send, double* recv, size_t n, MPI_Comm comm) {
  commpress_report r;
  double t0 = MPI_Wtime();
  finish(commpress_alltoall(send, recv, n, COMMPRESS_F64, comm, alltoall_opts, &r),
         "commpress_alltoall", t0, &r);
}
