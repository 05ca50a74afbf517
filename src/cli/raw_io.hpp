// Whole-file reads and writes with errors that name the file and the reason. A write
// replaces its destination only once it has fully succeeded. The codec commands read through
// MappedFile and code into PageBuffer or, decoding, a piece at a time into write(): no copy
// of the input and no output buffer filled with zeros by the program before the codec
// fills it.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "commpress/codec.hpp"

namespace commpress::cli {

Result<std::vector<std::byte>> read_file(const std::string& path);

// A regular file mapped read-only, its page-cache pages mapped up front (one fault-free pass
// for the codec). Empty files give an empty span.
class MappedFile {
 public:
  static Result<MappedFile> open(const std::string& path);
  MappedFile(MappedFile&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr; }
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  ~MappedFile();
  std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(data_), size_}; }

 private:
  MappedFile(void* data, size_t size) : data_(data), size_(size) {}
  void* data_ = nullptr;
  size_t size_ = 0;
};

// Output memory the kernel hands out on first touch: pages the codec never writes (a frame's
// unused worst case) cost nothing, and none is cleared by the program first.
class PageBuffer {
 public:
  static Result<PageBuffer> allocate(size_t bytes, const std::string& what);
  PageBuffer(PageBuffer&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr; }
  PageBuffer& operator=(PageBuffer&&) = delete;
  PageBuffer(const PageBuffer&) = delete;
  ~PageBuffer();
  std::span<std::byte> bytes() { return {static_cast<std::byte*>(data_), size_}; }

 private:
  PageBuffer(void* data, size_t size) : data_(data), size_(size) {}
  void* data_ = nullptr;
  size_t size_ = 0;
};

// Writes bytes to path. sync makes them durable (fsync) before they replace the destination;
// without it the replacement is still atomic for every reader, as with cp.
Status write_file(const std::string& path, std::span<const std::byte> bytes, bool sync = true);

// The same for `size` bytes that fill() produces straight into the output's page cache
// (the temporary file mapped), so nothing is copied or cleared by the program first. A
// fill() error is returned as it is, and nothing is left behind.
using Fill = std::function<Status(std::span<std::byte>)>;
Status write_file_in_place(const std::string& path, size_t size, const Fill& fill, bool sync);

// The same for bytes produced a piece at a time: produce(sink) hands sink each piece in
// order, and each is written as it comes (to a pipe too), by a thread of its own while the
// next is produced, so the tool holds two pieces whatever the size. A piece's bytes must
// stay as they are until sink returns from the next. A produce() error is returned as it
// is, and nothing is left behind.
using Produce = std::function<Status(const codec::PieceSink&)>;
Status write_file_streamed(const std::string& path, const Produce& produce, bool sync);

// Reads a raw little-endian array of dtype d; its size must be a whole number of elements.
Result<std::vector<std::byte>> read_array(const std::string& path, codec::Dtype d);
// The same check on a mapped file.
Status check_array_size(const std::string& path, size_t bytes, codec::Dtype d);

}  // namespace commpress::cli
