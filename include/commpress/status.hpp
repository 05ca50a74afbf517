// Status and Result: how every commpress call reports failure. No exceptions cross the
// public API; error codes are stable (documented in docs/format.md#errors).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace commpress {

enum class ErrorCode : int {
  ok = 0,
  invalid_argument = 1,  // caller passed something meaningless (sizes, bound, dtype)
  unsupported = 2,       // valid request this codec/operation cannot do
  corrupt_frame = 3,     // bytes that do not parse as a frame
  truncated = 4,         // frame shorter than its header says
  checksum_mismatch = 5, // frame parses but its bytes were altered
  capacity = 6,          // destination too small
  mismatch = 7,          // operands disagree (bounds, dtypes, counts, peers)
  overflow = 8,          // arithmetic would leave the representable range
  io = 9,                // file or stream error
  mpi = 10,              // MPI reported an error
  internal = 11,         // a broken invariant inside commpress
};

const char* error_code_name(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok_status() { return {}; }

  bool ok() const { return code_ == ErrorCode::ok; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "corrupt_frame: payload length 12 exceeds the 8 bytes left"
  std::string to_string() const;

 private:
  ErrorCode code_ = ErrorCode::ok;
  std::string message_;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Status status) : v_(std::move(status)) {}

  bool ok() const { return std::holds_alternative<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  Status status() const { return ok() ? Status{} : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace commpress

// Propagate a failed Status from an expression returning Status.
#define COMMPRESS_RETURN_IF_ERROR(expr)          \
  do {                                           \
    ::commpress::Status commpress_st_ = (expr);  \
    if (!commpress_st_.ok()) return commpress_st_; \
  } while (0)
