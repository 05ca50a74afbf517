// Buffers sized to a worst case before MPI or a codec writes them: a receive posted for the
// largest frame that may arrive, a block encoded chunk by chunk into its capacity.
// std::vector<std::byte> value-initialises, so resizing one zeroes, and faults in, every page
// of a capacity that a compressed message mostly leaves untouched (a 4-rank allgather of
// 64 MiB zeroed 192 MiB per rank per call for 6 MiB of frames). Buffer leaves new bytes
// uninitialised; only what is written is ever read, and takes large storage from the
// thread's buffer cache (buffer_cache.hpp), so a loop of calls reuses pages already mapped.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "comm/transport/buffer_cache.hpp"

namespace commpress::comm::detail {

template <class T>
struct BufferAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = BufferAllocator<U>;
  };
  BufferAllocator() = default;
  template <class U>
  BufferAllocator(const BufferAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n * sizeof(T) < kCachedFrom) return std::allocator<T>::allocate(n);
    if (n > size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    void* p = take_cached_bytes(n * sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kCachedFrom)
      std::allocator<T>::deallocate(p, n);
    else
      release_cached_bytes(p, n * sizeof(T));
  }

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using Buffer = std::vector<std::byte, BufferAllocator<std::byte>>;

}  // namespace commpress::comm::detail
