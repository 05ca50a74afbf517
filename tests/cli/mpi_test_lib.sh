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
