// How many OpenMP threads codec work may use inside one operation. OpenMP gives every
// process a thread per core it may run on, so with several unbound ranks on a node each
// rank's codec passes ask for all the node's cores at once, and libgomp's spinning waits
// turn a sub-millisecond pass into many milliseconds (docs/measured-choices.md). Unless
// OMP_NUM_THREADS says otherwise,
// an operation runs its codec work on this rank's share of the cores.
#pragma once

namespace commpress::comm::detail {

// The share: cores this process may run on / ranks of the job on this node, at least 1;
// 0 = leave OpenMP alone (OMP_NUM_THREADS set, one rank per node, the process bound to
// fewer cores than are online, or the launcher does not say how many share the node).
int thread_share(bool omp_num_threads_set, int local_ranks, long allowed_cores, long online_cores);
// This process's, read once.
int codec_thread_share();

// Caps OpenMP's thread count for its lifetime, restoring the caller's after.
class CodecThreads {
 public:
  // To the rank's share (codec_thread_share()); no cap where that is 0.
  CodecThreads();
  // To at most cap threads (cap <= 0: no cap).
  explicit CodecThreads(int cap);
  ~CodecThreads();
  CodecThreads(const CodecThreads&) = delete;
  CodecThreads& operator=(const CodecThreads&) = delete;

 private:
  int restore_ = 0;  // 0: nothing was changed
};

}  // namespace commpress::comm::detail
