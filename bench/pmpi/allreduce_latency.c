/* OSU-style MPI_Allreduce latency and bandwidth, plain MPI (no commpress header): run it with
 * and without LD_PRELOAD=libcommpress_mpi.so to measure what the preload costs or gains.
 *
 *   bench_pmpi_allreduce [--sizes 8,65536,67108864] [--rounds R] [--budget SECONDS] [--self N]
 *                        [--zero]
 *
 * Each size runs R rounds; a round times `iters` back-to-back MPI_Allreduce calls (sum of
 * floats) between barriers and takes the slowest rank's mean per call. Rank 0 prints one line
 * per size: bytes, median / min / max of the round times in microseconds, and the bandwidth
 * at the median (bytes / time). The data is a smooth field (a sum of sines over the index,
 * different on every rank), the kind lossy compression is for; 8-byte calls carry 2 floats.
 * `iters` is chosen per size so that a round lasts about budget / R seconds.
 *
 * --self N also times N calls of an 8-byte MPI_Allreduce on MPI_COMM_SELF per round (no
 * communication at all: what remains is the call path, so a preload's cost per call shows
 * without the noise of the other ranks) and prints "self <median ns per call>".
 *
 * --zero also times the 0-byte traffic of synchronization, sized and reported like a size:
 * MPI_Barrier ("barrier <median_us> <min_us> <max_us>"), which a preload leaves to MPI, and a
 * 0-byte ring step ("ring0 ..."), every rank posting MPI_Irecv from its left neighbour, then
 * MPI_Send to its right and MPI_Wait, which a preload sees through its point-to-point
 * wrappers. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* What a round repeats: the allreduce of n floats (n >= 0), or with n < 0 the 0-byte traffic
 * (kBarrier, kRing0). */
enum { kBarrier = -1, kRing0 = -2 };
/* The ring step's neighbours, set once after MPI_Init. */
static int left, right;

static void one_call(float* send, float* recv, int n) {
  if (n >= 0) {
    MPI_Allreduce(send, recv, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  } else if (n == kBarrier) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Request req;
    MPI_Irecv(recv, 0, MPI_FLOAT, left, 7, MPI_COMM_WORLD, &req);
    MPI_Send(send, 0, MPI_FLOAT, right, 7, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
}

static double round_time(float* send, float* recv, int n, int iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) one_call(send, recv, n);
  double t = (MPI_Wtime() - t0) / iters, slowest;
  MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/* Warm-up (first-call setup, the library's choice made once), then `rounds` rounds of as many
 * calls as fill budget / rounds; the round times sorted into t. */
static void measure(float* send, float* recv, int n, int rounds, double budget, double* t) {
  double first = round_time(send, recv, n, 1);
  first = round_time(send, recv, n, 1);
  int iters = (int)(budget / rounds / (first > 1e-7 ? first : 1e-7));
  if (iters < 1) iters = 1;
  MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; r < rounds; ++r) t[r] = round_time(send, recv, n, iters);
  qsort(t, (size_t)rounds, sizeof *t, cmp);
}

int main(int argc, char** argv) {
  const char* sizes = "8,65536,67108864";
  int rounds = 21;
  double budget = 4.0;
  long self_calls = 0;
  int zero = 0;
  MPI_Init(&argc, &argv);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--zero")) {
      zero = 1;
      continue;
    }
    if (i + 1 >= argc) break;
    if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
    else if (!strcmp(argv[i], "--rounds")) rounds = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--budget")) budget = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--self")) self_calls = atol(argv[i + 1]);
    ++i;
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  left = (rank + size - 1) % size, right = (rank + 1) % size;
  if (rank == 0) printf("# %d ranks, %d rounds per size; bytes median_us min_us max_us MB/s\n", size, rounds);
  char* list = strdup(sizes);
  for (char* tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    const long bytes = atol(tok);
    const int n = (int)(bytes / (long)sizeof(float));
    float* send = malloc((size_t)(n ? n : 1) * sizeof *send);
    float* recv = malloc((size_t)(n ? n : 1) * sizeof *recv);
    for (int i = 0; i < n; ++i) {
      double x = (double)i / (n > 1 ? n - 1 : 1);
      send[i] = (float)(sin(6.0 * x + rank) + 0.5 * sin(23.0 * x) + 0.1 * rank);
    }
    double* t = malloc((size_t)rounds * sizeof *t);
    measure(send, recv, n, rounds, budget, t);
    if (rank == 0)
      printf("%ld %.3f %.3f %.3f %.1f\n", bytes, t[rounds / 2] * 1e6, t[0] * 1e6,
             t[rounds - 1] * 1e6, bytes / t[rounds / 2] / 1e6);
    fflush(stdout);
    free(t), free(send), free(recv);
  }
  free(list);
  if (zero) {
    float none[1] = {0};
    double* t = malloc((size_t)rounds * sizeof *t);
    const struct { int kind; const char* name; } series[] = {{kBarrier, "barrier"}, {kRing0, "ring0"}};
    for (int k = 0; k < 2; ++k) {
      measure(none, none, series[k].kind, rounds, budget, t);
      if (rank == 0)
        printf("%s %.3f %.3f %.3f\n", series[k].name, t[rounds / 2] * 1e6, t[0] * 1e6,
               t[rounds - 1] * 1e6);
      fflush(stdout);
    }
    free(t);
  }
  if (self_calls > 0 && rank == 0) {
    float in[2] = {1, 2}, out[2];
    double* t = malloc((size_t)rounds * sizeof *t);
    for (int r = 0; r < rounds; ++r) {
      double t0 = MPI_Wtime();
      for (long i = 0; i < self_calls; ++i) MPI_Allreduce(in, out, 2, MPI_FLOAT, MPI_SUM, MPI_COMM_SELF);
      t[r] = (MPI_Wtime() - t0) / (double)self_calls;
    }
    qsort(t, (size_t)rounds, sizeof *t, cmp);
    printf("self %.1f\n", t[rounds / 2] * 1e9);
    free(t);
  }
  MPI_Finalize();
  return 0;
}
