#!/usr/bin/env bash
# Runs the unmodified ScaLAPACK programs of tests/pmpi at one rank count without and with
# libcommpress_scalapack.so: exact results every time, and commpress's multiply visibly
# running (COMMPRESS_DEBUG=1) unless COMMPRESS_GEMM_ALGORITHM=scalapack asks for ScaLAPACK's.
#   run_scalapack_test.sh <mpirun> <ranks> <program> <preload library> [<commpress_pdgemm program>]
set -uo pipefail
MPIRUN=$1 NP=$2 PROGRAM=$3 LIB=$4 EXPLICIT=${5:-}
FLAGS=(--oversubscribe --mca btl self,vader,tcp --mca mpi_yield_when_idle 1 -np "$NP")
[ "$(id -u)" = 0 ] && FLAGS+=(--allow-run-as-root)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
run() {  # run <name> <mpirun arguments...>: the program must report ok
  local name=$1
  shift
  "$MPIRUN" "${FLAGS[@]}" "$@" > "$OUT/$name" 2>&1 || fail "$name: exit status"
  cat "$OUT/$name"
  grep -q '^ok: ' "$OUT/$name" || fail "$name: no ok line"
}

echo "== ScaLAPACK alone"
run plain "$PROGRAM"
grep -q commpress_scalapack "$OUT/plain" && fail "commpress ran without the preload"
echo "== under the preload: commpress's multiply"
run preload -x LD_PRELOAD="$LIB" -x COMMPRESS_DEBUG=1 "$PROGRAM"
grep -Eq '^commpress_scalapack: p[ds]gemm_ [0-9x]+ [NT]+ on [0-9]+x[0-9]+: commpress [a-z0-9]+ codec' \
  "$OUT/preload" || fail "no debug line showing commpress's multiply"
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
