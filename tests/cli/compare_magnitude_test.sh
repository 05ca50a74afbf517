#!/usr/bin/env bash
# `commpress codec compare` and the REL bound at the ends of the double range: data near
# 1e-300 under REL 1e-30 (a bound that underflows) must come back exactly and compare must say
# so with finite, true figures; near 1e300 the rmse must stay finite; an empty --abs or --rel
# is refused rather than read as "no bound".
# Usage: compare_magnitude_test.sh PATH_TO_COMMPRESS WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh" "$1" "$2"
value_of() { grep "^$1: " "$2" | head -1 | cut -d' ' -f2; }

gen() {  # gen SCALE OFFSET FILE: a 1000-step random walk of f64
  python3 - "$1" "$2" "$3" <<'PY'
import array, random, sys
scale, offset, path = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
random.seed(5)
v, w = [], 0.0
for _ in range(1000):
    w += random.gauss(0, 1)
    v.append(offset + scale * w)
array.array('d', v).tofile(open(path, 'wb'))
PY
}

gen 1e-301 1e-300 "$WORK/tiny.f64"
gen 1e298 1e300 "$WORK/huge.f64"

for codec in szp zfp pred-byte pred-bit; do
  f="$WORK/tiny.$codec"
  if ! "$BIN" codec compress --codec "$codec" --rel 1e-30 --dtype f64 "$WORK/tiny.f64" "$f" >/dev/null; then
    fail "$codec: compress of tiny data failed"; continue
  fi
  "$BIN" codec decompress "$f" "$WORK/tiny.$codec.out" >/dev/null || { fail "$codec: decompress"; continue; }
  cmp -s "$WORK/tiny.f64" "$WORK/tiny.$codec.out" || fail "$codec: REL 1e-30 near 1e-300 is not exact"
  "$BIN" codec compare "$WORK/tiny.f64" "$WORK/tiny.$codec.out" --dtype f64 --frame "$f" >"$WORK/cmp.txt"
  [ "$(value_of within_bound "$WORK/cmp.txt")" = yes ] || fail "$codec: exact data not within bound"
  [ "$(value_of abs_bound "$WORK/cmp.txt")" = 0 ] || fail "$codec: abs_bound $(value_of abs_bound "$WORK/cmp.txt"), expected 0"
done

# A lossy result near 1e-300: rmse must be positive (the squared errors must not underflow to
# 0) and psnr finite; near 1e300, rmse finite (no overflow).
for data in tiny huge; do
  "$BIN" codec compress --codec szp --rel 1e-3 --dtype f64 "$WORK/$data.f64" "$WORK/$data.szp" >/dev/null \
    || { fail "$data: compress"; continue; }
  "$BIN" codec decompress "$WORK/$data.szp" "$WORK/$data.out" >/dev/null || { fail "$data: decompress"; continue; }
  "$BIN" codec compare "$WORK/$data.f64" "$WORK/$data.out" --dtype f64 --frame "$WORK/$data.szp" >"$WORK/cmp.txt"
  python3 - "$WORK/cmp.txt" "$data" <<'PY' || fail "$data: compare figures: $(tr '\n' ' ' <"$WORK/cmp.txt")"
import math, sys
kv = dict(l.split(": ", 1) for l in open(sys.argv[1]).read().splitlines())
rmse, psnr, err = float(kv["rmse"]), float(kv["psnr_db"]), float(kv["max_abs_error"])
rng, bound = float(kv["range"]), float(kv["promised_bound"])
ok = 0 < rmse <= err and math.isfinite(rmse) and math.isfinite(psnr) and psnr > 0
ok = ok and math.isfinite(rng) and rng > 0 and 0 < bound <= 1e-3 * rng and kv["within_bound"] == "yes"
sys.exit(0 if ok else 1)
PY
done

for opt in --abs --rel; do
  if "$BIN" codec compress --codec szp "$opt" '' --dtype f64 "$WORK/tiny.f64" "$WORK/empty.frame" 2>"$WORK/err.txt"; then
    fail "$opt '' accepted"
  fi
  [ -e "$WORK/empty.frame" ] && fail "$opt '': a frame was written"
done

finish compare_magnitude_test
