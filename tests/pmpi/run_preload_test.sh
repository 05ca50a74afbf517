#!/usr/bin/env bash
# Runs the unmodified programs of tests/pmpi at one rank count, with and without
# libcommpress_mpi.so, and checks both their own verdicts and the preload's debug lines (what
# was run by commpress, what passed through, and why).
#   run_preload_test.sh <mpirun> <ranks> <bin dir> <preload library> <profile>
set -uo pipefail
MPIRUN=$1 NP=$2 BIN=$3 LIB=$4 PROFILE=$5
source "$(dirname "${BASH_SOURCE[0]}")/preload_checks.sh"
# Rank 0's debug lines (every rank prints its own).
PRELOAD=(-x LD_PRELOAD="$LIB" -x COMMPRESS_PROFILE="$PROFILE" -x COMMPRESS_MIN_BYTES=65536
         -x COMMPRESS_DEBUG=1)

echo "== without the preload: MPI's own results, exact"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "$BIN/pmpi_collectives_program" exact > "$OUT/plain" 2>&1 \
  || fail "without the preload"
grep -q "commpress_mpi" "$OUT/plain" && fail "the preload ran without LD_PRELOAD"
cat "$OUT/plain"

echo "== lossless (zstd-1): bit for bit"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "${PRELOAD[@]}" -x COMMPRESS_BOUND=lossless \
  -x COMMPRESS_CODEC=zstd-1 "$BIN/pmpi_collectives_program" exact > "$OUT/lossless" 2>&1 \
  || fail "lossless under the preload"
grep -v '^commpress_mpi\[[1-9]' "$OUT/lossless"
expect "$OUT/lossless" '^commpress_mpi: policy on all [0-9]+ ranks: bound=lossless codec=zstd-1' "policy line"
for op in MPI_Allreduce MPI_Reduce MPI_Reduce_scatter_block MPI_Reduce_scatter MPI_Bcast MPI_Allgather; do
  expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: $op [0-9]+ x MPI_(FLOAT|DOUBLE)[a-z ]*: [a-z_]+ codec" "$op run by commpress"
done
if [ "$NP" -gt 1 ]; then
  expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: MPI_Allreduce .*codec zstd-1, [0-9]+ -> [0-9]+ bytes" "a compressed lossless allreduce"
fi

echo "== lossy (rel:1e-4): within the bound; the rest passes through, exact"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "${PRELOAD[@]}" -x COMMPRESS_BOUND=rel:1e-4 \
  "$BIN/pmpi_collectives_program" rel 1e-4 > "$OUT/lossy" 2>&1 || fail "lossy under the preload"
grep -v '^commpress_mpi\[[1-9]' "$OUT/lossy"
if [ "$NP" -gt 1 ]; then
  expect "$OUT/lossy" "^commpress_mpi\[0/$NP\]: MPI_Allreduce 65536 x MPI_DOUBLE sum: [a-z_]+ codec szp" "a lossy allreduce through szp"
  expect "$OUT/lossy" "^commpress_mpi\[0/$NP\]: MPI_Reduce_scatter [0-9]+ x MPI_DOUBLE sum: passed through \(unequal recvcounts\)" "unequal reduce_scatter passed through"
  expect "$OUT/lossy" "^commpress_mpi\[0/$NP\]: MPI_Bcast 65536 x MPI_DOUBLE: passed through \(another rank cannot run it\)" "a derived type at the root only passed through on every rank"
fi
expect "$OUT/lossy" "MPI_Allreduce 65536 x MPI_INT sum: passed through \(MPI_INT is not" "integers passed through"
expect "$OUT/lossy" "MPI_Allreduce 65536 x MPI_DOUBLE other op: passed through \(user-defined" "user op passed through"
expect "$OUT/lossy" "MPI_Bcast 32768 x other type: passed through \(other type is not" "derived type passed through"
expect "$OUT/lossy" "MPI_Allreduce 1024 x MPI_DOUBLE sum: passed through \(below COMMPRESS_MIN_BYTES=65536\)" "small call passed through"
expect "$OUT/lossy" "^commpress_mpi: summary over $NP ranks" "the summary at MPI_Finalize"

echo "== a policy on one communicator (MPI_Comm_set_info), and one the ranks disagree on"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" -x LD_PRELOAD="$LIB" -x COMMPRESS_PROFILE="$PROFILE" \
  -x COMMPRESS_DEBUG=1 "$BIN/pmpi_info_program" > "$OUT/info" 2>&1 || fail "per-communicator policy"
grep -v '^commpress_mpi\[[1-9]' "$OUT/info"
expect "$OUT/info" "^commpress_mpi: policy on all $NP ranks: off" "environment policy off"
expect "$OUT/info" "^commpress_mpi\[0/$NP\]: MPI_Allreduce 32768 x MPI_DOUBLE sum: .*\(rel:0.001\)" "the communicator's policy ran"
[ "$(grep -c '^commpress_mpi\[0/.*MPI_Allreduce 32768' "$OUT/info")" = 1 ] \
  || fail "MPI_COMM_WORLD (policy off) was intercepted"

if [ "$NP" -gt 1 ]; then
  # -x applies to its own application context only: each one loads the preload.
  echo "== ranks with different environments fail together at MPI_Init"
  "$MPIRUN" "${FLAGS[@]}" -np 1 -x LD_PRELOAD="$LIB" -x COMMPRESS_BOUND=rel:1e-4 \
    "$BIN/pmpi_collectives_program" exact : -np $((NP - 1)) -x LD_PRELOAD="$LIB" \
    -x COMMPRESS_BOUND=abs:0.01 "$BIN/pmpi_collectives_program" exact > "$OUT/mismatch" 2>&1 && fail "a mismatched policy ran"
  n=$(grep -c "MPI_Init: ranks disagree on the policy: rank 0: bound=rel:0.0001 .*; rank[s]* 1[-0-9]*: bound=abs:0.01" "$OUT/mismatch")
  [ "$n" = "$NP" ] || fail "$n of $NP ranks reported the mismatch"
  grep -q "wrong elements" "$OUT/mismatch" && fail "a rank went past MPI_Init"
  grep "MPI_Init" "$OUT/mismatch" | head -2
fi

if [ "$NP" -gt 1 ]; then
  # Ranks 1.. run without the library: rank 0 must stop the job rather than wait for them.
  echo "== ranks without the preload: the job stops at MPI_Init instead of hanging"
  "$MPIRUN" "${FLAGS[@]}" -np 1 -x LD_PRELOAD="$LIB" -x COMMPRESS_INIT_TIMEOUT=3 \
    "$BIN/pmpi_collectives_program" exact : -np $((NP - 1)) "$BIN/pmpi_collectives_program" exact \
    > "$OUT/missing" 2>&1 && fail "a job with ranks missing the preload ran"
  expect "$OUT/missing" "^commpress_mpi\[0/$NP\]: MPI_Init: not every rank joined the policy agreement within 3 s" \
    "rank 0 names the missing preload"
fi

echo "== an invalid value fails every rank at MPI_Init"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" -x LD_PRELOAD="$LIB" -x COMMPRESS_BOUND=rel:1e-4 \
  -x COMMPRESS_OPS=allreduce,scan "$BIN/pmpi_collectives_program" exact > "$OUT/invalid" 2>&1 \
  && fail "an invalid COMMPRESS_OPS ran"
n=$(grep -c "MPI_Init: the policy is invalid: rank[s]* 0[-0-9]*: invalid: COMMPRESS_OPS='allreduce,scan': unknown operation 'scan'" "$OUT/invalid")
[ "$n" = "$NP" ] || fail "$n of $NP ranks reported the invalid COMMPRESS_OPS"

[ "$failed" = 0 ] && echo "all checks passed at $NP ranks"
exit "$failed"
