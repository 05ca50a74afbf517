#!/usr/bin/env bash
# End-to-end test of the `commpress` tool: every codec it lists round-trips generated f32 and
# f64 arrays through compress / inspect / decompress / compare, and every kind of bad input
# ends with a non-zero status and exactly one "commpress: error:" line on stderr.
# Usage: cli_test.sh PATH_TO_COMMPRESS WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

# Smooth data with a NaN, +Inf and -Inf in it: codecs must carry those exactly.
gen() {  # gen f|d COUNT FILE
  python3 - "$1" "$2" "$3" <<'PY'
import array, math, sys
kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
v = [math.sin(i * 0.01) * 10 + 0.001 * ((i * 7919) % 101) for i in range(n)]
v[10], v[20], v[30] = float('nan'), float('inf'), float('-inf')
array.array(kind, v).tofile(open(path, 'wb'))
PY
}

# expect_error DESCRIPTION ARGS...: non-zero exit, one error line on stderr, nothing on stdout.
expect_error() {
  local what="$1"; shift
  "$BIN" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
  local rc=$?
  if [ $rc -eq 0 ]; then fail "$what: exit status 0"; return; fi
  if [ "$(wc -l <"$WORK/err.txt")" -ne 1 ] || ! grep -q '^commpress: error: ' "$WORK/err.txt"; then
    fail "$what: expected one 'commpress: error:' line, got: $(cat "$WORK/err.txt")"
  fi
  if [ -s "$WORK/out.txt" ]; then fail "$what: printed to stdout: $(cat "$WORK/out.txt")"; fi
}

value_of() { grep "^$1: " "$2" | head -1 | cut -d' ' -f2; }

N=1000
gen f $N "$WORK/in.f32"
gen d $N "$WORK/in.f64"

"$BIN" codec list >"$WORK/list.txt" || fail "codec list exited non-zero"
grep -q '^raw ' "$WORK/list.txt" || fail "codec list does not show raw"
# Columns: name id kind dtypes description...
tail -n +2 "$WORK/list.txt" >"$WORK/codecs.txt"
[ -s "$WORK/codecs.txt" ] || fail "codec list is empty"

lossy_codec=""
while read -r name id kind dtypes _; do
  for dt in f32 f64; do
    case ",$dtypes," in *",$dt,"*) ;; *) continue ;; esac
    in="$WORK/in.$dt"
    frame="$WORK/$name.$dt.frame"
    out="$WORK/$name.$dt.out"
    bound=()
    if [ "$kind" = lossy ]; then
      lossy_codec="$name"
      if [ $dt = f32 ]; then bound=(--abs 1e-3); else bound=(--rel 1e-6); fi
    fi
    if ! "$BIN" codec compress --codec "$name" "${bound[@]}" --dtype $dt "$in" "$frame" >/dev/null; then
      fail "$name $dt: compress failed"; continue
    fi
    "$BIN" codec inspect "$frame" >"$WORK/inspect.txt" || fail "$name $dt: inspect failed"
    [ "$(value_of codec "$WORK/inspect.txt")" = "$id" ] || fail "$name $dt: inspect shows the wrong codec id"
    [ "$(value_of count "$WORK/inspect.txt")" = "$N" ] || fail "$name $dt: inspect shows the wrong count"
    [ "$(value_of dtype "$WORK/inspect.txt")" = "$dt" ] || fail "$name $dt: inspect shows the wrong dtype"
    "$BIN" codec decompress "$frame" "$out" || { fail "$name $dt: decompress failed"; continue; }
    "$BIN" codec compare "$in" "$out" --dtype $dt --frame "$frame" >"$WORK/cmp.txt" \
      || { fail "$name $dt: compare failed"; continue; }
    [ "$(value_of within_bound "$WORK/cmp.txt")" = yes ] || fail "$name $dt: not within the frame's bound: $(cat "$WORK/cmp.txt")"
    [ "$(value_of count "$WORK/cmp.txt")" = "$N" ] || fail "$name $dt: compare counted the wrong number of elements"
    [ "$(value_of nonfinite "$WORK/cmp.txt")" = 3 ] || fail "$name $dt: compare should see 3 non-finite values"
    [ "$(value_of nonfinite_differ "$WORK/cmp.txt")" = 0 ] || fail "$name $dt: non-finite values changed"
    if [ "$kind" = lossless ]; then
      cmp -s "$in" "$out" || fail "$name $dt: lossless round trip is not bit-exact"
    fi
  done
done <"$WORK/codecs.txt"

# A differing value is seen by compare (so the checks above could fail).
cp "$WORK/in.f32" "$WORK/changed.f32"
printf '\x00\x00\x80\x3f' | dd of="$WORK/changed.f32" bs=1 seek=400 conv=notrunc status=none  # x[100] = 1.0
"$BIN" codec compare "$WORK/in.f32" "$WORK/changed.f32" --dtype f32 >"$WORK/cmp.txt"
[ "$(value_of max_abs_error "$WORK/cmp.txt")" != 0 ] || fail "compare missed a changed value"

# Outputs replace a file only once written: through a link the file it names is replaced
# (the link stays), and a pipe takes the bytes as they come.
"$BIN" codec compress --codec raw --dtype f32 "$WORK/in.f32" "$WORK/linked.frame" >/dev/null
ln -s linked.frame "$WORK/link.frame"
"$BIN" codec compress --codec zstd-1 --dtype f32 "$WORK/in.f32" "$WORK/link.frame" >/dev/null \
  || fail "compress through a link failed"
[ -L "$WORK/link.frame" ] || fail "compress through a link replaced the link"
[ "$("$BIN" codec inspect "$WORK/linked.frame" | grep '^codec: ')" = \
  "$("$BIN" codec inspect "$WORK/zstd-1.f32.frame" | grep '^codec: ')" ] \
  || fail "compress through a link did not replace the file it names"
"$BIN" codec decompress "$WORK/linked.frame" /dev/stdout | cmp -s - "$WORK/in.f32" \
  || fail "decompress to a pipe did not give the data"

# The summary lines give the end-to-end rate, and --sync changes nothing but durability.
"$BIN" codec compress --sync --codec szp --abs 1e-3 --dtype f32 "$WORK/in.f32" "$WORK/synced.frame" \
  >"$WORK/line.txt" || fail "compress --sync failed"
grep -q " s end to end, .* GB/s" "$WORK/line.txt" || fail "compress gave no end-to-end rate: $(cat "$WORK/line.txt")"
cmp -s "$WORK/synced.frame" "$WORK/szp.f32.frame" || fail "compress --sync wrote another frame"
"$BIN" codec decompress --sync "$WORK/synced.frame" "$WORK/synced.out" >"$WORK/line.txt" \
  || fail "decompress --sync failed"
grep -q " s end to end, .* GB/s" "$WORK/line.txt" || fail "decompress gave no end-to-end rate: $(cat "$WORK/line.txt")"
cmp -s "$WORK/synced.out" "$WORK/szp.f32.out" || fail "decompress --sync wrote other data"

# szp decodes in pieces (1 MiB, written while the next decodes): an array of several pieces
# and a partial last block comes back whole and in order, to a file and to a pipe alike
# (values too fine for the bound are stored verbatim, so that frame must return the input
# bit for bit), and a looser bound holds on every element.
gen f 1500007 "$WORK/big.f32"
for b in 1e-30 1e-4; do
  "$BIN" codec compress --codec szp --abs $b --dtype f32 "$WORK/big.f32" "$WORK/big.frame" >/dev/null \
    || fail "szp compress of the big array failed"
  "$BIN" codec decompress "$WORK/big.frame" "$WORK/big.out" >/dev/null || fail "szp decompress of the big array failed"
  "$BIN" codec decompress "$WORK/big.frame" /dev/stdout | cmp -s - "$WORK/big.out" \
    || fail "szp decompress to a pipe gave other bytes than to a file"
  "$BIN" codec compare "$WORK/big.f32" "$WORK/big.out" --dtype f32 --frame "$WORK/big.frame" >"$WORK/cmp.txt" \
    || fail "compare of the big array failed"
  [ "$(value_of within_bound "$WORK/cmp.txt")" = yes ] || fail "big szp array not within its bound (--abs $b)"
done
"$BIN" codec compress --codec szp --abs 1e-30 --dtype f32 "$WORK/big.f32" "$WORK/big.frame" >/dev/null
"$BIN" codec decompress "$WORK/big.frame" "$WORK/big.out" >/dev/null
cmp -s "$WORK/big.f32" "$WORK/big.out" || fail "szp pieces of verbatim blocks did not return the input"

# Bad input of every kind.
"$BIN" codec compress --codec raw --dtype f32 "$WORK/in.f32" "$WORK/good.frame" >/dev/null
{ cat "$WORK/in.f32"; printf x; } >"$WORK/odd.bin"
head -c 100 "$WORK/good.frame" >"$WORK/truncated.frame"
cp "$WORK/good.frame" "$WORK/flipped.frame"
printf '\x5a' | dd of="$WORK/flipped.frame" bs=1 seek=200 conv=notrunc status=none
expect_error "missing input" codec compress --codec raw --dtype f32 "$WORK/nope" "$WORK/x"
expect_error "missing frame" codec decompress "$WORK/nope" "$WORK/x"
expect_error "directory as input" codec inspect "$WORK"
expect_error "size not a multiple of the dtype" codec compress --codec raw --dtype f32 "$WORK/odd.bin" "$WORK/x"
expect_error "unknown codec" codec compress --codec no-such-codec --dtype f32 "$WORK/in.f32" "$WORK/x"
expect_error "unknown dtype" codec compress --codec raw --dtype f16 "$WORK/in.f32" "$WORK/x"
expect_error "both bounds" codec compress --codec raw --abs 1e-3 --rel 1e-3 --dtype f32 "$WORK/in.f32" "$WORK/x"
expect_error "negative bound" codec compress --codec raw --abs -1 --dtype f32 "$WORK/in.f32" "$WORK/x"
expect_error "raw array as a frame" codec decompress "$WORK/in.f32" "$WORK/x"
expect_error "truncated frame" codec decompress "$WORK/truncated.frame" "$WORK/x"
expect_error "flipped byte" codec decompress "$WORK/flipped.frame" "$WORK/x"
expect_error "flipped byte (inspect)" codec inspect "$WORK/flipped.frame"
expect_error "compare size mismatch" codec compare "$WORK/in.f32" "$WORK/good.frame" --dtype f32
expect_error "compare integer dtype" codec compare "$WORK/in.f32" "$WORK/in.f32" --dtype i32
expect_error "compare frame of other data" codec compare "$WORK/in.f64" "$WORK/in.f64" --dtype f64 --frame "$WORK/good.frame"
expect_error "unwritable output" codec compress --codec raw --dtype f32 "$WORK/in.f32" "$WORK/no/such/dir/x"
expect_error "missing operands" codec compress --codec raw --dtype f32
expect_error "no subcommand" codec
expect_error "unknown subcommand" codec squash
[ -e "$WORK/x" ] && fail "a failed command left an output file behind"
# A raw frame of no elements whose count now claims 2^28 f64 (2 GiB), its checksum resealed
# as anyone can: refused as unable to hold that count, before the tool allocates for it. Under
# the address-space limit an allocation of that size would fail instead, with another message.
: >"$WORK/empty.f64"
"$BIN" codec compress --codec raw --dtype f64 "$WORK/empty.f64" "$WORK/empty.frame" >/dev/null
python3 - "$WORK/empty.frame" "$WORK/bomb.frame" $((1 << 28)) <<'PY'
import ctypes, struct, sys
xxh = ctypes.CDLL("libxxhash.so.0")
xxh.XXH3_64bits.restype = ctypes.c_uint64
xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
frame = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", frame, 8, int(sys.argv[3]))
sealed = bytes(frame[:48] + frame[56:])
struct.pack_into("<Q", frame, 48, xxh.XXH3_64bits(sealed, len(sealed)))
open(sys.argv[2], "wb").write(frame)
PY
# AddressSanitizer cannot start under an address-space limit; it caps allocations itself.
if [ "$(nm "$BIN" 2>/dev/null | grep -c " __asan_init")" -gt 0 ]; then  # grep -q: SIGPIPE
  cap=(env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=1024:allocator_may_return_null=1")
else
  cap=(bash -c 'ulimit -v 1048576 && exec "$@"' cap)
fi
"${cap[@]}" "$BIN" codec decompress "$WORK/bomb.frame" "$WORK/x" \
  >/dev/null 2>"$WORK/err.txt" && fail "frame claiming 2^28 elements: exit status 0"
grep -q "cannot hold 268435456 f64 elements" "$WORK/err.txt" \
  || fail "the 2^28-element claim was not refused for its size: $(cat "$WORK/err.txt")"
expect_error "frame claiming 2^28 elements (inspect)" codec inspect "$WORK/bomb.frame"

# --shape: szp-e and szp-eh record it (their shaped payloads start with the tag 0x20 and
# 0x21 after the 56-byte header) and keep the bound; a shape that is not the element count is
# refused.
shaped_frame_tag() { od -An -tx1 -j56 -N1 "$1" | tr -d ' '; }
for codec_tag in szp-e:20 szp-eh:21; do
  c=${codec_tag%:*} tag=${codec_tag#*:}
  if "$BIN" codec compress --codec "$c" --rel 1e-3 --dtype f32 --shape 40 25 "$WORK/in.f32" \
       "$WORK/shaped.frame" >/dev/null; then
    [ "$(shaped_frame_tag "$WORK/shaped.frame")" = "$tag" ] || fail "$c --shape wrote no shaped payload"
    "$BIN" codec decompress "$WORK/shaped.frame" "$WORK/shaped.out" || fail "$c shaped frame did not decode"
    "$BIN" codec compare "$WORK/in.f32" "$WORK/shaped.out" --dtype f32 --frame "$WORK/shaped.frame" \
      >"$WORK/cmp.txt" || fail "compare of the $c shaped frame failed"
    [ "$(value_of within_bound "$WORK/cmp.txt")" = yes ] || fail "$c shaped frame not within its bound"
  else
    fail "$c --shape 40 25 failed"
  fi
done
expect_error "shape not the element count" codec compress --codec szp-e --rel 1e-3 --dtype f32 --shape 40 26 "$WORK/in.f32" "$WORK/x"
# --codec auto names its choice and writes that codec's frame.
"$BIN" codec compress --codec auto --rel 1e-3 --dtype f32 "$WORK/in.f32" "$WORK/auto.frame" \
  >"$WORK/auto.txt" || fail "compress --codec auto failed"
grep -q '^auto: szp' "$WORK/auto.txt" || fail "--codec auto did not name its choice: $(cat "$WORK/auto.txt")"
expect_error "auto on integers" codec compress --codec auto --abs 1 --dtype i32 "$WORK/in.f32" "$WORK/x"

if [ -n "$lossy_codec" ]; then
  expect_error "lossy codec without a bound" codec compress --codec "$lossy_codec" --dtype f32 "$WORK/in.f32" "$WORK/x"
fi

finish "cli_test ($(wc -l <"$WORK/codecs.txt") codecs)"
