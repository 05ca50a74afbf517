#include "cli/raw_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fcntl.h>
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

Status write_file(const std::string& path, std::span<const std::byte> bytes) {
  // A device or a pipe (/dev/stdout, a FIFO) takes the bytes as they come: there is no file
  // to keep, and renaming over it would replace the device node.
  struct stat st_dest {};
  if (stat(path.c_str(), &st_dest) == 0 && !S_ISREG(st_dest.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY);
    if (fd < 0) return io_error("cannot open", path);
    Status st = write_all(fd, bytes);
    if (::close(fd) != 0 && st.ok()) st = {ErrorCode::io, std::strerror(errno)};
    return st.ok() ? st : Status{ErrorCode::io, "cannot write '" + path + "': " + st.message()};
  }
  // A file is written beside the destination (through a link, beside the file it names: a
  // rename within one file system is atomic), made durable, then renamed over it: a failure
  // at any point leaves no partial file and the destination as it was.
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
  Status st = write_all(fd, bytes);
  if (st.ok() && fchmod(fd, mode_for(target)) != 0) st = {ErrorCode::io, std::strerror(errno)};
  if (st.ok() && fsync(fd) != 0) st = {ErrorCode::io, std::strerror(errno)};
  if (::close(fd) != 0 && st.ok()) st = {ErrorCode::io, std::strerror(errno)};
  if (st.ok() && std::rename(tmp.c_str(), target.c_str()) != 0)
    st = {ErrorCode::io, std::strerror(errno)};
  if (st.ok()) return {};
  ::unlink(tmp.c_str());
  return {ErrorCode::io, "cannot write '" + path + "': " + st.message()};
}

Result<std::vector<std::byte>> read_array(const std::string& path, codec::Dtype d) {
  auto bytes = read_file(path);
  if (!bytes.ok()) return bytes;
  size_t elem = codec::dtype_size(d);
  if (bytes->size() % elem != 0)
    return Status{ErrorCode::invalid_argument,
                  "'" + path + "' holds " + std::to_string(bytes->size()) +
                      " bytes, not a multiple of the " + std::to_string(elem) + "-byte " +
                      codec::dtype_name(d) + " element size"};
  return bytes;
}

}  // namespace commpress::cli
