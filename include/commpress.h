/* commpress C99 API: error-bounded and lossless codecs for numeric arrays, and MPI
 * point-to-point operations and collectives that move compressed data.
 *
 * Every function returns a commpress_status; COMMPRESS_OK is 0. On failure,
 * commpress_last_error() gives a message naming the values involved. Collectives keep the
 * C++ library's promise: every rank validates the arguments the same way and all ranks
 * return the same error together, so a bad argument never leaves a rank waiting.
 *
 * Error bounds are promises about the RESULT (see docs/error-bounds.md): an allreduce with an
 * ABS bound of 1e-3 gives every element within report.guaranteed_abs_bound <= 1e-3 of the
 * exact reduction of the inputs. */
#ifndef COMMPRESS_H
#define COMMPRESS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "commpress/collective_algorithms.h"
#include "commpress/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every enum below ends in an _ENUM_MIN and an _ENUM_MAX member spanning int. They are not
 * values to pass: they make every int a valid value of the type in C++ as it is in C, so a
 * wrong value from a C caller reaches the library as a refusable number, not as undefined
 * behaviour. */

/* Stable values: they equal commpress::ErrorCode. */
typedef enum commpress_status {
  COMMPRESS_OK = 0,
  COMMPRESS_INVALID_ARGUMENT = 1, /* sizes, bound, dtype, null pointers, unknown names */
  COMMPRESS_UNSUPPORTED = 2,      /* valid request this codec/operation cannot do */
  COMMPRESS_CORRUPT_FRAME = 3,    /* bytes that do not parse as a frame */
  COMMPRESS_TRUNCATED = 4,        /* frame shorter than its header says */
  COMMPRESS_CHECKSUM_MISMATCH = 5, /* frame parses but its bytes were altered */
  COMMPRESS_CAPACITY = 6,         /* destination too small */
  COMMPRESS_MISMATCH = 7,         /* operands or ranks disagree (counts, dtypes, peers) */
  COMMPRESS_OVERFLOW = 8,         /* arithmetic would leave the representable range */
  COMMPRESS_IO = 9,               /* file or stream error */
  COMMPRESS_MPI = 10,             /* MPI reported an error */
  COMMPRESS_INTERNAL = 11,        /* a broken invariant, or out of memory */
  COMMPRESS_STATUS_ENUM_MIN = -0x7fffffff - 1,
  COMMPRESS_STATUS_ENUM_MAX = 0x7fffffff
} commpress_status;

/* "ok", "invalid_argument", ...; "unknown" for values outside the enum. */
const char* commpress_status_name(commpress_status status);
/* The message of the last failing call on this thread ("" if none failed yet). It is kept,
 * and the pointer stays valid, until the next failure on this thread; successful calls leave
 * it alone. */
const char* commpress_last_error(void);
/* "MAJOR.MINOR.PATCH" of the library in use; COMMPRESS_VERSION_STRING (commpress/version.h)
 * is the one the program was compiled against. */
const char* commpress_version(void);

/* Stable values: they are part of the wire format. */
typedef enum commpress_dtype {
  COMMPRESS_F32 = 1,
  COMMPRESS_F64 = 2,
  COMMPRESS_I32 = 3,
  COMMPRESS_I64 = 4,
  COMMPRESS_U8 = 5,
  COMMPRESS_DTYPE_ENUM_MIN = -0x7fffffff - 1,
  COMMPRESS_DTYPE_ENUM_MAX = 0x7fffffff
} commpress_dtype;

typedef enum commpress_bound_mode {
  COMMPRESS_LOSSLESS = 0,
  COMMPRESS_ABS = 1, /* |x - x'| <= value */
  COMMPRESS_REL = 2, /* |x - x'| <= value * (max - min) over the finite elements */
  COMMPRESS_BOUND_MODE_ENUM_MIN = -0x7fffffff - 1,
  COMMPRESS_BOUND_MODE_ENUM_MAX = 0x7fffffff
} commpress_bound_mode;

typedef enum commpress_op {
  COMMPRESS_SUM = 0,
  COMMPRESS_MIN = 1,
  COMMPRESS_MAX = 2,
  COMMPRESS_PROD = 3,
  COMMPRESS_OP_ENUM_MIN = -0x7fffffff - 1,
  COMMPRESS_OP_ENUM_MAX = 0x7fffffff
} commpress_op;

/* Stable values: they equal commpress::comm::Algorithm (docs/algorithms.md). */
typedef enum commpress_algorithm {
  COMMPRESS_ALG_AUTO = 0, /* chosen by the cost model (may pick MPI: no compression) */
  /* COMMPRESS_ALG_MPI = 1 (MPI's own operation, uncompressed), COMMPRESS_ALG_DIRECT = 2, ...:
     one per row of the table in commpress/collective_algorithms.h (docs/algorithms.md). */
#define COMMPRESS_C_ALGORITHM(id, value, name, c_name, ...) COMMPRESS_##c_name = value,
  COMMPRESS_COLLECTIVE_ALGORITHMS(COMMPRESS_C_ALGORITHM)
#undef COMMPRESS_C_ALGORITHM
  COMMPRESS_ALG_ENUM_MIN = -0x7fffffff - 1,
  COMMPRESS_ALG_ENUM_MAX = 0x7fffffff
} commpress_algorithm;

/* "auto", "ring", ... as the C++ API and the command-line tool spell them; "?" if unknown. */
const char* commpress_algorithm_name(commpress_algorithm algorithm);

/* Room for every codec name, NUL included. */
#define COMMPRESS_NAME_MAX 32

/* ---- Codecs ---------------------------------------------------------------------------- */
/* Codec names come from the registry: "raw", "lz4", "zstd-3", "zlib-6", "szp", "zfp",
 * ... (`commpress codecs` lists them). A compressed buffer is a self-describing frame. */

/* A frame holds at most 2^56 elements: for a larger n, commpress_compress_bound and
 * commpress_compress return COMMPRESS_OVERFLOW. */
#define COMMPRESS_MAX_COUNT ((uint64_t)1 << 56)

/* Worst-case frame size for n elements, whatever their values. */
commpress_status commpress_compress_bound(const char* codec, size_t n, commpress_dtype dtype,
                                          size_t* bound);

/* Writes one frame of n elements into out. out_capacity must be at least
 * commpress_compress_bound (COMMPRESS_CAPACITY otherwise). Lossy codecs need mode ABS or REL
 * and a positive bound; lossless codecs ignore mode and bound. */
commpress_status commpress_compress(const char* codec, const void* data, size_t n,
                                    commpress_dtype dtype, commpress_bound_mode mode,
                                    double bound, void* out, size_t out_capacity,
                                    size_t* out_size);

/* The same for an array of ndim dimensions (shape[0] the slowest, C order; their product is
 * the element count, at most COMMPRESS_MAX_COUNT): codecs that predict across dimensions
 * (szp-e) use and record them, the others code the flat array. out_capacity as for
 * commpress_compress with n = that product. */
commpress_status commpress_compress_shaped(const char* codec, const void* data,
                                           const uint64_t* shape, size_t ndim,
                                           commpress_dtype dtype, commpress_bound_mode mode,
                                           double bound, void* out, size_t out_capacity,
                                           size_t* out_size);

/* Decodes any frame into exactly n elements of dtype (COMMPRESS_MISMATCH if the frame holds
 * another count or dtype). */
commpress_status commpress_decompress(const void* frame, size_t frame_size, void* out, size_t n,
                                      commpress_dtype dtype);

/* Everything a frame header says. */
typedef struct commpress_frame_header {
  unsigned format_version;
  int codec_id;                   /* the wire format's codec id */
  char codec[COMMPRESS_NAME_MAX]; /* a registered codec that wrote such frames ("zstd-3") */
  commpress_dtype dtype;
  commpress_bound_mode mode;
  uint64_t count;                 /* elements */
  double requested_bound;         /* the value the compressing caller gave */
  double abs_bound;               /* the absolute bound guaranteed; 0 when lossless */
  uint64_t payload_size;          /* bytes after the header */
  uint64_t frame_size;            /* header plus payload */
  uint32_t param;                 /* codec-specific (level, inner codec) */
} commpress_frame_header;

/* Validates a whole frame (magic, version, lengths, checksum, a payload able to hold the
 * count it claims) and describes it. */
commpress_status commpress_frame_info(const void* frame, size_t frame_size,
                                      commpress_frame_header* info);

/* ---- Compressed communication ---------------------------------------------------------- */

/* Options of a communication call; NULL wherever an options pointer is taken means the
 * defaults: codec "auto" with a lossless bound, i.e. exact results. */
typedef struct commpress_options commpress_options;

commpress_status commpress_options_create(commpress_options** options);
/* Accepts NULL. */
commpress_status commpress_options_destroy(commpress_options* options);
/* A registry name; "none" or "" sends uncompressed; "auto" picks "szp" for lossy bounds on
 * f32/f64 and sends uncompressed otherwise. Unknown names fail when the call runs. */
commpress_status commpress_options_set_codec(commpress_options* options, const char* codec);
/* The bound on the result; value is ignored for COMMPRESS_LOSSLESS. */
commpress_status commpress_options_set_bound(commpress_options* options,
                                             commpress_bound_mode mode, double value);
commpress_status commpress_options_set_algorithm(commpress_options* options,
                                                 commpress_algorithm algorithm);
/* Pipelining granularity of uncompressed data; 0 = Auto chooses it (a forced algorithm then
 * uses 1 MiB). */
commpress_status commpress_options_set_chunk_bytes(commpress_options* options,
                                                   size_t chunk_bytes);
/* Hierarchical algorithm on one machine: group this many ranks as a node; 0 = real nodes. */
commpress_status commpress_options_set_pretend_ranks_per_node(commpress_options* options,
                                                              int ranks);

/* What a communication call did, on this rank. */
typedef struct commpress_report {
  commpress_algorithm algorithm;  /* the one that actually ran */
  char codec[COMMPRESS_NAME_MAX]; /* "none" when nothing was compressed */
  uint64_t raw_bytes;             /* uncompressed bytes this rank's sends represent */
  uint64_t bytes_sent;            /* bytes this rank actually sent */
  double ratio;                   /* raw_bytes / bytes_sent (1 when nothing was sent) */
  double guaranteed_abs_bound;    /* on every element of the result (0 = exact) */
  double predicted_seconds;       /* the model's estimate (0 when not modelled) */
  size_t chunk_bytes;             /* pipelining chunk it ran with; 0 = MPI's own */
} commpress_report;

/* In every call below, options may be NULL (defaults) and report may be NULL (not wanted);
 * on failure *report is zeroed. Arguments follow MPI's order; counts are elements. */

/* Point-to-point. The receiver must use the same codec and count. */
commpress_status commpress_send(const void* buf, size_t count, commpress_dtype dtype, int dest,
                                int tag, MPI_Comm comm, const commpress_options* options,
                                commpress_report* report);
commpress_status commpress_recv(void* buf, size_t count, commpress_dtype dtype, int source,
                                int tag, MPI_Comm comm, const commpress_options* options,
                                commpress_report* report);

/* A nonblocking point-to-point operation in flight. */
typedef struct commpress_request commpress_request;

/* Start an operation; *request receives a handle that commpress_wait completes and frees.
 * The buffer must stay valid (and, for irecv, untouched) until then. Keep at most one
 * commpress receive pending per (source, tag, communicator). Errors of the operation itself
 * are returned by commpress_wait. */
commpress_status commpress_isend(const void* buf, size_t count, commpress_dtype dtype, int dest,
                                 int tag, MPI_Comm comm, const commpress_options* options,
                                 commpress_request** request);
commpress_status commpress_irecv(void* buf, size_t count, commpress_dtype dtype, int source,
                                 int tag, MPI_Comm comm, const commpress_options* options,
                                 commpress_request** request);
/* Completes the operation, frees the handle and sets *request to NULL. A NULL *request (an
 * operation already waited for) returns COMMPRESS_OK at once with a zeroed report. */
commpress_status commpress_wait(commpress_request** request, commpress_report* report);
/* Makes progress without blocking; *flag = 1 when commpress_wait would return at once. */
commpress_status commpress_test(commpress_request* request, int* flag);

/* Nonblocking collectives (include/commpress/nonblocking.hpp): the handle completes with
 * commpress_wait, commpress_test or commpress_waitall. They progress on a thread of
 * commpress's per communicator where MPI was initialized with MPI_THREAD_MULTIPLE, and run
 * when started otherwise (commpress_progress_thread_available). Arguments are agreed when the
 * operation runs: a mismatch makes every rank's wait return the same error. */
int commpress_progress_thread_available(void);
commpress_status commpress_iallreduce(const void* send, void* recv, size_t count,
                                      commpress_dtype dtype, commpress_op op, MPI_Comm comm,
                                      const commpress_options* options,
                                      commpress_request** request);
commpress_status commpress_ireduce_scatter_block(const void* send, void* recv,
                                                 size_t count_per_rank, commpress_dtype dtype,
                                                 commpress_op op, MPI_Comm comm,
                                                 const commpress_options* options,
                                                 commpress_request** request);
commpress_status commpress_ibcast(void* buf, size_t count, commpress_dtype dtype, int root,
                                  MPI_Comm comm, const commpress_options* options,
                                  commpress_request** request);
commpress_status commpress_iallgather(const void* send, void* recv, size_t count_per_rank,
                                      commpress_dtype dtype, MPI_Comm comm,
                                      const commpress_options* options,
                                      commpress_request** request);
commpress_status commpress_ialltoall(const void* send, void* recv, size_t count_per_rank,
                                     commpress_dtype dtype, MPI_Comm comm,
                                     const commpress_options* options,
                                     commpress_request** request);
/* Completes count requests (NULL entries are skipped), each as commpress_wait would;
 * reports (may be NULL) gets one report per request. Returns the first failure. */
commpress_status commpress_waitall(size_t count, commpress_request** requests,
                                   commpress_report* reports);
/* A persistent allreduce (MPI-4 MPI_Allreduce_init): collective, agrees on the arguments
 * (a mismatch fails every rank here). Each commpress_start runs it on the buffers' current
 * contents; commpress_wait completes that run and keeps the handle (the algorithm decided by
 * the first run is kept); commpress_request_free frees it. */
commpress_status commpress_allreduce_init(const void* send, void* recv, size_t count,
                                          commpress_dtype dtype, commpress_op op,
                                          MPI_Comm comm, const commpress_options* options,
                                          commpress_request** request);
commpress_status commpress_start(commpress_request* request);
/* Frees a handle (waiting for an operation still running) and sets *request to NULL. */
commpress_status commpress_request_free(commpress_request** request);

/* Collectives. Where MPI allows MPI_IN_PLACE, pass the same pointer as send and recv. */
commpress_status commpress_bcast(void* buf, size_t count, commpress_dtype dtype, int root,
                                 MPI_Comm comm, const commpress_options* options,
                                 commpress_report* report);
commpress_status commpress_allgather(const void* send, void* recv, size_t count_per_rank,
                                     commpress_dtype dtype, MPI_Comm comm,
                                     const commpress_options* options, commpress_report* report);
commpress_status commpress_scatter(const void* send, void* recv, size_t count_per_rank,
                                   commpress_dtype dtype, int root, MPI_Comm comm,
                                   const commpress_options* options, commpress_report* report);
commpress_status commpress_gather(const void* send, void* recv, size_t count_per_rank,
                                  commpress_dtype dtype, int root, MPI_Comm comm,
                                  const commpress_options* options, commpress_report* report);
commpress_status commpress_reduce_scatter_block(const void* send, void* recv,
                                                size_t count_per_rank, commpress_dtype dtype,
                                                commpress_op op, MPI_Comm comm,
                                                const commpress_options* options,
                                                commpress_report* report);
commpress_status commpress_allreduce(const void* send, void* recv, size_t count,
                                     commpress_dtype dtype, commpress_op op, MPI_Comm comm,
                                     const commpress_options* options, commpress_report* report);
commpress_status commpress_reduce(const void* send, void* recv, size_t count,
                                  commpress_dtype dtype, commpress_op op, int root,
                                  MPI_Comm comm, const commpress_options* options,
                                  commpress_report* report);
/* Block d of send (count_per_rank elements) goes to rank d; each block is compressed once
 * and every element delivered is within the report's bound of the sender's. */
commpress_status commpress_alltoall(const void* send, void* recv, size_t count_per_rank,
                                    commpress_dtype dtype, MPI_Comm comm,
                                    const commpress_options* options, commpress_report* report);
/* MPI_Alltoallv's layout: counts and displacements in elements, one per rank. */
commpress_status commpress_alltoallv(const void* send, const size_t* send_counts,
                                     const size_t* send_displs, void* recv,
                                     const size_t* recv_counts, const size_t* recv_displs,
                                     commpress_dtype dtype, MPI_Comm comm,
                                     const commpress_options* options, commpress_report* report);

#if COMMPRESS_HAVE_GEMM
/* ---- Distributed matrix multiply -------------------------------------------------------
 * C = alpha * op(A) * op(B) + beta * C on a process grid, in the "block" distribution of
 * include/commpress/linalg.hpp: grid row i owns the global rows [i*mb, min(rows, (i+1)*mb))
 * with mb = ceil(rows / grid rows) (trailing grid rows may own nothing), likewise for columns;
 * each rank stores its block column-major with leading dimension ld >= max(1, local rows).
 * This is ScaLAPACK's layout with MB = ceil(M/pr), NB = ceil(N/pc); pdgemm-compatible entry
 * points for any ScaLAPACK layout are in commpress/scalapack.h. On grids with several layers
 * the matrices live on layer 0 (other layers own nothing). Calls are collective over the
 * grid and all ranks return the same error. */

typedef enum commpress_trans {
  COMMPRESS_NO_TRANS = 0,
  COMMPRESS_TRANS = 1,
  COMMPRESS_TRANS_ENUM_MIN = -0x7fffffff - 1,
  COMMPRESS_TRANS_ENUM_MAX = 0x7fffffff
} commpress_trans;

/* Stable values: they equal commpress::linalg::GemmAlgorithm. */
typedef enum commpress_gemm_algorithm {
  COMMPRESS_GEMM_AUTO = 0, /* chosen by the cost models (algorithm, replication, compression) */
  COMMPRESS_GEMM_CANNON = 1,
  COMMPRESS_GEMM_SUMMA = 2,
  COMMPRESS_GEMM_SRUMMA = 3,
  COMMPRESS_GEMM_CANNON25D = 4,
  COMMPRESS_GEMM_SUMMA25D = 5,
  COMMPRESS_GEMM_SCALAPACK = 6, /* ScaLAPACK's own p?gemm on the same data */
  COMMPRESS_GEMM_ENUM_MIN = -0x7fffffff - 1,
  COMMPRESS_GEMM_ENUM_MAX = 0x7fffffff
} commpress_gemm_algorithm;

/* A rows x cols x layers grid over the ranks of a communicator, row-major within a layer. */
typedef struct commpress_grid commpress_grid;

/* Collective over comm: every rank passes the same shape, rows*cols*layers == size(comm). */
commpress_status commpress_grid_create(MPI_Comm comm, int rows, int cols, int layers,
                                       commpress_grid** grid);
/* Accepts NULL. Not collective, but must precede MPI_Finalize. */
commpress_status commpress_grid_destroy(commpress_grid* grid);
/* This rank's coordinates (any pointer may be NULL). */
commpress_status commpress_grid_coords(const commpress_grid* grid, int* row, int* col,
                                       int* layer);
/* The part of a global rows x cols matrix this rank stores: its first global row and column
 * and its local size (0 x 0 off layer 0). */
commpress_status commpress_grid_local_block(const commpress_grid* grid, int64_t rows,
                                            int64_t cols, int64_t* row_offset,
                                            int64_t* col_offset, int64_t* local_rows,
                                            int64_t* local_cols);

typedef struct commpress_gemm_options commpress_gemm_options;

commpress_status commpress_gemm_options_create(commpress_gemm_options** options);
/* Accepts NULL. */
commpress_status commpress_gemm_options_destroy(commpress_gemm_options* options);
commpress_status commpress_gemm_options_set_algorithm(commpress_gemm_options* options,
                                                      commpress_gemm_algorithm algorithm);
/* "none" (the default: raw blocks), a registry name ("zstd-1", "szp", "zfp"...), or "auto". */
commpress_status commpress_gemm_options_set_codec(commpress_gemm_options* options,
                                                  const char* codec);
/* Bound on every INPUT element's perturbation for lossy codecs (ABS, or REL to each input
 * matrix's global range); the report gives the bound this implies on C. */
commpress_status commpress_gemm_options_set_bound(commpress_gemm_options* options,
                                                  commpress_bound_mode mode, double value);
/* Overlap transfers with local products (default 1). */
commpress_status commpress_gemm_options_set_overlap(commpress_gemm_options* options,
                                                    int overlap);
/* SUMMA panel width in columns of op(A); 0 = chosen. */
commpress_status commpress_gemm_options_set_panel(commpress_gemm_options* options,
                                                  int64_t panel);

typedef struct commpress_gemm_report {
  commpress_gemm_algorithm algorithm; /* the one that ran */
  int grid_rows, grid_cols, layers;
  char codec[COMMPRESS_NAME_MAX]; /* "none" when nothing was compressed */
  uint64_t raw_bytes;             /* uncompressed bytes this rank's transfers represent */
  uint64_t bytes_sent;            /* bytes this rank actually sent (or fetched) */
  double ratio;
  uint64_t memory_bytes;          /* this rank's extra memory */
  double predicted_seconds;       /* the model's estimate (0 when not modelled) */
  double guaranteed_abs_bound;    /* on |C - C from the exact inputs| (rounding excluded) */
} commpress_gemm_report;

/* BLAS argument order: op(A) is m x k, op(B) is k x n, C is m x n; A is stored m x k when
 * transa is COMMPRESS_NO_TRANS and k x m otherwise (likewise B). a, b and c are this rank's
 * local blocks. options and report may be NULL. grid must not be NULL: without it there is
 * no communicator to agree over, so that error is this rank's alone. */
commpress_status commpress_dgemm(commpress_trans transa, commpress_trans transb, int64_t m,
                                 int64_t n, int64_t k, double alpha, const double* a,
                                 int64_t lda, const double* b, int64_t ldb, double beta,
                                 double* c, int64_t ldc, const commpress_grid* grid,
                                 const commpress_gemm_options* options,
                                 commpress_gemm_report* report);
commpress_status commpress_sgemm(commpress_trans transa, commpress_trans transb, int64_t m,
                                 int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                                 const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                                 const commpress_grid* grid,
                                 const commpress_gemm_options* options,
                                 commpress_gemm_report* report);
#endif /* COMMPRESS_HAVE_GEMM */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* COMMPRESS_H */
