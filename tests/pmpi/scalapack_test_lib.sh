# Sourced by the run_*_test.sh scripts of unmodified ScaLAPACK programs: the launcher's flags,
# a scratch folder, and run/fail. Expects MPIRUN and NP set.
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
