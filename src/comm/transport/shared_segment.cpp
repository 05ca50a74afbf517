#include "comm/transport/shared_segment.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "comm/session/private_comm.hpp"

#ifdef COMMPRESS_SMPI
#include <smpi/smpi_helpers_internal.h>  // smpi_usleep
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define COMMPRESS_CPU_RELAX() _mm_pause()
#else
#define COMMPRESS_CPU_RELAX() ((void)0)
#endif

namespace commpress::comm::detail {

namespace {

int delete_segment(MPI_Comm, int, void* attr, void*) {
  delete static_cast<SharedSegment*>(attr);
  return MPI_SUCCESS;
}

int keyval(SegmentUse use) {
  static const std::array<int, 3> keys = [] {
    std::array<int, 3> k{MPI_KEYVAL_INVALID, MPI_KEYVAL_INVALID, MPI_KEYVAL_INVALID};
    for (int& key : k) MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_segment, &key, nullptr);
    return k;
  }();
  return keys[size_t(use)];
}

std::atomic<int> g_fail_next{0};

// Lets the other ranks run while this one waits for a flag. Under SimGrid's SMPI the ranks
// take turns on one thread of this process, and only an MPI call or a simulated sleep hands
// the turn on: sched_yield kept the turn, and the first rank to wait spun forever (the
// zero-configuration probe's SharedWindow measurement hung so). One simulated microsecond a
// turn: the wait's simulated time then ends within a microsecond of the mark it waited for.
void yield_turn() {
#ifdef COMMPRESS_SMPI
  smpi_usleep(1);
#else
  sched_yield();
#endif
}

int take_injected_failure() {
  return g_fail_next.exchange(0);
}

// Segments grow in steps of 2 MiB (a huge page), so nearby sizes share one.
constexpr size_t kGrain = size_t{2} << 20;
constexpr size_t kLine = 64, kPage = 4096;

struct Created {
  char name[64] = {};
  int error = 0;  // errno of the creating rank's failure
};

// Rank 0's part: a new, uniquely named object with its pages reserved.
Created create(size_t bytes) {
  static std::atomic<unsigned> serial{0};
  Created c;
  if ((c.error = take_injected_failure())) return c;
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::snprintf(c.name, sizeof c.name, "/commpress-%ld-%u", long(getpid()), serial++);
    const int fd = shm_open(c.name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) {
      c.error = errno;
      return c;
    }
    c.error = posix_fallocate(fd, 0, off_t(bytes));
    close(fd);
    if (c.error) shm_unlink(c.name);
    return c;
  }
  c.error = EEXIST;
  return c;
}

}  // namespace

SharedSegment::~SharedSegment() {
  unmap();
}

void SharedSegment::unmap() {
  if (base_) munmap(base_, mapped_);
  base_ = data_ = nullptr;
  mapped_ = size_ = 0;
  round_ = 0;
}

uint64_t* SharedSegment::flag(int line) const {
  return reinterpret_cast<uint64_t*>(base_ + size_t(line) * kLine);
}

void SharedSegment::mark(int line) {
  std::atomic_ref<uint64_t>(*flag(line)).store(round_, std::memory_order_release);
}

void SharedSegment::wait(int line) const {
  std::atomic_ref<uint64_t> f(*flag(line));
  for (int spins = 0; f.load(std::memory_order_acquire) < round_; ++spins) {
    if (spins < 64)
      COMMPRESS_CPU_RELAX();
    else
      yield_turn();
  }
}

Status SharedSegment::map(MPI_Comm comm, size_t bytes) {
  int rank = 0, p = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &p));
  const size_t flags = (size_t(p) * kMarkLines * kLine + kPage - 1) / kPage * kPage;
  const size_t data_bytes = bytes;
  bytes += flags;
  Created c;
  if (rank == 0) c = create(bytes);
  COMMPRESS_MPI(MPI_Bcast(&c, int(sizeof c), MPI_BYTE, 0, comm));
  if (c.error)
    return {ErrorCode::io, "shared_window: could not reserve " + std::to_string(bytes >> 20) +
                               " MiB of shared memory: " + std::strerror(c.error)};
  int error = take_injected_failure();
  void* ptr = MAP_FAILED;
  const int fd = error ? -1 : shm_open(c.name, O_RDWR, 0);
  if (fd >= 0) {
    ptr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ptr == MAP_FAILED) error = errno;
    close(fd);
  } else if (!error) {
    error = errno;
  }
  int worst = error;
  // Every rank has it mapped (or failed) before the name goes: the mappings keep it alive.
  COMMPRESS_MPI(MPI_Allreduce(&error, &worst, 1, MPI_INT, MPI_MAX, comm));
  if (rank == 0) shm_unlink(c.name);
  if (worst) {
    if (ptr != MAP_FAILED) munmap(ptr, bytes);
    return {ErrorCode::io, "shared_window: could not map the shared memory on every rank: " +
                               std::string(std::strerror(worst))};
  }
  base_ = static_cast<std::byte*>(ptr);
  mapped_ = bytes;
  data_ = base_ + flags;
  size_ = data_bytes;
  return {};
}

SharedSegment* SharedSegment::find(MPI_Comm comm, SegmentUse use) {
  void* attr = nullptr;
  int found = 0;
  if (MPI_Comm_get_attr(comm, keyval(use), &attr, &found) != MPI_SUCCESS || !found) return nullptr;
  auto* s = static_cast<SharedSegment*>(attr);
  return s->data_ ? s : nullptr;
}

Result<SharedSegment*> SharedSegment::of(MPI_Comm comm, SegmentUse use, size_t bytes) {
  void* attr = nullptr;
  int found = 0;
  COMMPRESS_MPI(MPI_Comm_get_attr(comm, keyval(use), &attr, &found));
  auto* s = found ? static_cast<SharedSegment*>(attr) : new SharedSegment;
  if (!found) {
    if (const int rc = MPI_Comm_set_attr(comm, keyval(use), s); rc != MPI_SUCCESS) {
      delete s;
      return mpi_status(rc, "MPI_Comm_set_attr");
    }
  }
  if (s->size_ >= bytes && s->data_) {
    s->next_round();
    return s;
  }
  // Every rank sees the same size here (the sizes asked for are agreed), so all grow.
  s->unmap();
  COMMPRESS_RETURN_IF_ERROR(
      s->map(comm, (std::max(bytes, size_t{1}) + kGrain - 1) / kGrain * kGrain));
  s->next_round();
  return s;
}

void fail_next_segment_for_testing(int error) {
  g_fail_next = error;
}

void segment_fence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace commpress::comm::detail
