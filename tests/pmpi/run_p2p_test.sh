#!/usr/bin/env bash
# Runs the unmodified point-to-point program of tests/pmpi at one rank count, without and with
# libcommpress_mpi.so (lossless, lossy, p2p left out of the policy, and a rank that does not
# decode), and checks its verdicts and the preload's debug lines.
#   run_p2p_test.sh <mpirun> <ranks> <program> <preload library> <profile>
set -uo pipefail
MPIRUN=$1 NP=$2 PROG=$3 LIB=$4 PROFILE=$5
source "$(dirname "${BASH_SOURCE[0]}")/preload_checks.sh"
PRELOAD=(-x LD_PRELOAD="$LIB" -x COMMPRESS_PROFILE="$PROFILE" -x COMMPRESS_MIN_BYTES=65536
         -x COMMPRESS_DEBUG=1)
LAST=$((NP - 1))
SEND=MPI_Send; [ "$NP" = 1 ] && SEND=MPI_Isend  # a blocking send to itself would wait forever

echo "== without the preload"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "$PROG" exact > "$OUT/plain" 2>&1 || fail "without the preload"
grep -q "commpress_mpi" "$OUT/plain" && fail "the preload ran without LD_PRELOAD"
grep -q "refused" "$OUT/plain" && fail "a persistent receive refused without the preload"
cat "$OUT/plain"

echo "== lossless (zstd-1): bit for bit"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "${PRELOAD[@]}" -x COMMPRESS_BOUND=lossless \
  -x COMMPRESS_CODEC=zstd-1 -x COMMPRESS_OPS=all,p2p "$PROG" exact > "$OUT/lossless" 2>&1 \
  || fail "lossless under the preload"
grep -v '^commpress_mpi\[[1-9]' "$OUT/lossless" | head -40
expect "$OUT/lossless" "^commpress_mpi: policy on all $NP ranks: .*ops=.*,p2p " "p2p in the agreed policy"
expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: MPI_Isend 65536 x MPI_DOUBLE to rank $((1 % NP)): direct codec zstd-1, 524288 -> [0-9]+ bytes" "a compressed MPI_Isend"
expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: $SEND 131072 x MPI_FLOAT to rank $((1 % NP)): direct codec zstd-1" "a compressed $SEND"
expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: MPI_Recv 65536 x MPI_DOUBLE from rank $LAST: direct codec zstd-1" "a decoded MPI_Recv"
expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: MPI_Irecv 131072 x MPI_FLOAT from rank $LAST: direct codec zstd-1" "a decoded MPI_Irecv"
expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: MPI_Irecv 65536 x other type from rank $LAST: direct codec zstd-1" "decoded into a derived type"
expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: MPI_Isend 65536 x MPI_INT to rank $((1 % NP)): passed through \(MPI_INT is not" "integers passed through"
expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: MPI_Isend 1 x other type to rank $((1 % NP)): passed through \(other type is not" "a derived type passed through"
expect "$OUT/lossless" "^commpress_mpi\[0/$NP\]: MPI_Isend 100 x MPI_DOUBLE to rank $((1 % NP)): passed through \(below" "a small send passed through"
expect "$OUT/lossless" "^commpress_mpi:   p2p +[1-9][0-9]* run by commpress" "p2p in the summary"
expect "$OUT/lossless" "^commpress_mpi\[0\]: MPI_Recv_init: a persistent receive cannot decode" "a persistent receive refused, with the reason"
expect "$OUT/lossless" "^persistent receive refused" "the refusal returned to the program"

echo "== lossy (rel:1e-4): within the bound"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "${PRELOAD[@]}" -x COMMPRESS_BOUND=rel:1e-4 \
  -x COMMPRESS_OPS=p2p "$PROG" rel 1e-4 > "$OUT/lossy" 2>&1 || fail "lossy under the preload"
grep -v '^commpress_mpi' "$OUT/lossy"
expect "$OUT/lossy" "^commpress_mpi\[0/$NP\]: MPI_Isend 65536 x MPI_DOUBLE to rank $((1 % NP)): direct codec szp, 524288 -> [0-9]+ bytes \([0-9.]+x\), bound [0-9.e+-]+ \(rel:0.0001\)" "a lossy MPI_Isend through szp"

echo "== no profile file: the world's profile is measured at MPI_Init, before any send"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" -x LD_PRELOAD="$LIB" -x COMMPRESS_MIN_BYTES=65536 \
  -x COMMPRESS_DEBUG=1 -x COMMPRESS_PROBE_CACHE=off -x COMMPRESS_BOUND=rel:1e-4 \
  -x COMMPRESS_OPS=p2p "$PROG" rel 1e-4 > "$OUT/probed" 2>&1 || fail "lossy without a profile"
expect "$OUT/probed" "^commpress: probe: " "the probe at MPI_Init"
expect "$OUT/probed" "^p2p checks passed" "the program's checks (probed)"

echo "== p2p left out of COMMPRESS_OPS: nothing point-to-point intercepted"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "${PRELOAD[@]}" -x COMMPRESS_BOUND=rel:1e-4 \
  "$PROG" exact > "$OUT/no-p2p" 2>&1 || fail "without p2p in the policy"
grep -Eq "MPI_(I?send|I?recv)|refused" "$OUT/no-p2p" && fail "point-to-point intercepted without p2p"
grep -v '^commpress_mpi' "$OUT/no-p2p"

if [ "$NP" -gt 1 ]; then
  echo "== rank 0 does not decode (COMMPRESS_P2P_DECODE=0): its messages travel plain"
  "$MPIRUN" "${FLAGS[@]}" -np 1 "${PRELOAD[@]}" -x COMMPRESS_BOUND=lossless -x COMMPRESS_CODEC=zstd-1 \
    -x COMMPRESS_OPS=p2p -x COMMPRESS_P2P_DECODE=0 "$PROG" exact : \
    -np "$LAST" "${PRELOAD[@]}" -x COMMPRESS_BOUND=lossless -x COMMPRESS_CODEC=zstd-1 \
    -x COMMPRESS_OPS=p2p "$PROG" exact > "$OUT/no-decode" 2>&1 || fail "with a rank that does not decode"
  grep -v '^commpress_mpi' "$OUT/no-decode"
  expect "$OUT/no-decode" "^commpress_mpi\[$LAST/$NP\]: MPI_Isend 65536 x MPI_DOUBLE to rank 0: passed through \(the receiving rank does not decode" "no compression towards rank 0"
  [ "$NP" -gt 2 ] && expect "$OUT/no-decode" "^commpress_mpi\[1/$NP\]: MPI_Isend 65536 x MPI_DOUBLE to rank 2: direct codec zstd-1" "compression between decoding ranks"
  expect "$OUT/no-decode" "^p2p checks passed" "the program's checks"
fi

echo "== COMMPRESS_PROGRESS=inline: MPI keeps the program's thread level, so no rank decodes"
"$MPIRUN" "${FLAGS[@]}" -np "$NP" "${PRELOAD[@]}" -x COMMPRESS_BOUND=lossless -x COMMPRESS_CODEC=zstd-1 \
  -x COMMPRESS_OPS=all,p2p -x COMMPRESS_PROGRESS=inline "$PROG" exact > "$OUT/inline" 2>&1 \
  || fail "COMMPRESS_PROGRESS=inline under the preload"
expect "$OUT/inline" "^commpress_mpi: policy on all $NP ranks: .*\(COMMPRESS_PROGRESS=inline: no progress threads\)" "inline in the agreed policy"
expect "$OUT/inline" "^commpress_mpi\[0/$NP\]: MPI_Isend 65536 x MPI_DOUBLE to rank $((1 % NP)): passed through \(the receiving rank does not decode" "sends plain where no rank decodes"
grep -Eq "^commpress_mpi\[[0-9]+/$NP\]: MPI_I?[sS]end .*direct codec" "$OUT/inline" && fail "a send compressed under inline"

for f in plain lossless lossy no-p2p inline; do
  expect "$OUT/$f" "^p2p checks passed" "the program's checks ($f)"
done
[ "$failed" = 0 ] && echo "all checks passed at $NP ranks"
exit "$failed"
