#!/usr/bin/env bash
# The tool on a full file system: `codec compress` and `codec decompress` fail with a non-zero
# status and one error line, leave no file of their own behind, and keep an older file at the
# destination as it was. "Full" is a small tmpfs in a private mount namespace where this user
# may make one, and a file-size limit (ulimit -f) always.
# Usage: full_disk_test.sh PATH_TO_COMMPRESS WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
mkdir -p "$WORK/full"

# 256 KiB of f32 that compresses poorly, and its raw frame: both far larger than the room left.
head -c 262144 /dev/urandom >"$WORK/in.f32"
"$BIN" codec compress --codec raw --dtype f32 "$WORK/in.f32" "$WORK/in.frame" >/dev/null \
  || fail "compress to a roomy directory failed"
# szp's decoder writes its output a piece at a time (the others' is mapped whole).
"$BIN" codec compress --codec szp --abs 1e-3 --dtype f32 "$WORK/in.f32" "$WORK/in.szp" >/dev/null \
  || fail "szp compress to a roomy directory failed"
echo "an older file" >"$WORK/old.txt"

# check_full MODE DIR RUNNER...: every writing command, run through RUNNER into DIR.
check_full() {
  local mode=$1 dir=$2
  shift 2
  local runner=("$@")
  for cmd in compress decompress decompress-szp; do
    local args
    case $cmd in
      compress) args=(codec compress --codec raw --dtype f32 "$WORK/in.f32") ;;
      decompress) args=(codec decompress "$WORK/in.frame") ;;
      decompress-szp) args=(codec decompress "$WORK/in.szp") ;;
    esac
    for dest in kept new; do
      rm -f "$dir"/* "$dir"/.[!.]* 2>/dev/null
      [ $dest = kept ] && cp "$WORK/old.txt" "$dir/out"
      "${runner[@]}" "$BIN" "${args[@]}" "$dir/out" >"$WORK/out.txt" 2>"$WORK/err.txt"
      local rc=$?
      local what="$mode $cmd over a $dest destination"
      [ $rc -ne 0 ] || fail "$what: exit status 0"
      if [ "$(wc -l <"$WORK/err.txt")" -ne 1 ] || ! grep -q '^commpress: error: ' "$WORK/err.txt"; then
        fail "$what: expected one 'commpress: error:' line, got: $(cat "$WORK/err.txt")"
      fi
      if [ $dest = kept ]; then
        cmp -s "$WORK/old.txt" "$dir/out" || fail "$what: the older file changed"
        [ "$(ls -A "$dir")" = out ] || fail "$what: left behind: $(ls -A "$dir" | tr '\n' ' ')"
      else
        [ -z "$(ls -A "$dir")" ] || fail "$what: left behind: $(ls -A "$dir" | tr '\n' ' ')"
      fi
    done
  done
}

# 64 KiB of data at most per file, in a subshell so the limit stays there; the tool itself
# must survive SIGXFSZ (it is not ignored here).
limited() { (ulimit -f 64 && exec "$@"); }
check_full "ulimit -f" "$WORK/full" limited

# The real thing where permitted: the same checks, run again inside a namespace whose
# $WORK/full is a 64 KiB tmpfs.
if unshare -m true 2>/dev/null; then
  export -f check_full fail
  export BIN WORK
  unshare -m bash -c '
    failures=0
    mount -t tmpfs -o size=64k tmpfs "$WORK/full" || exit 77
    check_full tmpfs "$WORK/full" env
    exit $((failures > 0))' || { [ $? -eq 77 ] || fail "tmpfs: see above"; }
else
  echo "full_disk_test: no private mount namespace here; tmpfs case skipped"
fi

# The tool still writes where there is room (so the failures above are the limits').
"$BIN" codec compress --codec raw --dtype f32 "$WORK/in.f32" "$WORK/out.frame" >/dev/null \
  && cmp -s "$WORK/in.frame" "$WORK/out.frame" || fail "compress with room did not write the frame"

finish full_disk_test
