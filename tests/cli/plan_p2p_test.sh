#!/usr/bin/env bash
# `commpress plan p2p-time` gives the cost model's time for one message at the ratio it is told
# (what apps/sweep report compares a measured transfer with): the same as text and JSON, less
# time at a higher ratio, MPI's send without a codec; a codec the profile has no rates for, or
# a missing ratio, fails with one error line.
# Usage: plan_p2p_test.sh PATH_TO_COMMPRESS WORK_DIR PROFILE
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh" "$1" "$2"
export COMMPRESS_PROFILE="$3"

seconds() {  # seconds ARGS...: predicted_seconds of the JSON plan (empty on failure)
  "$BIN" plan p2p-time "$@" --json 2>"$WORK/err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_seconds"])'
}

text=$("$BIN" plan p2p-time --count 4194304 --codec szp --ratio 4 | sed -n 's/^predicted_seconds: //p')
json=$(seconds --count 4194304 --codec szp --ratio 4)
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if a > 0 and abs(a - b) <= 1e-8 * b else 1)" \
  "$text" "$json" || fail "text ($text) and JSON ($json) disagree or are not positive"

low=$(seconds --count 4194304 --codec szp --ratio 2)
high=$(seconds --count 4194304 --codec szp --ratio 16)
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) > 0 else 1)" "$low" "$high" \
  || fail "ratio 2 ($low s) should take longer than ratio 16 ($high s)"

"$BIN" plan p2p-time --count 4194304 --json >"$WORK/mpi.json" 2>"$WORK/err" || fail "no codec: $(cat "$WORK/err")"
grep -q '"algorithm": "mpi"' "$WORK/mpi.json" || fail "without a codec the plan is MPI's send: $(cat "$WORK/mpi.json")"

if "$BIN" plan p2p-time --count 1024 --codec pred-bit --ratio 3 >"$WORK/out" 2>"$WORK/err"; then
  fail "a codec without rates in the profile must fail"
fi
grep -q "no rates for pred-bit" "$WORK/err" || fail "message names the codec: $(cat "$WORK/err")"
[ ! -s "$WORK/out" ] || fail "a failed plan prints nothing on stdout"
if "$BIN" plan p2p-time --count 1024 --codec szp 2>"$WORK/err" >/dev/null; then
  fail "a codec without --ratio must fail"
fi
grep -q "ratio" "$WORK/err" || fail "message asks for the ratio: $(cat "$WORK/err")"
finish plan_p2p_test
