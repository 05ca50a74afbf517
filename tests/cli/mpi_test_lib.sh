# Sourced by the tool's shell tests under mpirun (after `set -uo pipefail`), with the test's
# own arguments: PATH_TO_COMMPRESS MPIEXEC WORK_DIR. Gives what test_lib.sh gives, MPIEXEC,
# mpirun's root flag and run_np.
MPIEXEC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh" "$1" "$3"

root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
run_np() {  # run_np N ARGS...: ARGS under mpirun on N ranks, one thread each, 4-minute cap
  local np=$1
  shift
  OMP_NUM_THREADS=1 timeout 240 "$MPIEXEC" "${root_flag[@]}" -np "$np" --oversubscribe \
    --mca btl self,vader,tcp --mca mpi_yield_when_idle 1 "$@"
}

# expect_disagreement BENCH NAME OPTION RANK0_ARGS -- RANK1_ARGS: `commpress bench BENCH` with
# rank 1 given other options. Each rank records its own status and error (so mpirun lets the
# other finish); both must fail, neither hang, each with the plan error naming OPTION, and
# nothing measured.
expect_disagreement() {
  local bench=$1 name=$2 option=$3
  shift 3
  local first=()
  while [ "$1" != -- ]; do first+=("$1"); shift; done
  shift
  local rank='"$0" bench "$2" "${@:3}" 2>"$1.err"; echo $? >"$1.rc"'
  OMP_NUM_THREADS=1 timeout 60 "$MPIEXEC" "${root_flag[@]}" --oversubscribe \
    --mca btl self,vader,tcp --mca mpi_yield_when_idle 1 \
    -np 1 bash -c "$rank" "$BIN" "$WORK/$name.0" "$bench" "${first[@]}" : \
    -np 1 bash -c "$rank" "$BIN" "$WORK/$name.1" "$bench" "$@" >"$WORK/$name.out" 2>&1
  [ $? -ne 124 ] || fail "$name: hung"
  for r in 0 1; do
    [ "$(cat "$WORK/$name.$r.rc" 2>/dev/null)" = 1 ] || fail "$name: rank $r did not exit with status 1"
    grep -q "^commpress: error: .*different benchmark plans.*$option" "$WORK/$name.$r.err" \
      || fail "$name: rank $r: no plan error naming $option: $(cat "$WORK/$name.$r.err")"
  done
  [ ! -s "$WORK/$name.out" ] || fail "$name: measured anyway: $(cat "$WORK/$name.out")"
}
