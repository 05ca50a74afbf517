# What the preload test scripts share (sourced): mpirun's flags, a scratch folder, and the
# checks that record a failure and go on.
FLAGS=(--oversubscribe --mca btl self,vader,tcp --mca mpi_yield_when_idle 1)
[ "$(id -u)" = 0 ] && FLAGS+=(--allow-run-as-root)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
expect() {  # expect <file> <regex> <what>
  grep -Eq -- "$2" "$1" || fail "$3 (no line matching '$2' in $1)"
}
