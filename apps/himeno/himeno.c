/* Himeno benchmark: Jacobi iterations of a 3-D Poisson equation (19-point stencil with the
 * benchmark's coefficient arrays), written from the benchmark's published definition. The
 * grid is split into slabs of i-planes, one slab per rank; each iteration exchanges one
 * boundary plane with each neighbour (non-blocking sends and receives) and sums the residual
 * gosa over all ranks.
 *
 * Output: one JSON line with gosa after the last iteration, the pressure checksum, times and
 * bytes; --dump writes the pressure field (float32, i-major) followed by gosa (float64), and
 * --compare reads such a file from a reference run and reports the field's error against it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_run.h"
#include "comm_ops.h"

static const char* usage =
    "usage: himeno [--size XS|S|M|L | --grid IxJxK] [--iters N] [--omega W]\n"
    "              [--dump FILE] [--compare REFERENCE_DUMP]\n";

typedef struct grid {
  int imax, jmax, kmax; /* global points, boundaries included */
  int i0, i1;           /* this rank's planes [i0, i1) */
  size_t plane;         /* jmax * kmax */
} grid;

/* Local arrays hold planes i0-1 .. i1 (one halo plane each side). */
#define AT(g, i, j, k) \
  ((size_t)((i) - (g)->i0 + 1) * (g)->plane + (size_t)(j) * (size_t)(g)->kmax + (size_t)(k))

typedef struct fields {
  float *p, *a[4], *b[3], *c[3], *bnd, *wrk1, *wrk2;
} fields;

static void parse_size(const char* s, grid* g) {
  /* The benchmark's sizes as (imax, jmax, kmax) points. */
  static const struct {
    const char* name;
    int i, j, k;
  } sizes[] = {{"XS", 64, 32, 32}, {"S", 128, 64, 64}, {"M", 256, 128, 128}, {"L", 512, 256, 256}};
  for (size_t n = 0; n < sizeof sizes / sizeof sizes[0]; ++n) {
    if (strcmp(s, sizes[n].name) == 0) {
      g->imax = sizes[n].i;
      g->jmax = sizes[n].j;
      g->kmax = sizes[n].k;
      return;
    }
  }
  app_usage_error(usage, "--size %s: expected XS, S, M or L", s);
}

static void parse_grid(const char* s, grid* g) {
  char tail;
  if (sscanf(s, "%dx%dx%d%c", &g->imax, &g->jmax, &g->kmax, &tail) != 3 || g->imax < 3 ||
      g->jmax < 3 || g->kmax < 3 || (double)g->imax * g->jmax * g->kmax > 1e10)
    app_usage_error(usage, "--grid %s: expected IxJxK, each at least 3", s);
}

static float* alloc_planes(const grid* g, float value) {
  size_t n = (size_t)(g->i1 - g->i0 + 2) * g->plane;
  float* x = malloc(n * sizeof *x);
  if (!x) {
    fprintf(stderr, "himeno: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t m = 0; m < n; ++m) x[m] = value;
  return x;
}

static void init_fields(const grid* g, fields* f) {
  for (int d = 0; d < 3; ++d) f->a[d] = alloc_planes(g, 1.0f);
  f->a[3] = alloc_planes(g, 1.0f / 6.0f);
  for (int d = 0; d < 3; ++d) f->b[d] = alloc_planes(g, 0.0f);
  for (int d = 0; d < 3; ++d) f->c[d] = alloc_planes(g, 1.0f);
  f->bnd = alloc_planes(g, 1.0f);
  f->wrk1 = alloc_planes(g, 0.0f);
  f->wrk2 = alloc_planes(g, 0.0f);
  f->p = alloc_planes(g, 0.0f);
  float denom = (float)(g->imax - 1) * (float)(g->imax - 1);
  for (int i = g->i0 - 1; i <= g->i1; ++i)
    for (int j = 0; j < g->jmax; ++j)
      for (int k = 0; k < g->kmax; ++k) f->p[AT(g, i, j, k)] = (float)i * (float)i / denom;
}

static void free_fields(fields* f) {
  float* all[] = {f->a[0], f->a[1], f->a[2], f->a[3], f->b[0], f->b[1], f->b[2],
                  f->c[0], f->c[1], f->c[2], f->bnd,  f->wrk1, f->wrk2, f->p};
  for (size_t n = 0; n < sizeof all / sizeof all[0]; ++n) free(all[n]);
}

/* One Jacobi sweep over this rank's interior planes; returns its part of gosa. */
static double jacobi_sweep(const grid* g, fields* f, float omega) {
  const int ilo = g->i0 > 1 ? g->i0 : 1;
  const int ihi = g->i1 < g->imax - 1 ? g->i1 : g->imax - 1;
  const size_t pj = (size_t)g->kmax, pi = g->plane;
  double gosa = 0;
  for (int i = ilo; i < ihi; ++i) {
    for (int j = 1; j < g->jmax - 1; ++j) {
      for (int k = 1; k < g->kmax - 1; ++k) {
        const size_t x = AT(g, i, j, k);
        const float* p = f->p;
        float s0 =
            f->a[0][x] * p[x + pi] + f->a[1][x] * p[x + pj] + f->a[2][x] * p[x + 1] +
            f->b[0][x] * (p[x + pi + pj] - p[x + pi - pj] - p[x - pi + pj] + p[x - pi - pj]) +
            f->b[1][x] * (p[x + pj + 1] - p[x - pj + 1] - p[x + pj - 1] + p[x - pj - 1]) +
            f->b[2][x] * (p[x + pi + 1] - p[x - pi + 1] - p[x + pi - 1] + p[x - pi - 1]) +
            f->c[0][x] * p[x - pi] + f->c[1][x] * p[x - pj] + f->c[2][x] * p[x - 1] + f->wrk1[x];
        float ss = (s0 * f->a[3][x] - p[x]) * f->bnd[x];
        gosa += (double)ss * ss;
        f->wrk2[x] = p[x] + omega * ss;
      }
    }
  }
  for (int i = ilo; i < ihi; ++i)
    for (int j = 1; j < g->jmax - 1; ++j)
      memcpy(&f->p[AT(g, i, j, 1)], &f->wrk2[AT(g, i, j, 1)],
             (size_t)(g->kmax - 2) * sizeof(float));
  return gosa;
}

static void exchange_halos(const grid* g, fields* f, int rank, int size, MPI_Comm comm) {
  int lo = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int hi = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  ops_halo_f32(&f->p[AT(g, g->i0, 0, 0)], &f->p[AT(g, g->i0 - 1, 0, 0)], lo,
               &f->p[AT(g, g->i1 - 1, 0, 0)], &f->p[AT(g, g->i1, 0, 0)], hi, g->plane, comm);
}

/* Rank 0 compares its dump with a reference dump: the field's largest and RMS error relative
 * to the reference's value range, and gosa's relative difference. */
static void compare_dumps(app_json* j, const char* dump, const char* reference, size_t points) {
  size_t na, nb;
  char* a = app_read_file(dump, &na);
  char* b = app_read_file(reference, &nb);
  size_t expect = points * sizeof(float) + sizeof(double);
  if (na != expect || nb != expect) {
    fprintf(stderr, "himeno: %s holds %zu bytes, this run's dump %zu (expected %zu)\n", reference,
            nb, na, expect);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
  const float* p = (const float*)a;
  const float* r = (const float*)b;
  double lo = INFINITY, hi = -INFINITY, max_err = 0, sq = 0;
  for (size_t m = 0; m < points; ++m) {
    double e = fabs((double)p[m] - (double)r[m]);
    if (!(e <= max_err)) max_err = e; /* NaN propagates */
    sq += e * e;
    if (r[m] < lo) lo = r[m];
    if (r[m] > hi) hi = r[m];
  }
  double range = hi > lo ? hi - lo : 1.0, gosa, gosa_ref;
  memcpy(&gosa, a + points * sizeof(float), sizeof gosa);
  memcpy(&gosa_ref, b + points * sizeof(float), sizeof gosa_ref);
  json_str(j, "reference", reference);
  json_bool(j, "identical", memcmp(a, b, na) == 0);
  json_num(j, "field_max_rel_err", max_err / range);
  json_num(j, "field_rms_rel_err", sqrt(sq / (double)points) / range);
  json_num(j, "gosa_rel_diff", fabs(gosa - gosa_ref) / fabs(gosa_ref));
  free(a);
  free(b);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Comm comm = app_start(&argc, &argv, &rank, &size);

  grid g = {64, 32, 32, 0, 0, 0};
  int iters = 50;
  float omega = 0.8f;
  app_files files = {NULL, NULL};
  const char *flag, *v;
  for (int a = 1; app_next_flag(argc, argv, &a, usage, "", &files, &flag, &v);) {
    if (strcmp(flag, "--size") == 0)
      parse_size(v, &g);
    else if (strcmp(flag, "--grid") == 0)
      parse_grid(v, &g);
    else if (strcmp(flag, "--iters") == 0)
      iters = (int)app_parse_int(usage, flag, v, 1, 1000000);
    else if (strcmp(flag, "--omega") == 0)
      omega = (float)app_parse_double(usage, flag, v);
    else
      app_usage_error(usage, "unknown flag %s", flag);
  }
  if (g.imax < size) app_usage_error(usage, "%d ranks need at least %d i-planes", size, size);

  g.plane = (size_t)g.jmax * (size_t)g.kmax;
  g.i0 = (int)((long long)g.imax * rank / size);
  g.i1 = (int)((long long)g.imax * (rank + 1) / size);
  fields f;
  init_fields(&g, &f);
  ops_init();

  MPI_Barrier(comm);
  double t0 = MPI_Wtime(), gosa = 0, first_gosa = 0;
  int diverged = 0, done = 0;
  for (int n = 0; n < iters && !diverged; ++n, ++done) {
    exchange_halos(&g, &f, rank, size, comm);
    double part = jacobi_sweep(&g, &f, omega);
    ops_allreduce_sum_f64(&part, 1, comm);
    gosa = part;
    if (n == 0) first_gosa = gosa;
    /* Jacobi on this problem only shrinks the residual; growth by orders of magnitude is a
     * blow-up (from the iteration itself or from the halos' error), not noise. */
    diverged = !isfinite(gosa) || gosa > 1e3 * first_gosa + 1e-30;
  }
  double seconds = MPI_Wtime() - t0;

  int local_finite = 1;
  double checksum = 0;
  for (int i = g.i0; i < g.i1; ++i)
    for (size_t m = 0; m < g.plane; ++m) {
      float v = f.p[AT(&g, i, 0, 0) + m];
      local_finite &= isfinite(v);
      checksum += v;
    }
  MPI_Allreduce(MPI_IN_PLACE, &checksum, 1, MPI_DOUBLE, MPI_SUM, comm);
  diverged |= app_any_false(local_finite, comm);

  if (files.dump) {
    const size_t field = (size_t)g.imax * g.plane * sizeof(float);
    app_piece pieces[2] = {
        {&f.p[AT(&g, g.i0, 0, 0)], (size_t)(g.i1 - g.i0) * g.plane * sizeof(float),
         (uint64_t)g.i0 * g.plane * sizeof(float)},
        {&gosa, sizeof gosa, field}};
    app_dump(files.dump, pieces, rank == 0 ? 2 : 1, comm);
  }

  app_json j;
  json_begin(&j);
  app_json_totals(&j, "himeno", seconds, comm);
  if (rank == 0) {
    char shape[64];
    snprintf(shape, sizeof shape, "%dx%dx%d", g.imax, g.jmax, g.kmax);
    json_str(&j, "grid", shape);
    json_int(&j, "iterations", done);
    json_num(&j, "gosa", gosa);
    json_num(&j, "checksum", checksum);
    double interior = (double)(g.imax - 2) * (g.jmax - 2) * (g.kmax - 2);
    json_num(&j, "mflops", 34.0 * interior * done / seconds * 1e-6);
    if (files.reference) compare_dumps(&j, files.dump, files.reference, (size_t)g.imax * g.plane);
    json_str(&j, "status", diverged ? "diverged" : "ok");
    json_end(&j);
    if (diverged) fprintf(stderr, "himeno: diverged (gosa %g after %d iterations)\n", gosa, done);
  }
  ops_finalize();
  free_fields(&f);
  MPI_Finalize();
  return diverged ? 5 : 0;
}
