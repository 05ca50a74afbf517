/* Ping-pong: ranks 0 and 1 bounce a float32 message back and forth, each returning what it
 * received, for message sizes from --min-bytes to --max-bytes and three data classes:
 * smooth (a sum of slow waves), noisy (the same plus uniform noise of 5% of its range) and
 * sparse (98% zeros). After the round trips rank 0 compares what came back with what it
 * first sent: with a lossy bound the error compounds over the hops, and that is the quality.
 * Other ranks idle. One JSON line per (class, size). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_data.h"
#include "app_run.h"
#include "comm_ops.h"

static const char* usage =
    "usage: pingpong [--min-bytes B] [--max-bytes B] [--step F] [--round-trips N]\n"
    "                [--classes smooth,noisy,sparse]\n";

static double smooth_value(uint64_t m) {
  double x = (double)m * 1e-3;
  return sin(x) + 0.5 * sin(2.7 * x + 1.0) + 0.25 * cos(0.31 * x);
}

static void fill(float* v, size_t n, const char* cls) {
  for (size_t m = 0; m < n; ++m) {
    double s = smooth_value(m);
    if (strcmp(cls, "noisy") == 0)
      s += 0.175 * (app_uniform(m, 7) - 0.5);
    else if (strcmp(cls, "sparse") == 0)
      s = app_uniform(m, 8) < 0.02 ? s : 0.0;
    v[m] = (float)s;
  }
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Comm comm = app_start(&argc, &argv, &rank, &size);

  long long min_bytes = 1024, max_bytes = 256ll << 20, step = 2, round_trips = 0;
  char classes[128] = "smooth,noisy,sparse";
  const char *flag, *v;
  for (int a = 1; app_next_flag(argc, argv, &a, usage, "", NULL, &flag, &v);) {
    if (strcmp(flag, "--min-bytes") == 0)
      min_bytes = app_parse_int(usage, flag, v, 4, 1ll << 33);
    else if (strcmp(flag, "--max-bytes") == 0)
      max_bytes = app_parse_int(usage, flag, v, 4, 1ll << 33);
    else if (strcmp(flag, "--step") == 0)
      step = app_parse_int(usage, flag, v, 2, 1024);
    else if (strcmp(flag, "--round-trips") == 0)
      round_trips = app_parse_int(usage, flag, v, 1, 1000000);
    else if (strcmp(flag, "--classes") == 0 && strlen(v) < sizeof classes)
      strcpy(classes, v);
    else
      app_usage_error(usage, "unknown flag %s", flag);
  }
  if (size < 2) app_usage_error(usage, "ping-pong needs at least 2 ranks");
  if (min_bytes > max_bytes) app_usage_error(usage, "--min-bytes exceeds --max-bytes");
  const char* names[8];
  int n_classes = 0;
  for (char* c = strtok(classes, ","); c; c = strtok(NULL, ",")) {
    if (strcmp(c, "smooth") && strcmp(c, "noisy") && strcmp(c, "sparse"))
      app_usage_error(usage, "--classes: unknown class %s", c);
    if (n_classes == 8) app_usage_error(usage, "--classes: at most 8 names");
    names[n_classes++] = c;
  }

  size_t max_n = (size_t)max_bytes / sizeof(float);
  float* buf = rank < 2 ? malloc(max_n * sizeof(float)) : NULL;
  float* orig = rank == 0 ? malloc(max_n * sizeof(float)) : NULL;
  if (rank < 2 && (!buf || (rank == 0 && !orig))) {
    fprintf(stderr, "pingpong: out of memory for %lld bytes\n", max_bytes);
    MPI_Abort(comm, 1);
  }
  ops_init();
  int any_diverged = 0;
  for (int c = 0; c < n_classes; ++c) {
    const char* cls = names[c];
    for (long long bytes = min_bytes; bytes <= max_bytes; bytes *= step) {
      size_t n = (size_t)bytes / sizeof(float);
      long long trips = round_trips ? round_trips : (64ll << 20) / bytes;
      if (trips < 1) trips = 1;
      if (trips > 100) trips = 100;
      if (rank == 0) {
        fill(orig, n, cls);
        memcpy(buf, orig, n * sizeof(float));
      }
      ops_reset_totals();
      MPI_Barrier(comm);
      double t0 = MPI_Wtime();
      for (long long t = 0; t < trips; ++t) {
        if (rank == 0) {
          ops_send_f32(buf, n, 1, 0, comm);
          ops_recv_f32(buf, n, 1, 0, comm);
        } else if (rank == 1) {
          ops_recv_f32(buf, n, 0, 0, comm);
          ops_send_f32(buf, n, 0, 0, comm);
        }
      }
      double seconds = MPI_Wtime() - t0;
      double max_err = 0, lo = INFINITY, hi = -INFINITY;
      if (rank == 0) {
        for (size_t m = 0; m < n; ++m) {
          double e = fabs((double)buf[m] - (double)orig[m]);
          if (!(e <= max_err)) max_err = e; /* NaN propagates */
          if (orig[m] < lo) lo = orig[m];
          if (orig[m] > hi) hi = orig[m];
        }
      }
      int diverged = rank == 0 && !isfinite(max_err);
      /* The hops run one after the other: the model's round trip is both ranks' sends. */
      ops_totals mine = ops_get_totals();
      double predicted = 0;
      MPI_Reduce(&mine.predicted_seconds, &predicted, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
      any_diverged |= diverged;
      app_json j;
      json_begin(&j);
      app_json_totals(&j, "pingpong", seconds, comm);
      if (rank == 0) {
        json_str(&j, "class", cls);
        json_int(&j, "bytes", bytes);
        json_int(&j, "round_trips", trips);
        json_num(&j, "roundtrip_us", seconds / (double)trips * 1e6);
        json_num(&j, "bandwidth_mb_s", 2.0 * (double)bytes * (double)trips / seconds * 1e-6);
        if (mine.sent_known)
          json_num(&j, "predicted_roundtrip_us", predicted / (double)trips * 1e6);
        else
          json_null(&j, "predicted_roundtrip_us");
        json_num(&j, "max_abs_err", max_err);
        json_num(&j, "max_rel_err", hi > lo ? max_err / (hi - lo) : max_err);
        json_str(&j, "status", diverged ? "diverged" : "ok");
        json_end(&j);
      }
      if (bytes > max_bytes / step) break;
    }
  }
  ops_finalize();
  free(buf);
  free(orig);
  MPI_Bcast(&any_diverged, 1, MPI_INT, 0, comm);
  MPI_Finalize();
  return any_diverged ? 5 : 0;
}
