/* What the applications share around their computation: start-up and argument errors that
 * stop every rank alike, the run's totals in the result line, and result files. */
#ifndef COMMPRESS_APPS_APP_RUN_H
#define COMMPRESS_APPS_APP_RUN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "app_json.h"

/* Every rank parses the same argv, so a bad argument stops every rank the same way, before
 * any communication: rank 0 prints the message (and the usage), all exit with status 2. */
void app_usage_error(const char* usage, const char* fmt, ...);

/* --help: rank 0 prints the usage, every rank exits with status 0. */
void app_help(const char* usage);

/* Parses the common flags' values; on a malformed one calls app_usage_error. */
long long app_parse_int(const char* usage, const char* flag, const char* text, long long min,
                        long long max);
double app_parse_double(const char* usage, const char* flag, const char* text);

/* Adds "app", "variant", "codec", "bound", "ranks", "time_s", "comm_s", "raw_bytes",
 * "sent_bytes", "ratio" and "predicted_comm_s" (the last three null where the build cannot
 * see the wire), over all ranks: the slowest rank's times, every rank's bytes. Collective. */
void app_json_totals(app_json* j, const char* app, double seconds, MPI_Comm comm);

/* MPI_Init, and this rank and the size of MPI_COMM_WORLD, which it returns. */
MPI_Comm app_start(int* argc, char*** argv, int* rank, int* size);

/* The result files of --dump FILE and --compare REFERENCE_DUMP. */
typedef struct app_files {
  const char* dump;
  const char* reference;
} app_files;

/* Walks argv from *a: returns 0 at its end, else 1 with the next flag the application must
 * handle and its value (NULL for a flag named in switches, a space-separated list of flags
 * without value). The commpress build's flags are consumed on the way (see ops_parse_flag),
 * and --dump/--compare where files is not NULL (--compare needs --dump: the run's own result
 * is compared from its file); --help prints the usage and exits; a malformed flag is a usage
 * error. */
int app_next_flag(int argc, char** argv, int* a, const char* usage, const char* switches,
                  app_files* files, const char** flag, const char** value);

/* Bytes of a result file: data at offset. */
typedef struct app_piece {
  const void* data;
  size_t bytes;
  uint64_t offset;
} app_piece;

/* Every rank writes its pieces (their number may differ between ranks) into one file
 * (MPI-IO, collective): no message passing, so an interposed library cannot alter a result
 * file. */
void app_dump(const char* path, const app_piece* pieces, int count, MPI_Comm comm);

/* Reads a whole file (rank-local); exits the job with a message when it cannot. */
void* app_read_file(const char* path, size_t* size);

/* 1 if any rank passes 0 (collective, exact). */
int app_any_false(int ok, MPI_Comm comm);

#endif
