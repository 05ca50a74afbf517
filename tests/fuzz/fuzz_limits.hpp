// What both fuzz drivers hold the decoders to, whatever count a frame claims: the output a
// caller provides costs memory only where a decoder writes it; a frame inspect() accepts
// claims no more than its payload can hold by any codec's densest coding; and what a decoder
// allocates for itself is capped (by libFuzzer's -malloc_limit_mb under a sanitizer, whose
// shadow memory rules out an address-space limit, and by RLIMIT_AS otherwise). A breach is
// a crash, which libFuzzer reports as a finding.
#pragma once

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "commpress/codec.hpp"

namespace commpress::fuzz {

// The densest coding any codec's check_count_fits allows (Blosc's, 65536 raw bytes per
// payload byte, above zstd's 1:43690), so no frame inspect() accepts claims more.
inline constexpr uint64_t kMostBytesPerPayloadByte = uint64_t{1} << 16;
// Room for the lazily mapped outputs (64 KiB of payload claims at most 4 GiB) and for what a
// decoder may allocate itself, above the address space in use at start.
inline constexpr uint64_t kOutputSpace = uint64_t{4} << 30;
inline constexpr uint64_t kDecoderAllocationCap = uint64_t{256} << 20;

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define COMMPRESS_FUZZ_SANITIZER_SHADOW 1
#endif
#endif

inline void cap_address_space() {
#ifndef COMMPRESS_FUZZ_SANITIZER_SHADOW
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  const uint64_t in_use = pages * uint64_t(sysconf(_SC_PAGESIZE));
  const rlimit cap{in_use + kOutputSpace + kDecoderAllocationCap,
                   in_use + kOutputSpace + kDecoderAllocationCap};
  if (setrlimit(RLIMIT_AS, &cap) != 0) std::perror("fuzz: setrlimit(RLIMIT_AS)");
#endif
}

// Aborts when inspect() accepted a count the frame's payload cannot hold.
inline void check_claim(const codec::FrameInfo& info) {
  const uint64_t bytes = info.count * codec::dtype_size(info.dtype);
  if (bytes / kMostBytesPerPayloadByte <= info.payload_size) return;
  std::fprintf(stderr, "fuzz: inspect accepted %llu elements (%llu bytes) from a %llu-byte payload\n",
               static_cast<unsigned long long>(info.count), static_cast<unsigned long long>(bytes),
               static_cast<unsigned long long>(info.payload_size));
  std::abort();
}

// The decoder's destination: mapped without reserving memory, so a count that was checked
// against the payload costs only what is written.
class LazyOutput {
 public:
  explicit LazyOutput(uint64_t bytes) : bytes_(bytes) {
    if (bytes_ == 0) return;
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : p;
  }
  ~LazyOutput() {
    if (data_) munmap(data_, bytes_);
  }
  LazyOutput(const LazyOutput&) = delete;
  LazyOutput& operator=(const LazyOutput&) = delete;

  // Null only when the address space ran out: a legitimate output beyond kOutputSpace.
  bool ok() const { return bytes_ == 0 || data_ != nullptr; }
  void* data() { return data_; }

 private:
  uint64_t bytes_ = 0;
  void* data_ = nullptr;
};

}  // namespace commpress::fuzz
