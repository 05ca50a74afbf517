#include "commpress/status.hpp"

namespace commpress {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::ok: return "ok";
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::unsupported: return "unsupported";
    case ErrorCode::corrupt_frame: return "corrupt_frame";
    case ErrorCode::truncated: return "truncated";
    case ErrorCode::checksum_mismatch: return "checksum_mismatch";
    case ErrorCode::capacity: return "capacity";
    case ErrorCode::mismatch: return "mismatch";
    case ErrorCode::overflow: return "overflow";
    case ErrorCode::io: return "io";
    case ErrorCode::mpi: return "mpi";
    case ErrorCode::internal: return "internal";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(error_code_name(code_)) + ": " + message_;
}

}  // namespace commpress
