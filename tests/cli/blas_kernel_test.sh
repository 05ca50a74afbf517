#!/usr/bin/env bash
# `commpress blas`: names the library, version and kernel with a dgemm rate; a generic kernel
# (forced with OPENBLAS_CORETYPE=Prescott) on a CPU with AVX2 or AVX-512 is flagged with its
# remedy, and --coretype prints exactly that remedy, which then runs a kernel that is no
# fallback; bad options fail with one error line.
# Usage: blas_kernel_test.sh PATH_TO_COMMPRESS
set -uo pipefail
BIN="$1"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

out="$("$BIN" blas --n 128 --reps 1)" || fail "blas: exit status $?"
grep -Eq '^BLAS: OpenBLAS [0-9]+\.[0-9]+\.[0-9]+, kernel [A-Za-z0-9]+, [0-9]+ thread' <<< "$out" ||
  fail "blas: no library/version/kernel line in: $out"
grep -Eq '^dgemm 128\^3: [0-9.]+ GFLOP/s' <<< "$out" || fail "blas: no dgemm rate in: $out"

isa=""
grep -qw avx2 /proc/cpuinfo && isa=avx2
grep -qw avx512f /proc/cpuinfo && isa=avx512f
forced="$(OPENBLAS_CORETYPE=Prescott "$BIN" blas --n 64 --reps 1)"
remedy="$(OPENBLAS_CORETYPE=Prescott "$BIN" blas --coretype)"
if [ -n "$isa" ]; then
  grep -q 'kernel Prescott' <<< "$forced" || fail "OPENBLAS_CORETYPE=Prescott not obeyed: $forced"
  grep -q 'FALLBACK' <<< "$forced" || fail "the generic kernel on $isa is not flagged: $forced"
  want=$([ "$isa" = avx512f ] && echo SkylakeX || echo Haswell)
  [ "$remedy" = "$want" ] || fail "--coretype on Prescott with $isa: '$remedy', expected $want"
  fixed="$(OPENBLAS_CORETYPE="$remedy" "$BIN" blas --n 64 --reps 1)"
  grep -q "kernel $want" <<< "$fixed" && ! grep -q FALLBACK <<< "$fixed" ||
    fail "the remedy did not select $want: $fixed"
  [ -z "$(OPENBLAS_CORETYPE="$remedy" "$BIN" blas --coretype)" ] ||
    fail "--coretype asks for a remedy on the remedied kernel"
else
  [ -z "$remedy" ] || fail "--coretype names '$remedy' on a CPU without AVX2"
fi

err="$("$BIN" blas --n 0 2>&1 >/dev/null)" && fail "blas --n 0: exit status 0"
[ "$(grep -c '^commpress: error: ' <<< "$err")" = 1 ] || fail "blas --n 0: stderr was: $err"

[ $failures -eq 0 ] || { echo "blas_kernel_test: $failures failure(s)" >&2; exit 1; }
echo "blas_kernel_test: ok"
