#include "comm/session/codec_threads.hpp"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "comm/session/environment.hpp"

namespace commpress::comm::detail {

int thread_share(bool omp_num_threads_set, int local_ranks, long allowed_cores, long online_cores) {
  if (omp_num_threads_set || local_ranks <= 1 || allowed_cores <= 0) return 0;
  // A process bound to fewer cores than the node has was placed by its launcher, and OpenMP
  // already sizes its team to that binding.
  if (allowed_cores < online_cores) return 0;
  return int(std::max(1L, allowed_cores / local_ranks));
}

int codec_thread_share() {
  static const int share = [] {
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return 0;
    return thread_share(std::getenv("OMP_NUM_THREADS") != nullptr, environment().local_ranks,
                        CPU_COUNT(&mask), sysconf(_SC_NPROCESSORS_ONLN));
  }();
  return share;
}

CodecThreads::CodecThreads() : CodecThreads(codec_thread_share()) {}

CodecThreads::CodecThreads(int cap) {
  if (cap <= 0) return;
  const int current = omp_get_max_threads();
  if (current <= cap) return;
  omp_set_num_threads(cap);
  restore_ = current;
}

CodecThreads::~CodecThreads() {
  if (restore_ > 0) omp_set_num_threads(restore_);
}

}  // namespace commpress::comm::detail
