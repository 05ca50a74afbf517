#include "cli/raw_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <sys/stat.h>

namespace commpress::cli {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

Status io_error(const std::string& what, const std::string& path) {
  return {ErrorCode::io, what + " '" + path + "': " + std::strerror(errno)};
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
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) return io_error("cannot create", path);
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size())
    return io_error("cannot write", path);
  if (std::fclose(f.release()) != 0) return io_error("cannot finish writing", path);
  return {};
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
