// Bytes that end exactly at an inaccessible page, so a decoder (or a library it calls, which
// sanitizers do not instrument) that reads or writes one byte too far faults at once.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <span>
#include <stdexcept>

namespace commpress::testing {

class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t bytes) : size_(bytes) {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    map_bytes_ = (bytes + page - 1) / page * page + page;
    void* p = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    base_ = static_cast<std::byte*>(p);
    if (mprotect(base_ + map_bytes_ - page, page, PROT_NONE) != 0)
      throw std::runtime_error("mprotect failed");
    data_ = base_ + map_bytes_ - page - bytes;
  }
  GuardedBuffer(std::span<const std::byte> contents) : GuardedBuffer(contents.size()) {
    if (!contents.empty()) std::memcpy(data_, contents.data(), contents.size());
  }
  ~GuardedBuffer() { munmap(base_, map_bytes_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  std::byte* data() { return data_; }
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  template <class T>
  std::span<T> as() {
    return {reinterpret_cast<T*>(data_), size_ / sizeof(T)};
  }

 private:
  std::byte* base_ = nullptr;
  std::byte* data_ = nullptr;
  size_t size_ = 0, map_bytes_ = 0;
};

}  // namespace commpress::testing
