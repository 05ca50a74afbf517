/* K-means (Lloyd's iterations) over distributed points. Rank 0 holds the data set (generated:
 * points in runs around cluster centres, drifting smoothly within a run, as ordered
 * observation data do) and scatters it; each iteration rank 0 broadcasts the centroids, every
 * rank assigns its points, and an allreduce sums the per-cluster coordinate sums (float64)
 * and the counts (int64, always exact). It stops when no label changes or after --iters.
 *
 * Quality: inertia of the true points (every rank regenerates its own) under the final
 * labels and centroids; with --compare, the adjusted Rand index of the labels against a
 * reference run's. --dump writes centroids (float64), labels (int32), inertia (float64). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_data.h"
#include "app_run.h"
#include "comm_ops.h"

static const char* usage =
    "usage: kmeans [--points N] [--dims D] [--clusters K] [--iters N]\n"
    "              [--dump FILE] [--compare REFERENCE_DUMP]\n";

typedef struct problem {
  int64_t n; /* points */
  int d, k;  /* dimensions, clusters */
} problem;

static double coordinate(const problem* pb, int64_t m, int dim) {
  int64_t run = m * pb->k / pb->n; /* runs of consecutive points share a cluster */
  int c = (int)(app_uniform((uint64_t)run, 11) * pb->k);
  double centre = 10.0 * app_uniform((uint64_t)c, 100 + (uint64_t)dim);
  double drift = 0.8 * sin(1e-3 * (double)m + 1.7 * dim + run);
  return centre + drift + 0.05 * app_normal((uint64_t)(m * pb->d + dim), 3);
}

static void generate(const problem* pb, int64_t first, int64_t count, double* out) {
  for (int64_t m = 0; m < count; ++m)
    for (int dim = 0; dim < pb->d; ++dim) out[m * pb->d + dim] = coordinate(pb, first + m, dim);
}

static int nearest(const problem* pb, const double* x, const double* centroids, double* dist2) {
  int best = 0;
  double best_d = INFINITY;
  for (int c = 0; c < pb->k; ++c) {
    double s = 0;
    for (int dim = 0; dim < pb->d; ++dim) {
      double t = x[dim] - centroids[c * pb->d + dim];
      s += t * t;
    }
    if (s < best_d) {
      best_d = s;
      best = c;
    }
  }
  if (dist2) *dist2 = best_d;
  return best;
}

static void* xmalloc(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "kmeans: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

static double comb2(double x) {
  return x * (x - 1) / 2;
}

/* Hubert and Arabie's adjusted Rand index of two labelings with labels in [0, k). */
static double adjusted_rand_index(const int32_t* a, const int32_t* b, int64_t n, int k) {
  int64_t* table = calloc((size_t)k * k, sizeof *table);
  int64_t* rows = calloc((size_t)k, sizeof *rows);
  int64_t* cols = calloc((size_t)k, sizeof *cols);
  if (!table || !rows || !cols) {
    fprintf(stderr, "kmeans: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int64_t m = 0; m < n; ++m) {
    table[(size_t)a[m] * k + b[m]]++;
    rows[a[m]]++;
    cols[b[m]]++;
  }
  double index = 0, sum_rows = 0, sum_cols = 0;
  for (size_t c = 0; c < (size_t)k * k; ++c) index += comb2((double)table[c]);
  for (int c = 0; c < k; ++c) {
    sum_rows += comb2((double)rows[c]);
    sum_cols += comb2((double)cols[c]);
  }
  double expected = sum_rows * sum_cols / comb2((double)n);
  double top = 0.5 * (sum_rows + sum_cols);
  free(table);
  free(rows);
  free(cols);
  return top == expected ? 1.0 : (index - expected) / (top - expected);
}

static void compare_dumps(app_json* j, const problem* pb, const char* dump, const char* reference) {
  size_t na, nb, cent = (size_t)pb->k * pb->d * sizeof(double);
  size_t expect = cent + (size_t)pb->n * sizeof(int32_t) + sizeof(double);
  char* a = app_read_file(dump, &na);
  char* b = app_read_file(reference, &nb);
  if (na != expect || nb != expect) {
    fprintf(stderr, "kmeans: %s holds %zu bytes, this run's dump %zu (expected %zu)\n", reference,
            nb, na, expect);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
  double max_err = 0, inertia, inertia_ref;
  for (size_t c = 0; c < (size_t)pb->k * pb->d; ++c) {
    double e = fabs(((const double*)a)[c] - ((const double*)b)[c]);
    if (!(e <= max_err)) max_err = e;
  }
  memcpy(&inertia, a + expect - sizeof(double), sizeof inertia);
  memcpy(&inertia_ref, b + expect - sizeof(double), sizeof inertia_ref);
  const int32_t* la = (const int32_t*)(a + cent);
  const int32_t* lb = (const int32_t*)(b + cent);
  json_str(j, "reference", reference);
  json_bool(j, "identical", memcmp(a, b, na) == 0);
  json_num(j, "ari", adjusted_rand_index(la, lb, pb->n, pb->k));
  json_num(j, "inertia_rel_diff", (inertia - inertia_ref) / inertia_ref);
  json_num(j, "centroid_max_abs_err", max_err);
  free(a);
  free(b);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Comm comm = app_start(&argc, &argv, &rank, &size);

  problem pb = {262144, 8, 64};
  int iters = 30;
  app_files files = {NULL, NULL};
  const char *flag, *v;
  for (int a = 1; app_next_flag(argc, argv, &a, usage, "", &files, &flag, &v);) {
    if (strcmp(flag, "--points") == 0)
      pb.n = app_parse_int(usage, flag, v, 1, 1ll << 31);
    else if (strcmp(flag, "--dims") == 0)
      pb.d = (int)app_parse_int(usage, flag, v, 1, 1024);
    else if (strcmp(flag, "--clusters") == 0)
      pb.k = (int)app_parse_int(usage, flag, v, 1, 65536);
    else if (strcmp(flag, "--iters") == 0)
      iters = (int)app_parse_int(usage, flag, v, 1, 1000000);
    else
      app_usage_error(usage, "unknown flag %s", flag);
  }
  if (pb.k > pb.n)
    app_usage_error(usage, "--clusters %d exceeds --points %lld", pb.k, (long long)pb.n);

  /* Equal blocks for the scatter: the last ranks' blocks are padded with copies of the last
   * point (never assigned, never counted). */
  const int64_t per_rank = (pb.n + size - 1) / size;
  const int64_t first = per_rank * rank;
  const int64_t mine = first >= pb.n ? 0 : (pb.n - first < per_rank ? pb.n - first : per_rank);
  const size_t kd = (size_t)pb.k * pb.d;
  double* points = xmalloc((size_t)per_rank * pb.d * sizeof(double));
  double* centroids = xmalloc(kd * sizeof(double));
  double* sums = xmalloc(kd * sizeof(double));
  int64_t* counts = xmalloc(((size_t)pb.k + 1) * sizeof(int64_t));
  int32_t* labels = xmalloc((size_t)(mine ? mine : 1) * sizeof(int32_t));
  double* all = NULL;
  if (rank == 0) {
    all = xmalloc((size_t)per_rank * size * pb.d * sizeof(double));
    generate(&pb, 0, pb.n, all);
    for (int64_t m = pb.n; m < per_rank * size; ++m)
      memcpy(&all[m * pb.d], &all[(pb.n - 1) * pb.d], (size_t)pb.d * sizeof(double));
    /* Forgy's initialisation: k points chosen by a fixed hash, the same in every run. */
    for (int c = 0; c < pb.k; ++c) {
      int64_t m = (int64_t)(app_uniform((uint64_t)c, 21) * (double)pb.n);
      memcpy(&centroids[(size_t)c * pb.d], &all[m * pb.d], (size_t)pb.d * sizeof(double));
    }
  }
  for (int64_t m = 0; m < mine; ++m) labels[m] = -1;
  ops_init();

  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  ops_scatter_f64(all, points, (size_t)per_rank * pb.d, 0, comm);
  int done = 0;
  int64_t changes = 1;
  for (; done < iters && changes > 0; ++done) {
    ops_bcast_f64(centroids, kd, 0, comm);
    memset(sums, 0, kd * sizeof(double));
    memset(counts, 0, ((size_t)pb.k + 1) * sizeof(int64_t));
    for (int64_t m = 0; m < mine; ++m) {
      const double* x = &points[m * pb.d];
      int c = nearest(&pb, x, centroids, NULL);
      counts[pb.k] += c != labels[m];
      labels[m] = c;
      counts[c]++;
      for (int dim = 0; dim < pb.d; ++dim) sums[(size_t)c * pb.d + dim] += x[dim];
    }
    ops_allreduce_sum_f64(sums, kd, comm);
    ops_allreduce_sum_i64(counts, (size_t)pb.k + 1, comm); /* the last one: labels changed */
    changes = counts[pb.k];
    for (int c = 0; c < pb.k; ++c)
      if (counts[c] > 0)
        for (int dim = 0; dim < pb.d; ++dim)
          centroids[(size_t)c * pb.d + dim] = sums[(size_t)c * pb.d + dim] / (double)counts[c];
  }
  /* The result: every rank's labels and rank 0's centroids (what the next bcast would send).
   * Inertia of the true points under them, each rank regenerating its own. */
  ops_bcast_f64(centroids, kd, 0, comm);
  double seconds = MPI_Wtime() - t0;
  double* truth = xmalloc((size_t)(mine ? mine : 1) * pb.d * sizeof(double));
  generate(&pb, first, mine, truth);
  double inertia = 0;
  int finite = 1;
  for (size_t c = 0; c < kd; ++c) finite &= isfinite(centroids[c]);
  for (int64_t m = 0; m < mine; ++m) {
    labels[m] = nearest(&pb, &points[m * pb.d], centroids, NULL);
    for (int dim = 0; dim < pb.d; ++dim) {
      double t = truth[m * pb.d + dim] - centroids[(size_t)labels[m] * pb.d + dim];
      inertia += t * t;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &inertia, 1, MPI_DOUBLE, MPI_SUM, comm);
  int diverged = app_any_false(finite && isfinite(inertia), comm);

  if (files.dump) {
    const size_t cent = kd * sizeof(double);
    app_piece pieces[3] = {
        {labels, (size_t)mine * sizeof(int32_t), cent + (uint64_t)first * sizeof(int32_t)},
        {centroids, cent, 0},
        {&inertia, sizeof inertia, cent + (uint64_t)pb.n * sizeof(int32_t)}};
    app_dump(files.dump, pieces, rank == 0 ? 3 : 1, comm);
  }

  app_json j;
  json_begin(&j);
  app_json_totals(&j, "kmeans", seconds, comm);
  if (rank == 0) {
    json_int(&j, "points", pb.n);
    json_int(&j, "dims", pb.d);
    json_int(&j, "clusters", pb.k);
    json_int(&j, "iterations", done);
    json_int(&j, "last_changes", changes);
    json_num(&j, "inertia", inertia);
    if (files.reference) compare_dumps(&j, &pb, files.dump, files.reference);
    json_str(&j, "status", diverged ? "diverged" : "ok");
    json_end(&j);
    if (diverged) fprintf(stderr, "kmeans: diverged (non-finite centroids or inertia)\n");
  }
  ops_finalize();
  free(all);
  free(points);
  free(centroids);
  free(sums);
  free(counts);
  free(labels);
  free(truth);
  MPI_Finalize();
  return diverged ? 5 : 0;
}
