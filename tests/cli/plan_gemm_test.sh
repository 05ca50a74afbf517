#!/usr/bin/env bash
# `commpress plan gemm` prints the plan that Auto then runs: for each case the algorithm, grid
# and prediction it prints (without MPI) are those of `commpress bench gemm --algorithm auto`
# launched on that many ranks (one node, or pretend nodes of one rank, where SRUMMA's pieces all
# travel). Every documented field is printed; bad requests fail with one error line.
# Usage: plan_gemm_test.sh PATH_TO_COMMPRESS MPIEXEC WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/mpi_test_lib.sh"

field() {  # field FILE KEY: the value of "KEY: value"
  sed -n "s/^$2: //p" "$1"
}

# agree NAME NP RANKS_PER_NODE ARGS...: plan, then run Auto on NP ranks, and compare.
agree() {
  local name=$1 np=$2 per_node=$3
  shift 3
  if ! "$BIN" plan gemm --ranks "$np" --ranks-per-node "$per_node" "$@" >"$WORK/$name.plan" \
      2>"$WORK/$name.plan.err"; then
    fail "$name: plan gemm failed: $(cat "$WORK/$name.plan.err")"
    return
  fi
  for key in algorithm literature grid ranks_per_node multiply codec compress_a compress_b \
             bound_a bound_b panel overlap predicted_seconds memory_bytes; do
    [ -n "$(field "$WORK/$name.plan" "$key")" ] || fail "$name: plan has no $key"
  done
  local pretend=()
  [ "$per_node" -lt "$np" ] && pretend=(env COMMPRESS_PRETEND_RANKS_PER_NODE="$per_node")
  if ! run_np "$np" "${pretend[@]}" "$BIN" bench gemm --algorithm auto --repeat 1 --warmup 0 \
      --reference none "$@" >"$WORK/$name.jsonl" 2>"$WORK/$name.err"; then
    fail "$name: bench gemm failed: $(grep 'error' "$WORK/$name.err")"
    return
  fi
  python3 - "$WORK/$name.plan" "$WORK/$name.jsonl" "$name" <<'PY' || fail "$name: see above"
import json, math, sys
plan = dict(l.rstrip("\n").split(": ", 1) for l in open(sys.argv[1]) if ": " in l)
run = json.loads(open(sys.argv[2]).readline())
name, bad = sys.argv[3], []
if run["algorithm"] != plan["algorithm"]:
    bad.append(f"planned {plan['algorithm']}, ran {run['algorithm']}")
if run["grid"] != plan["grid"]:
    bad.append(f"planned grid {plan['grid']}, ran {run['grid']}")
if run["codec"] != ("none" if plan["compress_a"] == plan["compress_b"] == "no" else plan["codec"]):
    bad.append(f"planned codec {plan['codec']}, ran {run['codec']}")
p, r = float(plan["predicted_seconds"]), float(run["predicted_seconds"])
if not math.isclose(p, r, rel_tol=1e-5):
    bad.append(f"planned prediction {p}, ran with {r}")
for b in bad:
    print(f"{name}: {b}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

agree one_node_2 2 2 --m 96 --n 80 --k 64
agree one_node_4 4 4 --m 96 --n 80 --k 64 --transa T --dtype f32
agree pretend_nodes_4 4 1 --m 300 --n 300 --k 300
agree codec_auto_4 4 1 --m 200 --n 150 --k 120 --codec auto --bound-rel 1e-4
# On a given layered grid Auto chooses between the 2.5D algorithms.
agree layered_4 4 4 --grid 1x1x4 --m 120 --n 100 --k 160

# A forced algorithm on a given grid: its own plan, SUMMA's panel chosen.
"$BIN" plan gemm --grid 2x2 --algorithm summa --m 64 --n 64 --k 64 >"$WORK/summa.plan" \
  || fail "summa on 2x2: plan failed"
[ "$(field "$WORK/summa.plan" algorithm)" = summa ] || fail "summa on 2x2: $(cat "$WORK/summa.plan")"
[ "$(field "$WORK/summa.plan" grid)" = 2x2x1 ] || fail "summa on 2x2: grid"
[ "$(field "$WORK/summa.plan" panel)" -gt 0 ] || fail "summa on 2x2: no panel width"

# Bad requests: one error line, status 1.
expect_error() {  # expect_error NAME PATTERN ARGS...
  local name=$1 pattern=$2
  shift 2
  "$BIN" plan gemm "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  local rc=$?
  [ "$rc" -eq 1 ] || fail "$name: exit status $rc, not 1"
  grep -q "^commpress: error: .*$pattern" "$WORK/$name.err" \
    || fail "$name: no error naming '$pattern': $(cat "$WORK/$name.err")"
  [ ! -s "$WORK/$name.out" ] || fail "$name: printed a plan anyway"
}
expect_error no_ranks "--ranks" --m 4 --n 4 --k 4
expect_error cannon_on_1x2 "cannon needs a square 2-D grid" --grid 1x2 --algorithm cannon --m 4 --n 4 --k 4
expect_error srumma_codec "srumma moves uncompressed blocks" --ranks 2 --algorithm srumma --codec lz4 --m 4 --n 4 --k 4
expect_error lossy_unbounded "needs an ABS or REL bound" --ranks 2 --codec szp --m 4 --n 4 --k 4
expect_error grid_and_ranks "does not hold 3 ranks" --ranks 3 --grid 2x2 --m 4 --n 4 --k 4
expect_error unknown_algorithm "unknown gemm algorithm" --ranks 2 --algorithm fastest --m 4 --n 4 --k 4

finish plan_gemm_test
