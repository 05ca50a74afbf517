#!/usr/bin/env bash
# `commpress plan allreduce` (the other collectives, and p2p) prints the plan without
# MPI: every field as text, the same as one JSON object; Hierarchical on uneven pretend nodes
# plans its cross-node ring; a forced algorithm is the plan's; bad requests fail with one error
# line and print no plan. (That the verbs run these plans: tests/mpi/collective_plan_test.cpp.)
# Usage: plan_collective_test.sh PATH_TO_COMMPRESS WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh" "$1" "$2"

field() {  # field FILE KEY: the value of "KEY: value"
  sed -n "s/^$2: //p" "$1"
}

plan() {  # plan NAME ARGS...: the text and the JSON plan, which must say the same
  local name=$1
  shift
  "$BIN" plan "$@" >"$WORK/$name.txt" 2>"$WORK/$name.err" \
    || { fail "$name: plan failed: $(cat "$WORK/$name.err")"; return; }
  "$BIN" plan "$@" --json >"$WORK/$name.json" 2>>"$WORK/$name.err" \
    || { fail "$name: plan --json failed"; return; }
  python3 - "$WORK/$name.txt" "$WORK/$name.json" "$name" <<'PY' || fail "$name: see above"
import json, sys
text = dict(l.rstrip("\n").split(": ", 1) for l in open(sys.argv[1]) if ": " in l)
js = json.load(open(sys.argv[2]))
name, bad = sys.argv[3], []
for key in ["operation", "ranks", "count", "dtype", "algorithm", "literature", "runs", "codec",
            "bound", "chunk_bytes", "quantized_additive", "requested_abs_bound",
            "step_abs_bound", "guaranteed_abs_bound", "predicted_seconds"]:
    if key not in text or key not in js:
        bad.append(f"no {key}")
# The codec modes Auto weighed: one "mode CODEC" text line each, naming its algorithm.
for m in js.get("modes", []):
    line = text.get("mode " + m["codec"], "")
    want = "not weighed" if m["algorithm"] == "auto" else m["algorithm"] + " "
    if not line.startswith(want):
        bad.append(f"mode {m['codec']}: text {line!r} against JSON {m}")
for key, value in js.items():
    if key == "modes":
        continue
    if str(value).lower() != text.get(key, "").lower() and not (
            isinstance(value, float) and abs(value - float(text[key])) <= 1e-15 * abs(value)):
        bad.append(f"{key}: text {text.get(key)} against JSON {value}")
if js["requested_abs_bound"] > 0 and js["guaranteed_abs_bound"] > js["requested_abs_bound"]:
    bad.append("guarantees more error than requested")
for b in bad:
    print(f"{name}: {b}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

plan auto_lossy allreduce --count 1000000 --ranks 8 --bound-abs 1e-3 --ratio 8
[ "$(field "$WORK/auto_lossy.txt" algorithm)" != auto ] || fail "auto_lossy: Auto in a plan"
# Codec auto under a lossy bound weighs the modes; the unmeasured profile has no szp-eh rates.
[ "$(field "$WORK/auto_lossy.txt" "mode szp-eh")" = \
  "not weighed (no rates in the profile, or no ratio sampled)" ] || fail "auto_lossy: szp-eh weighed"
plan given_codec allreduce --count 1000000 --ranks 8 --codec szp --bound-abs 1e-3 --ratio 8
! grep -q "^mode " "$WORK/given_codec.txt" || fail "given_codec: modes weighed for a given codec"
plan auto_lossless allreduce --count 1000 --ranks 4
[ "$(field "$WORK/auto_lossless.txt" codec)" = none ] || fail "auto_lossless: compresses"
plan forced_doc reduce --count 5000 --ranks 5 --root 4 --algorithm doc_ring --codec szp \
  --bound-rel 1e-4 --lo -2 --hi 6 --ratio 4
[ "$(field "$WORK/forced_doc.txt" algorithm)" = doc_ring ] || fail "forced_doc: not doc_ring"
[ "$(field "$WORK/forced_doc.txt" root)" = 4 ] || fail "forced_doc: root"
[ "$(field "$WORK/forced_doc.txt" requested_abs_bound)" = 0.00080000000000000004 ] \
  || fail "forced_doc: REL 1e-4 of the range 8: $(field "$WORK/forced_doc.txt" requested_abs_bound)"
plan uneven allreduce --count 4096 --ranks 9 --ranks-per-node 2 --algorithm hierarchical \
  --codec szp --bound-abs 1e-2
[ "$(field "$WORK/uneven.txt" runs)" = homomorphic_ring ] || fail "uneven: runs $(field "$WORK/uneven.txt" runs)"
plan even allreduce --count 4096 --ranks 8 --ranks-per-node 2 --algorithm hierarchical \
  --codec szp --bound-abs 1e-2
[ "$(field "$WORK/even.txt" runs)" = hierarchical ] || fail "even: runs $(field "$WORK/even.txt" runs)"
[ "$(field "$WORK/even.txt" quantized_additive)" = 4 ] || fail "even: the ring over 4 nodes"
plan bcast bcast --count 100000 --ranks 4 --codec szp --bound-abs 1e-2 --ratio 5
plan allgather allgather --count 100000 --ranks 3 --codec zstd-1
plan scatter reduce_scatter_block --count 1000 --ranks 3 --algorithm plain_ring
plan scatter_tree scatter --count 5000 --ranks 5 --root 2 --algorithm binomial --codec szp \
  --bound-abs 1e-3
[ "$(field "$WORK/scatter_tree.txt" algorithm)" = binomial ] || fail "scatter_tree: not binomial"
[ "$(field "$WORK/scatter_tree.txt" root)" = 2 ] || fail "scatter_tree: root"
[ "$(field "$WORK/scatter_tree.txt" guaranteed_abs_bound)" = 0.001 ] || fail "scatter_tree: bound"
plan gather_raw gather --count 5000 --ranks 4 --root 3 --codec none
[ "$(field "$WORK/gather_raw.txt" codec)" = none ] || fail "gather_raw: compresses"
[ "$(field "$WORK/gather_raw.txt" root)" = 3 ] || fail "gather_raw: root"
plan p2p_direct p2p --count 100000 --algorithm direct --codec zstd-1 --chunk-bytes 65536
[ "$(field "$WORK/p2p_direct.txt" algorithm)" = direct ] || fail "p2p_direct: not direct"
[ "$(field "$WORK/p2p_direct.txt" ranks)" = 2 ] || fail "p2p_direct: ranks"
[ "$(field "$WORK/p2p_direct.txt" chunk_bytes)" = 65536 ] || fail "p2p_direct: chunking"
[ "$(field "$WORK/p2p_direct.txt" compress)" = true ] || fail "p2p_direct: forced codec declined"

expect_error() {  # expect_error NAME PATTERN ARGS...
  local name=$1 pattern=$2
  shift 2
  "$BIN" plan "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  local rc=$?
  [ "$rc" -eq 1 ] || fail "$name: exit status $rc, not 1"
  grep -q "^commpress: error: .*$pattern" "$WORK/$name.err" \
    || fail "$name: no error naming '$pattern': $(cat "$WORK/$name.err")"
  [ ! -s "$WORK/$name.out" ] || fail "$name: printed a plan anyway"
}
expect_error not_served "does not implement algorithm plain_binomial" \
  reduce_scatter_block --count 10 --ranks 4 --algorithm plain_binomial
expect_error lossy_prod "prod" allreduce --count 10 --ranks 4 --op prod --algorithm doc_ring \
  --codec szp --bound-abs 1e-3
expect_error no_ranks "ranks" allreduce --count 10 --ranks 0
expect_error bad_root "root 4" reduce --count 10 --ranks 4 --root 4
expect_error bad_scatter_root "root 3" scatter --count 10 --ranks 3 --root 3
expect_error p2p_ring "point-to-point does not implement algorithm ring" p2p --count 10 \
  --algorithm ring
expect_error unknown_algorithm "fastest" allreduce --count 10 --ranks 2 --algorithm fastest

finish plan_collective_test
