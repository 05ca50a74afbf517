/* A C MPI program built with pkg-config: the C API's version, a codec round trip, and a
 * compressed allreduce compared with MPI_Allreduce. Exits non-zero on any rank's failure. */
#include <commpress.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <commpress/version.h>

#define N 5000

int main(int argc, char** argv) {
  static float x[N], y[N], got[N], want[N];
  static unsigned char frame[N * 4 + 4096];
  size_t size = 0;
  int rank = 0, bad = 0;
  commpress_report report;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < N; ++i) x[i] = sinf(0.01f * (float)i) + (float)rank;
  bad |= strcmp(commpress_version(), COMMPRESS_VERSION_STRING) != 0;
  bad |= commpress_compress("zstd-3", x, N, COMMPRESS_F32, COMMPRESS_LOSSLESS, 0, frame,
                            sizeof frame, &size) != COMMPRESS_OK;
  bad |= commpress_decompress(frame, size, y, N, COMMPRESS_F32) != COMMPRESS_OK;
  bad |= memcmp(x, y, sizeof x) != 0;
  bad |= commpress_allreduce(x, got, N, COMMPRESS_F32, COMMPRESS_SUM, MPI_COMM_WORLD, NULL,
                             &report) != COMMPRESS_OK;
  MPI_Allreduce(x, want, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < N && !bad; ++i) bad = fabsf(got[i] - want[i]) > 1e-4f;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("c_pkgconfig: commpress %s, %s\n", commpress_version(), bad ? "FAILED" : "ok");
  MPI_Finalize();
  return bad;
}
