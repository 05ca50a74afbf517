#!/usr/bin/env bash
# `commpress plan p2p --ratio R` plans a send at the ratio a message achieved instead of the
# profile's typical one (what apps/sweep report compares a measured transfer with): the same
# as text and JSON, less time at a higher ratio, the typical ratio when none is given, MPI's
# send when forced; a codec the profile has no rates for gives no prediction (0), and Auto
# declines to compress where the ratio given does not pay.
# Usage: plan_p2p_test.sh PATH_TO_COMMPRESS WORK_DIR PROFILE
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh" "$1" "$2"
export COMMPRESS_PROFILE="$3"

direct=(--count 4194304 --algorithm direct --codec szp --bound-rel 1e-4)
seconds() {  # seconds ARGS...: predicted_seconds of the JSON plan (empty on failure)
  "$BIN" plan p2p "$@" --json 2>"$WORK/err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_seconds"])'
}
typical=$(python3 -c 'import json,sys; print(next(c["typical_ratio"] for c in json.load(open(sys.argv[1]))["codecs"] if c["codec"] == "szp" and c["dtype"] == "f32"))' "$3" 2>/dev/null) \
  || typical=""

text=$("$BIN" plan p2p "${direct[@]}" --ratio 4 | sed -n 's/^predicted_seconds: //p')
json=$(seconds "${direct[@]}" --ratio 4)
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if a > 0 and abs(a - b) <= 1e-8 * b else 1)" \
  "$text" "$json" || fail "text ($text) and JSON ($json) disagree or are not positive"

low=$(seconds "${direct[@]}" --ratio 2)
high=$(seconds "${direct[@]}" --ratio 16)
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) > 0 else 1)" "$low" "$high" \
  || fail "ratio 2 ($low s) should take longer than ratio 16 ($high s)"

# Without --ratio the plan is the send's own: at the profile's typical ratio.
none=$(seconds "${direct[@]}")
if [ -n "$typical" ]; then
  at=$(seconds "${direct[@]}" --ratio "$typical")
  python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if a > 0 and abs(a - b) <= 1e-9 * b else 1)" \
    "$none" "$at" || fail "no --ratio ($none s) should plan at the typical ratio $typical ($at s)"
else
  fail "the profile's szp f32 typical_ratio is unreadable"
fi

"$BIN" plan p2p --count 4194304 --algorithm mpi --json >"$WORK/mpi.json" 2>"$WORK/err" || fail "mpi: $(cat "$WORK/err")"
grep -q '"algorithm": "mpi"' "$WORK/mpi.json" || fail "forced MPI plans MPI's send: $(cat "$WORK/mpi.json")"

# A ratio that cannot pay: Auto sends the chunks uncompressed and predicts MPI's time.
"$BIN" plan p2p --count 4194304 --codec zstd-1 --ratio 1.0001 --json >"$WORK/declined.json" 2>"$WORK/err" \
  || fail "declined: $(cat "$WORK/err")"
grep -q '"compress": false' "$WORK/declined.json" || fail "ratio 1 must not compress: $(cat "$WORK/declined.json")"

nopred=$(seconds --count 1024 --algorithm direct --codec pred-bit --bound-rel 1e-4 --ratio 3)
[ "$nopred" = 0 ] || fail "a codec without rates in the profile has no prediction (0), got '$nopred'"
if "$BIN" plan p2p --count 1024 --codec szp --bound-rel 1e-4 --ratio -1 >/dev/null 2>"$WORK/err"; then
  fail "a negative ratio must fail"
fi
finish plan_p2p_test
