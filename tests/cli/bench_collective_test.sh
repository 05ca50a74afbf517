#!/usr/bin/env bash
# Smoke test of `commpress bench collective` at 2 ranks on a tiny count: every measurement
# prints one JSON line that parses, none fails, and every compressed result's observed error
# is within the bound the operation reported; MPI's own lossless operations are exact.
# Bad arguments end with a non-zero status. No timing is checked.
# Usage: bench_collective_test.sh PATH_TO_COMMPRESS MPIEXEC WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/mpi_test_lib.sh"
run2() {  # `commpress bench collective ARGS` on 2 ranks
  run_np 2 "$BIN" bench collective "$@"
}

# check NAME EXPECTED_LINES ARGS...: runs, then validates every line.
check() {
  local name=$1 lines=$2
  shift 2
  if ! run2 "$@" >"$WORK/$name.jsonl" 2>"$WORK/$name.err"; then
    fail "$name: exit status non-zero: $(cat "$WORK/$name.err")"
  fi
  python3 - "$WORK/$name.jsonl" "$lines" "$name" <<'PY' || fail "$name: see above"
import json, sys
path, want, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [json.loads(l) for l in open(path) if l.strip()]
bad = []
if len(rows) != want:
    bad.append(f"{len(rows)} lines, expected {want}")
for r in rows:
    what = f"{r.get('op')} {r.get('algorithm_requested')} {r.get('bound_mode')} {r.get('bound')}"
    if "error" in r:
        bad.append(f"{what}: {r['error']}")
        continue
    for k in ("op", "algorithm", "codec", "ranks", "bytes_per_rank", "seconds_median",
              "seconds_min", "bytes_sent", "ratio", "max_abs_error"):
        if k not in r:
            bad.append(f"{what}: no field {k}")
    if r.get("ranks") != 2:
        bad.append(f"{what}: ranks {r.get('ranks')}")
    if not (r.get("seconds_min", -1) >= 0 and r["seconds_min"] <= r["seconds_median"]):
        bad.append(f"{what}: seconds min {r.get('seconds_min')} median {r.get('seconds_median')}")
    err = r.get("max_abs_error")
    if err is None:
        bad.append(f"{what}: max_abs_error is null (non-finite)")
    elif r["algorithm_requested"] == "mpi":
        if r["op"] in ("bcast", "allgather") and err != 0:
            bad.append(f"{what}: MPI's own {r['op']} is exact, error {err}")
    else:
        g = r.get("guaranteed_abs_bound")
        if g is None or not err <= g or r.get("within_bound") is not True:
            bad.append(f"{what}: error {err} vs guaranteed {g} (within_bound {r.get('within_bound')})")
        if r.get("bound_mode") in ("abs", "rel") and r.get("codec") != "none" and not g > 0:
            bad.append(f"{what}: a lossy measurement guarantees {g}")
        if r.get("bound_mode") == "abs" and g is not None and g > r["bound"]:
            bad.append(f"{what}: guaranteed {g} looser than the requested {r['bound']}")
        if r.get("bound_mode") == "lossless" and err != 0:
            bad.append(f"{what}: lossless result differs by {err}")
for b in bad:
    print(f"  {name}: {b}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# expect_error NAME ARGS...: non-zero status and a "commpress: error:" line.
expect_error() {
  local name=$1
  shift
  if run2 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"; then
    fail "$name: exit status 0"
  elif ! grep -q 'commpress: error: ' "$WORK/$name.err"; then
    fail "$name: no 'commpress: error:' line in: $(cat "$WORK/$name.err")"
  fi
}

N=4099  # not a multiple of the rank count, the block or the chunk
check bcast 5 --op bcast --algorithm mpi,auto,binomial --count $N --bound-rel 1e-3,1e-2 \
  --repeat 2 --warmup 0 --root 1
check allgather 7 --op allgather --algorithm mpi,auto,ring,recursive_doubling --count $N \
  --data gaussian --bound-abs 1e-3,1e-2 --repeat 2 --warmup 0
check allreduce 13 --op allreduce --algorithm mpi,auto,doc_ring,homomorphic_ring,fused_ring,homomorphic_recursive_doubling,rabenseifner \
  --count $N --data smooth --bound-rel 1e-3,1e-4 --repeat 1 --warmup 1
check reduce_scatter 3 --op reduce_scatter --algorithm mpi,homomorphic_ring,fused_ring \
  --count $N --bound-rel 1e-3 --repeat 1 --warmup 0
check allreduce_f64 2 --op allreduce --algorithm auto,homomorphic_ring --count $N --dtype f64 \
  --data sparse --bound-abs 1e-6 --repeat 1 --warmup 0

# A file shorter than one rank's slice: each rank wraps around it; lossless must be exact.
python3 -c "import array; array.array('f', [i * 0.25 - 7 for i in range(1000)]).tofile(open('$WORK/in.f32', 'wb'))"
check input_lossless 3 --op allgather --algorithm mpi,ring,recursive_doubling --count 1500 \
  --input "$WORK/in.f32" --lossless zstd-1 --repeat 1 --warmup 0

expect_error unknown_algorithm --op allreduce --algorithm nonesuch --count 10 --bound-rel 1e-3
expect_error unknown_op --op alltoall --algorithm mpi --count 10
expect_error no_bound --op bcast --algorithm binomial --count 10
expect_error missing_input --op bcast --algorithm mpi --count 10 --input "$WORK/does-not-exist.f32"

small=(--algorithm mpi,ring --count 64 --lossless zstd-1 --warmup 0)
expect_disagreement collective repeat_differs --repeat --op allgather "${small[@]}" --repeat 2 -- \
  --op allgather "${small[@]}" --repeat 3
expect_disagreement collective op_differs --op --op allgather "${small[@]}" --repeat 1 -- \
  --op bcast --algorithm mpi,binomial --count 64 --lossless zstd-1 --warmup 0 --repeat 1

finish bench_collective_test
