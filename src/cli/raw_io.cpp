#include "cli/raw_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace commpress::cli {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

Status io_error(const std::string& what, const std::string& path) {
  return {ErrorCode::io, what + " '" + path + "': " + std::strerror(errno)};
}

// The mode a file created by open(path, O_CREAT, 0666) would get: the one it replaces
// keeps its own.
mode_t mode_for(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) return st.st_mode & 07777;
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

Status write_all(int fd, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return {ErrorCode::io, std::strerror(n < 0 ? errno : EIO)};
    bytes = bytes.subspan(size_t(n));
  }
  return {};
}

}  // namespace

Result<std::vector<std::byte>> read_file(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return io_error("cannot open", path);
  struct stat st {};
  if (fstat(fileno(f.get()), &st) != 0) return io_error("cannot stat", path);
  // A directory opens for reading but has no bytes to give.
  if (!S_ISREG(st.st_mode))
    return Status{ErrorCode::io, "'" + path + "' is not a regular file"};
  std::vector<std::byte> bytes(static_cast<size_t>(st.st_size));
  if (!bytes.empty() && std::fread(bytes.data(), 1, bytes.size(), f.get()) != bytes.size())
    return io_error("cannot read", path);
  return bytes;
}

namespace {

// A destination that is not a regular file (/dev/stdout, a FIFO) takes the bytes as they
// come: there is no file to keep, and renaming over it would replace the device node.
bool writes_directly(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

template <class Write>
Status write_directly(const std::string& path, const Write& write) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) return io_error("cannot open", path);
  Status st = write(fd);
  if (::close(fd) != 0 && st.ok()) st = {ErrorCode::io, std::strerror(errno)};
  return st.ok() ? st : Status{ErrorCode::io, "cannot write '" + path + "': " + st.message()};
}

// A file is written beside the destination (through a link, beside the file it names: a
// rename within one file system is atomic), then renamed over it: a failure at any point
// leaves no partial file and the destination as it was. `write` fills the open temporary.
template <class Write>
Status replace_file(const std::string& path, bool sync, const Write& write) {
  std::string target = path;
  if (char* real = realpath(path.c_str(), nullptr)) {
    target = real;
    std::free(real);
  }
  const auto slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string tmp = dir + "." + base + ".tmp-XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) return io_error("cannot create a temporary file beside", path);
  Status st = write(fd);
  if (st.ok() && fchmod(fd, mode_for(target)) != 0) st = {ErrorCode::io, std::strerror(errno)};
  if (st.ok() && sync && fsync(fd) != 0) st = {ErrorCode::io, std::strerror(errno)};
  if (::close(fd) != 0 && st.ok()) st = {ErrorCode::io, std::strerror(errno)};
  if (st.ok() && std::rename(tmp.c_str(), target.c_str()) != 0)
    st = {ErrorCode::io, std::strerror(errno)};
  if (st.ok()) return {};
  ::unlink(tmp.c_str());
  return {ErrorCode::io, "cannot write '" + path + "': " + st.message()};
}

}  // namespace

Status write_file(const std::string& path, std::span<const std::byte> bytes, bool sync) {
  auto write = [&](int fd) { return write_all(fd, bytes); };
  return writes_directly(path) ? write_directly(path, write) : replace_file(path, sync, write);
}

namespace {

// Writes pieces on a thread of its own, one at a time, so that a piece is written while its
// producer makes the next (in other memory). Where no thread can start, put() writes itself.
class PieceWriter {
 public:
  explicit PieceWriter(int fd) : fd_(fd) {
    try {
      thread_ = std::thread([this] { run(); });
    } catch (const std::system_error&) {
    }
  }
  PieceWriter(const PieceWriter&) = delete;
  PieceWriter& operator=(const PieceWriter&) = delete;
  ~PieceWriter() { (void)finish(); }

  // Waits until the piece before is written, then hands this one over; a write error stops
  // the writing and is returned here from then on, and by finish().
  Status put(std::span<const std::byte> piece) {
    if (!thread_.joinable()) return error_.ok() ? error_ = write_all(fd_, piece) : error_;
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return !busy_; });
    if (!error_.ok()) return error_;
    piece_ = piece;
    busy_ = true;
    work_.notify_one();
    return {};
  }

  // Waits for the last piece; the first write error, if any.
  Status finish() {
    if (thread_.joinable()) {
      {
        std::unique_lock lock(mutex_);
        idle_.wait(lock, [&] { return !busy_; });
        done_ = true;
      }
      work_.notify_one();
      thread_.join();
    }
    return error_;
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      work_.wait(lock, [&] { return busy_ || done_; });
      if (!busy_) return;
      const auto piece = piece_;
      lock.unlock();
      Status st = write_all(fd_, piece);
      lock.lock();
      if (error_.ok()) error_ = st;
      busy_ = false;
      idle_.notify_one();
    }
  }

  const int fd_;
  std::mutex mutex_;
  std::condition_variable work_, idle_;
  std::span<const std::byte> piece_;
  bool busy_ = false, done_ = false;
  Status error_;
  std::thread thread_;
};

}  // namespace

Status write_file_streamed(const std::string& path, const Produce& produce, bool sync) {
  Status produced;  // the producer's own error, passed on as it is
  auto write = [&](int fd) -> Status {
    PieceWriter writer(fd);
    produced = produce([&](std::span<const std::byte> piece) { return writer.put(piece); });
    if (Status written = writer.finish(); !written.ok()) {  // the file's: the caller names it
      produced = {};
      return written;
    }
    return produced.ok() ? Status{} : Status{ErrorCode::io, "not written"};
  };
  Status st = writes_directly(path) ? write_directly(path, write) : replace_file(path, sync, write);
  return produced.ok() ? st : produced;
}

Status write_file_in_place(const std::string& path, size_t size, const Fill& fill, bool sync) {
  if (writes_directly(path)) {
    auto buf = PageBuffer::allocate(size, "the output");
    if (!buf.ok()) return buf.status();
    COMMPRESS_RETURN_IF_ERROR(fill(buf->bytes()));
    return write_directly(path, [&](int fd) { return write_all(fd, buf->bytes()); });
  }
  Status filled;  // the producer's own error, passed on as it is
  Status st = replace_file(path, sync, [&](int fd) -> Status {
    if (size == 0) return filled = fill({});
    // Reserve the blocks first: a full file system or a size limit is an error here, where
    // a store into a mapping beyond them would be a SIGBUS.
    if (const int e = posix_fallocate(fd, 0, off_t(size)); e != 0)
      return {ErrorCode::io, std::strerror(e)};
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return {ErrorCode::io, std::strerror(errno)};
#ifdef MADV_POPULATE_WRITE
    // Each page faulted in once, writable (MAP_POPULATE maps a shared file's pages for
    // reading, and every first store then faults again to dirty it). Older kernels refuse
    // the advice; the stores then fault as they come.
    madvise(p, size, MADV_POPULATE_WRITE);
#endif
    filled = fill({static_cast<std::byte*>(p), size});
    munmap(p, size);
    return filled.ok() ? Status{} : Status{ErrorCode::io, "not written"};
  });
  return filled.ok() ? st : filled;
}

Status check_array_size(const std::string& path, size_t bytes, codec::Dtype d) {
  const size_t elem = codec::dtype_size(d);
  if (bytes % elem == 0) return {};
  return {ErrorCode::invalid_argument, "'" + path + "' holds " + std::to_string(bytes) +
                                           " bytes, not a multiple of the " +
                                           std::to_string(elem) + "-byte " +
                                           codec::dtype_name(d) + " element size"};
}

Result<std::vector<std::byte>> read_array(const std::string& path, codec::Dtype d) {
  auto bytes = read_file(path);
  if (!bytes.ok()) return bytes;
  COMMPRESS_RETURN_IF_ERROR(check_array_size(path, bytes->size(), d));
  return bytes;
}

Result<MappedFile> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open", path);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    Status e = io_error("cannot stat", path);
    ::close(fd);
    return e;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status{ErrorCode::io, "'" + path + "' is not a regular file"};
  }
  const size_t size = size_t(st.st_size);
  void* p = nullptr;
  if (size > 0) {
    p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
      Status e = io_error("cannot map", path);
      ::close(fd);
      return e;
    }
  }
  ::close(fd);  // the mapping keeps the file
  return MappedFile(p, size);
}

MappedFile::~MappedFile() {
  if (data_) munmap(data_, size_);
}

Result<PageBuffer> PageBuffer::allocate(size_t bytes, const std::string& what) {
  if (bytes == 0) return PageBuffer(nullptr, 0);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return Status{ErrorCode::capacity, "no room for the " + std::to_string(bytes) + " bytes of " +
                                           what + ": " + std::strerror(errno)};
  return PageBuffer(p, bytes);
}

PageBuffer::~PageBuffer() {
  if (data_) munmap(data_, size_);
}

}  // namespace commpress::cli
