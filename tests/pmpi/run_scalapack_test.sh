#!/usr/bin/env bash
# Runs the unmodified ScaLAPACK programs of tests/pmpi at one rank count without and with
# libcommpress_scalapack.so: exact results every time; under Auto every call states its
# decision (commpress's multiply, or ScaLAPACK's where the model prices it faster: a close
# call on these small grids, which the probe's measurements of a busy machine can tip), with
# an algorithm named commpress's multiply visibly runs (COMMPRESS_DEBUG=1), and with
# COMMPRESS_GEMM_ALGORITHM=scalapack ScaLAPACK's own.
#   run_scalapack_test.sh <mpirun> <ranks> <program> <preload library> [<commpress_pdgemm program>]
set -uo pipefail
MPIRUN=$1 NP=$2 PROGRAM=$3 LIB=$4 EXPLICIT=${5:-}
source "$(dirname "${BASH_SOURCE[0]}")/scalapack_test_lib.sh"

echo "== ScaLAPACK alone"
run plain "$PROGRAM"
grep -q commpress_scalapack "$OUT/plain" && fail "commpress ran without the preload"
echo "== under the preload: Auto decides each call by the model"
run preload -x LD_PRELOAD="$LIB" -x COMMPRESS_DEBUG=1 "$PROGRAM"
decision='^commpress_scalapack: p[ds]gemm_ [0-9x]+ [NT]+ on [0-9]+x[0-9]+: '
grep -Eq "${decision}(commpress [a-z0-9]+ codec|ScaLAPACK's \([a-z0-9]+ codec [a-z0-9-]+, model .* vs ScaLAPACK )" \
  "$OUT/preload" || fail "no debug line showing the override's decision"
echo "== under the preload with COMMPRESS_GEMM_ALGORITHM=summa: commpress's multiply"
run named -x LD_PRELOAD="$LIB" -x COMMPRESS_DEBUG=1 -x COMMPRESS_GEMM_ALGORITHM=summa "$PROGRAM"
grep -Eq "${decision}commpress summa codec" "$OUT/named" || fail "no debug line showing commpress's multiply"
echo "== under the preload with COMMPRESS_GEMM_ALGORITHM=scalapack: ScaLAPACK's own"
run forced -x LD_PRELOAD="$LIB" -x COMMPRESS_DEBUG=1 -x COMMPRESS_GEMM_ALGORITHM=scalapack "$PROGRAM"
grep -q "ScaLAPACK's own p?gemm_ runs every call" "$OUT/forced" || fail "no line saying ScaLAPACK ran"
grep -q ": commpress " "$OUT/forced" && fail "commpress ran although ScaLAPACK was asked for"
if [ -n "$EXPLICIT" ]; then
  echo "== commpress_pdgemm called by name from Fortran"
  run explicit -x COMMPRESS_DEBUG=1 -x COMMPRESS_GEMM_CODEC=zstd-1 "$EXPLICIT"
  grep -q "^commpress_scalapack: commpress_pdgemm_ (called by name)" "$OUT/explicit" \
    || fail "commpress_pdgemm_ did not run"
fi
[ "$failed" = 0 ] && echo "all checks passed at $NP ranks"
exit "$failed"
