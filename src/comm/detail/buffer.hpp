// Buffers sized to a worst case before MPI or a codec writes them: a receive posted for the
// largest frame that may arrive, a block encoded chunk by chunk into its capacity.
// std::vector<std::byte> value-initialises, so resizing one zeroes, and faults in, every page
// of a capacity that a compressed message mostly leaves untouched (a 4-rank allgather of
// 64 MiB zeroed 192 MiB per rank per call for 6 MiB of frames). Buffer leaves new bytes
// uninitialised; only what is written is ever read.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace commpress::comm::detail {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using Buffer = std::vector<std::byte, DefaultInitAllocator<std::byte>>;

}  // namespace commpress::comm::detail
