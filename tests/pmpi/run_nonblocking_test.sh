#!/usr/bin/env bash
# Runs the unmodified nonblocking program of tests/pmpi at one rank count, without and with
# libcommpress_mpi.so (lossless and lossy), and checks its verdicts and the preload's debug
# lines (the nonblocking calls ran through commpress on its progress thread).
#   run_nonblocking_test.sh <mpirun> <ranks> <program> <preload library> <profile>
set -uo pipefail
MPIRUN=$1 NP=$2 PROG=$3 LIB=$4 PROFILE=$5
source "$(dirname "${BASH_SOURCE[0]}")/preload_checks.sh"
PRELOAD=(-x LD_PRELOAD="$LIB" -x COMMPRESS_PROFILE="$PROFILE" -x COMMPRESS_MIN_BYTES=65536
         -x COMMPRESS_DEBUG=1)

echo "== without the preload"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "$PROG" exact > "$OUT/plain" 2>&1 || fail "without the preload"
grep -q "commpress_mpi" "$OUT/plain" && fail "the preload ran without LD_PRELOAD"
cat "$OUT/plain"

echo "== lossless (zstd-1): bit for bit"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "${PRELOAD[@]}" -x COMMPRESS_BOUND=lossless \
  -x COMMPRESS_CODEC=zstd-1 "$PROG" exact free-early > "$OUT/lossless" 2>&1 || fail "lossless under the preload"
grep -v '^commpress_mpi\[[1-9]' "$OUT/lossless" | grep -v "^commpress_mpi\[0/$NP\]: MPI_I" | head -20
expect "$OUT/lossless" "^commpress_mpi: policy on all $NP ranks: .* \(progress threads\)" "progress threads agreed at MPI_Init"
for op in MPI_Alltoall MPI_Alltoallv MPI_Iallreduce MPI_Ireduce_scatter_block MPI_Ibcast MPI_Iallgather MPI_Ialltoall; do
  expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: $op [0-9]+ x MPI_(FLOAT|DOUBLE)[a-z ]*: [a-z_]+ codec" "$op run by commpress"
done
expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: MPI_Iallreduce 20000 x MPI_INT sum: passed through \(MPI_INT is not" "integers passed through"
expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: MPI_Iallreduce 100 x MPI_DOUBLE sum: passed through \(below" "small call passed through"

echo "== lossy (rel:1e-4): within the bound"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "${PRELOAD[@]}" -x COMMPRESS_BOUND=rel:1e-4 \
  "$PROG" rel 1e-4 free-early > "$OUT/lossy" 2>&1 || fail "lossy under the preload"
grep -v '^commpress_mpi' "$OUT/lossy"
if [ "$NP" -gt 1 ]; then
  # Auto may run MPI's own allreduce (oversubscribed ranks): still commpress's decision.
  expect "$OUT/lossy" "^commpress_mpi\[0/$NP\]: MPI_Iallreduce [0-9]+ x MPI_DOUBLE sum: [a-z_]+ codec (szp|none)" "a lossy iallreduce run by commpress"
  expect "$OUT/lossy" "^commpress_mpi\[0/$NP\]: MPI_Ireduce_scatter_block [0-9]+ x MPI_DOUBLE sum: [a-z_]+ codec szp" "a lossy ireduce_scatter_block through szp"
  expect "$OUT/lossy" "^commpress_mpi\[0/$NP\]: MPI_Ialltoall [0-9]+ x MPI_DOUBLE: (pairwise|bruck) codec szp" "a lossy ialltoall through szp"
fi

[ "$failed" = 0 ] && echo "all checks passed at $NP ranks"
exit "$failed"
