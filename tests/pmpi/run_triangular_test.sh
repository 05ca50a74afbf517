#!/usr/bin/env bash
# Runs the unmodified ScaLAPACK program ppotrf_program at one rank count without and with
# libcommpress_scalapack.so: exact results every time, commpress's p?potrf_/p?trsm_ visibly
# running under the preload (COMMPRESS_DEBUG=1), ScaLAPACK's own with
# COMMPRESS_TRIANGULAR_ALGORITHM=scalapack.
#   run_triangular_test.sh <mpirun> <ranks> <program> <preload library>
set -uo pipefail
MPIRUN=$1 NP=$2 PROGRAM=$3 LIB=$4
source "$(dirname "${BASH_SOURCE[0]}")/scalapack_test_lib.sh"

echo "== ScaLAPACK alone"
run plain "$PROGRAM"
grep -q commpress_scalapack "$OUT/plain" && fail "commpress ran without the preload"
echo "== under the preload: commpress's"
run preload -x LD_PRELOAD="$LIB" -x COMMPRESS_DEBUG=1 "$PROGRAM"
for r in pdpotrf_ pspotrf_ pdtrsm_ pstrsm_; do
  grep -q "^commpress_scalapack: $r: commpress" "$OUT/preload" || fail "no line showing commpress's $r"
done
echo "== under the preload with COMMPRESS_TRIANGULAR_ALGORITHM=scalapack: ScaLAPACK's own"
run forced -x LD_PRELOAD="$LIB" -x COMMPRESS_DEBUG=1 -x COMMPRESS_TRIANGULAR_ALGORITHM=scalapack "$PROGRAM"
grep -q "^commpress_scalapack: p.\(potrf\|trsm\)_: commpress" "$OUT/forced" && fail "commpress ran although ScaLAPACK was asked for"
[ "$failed" = 0 ] && echo "all checks passed at $NP ranks"
exit "$failed"
