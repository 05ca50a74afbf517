/* 2-D FFT of an N x N complex field distributed by rows: FFTW transforms the local rows, an
 * all-to-all transposes the field, FFTW transforms the rows again (the original columns),
 * and a second all-to-all brings the spectrum back to the input's row distribution.
 *
 * Quality with --compare: the spectrum's relative L2 error against a reference run's, and
 * its PSNR (peak = the reference components' value range). --check-serial has rank 0
 * transform the whole input with FFTW's own 2-D plan and report the relative L2 difference.
 * --dump writes the spectrum (complex float64, row-major). */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_data.h"
#include "app_run.h"
#include "comm_ops.h"

static const char* usage =
    "usage: fft2d [--n N] [--repeat R] [--dump FILE] [--compare REFERENCE_DUMP]\n"
    "             [--check-serial]\n";

/* A smooth field with a localised feature and a little noise (imaginary part 0). */
static void generate(int n, int row0, int rows, fftw_complex* out) {
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < n; ++j) {
      double x = (double)(row0 + i) / n, y = (double)j / n;
      double blob = exp(-((x - 0.3) * (x - 0.3) + (y - 0.6) * (y - 0.6)) / 0.01);
      double wave = 0.5 * cos(6.283185307179586 * (5 * x + 3 * y));
      uint64_t m = (uint64_t)(row0 + i) * (uint64_t)n + (uint64_t)j;
      out[(size_t)i * n + j][0] = blob + wave + 0.01 * app_normal(m, 5);
      out[(size_t)i * n + j][1] = 0.0;
    }
  }
}

static void* xmalloc(size_t bytes) {
  void* p = fftw_malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "fft2d: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

/* a (rows x n, this rank's rows of the global field) becomes this rank's rows of the global
 * transpose. Block q of the message to rank q is the rows x rows tile of columns
 * [q*rows, (q+1)*rows). */
static void transpose(fftw_complex* a, fftw_complex* send, fftw_complex* recv, int n, int rows,
                      int size, MPI_Comm comm) {
  const size_t tile = (size_t)rows * rows;
  for (int q = 0; q < size; ++q)
    for (int i = 0; i < rows; ++i)
      memcpy(send[q * tile + (size_t)i * rows], a[(size_t)i * n + (size_t)q * rows],
             (size_t)rows * sizeof(fftw_complex));
  ops_alltoall_f64((const double*)send, (double*)recv, 2 * tile, comm);
  for (int q = 0; q < size; ++q)
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < rows; ++j) {
        a[(size_t)j * n + (size_t)q * rows + i][0] = recv[q * tile + (size_t)i * rows + j][0];
        a[(size_t)j * n + (size_t)q * rows + i][1] = recv[q * tile + (size_t)i * rows + j][1];
      }
}

/* Relative L2 difference and PSNR of x against a reference, over all 2 * count components. */
static void spectrum_error(const double* x, const double* ref, size_t count, double* rel_l2,
                           double* psnr) {
  double diff = 0, norm = 0, lo = INFINITY, hi = -INFINITY;
  for (size_t m = 0; m < 2 * count; ++m) {
    double e = x[m] - ref[m];
    diff += e * e;
    norm += ref[m] * ref[m];
    if (ref[m] < lo) lo = ref[m];
    if (ref[m] > hi) hi = ref[m];
  }
  *rel_l2 = sqrt(diff / norm);
  double rmse = sqrt(diff / (double)(2 * count));
  *psnr = rmse > 0 ? 20 * log10((hi - lo) / rmse) : INFINITY;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Comm comm = app_start(&argc, &argv, &rank, &size);

  int n = 2048, repeat = 1, check_serial = 0;
  app_files files = {NULL, NULL};
  const char *flag, *v;
  for (int a = 1; app_next_flag(argc, argv, &a, usage, "--check-serial", &files, &flag, &v);) {
    if (strcmp(flag, "--check-serial") == 0)
      check_serial = 1;
    else if (strcmp(flag, "--n") == 0)
      n = (int)app_parse_int(usage, flag, v, 1, 1 << 16);
    else if (strcmp(flag, "--repeat") == 0)
      repeat = (int)app_parse_int(usage, flag, v, 1, 1000);
    else
      app_usage_error(usage, "unknown flag %s", flag);
  }
  if (check_serial && !files.dump)
    app_usage_error(usage, "--check-serial needs --dump (the run's own spectrum)");
  if (n % size != 0) app_usage_error(usage, "--n %d is not a multiple of %d ranks", n, size);

  const int rows = n / size;
  const size_t local = (size_t)rows * n;
  fftw_complex* a = xmalloc(local * sizeof(fftw_complex));
  fftw_complex* send = xmalloc(local * sizeof(fftw_complex));
  fftw_complex* recv = xmalloc(local * sizeof(fftw_complex));
  /* FFTW_ESTIMATE: the plan is a function of the sizes alone, so every run computes alike. */
  fftw_plan plan =
      fftw_plan_many_dft(1, &n, rows, a, NULL, 1, n, a, NULL, 1, n, FFTW_FORWARD, FFTW_ESTIMATE);
  ops_init();

  double seconds = 0;
  for (int r = 0; r < repeat; ++r) {
    generate(n, rank * rows, rows, a);
    ops_reset_totals();
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    fftw_execute(plan);
    transpose(a, send, recv, n, rows, size, comm);
    fftw_execute(plan);
    transpose(a, send, recv, n, rows, size, comm);
    seconds = MPI_Wtime() - t0;
  }
  int finite = 1;
  double checksum = 0; /* sum of |re| + |im|: equal runs give equal sums (runs compared without a dump) */
  for (size_t m = 0; m < local; ++m) {
    finite &= isfinite(a[m][0]) && isfinite(a[m][1]);
    checksum += fabs(a[m][0]) + fabs(a[m][1]);
  }
  MPI_Allreduce(MPI_IN_PLACE, &checksum, 1, MPI_DOUBLE, MPI_SUM, comm);
  int diverged = app_any_false(finite, comm);
  if (files.dump) {
    app_piece mine = {a, local * sizeof(fftw_complex),
                      (uint64_t)rank * local * sizeof(fftw_complex)};
    app_dump(files.dump, &mine, 1, comm);
  }

  app_json j;
  json_begin(&j);
  app_json_totals(&j, "fft2d", seconds, comm);
  if (rank == 0) {
    size_t count = (size_t)n * n, bytes;
    json_int(&j, "n", n);
    json_num(&j, "checksum", checksum);
    if (files.dump && (files.reference || check_serial)) {
      double* mine = app_read_file(files.dump, &bytes);
      double rel, psnr;
      if (check_serial) {
        fftw_complex* whole = xmalloc(count * sizeof(fftw_complex));
        fftw_plan p2 = fftw_plan_dft_2d(n, n, whole, whole, FFTW_FORWARD, FFTW_ESTIMATE);
        generate(n, 0, n, whole);
        fftw_execute(p2);
        spectrum_error(mine, (const double*)whole, count, &rel, &psnr);
        json_num(&j, "serial_rel_err", rel);
        fftw_destroy_plan(p2);
        fftw_free(whole);
      }
      if (files.reference) {
        size_t ref_bytes;
        double* ref = app_read_file(files.reference, &ref_bytes);
        if (ref_bytes != bytes) {
          fprintf(stderr, "fft2d: %s holds %zu bytes, this run's dump %zu\n", files.reference,
                  ref_bytes, bytes);
          MPI_Abort(comm, 4);
        }
        spectrum_error(mine, ref, count, &rel, &psnr);
        json_str(&j, "reference", files.reference);
        json_bool(&j, "identical", memcmp(mine, ref, bytes) == 0);
        json_num(&j, "spectrum_rel_err", rel);
        json_num(&j, "psnr_db", psnr); /* null when identical: no error, infinite PSNR */
        free(ref);
      }
      free(mine);
    }
    json_str(&j, "status", diverged ? "diverged" : "ok");
    json_end(&j);
    if (diverged) fprintf(stderr, "fft2d: diverged (non-finite spectrum)\n");
  }
  ops_finalize();
  fftw_destroy_plan(plan);
  fftw_free(a);
  fftw_free(send);
  fftw_free(recv);
  MPI_Finalize();
  return diverged ? 5 : 0;
}
