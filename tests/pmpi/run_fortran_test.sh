#!/usr/bin/env bash
# The unmodified Fortran program (`use mpi`) at one rank count, without and with
# libcommpress_mpi.so: exact, lossless and lossy results, and the debug lines showing that
# the Fortran calls themselves were intercepted (Open MPI's Fortran bindings bypass the C
# entry points, so this checks the library's Fortran names), the nonblocking ones included.
#   run_fortran_test.sh <mpirun> <ranks> <program> <preload library> <profile>
set -uo pipefail
MPIRUN=$1 NP=$2 PROGRAM=$3 LIB=$4 PROFILE=$5
FLAGS=(--oversubscribe --mca btl self,vader,tcp --mca mpi_yield_when_idle 1 -np "$NP")
[ "$(id -u)" = 0 ] && FLAGS+=(--allow-run-as-root)
PRELOAD=(-x LD_PRELOAD="$LIB" -x COMMPRESS_PROFILE="$PROFILE" -x COMMPRESS_MIN_BYTES=65536
         -x COMMPRESS_DEBUG=1)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
run() {  # run <name> <program argument> <mpirun arguments...>
  local name=$1 arg=$2
  shift 2
  "$MPIRUN" "${FLAGS[@]}" "$@" "$PROGRAM" "$arg" > "$OUT/$name" 2>&1 || fail "$name: exit status"
  grep -v '^commpress_mpi\[[1-9]' "$OUT/$name"
  grep -q '^ok: ' "$OUT/$name" || fail "$name: no ok line"
}
run plain exact
run lossless exact "${PRELOAD[@]}" -x COMMPRESS_BOUND=lossless -x COMMPRESS_CODEC=zstd-1
run lossy 1e-4 "${PRELOAD[@]}" -x COMMPRESS_BOUND=rel:1e-4
for op in MPI_Allreduce MPI_Reduce MPI_Reduce_scatter_block MPI_Bcast MPI_Allgather MPI_Alltoall \
          MPI_Iallreduce MPI_Ireduce_scatter_block MPI_Ibcast MPI_Iallgather MPI_Ialltoall; do
  grep -Eq "^commpress_mpi\[0/$NP\]: $op [0-9]+ x MPI_DOUBLE_PRECISION[a-z ]*: [a-z_]+ codec" \
    "$OUT/lossy" || fail "Fortran $op not run by commpress"
done
[ "$NP" -gt 1 ] && { grep -q "MPI_DOUBLE_PRECISION sum: [a-z_]* codec szp" "$OUT/lossy" \
  || fail "nothing compressed with szp"; }
grep -q "MPI_Allreduce 65536 x MPI_INTEGER sum: passed through" "$OUT/lossy" \
  || fail "Fortran integers not passed through"
[ "$failed" = 0 ] && echo "all checks passed at $NP ranks"
exit "$failed"
