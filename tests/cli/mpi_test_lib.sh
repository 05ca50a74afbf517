# Sourced by the tool's shell tests under mpirun (after `set -uo pipefail`), with the test's
# own arguments: PATH_TO_COMMPRESS MPIEXEC WORK_DIR. Gives BIN, MPIEXEC, a fresh WORK, the
# failure count with fail(), mpirun's root flag, run_np and the closing verdict.
BIN="$1"
MPIEXEC="$2"
WORK="$3"
rm -rf "$WORK" && mkdir -p "$WORK"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
run_np() {  # run_np N ARGS...: ARGS under mpirun on N ranks, one thread each, 4-minute cap
  local np=$1
  shift
  OMP_NUM_THREADS=1 timeout 240 "$MPIEXEC" "${root_flag[@]}" -np "$np" --oversubscribe \
    --mca btl self,vader,tcp --mca mpi_yield_when_idle 1 "$@"
}

finish() {  # finish NAME: the verdict and the exit status
  if [ "$failures" -ne 0 ]; then
    echo "$1: $failures failure(s)" >&2
    exit 1
  fi
  echo "$1: all checks passed"
}
