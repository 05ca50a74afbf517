#!/usr/bin/env bash
# Smoke test of `commpress bench gemm` at 1, 2 and 4 ranks on small matrices: every measurement
# prints one JSON line that parses, with the documented fields; every result matches the
# serial product recomputed from the seeds within rounding (uncompressed), bit for bit the
# uncompressed algorithm's (lossless codecs), or within the reported bound (lossy codecs).
# Algorithms that are not built yet report "unsupported" and are skipped. Bad options end with
# a clear message and a non-zero status. No timing is checked.
# Usage: bench_gemm_test.sh PATH_TO_COMMPRESS MPIEXEC WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/mpi_test_lib.sh"
gemm() {  # gemm N ARGS...: `commpress bench gemm ARGS` on N ranks
  run_np "$1" "$BIN" bench gemm "${@:2}"
}

# Cannon needs a square grid: 4 ranks only.
ALL2=scalapack,auto,summa,srumma,cannon25d,summa25d
ALL4=$ALL2,cannon

# check NAME NP MIN_MEASURED ARGS...: runs, then validates every line; at least MIN_MEASURED
# lines must be real measurements (not "unsupported").
check() {
  local name=$1 np=$2 min=$3
  shift 3
  if ! gemm "$np" "$@" >"$WORK/$name.jsonl" 2>"$WORK/$name.err"; then
    fail "$name: exit status non-zero: $(grep -v '^-\|^ \|^$\|Primary\|mpirun\|Process\|Exit' "$WORK/$name.err")"
  fi
  python3 - "$WORK/$name.jsonl" "$np" "$min" "$name" <<'PY' || fail "$name: see above"
import json, sys
path, np_, want, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rows = [json.loads(l) for l in open(path) if l.strip()]
bad, measured = [], 0
exact = {}  # (algorithm, codec none) -> max error, for the lossless comparison
for r in rows:
    what = f"{r.get('algorithm_requested')} {r.get('codec_requested')} {r.get('bound')}"
    if "error" in r:
        if not r["error"].startswith("unsupported"):
            bad.append(f"{what}: {r['error']}")
        continue
    measured += 1
    for k in ("algorithm", "grid", "ranks", "m", "n", "k", "dtype", "codec", "seconds_median",
              "seconds_min", "gflops", "bytes_sent", "raw_bytes", "ratio", "memory_bytes",
              "predicted_seconds", "guaranteed_abs_bound", "max_abs_error", "rounding_allowance",
              "within_bound", "reference", "blas", "blas_core", "blas_fallback"):
        if k not in r:
            bad.append(f"{what}: no field {k}")
    if r.get("ranks") != np_:
        bad.append(f"{what}: ranks {r.get('ranks')}")
    g = [int(x) for x in r["grid"].split("x")]
    if g[0] * g[1] * g[2] != np_:
        bad.append(f"{what}: grid {r['grid']} for {np_} ranks")
    if not (0 <= r["seconds_min"] <= r["seconds_median"]):
        bad.append(f"{what}: seconds min {r['seconds_min']} median {r['seconds_median']}")
    err, allow, bound = r.get("max_abs_error"), r.get("rounding_allowance"), r.get("guaranteed_abs_bound")
    if err is None or r.get("within_bound") is not True:
        bad.append(f"{what}: error {err} not within bound {bound} + rounding {allow}")
        continue
    if r["bound_mode"] == "lossless":
        if bound != 0:
            bad.append(f"{what}: exact run guarantees {bound}")
        if not err <= allow:
            bad.append(f"{what}: error {err} above the rounding allowance {allow}")
        if r["reference"] == "serial" and r["m"] * r["n"] * r["k"] > 0 and not allow < 1e-2:
            bad.append(f"{what}: rounding allowance {allow} is not small")
        key = (r["algorithm"], r["grid"])
        if r["codec_requested"] == "none":
            exact[key] = err
        elif key in exact and err != exact[key]:
            bad.append(f"{what}: lossless result differs from the uncompressed one ({err} vs {exact[key]})")
    else:
        if r["codec"] != "none" and not bound > 0:
            bad.append(f"{what}: lossy run guarantees {bound}")
        if not err <= bound + allow:
            bad.append(f"{what}: error {err} above bound {bound} + {allow}")
if measured < want:
    bad.append(f"{measured} measurements, expected at least {want}")
for b in bad:
    print(f"  {name}: {b}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# expect_error NAME NP MESSAGE ARGS...: non-zero status and "commpress: error: ...MESSAGE".
expect_error() {
  local name=$1 np=$2 message=$3
  shift 3
  if gemm "$np" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"; then
    fail "$name: exit status 0"
  elif ! grep -q "commpress: error: .*$message" "$WORK/$name.err"; then
    fail "$name: no 'commpress: error: ...$message' in: $(head -3 "$WORK/$name.err")"
  fi
}

# Sizes that are not multiples of the grid; trailing grid rows own nothing at m = 1.
check two_f64 2 1 --algorithm "$ALL2" --m 97 --n 64 --k 131 --repeat 2 --warmup 0
check two_f32_tt 2 1 --algorithm "$ALL2" --m 50 --n 77 --k 33 --dtype f32 --transa T --transb T \
  --zeros 0.3 --repeat 1 --warmup 1
check four_f64_tn 4 1 --algorithm "$ALL4" --m 101 --n 90 --k 75 --transa T --zeros 0.5 --repeat 1
check four_thin 4 1 --algorithm scalapack,auto,summa --m 1 --n 3 --k 5 --repeat 1 --warmup 0
check four_empty_k 4 1 --algorithm scalapack,auto --m 9 --n 7 --k 0 --repeat 1 --warmup 0
check four_grid_1x4 4 1 --algorithm scalapack,summa --grid 1x4 --m 40 --n 41 --k 42 --dtype f32 \
  --repeat 1 --warmup 0
check four_no_overlap 4 1 --algorithm scalapack,cannon,summa,summa25d --overlap off --panel 7 \
  --m 45 --n 38 --k 29 --repeat 1 --warmup 0
check four_pdgemm_ref 4 1 --algorithm scalapack,summa --m 64 --n 64 --k 64 --reference scalapack \
  --repeat 1 --warmup 0
# Compressed blocks: lossless must equal the uncompressed result, lossy stay within the bound.
check four_codecs 4 1 --algorithm scalapack,cannon,summa --m 96 --n 80 --k 72 --zeros 0.5 \
  --codec none,zstd-1,lz4,szp,zfp --bound-rel 1e-6 --repeat 1 --warmup 0
check four_at_codec 4 1 --algorithm scalapack,cannon,cannon@zstd-1,cannon@szp,auto@auto --m 33 \
  --n 65 --k 17 --zeros 0.3 --bound-rel 1e-5 --repeat 1 --warmup 0
check two_codecs_f32 2 1 --algorithm scalapack,auto,summa --m 70 --n 60 --k 50 --dtype f32 \
  --codec none,lz4,szp --bound-abs 1e-4 --repeat 1 --warmup 0
check one_blas 1 2 --algorithm blas,scalapack,auto --m 65 --n 66 --k 67 --repeat 1 --warmup 0

# A result that is not written (C stays NaN from the poisoning) or is wrong must be caught: the
# check is real. k = 0 with NaN poisoning exercises beta = 0 overwriting C.
python3 - "$WORK/four_empty_k.jsonl" <<'PY' || fail "four_empty_k: C not overwritten"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = [r for r in rows if "error" not in r]
sys.exit(0 if ok and all(r["max_abs_error"] == 0 for r in ok) else 1)
PY

expect_error unknown_algorithm 2 "nonesuch" --algorithm nonesuch --m 8 --n 8 --k 8
expect_error bad_grid 2 "PRxPC" --algorithm scalapack --grid 2x --m 8 --n 8 --k 8
expect_error grid_mismatch 2 "grid 2x2x1 has 4 ranks" --algorithm scalapack --grid 2x2 --m 8 --n 8 --k 8
expect_error bad_zeros 2 "zeros" --algorithm scalapack --zeros 1.5 --m 8 --n 8 --k 8
expect_error bad_trans 2 "transa" --algorithm scalapack --transa X --m 8 --n 8 --k 8
expect_error negative_size 2 "must be >= 0" --algorithm scalapack --m -1 --n 8 --k 8
expect_error bad_dtype 2 "dtype" --algorithm scalapack --dtype i32 --m 8 --n 8 --k 8
expect_error lossy_no_bound 2 "needs --bound-rel" --algorithm summa --codec szp --m 8 --n 8 --k 8
expect_error unknown_codec 2 "nocodec" --algorithm summa --codec nocodec --m 8 --n 8 --k 8
expect_error blas_on_two 2 "one rank" --algorithm blas --m 8 --n 8 --k 8
expect_error cannon_not_square 2 "square" --algorithm cannon --grid 1x2 --m 8 --n 8 --k 8
expect_error scalapack_codec 2 "uncompressed" --algorithm scalapack@lz4 --m 8 --n 8 --k 8
expect_error bad_overlap 2 "overlap" --algorithm scalapack --overlap maybe --m 8 --n 8 --k 8
expect_error bad_repeat 2 "repeat" --algorithm scalapack --repeat 0 --m 8 --n 8 --k 8

# Ranks given different plans fail together instead of waiting in different multiplies.
tiny=(--algorithm scalapack,summa --m 16 --n 16 --k 16 --warmup 0)
expect_disagreement gemm repeat_differs --repeat "${tiny[@]}" --repeat 1 -- "${tiny[@]}" --repeat 2
expect_disagreement gemm size_differs --k "${tiny[@]}" --repeat 1 -- \
  --algorithm scalapack,summa --m 16 --n 16 --k 32 --warmup 0 --repeat 1

finish bench_gemm_test
