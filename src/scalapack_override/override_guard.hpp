// What the p?gemm_, p?trsm_ and p?potrf_ overrides share: ScaLAPACK's own routine (the next
// definition after this library), and the guard marking that this thread runs commpress, so
// that a ScaLAPACK routine commpress calls by name reaches ScaLAPACK's and the MPI preload
// (when loaded too) leaves commpress's own traffic alone.
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace commpress_override {

// > 0 while this thread runs commpress.
extern thread_local int inside;

class Inside {
 public:
  Inside();
  ~Inside();
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

// ScaLAPACK's definition of `name` (the next after this library); aborts without one. Looked
// up once per signature: each routine overridden here has a signature of its own.
template <class Fn>
Fn next(const char* name) {
  static const Fn f = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  if (f == nullptr) {
    std::fprintf(stderr, "commpress_scalapack: no %s after this library (link ScaLAPACK)\n", name);
    std::abort();
  }
  return f;
}

}  // namespace commpress_override
