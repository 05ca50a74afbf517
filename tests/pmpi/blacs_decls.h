/* The BLACS and ScaLAPACK tool routines the unmodified C test programs call (Debian ships no
 * header for them). */
#ifndef COMMPRESS_TESTS_PMPI_BLACS_DECLS_H
#define COMMPRESS_TESTS_PMPI_BLACS_DECLS_H

void Cblacs_pinfo(int* rank, int* size);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
void Cblacs_exit(int keep_mpi);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ctxt, const int* lld, int* info);

#endif
