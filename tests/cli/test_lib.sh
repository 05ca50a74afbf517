# Sourced by the tool's shell tests (after `set -uo pipefail`) with PATH_TO_COMMPRESS and
# WORK_DIR: gives BIN, a fresh WORK, the failure count with fail() and the closing verdict.
BIN="$1"
WORK="$2"
rm -rf "$WORK" && mkdir -p "$WORK"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

finish() {  # finish NAME: the verdict and the exit status
  if [ "$failures" -ne 0 ]; then
    echo "$1: $failures failure(s)" >&2
    exit 1
  fi
  echo "$1: all checks passed"
}
