#!/usr/bin/env bash
# Installs the build into a fresh prefix and builds three programs of users against it, out of
# tree: a C++ MPI program through find_package(commpress), a C MPI program through pkg-config,
# and a codec-only C++ program through find_package(commpress COMPONENTS codec) whose binary
# must not link libmpi. Runs each (the MPI ones on 2 ranks).
# Usage: run.sh BUILD_DIR WORK_DIR MPIEXEC
set -uo pipefail
BUILD="$1"
WORK="$2"
MPIEXEC="$3"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../cli/test_lib.sh" "" "$WORK"
PREFIX="$WORK/prefix"
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
mpi2() { OMP_NUM_THREADS=1 timeout 120 "$MPIEXEC" "${root_flag[@]}" -np 2 --oversubscribe "$@"; }

cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" 2>&1 || fail "cmake --install: $(tail -3 "$WORK/install.log")"

for project in codec_only cxx_package; do
  if ! { cmake -S "$HERE/$project" -B "$WORK/$project" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release &&
         cmake --build "$WORK/$project"; } >"$WORK/$project.log" 2>&1; then
    fail "$project did not build: $(tail -5 "$WORK/$project.log")"
  fi
done
"$WORK/codec_only/codec_only" || fail "codec_only failed"
if ldd "$WORK/codec_only/codec_only" | grep -q "libmpi"; then
  fail "codec_only links MPI: $(ldd "$WORK/codec_only/codec_only" | grep libmpi)"
fi
mpi2 "$WORK/cxx_package/cxx_package" || fail "cxx_package failed"

export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig:$PREFIX/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
if flags=$(pkg-config --cflags --libs commpress) &&
   cc -std=c11 -O2 -o "$WORK/c_pkgconfig" "$HERE/c_pkgconfig/main.c" $flags -lm \
      -Wl,-rpath,"$(pkg-config --variable=libdir commpress)" >"$WORK/c_pkgconfig.log" 2>&1; then
  mpi2 "$WORK/c_pkgconfig" || fail "c_pkgconfig failed"
else
  fail "c_pkgconfig did not build: $(cat "$WORK/c_pkgconfig.log")"
fi
[ "$(pkg-config --modversion commpress-codec)" = "$(pkg-config --modversion commpress)" ] ||
  fail "the two pkg-config files disagree on the version"

finish consumers
