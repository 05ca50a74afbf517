#include "app_run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_ops.h"

void app_usage_error(const char* usage, const char* fmt, ...) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s%s", usage, ops_usage());
  }
  MPI_Finalize();
  exit(2);
}

void app_help(const char* usage) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%s%s", usage, ops_usage());
  MPI_Finalize();
  exit(0);
}

static int listed(const char* list, const char* word) {
  size_t n = strlen(word);
  for (const char* p = strstr(list, word); p; p = strstr(p + 1, word))
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
  return 0;
}

MPI_Comm app_start(int* argc, char*** argv, int* rank, int* size) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return MPI_COMM_WORLD;
}

int app_next_flag(int argc, char** argv, int* a, const char* usage, const char* switches,
                  app_files* files, const char** flag, const char** value) {
  char err[256];
  for (; *a < argc; ++*a) {
    int took = ops_parse_flag(argc, argv, a, err, sizeof err);
    if (took < 0) app_usage_error(usage, "%s", err);
    if (took) continue;
    int dump = strcmp(argv[*a], "--dump") == 0, compare = strcmp(argv[*a], "--compare") == 0;
    if (!files || !(dump || compare)) break;
    if (*a + 1 >= argc) app_usage_error(usage, "%s needs a value", argv[*a]);
    *(dump ? &files->dump : &files->reference) = argv[++*a];
  }
  if (*a >= argc) {
    if (files && files->reference && !files->dump)
      app_usage_error(usage, "--compare needs --dump (the run's own result file)");
    return 0;
  }
  *flag = argv[(*a)++];
  *value = NULL;
  if (strcmp(*flag, "--help") == 0) app_help(usage);
  if (listed(switches, *flag)) return 1;
  if (*a >= argc || strncmp(*flag, "--", 2) != 0)
    app_usage_error(usage, "unknown flag or missing value: %s", *flag);
  *value = argv[(*a)++];
  return 1;
}

long long app_parse_int(const char* usage, const char* flag, const char* text, long long min,
                        long long max) {
  char* end = NULL;
  long long v = strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > max)
    app_usage_error(usage, "%s %s: expected an integer in [%lld, %lld]", flag, text, min, max);
  return v;
}

double app_parse_double(const char* usage, const char* flag, const char* text) {
  char* end = NULL;
  double v = strtod(text, &end);
  if (end == text || *end != '\0') app_usage_error(usage, "%s %s: expected a number", flag, text);
  return v;
}

void app_json_totals(app_json* j, const char* app, double seconds, MPI_Comm comm) {
  ops_totals t = ops_get_totals();
  int size;
  MPI_Comm_size(comm, &size);
  double times[3] = {seconds, t.comm_seconds, t.predicted_seconds}, slowest[3];
  uint64_t bytes[2] = {t.raw_bytes, t.sent_bytes}, total[2];
  MPI_Allreduce(times, slowest, 3, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(bytes, total, 2, MPI_UINT64_T, MPI_SUM, comm);
  json_str(j, "app", app);
  json_str(j, "variant", ops_variant());
  json_str(j, "codec", ops_codec());
  json_str(j, "bound", ops_bound());
  json_int(j, "ranks", size);
  json_num(j, "time_s", slowest[0]);
  json_num(j, "comm_s", slowest[1]);
  json_int(j, "raw_bytes", (int64_t)total[0]);
  if (t.sent_known) {
    json_int(j, "sent_bytes", (int64_t)total[1]);
    json_num(j, "ratio", total[1] ? (double)total[0] / (double)total[1] : 1.0);
    json_num(j, "predicted_comm_s", slowest[2]);
  } else {
    json_null(j, "sent_bytes");
    json_null(j, "ratio");
    json_null(j, "predicted_comm_s");
  }
}

void app_dump(const char* path, const app_piece* pieces, int count, MPI_Comm comm) {
  MPI_File f;
  int rc = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &f);
  if (rc == MPI_SUCCESS) rc = MPI_File_set_size(f, 0);
  for (int n = 0; n < count && rc == MPI_SUCCESS; ++n) {
    const char* p = pieces[n].data;
    size_t bytes = pieces[n].bytes;
    uint64_t offset = pieces[n].offset;
    while (rc == MPI_SUCCESS && bytes > 0) { /* MPI counts are ints */
      int chunk = bytes > (1u << 30) ? (1 << 30) : (int)bytes;
      rc = MPI_File_write_at(f, (MPI_Offset)offset, p, chunk, MPI_BYTE, MPI_STATUS_IGNORE);
      p += chunk;
      offset += (uint64_t)chunk;
      bytes -= (size_t)chunk;
    }
  }
  if (app_any_false(rc == MPI_SUCCESS, comm)) {
    fprintf(stderr, "cannot write %s\n", path);
    MPI_Abort(comm, 4);
  }
  MPI_File_close(&f);
}

void* app_read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  char* data = NULL;
  long n = -1;
  if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = malloc(n > 0 ? (size_t)n : 1);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
      free(data);
      data = NULL;
    }
  }
  if (f) fclose(f);
  if (!data) {
    fprintf(stderr, "cannot read %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
  *size = (size_t)n;
  return data;
}

int app_any_false(int ok, MPI_Comm comm) {
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
  return !all;
}
