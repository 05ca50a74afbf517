#!/usr/bin/env bash
# The library configured without the distributed multiply (COMMPRESS_ENABLE_GEMM=OFF), as a
# user without ScaLAPACK builds it: it configures, builds and installs; libcommpress needs
# neither OpenBLAS nor ScaLAPACK; the multiply's headers are not installed and config.h says
# so; the pkg-config C consumer (collectives and codecs only) builds against it and runs.
# Usage: without_gemm.sh SOURCE_DIR WORK_DIR MPIEXEC [BUILD_DIR (default WORK_DIR/build)]
set -uo pipefail
SRC="$1"
WORK="$2"
MPIEXEC="$3"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../cli/test_lib.sh" "" "$WORK"
BUILD="${4:-$WORK/build}"
PREFIX="$WORK/prefix"
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)

gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if ! { cmake -S "$SRC" -B "$BUILD" "${gen[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
         -DCOMMPRESS_ENABLE_GEMM=OFF -DCOMMPRESS_ENABLE_TESTS=OFF -DCOMMPRESS_ENABLE_BENCH=OFF \
         -DCOMMPRESS_ENABLE_APPS=OFF \
         -DCOMMPRESS_HWCAPS= &&
       cmake --build "$BUILD" -j "$(nproc)" &&
       cmake --install "$BUILD" --prefix "$PREFIX"; } >"$WORK/build.log" 2>&1; then
  fail "the build without the multiply failed: $(grep -m5 -E 'error|Error' "$WORK/build.log")"
  finish without_gemm
fi
lib=$(find "$PREFIX" -name 'libcommpress.so.*' -type f | head -1)
[ -n "$lib" ] || fail "no libcommpress.so installed"
if readelf -d "$lib" | grep -E "NEEDED.*(openblas|blas|lapack|scalapack)"; then
  fail "libcommpress needs a BLAS or ScaLAPACK library without the multiply"
fi
inc=$(find "$PREFIX" -path '*/include/commpress' -type d | head -1)
for h in linalg.hpp scalapack_matrix.hpp blas_info.hpp scalapack.h; do
  [ ! -e "$inc/$h" ] || fail "$h is installed without the multiply"
done
grep -q "define COMMPRESS_HAVE_GEMM 0" "$inc/config.h" || fail "config.h does not say the multiply is absent"
"$PREFIX/bin/commpress" --help >"$WORK/help.txt" 2>&1 || fail "commpress --help failed"
grep -q "blas" "$WORK/help.txt" && fail "the tool offers \`commpress blas\` without the multiply"

export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig:$PREFIX/lib/x86_64-linux-gnu/pkgconfig"
if flags=$(pkg-config --cflags --libs commpress) &&
   cc -std=c11 -O2 -o "$WORK/c_pkgconfig" "$HERE/c_pkgconfig/main.c" $flags -lm \
      -Wl,-rpath,"$(pkg-config --variable=libdir commpress)" >"$WORK/c_pkgconfig.log" 2>&1; then
  OMP_NUM_THREADS=1 timeout 120 "$MPIEXEC" "${root_flag[@]}" -np 2 --oversubscribe \
    "$WORK/c_pkgconfig" || fail "c_pkgconfig failed without the multiply"
else
  fail "c_pkgconfig did not build without the multiply: $(cat "$WORK/c_pkgconfig.log")"
fi

finish without_gemm
