// The shared pieces of the C shims, and the checks that the C enums keep the C++ values.
#include "capi/capi_support.hpp"

#include <algorithm>
#include <string>

#include "commpress/version.h"

namespace commpress::capi {

namespace {

// The C API promises these values equal the C++ ones; a renumbering must fail to build.
static_assert(int(COMMPRESS_OK) == int(ErrorCode::ok));
static_assert(int(COMMPRESS_INVALID_ARGUMENT) == int(ErrorCode::invalid_argument));
static_assert(int(COMMPRESS_UNSUPPORTED) == int(ErrorCode::unsupported));
static_assert(int(COMMPRESS_CORRUPT_FRAME) == int(ErrorCode::corrupt_frame));
static_assert(int(COMMPRESS_TRUNCATED) == int(ErrorCode::truncated));
static_assert(int(COMMPRESS_CHECKSUM_MISMATCH) == int(ErrorCode::checksum_mismatch));
static_assert(int(COMMPRESS_CAPACITY) == int(ErrorCode::capacity));
static_assert(int(COMMPRESS_MISMATCH) == int(ErrorCode::mismatch));
static_assert(int(COMMPRESS_OVERFLOW) == int(ErrorCode::overflow));
static_assert(int(COMMPRESS_IO) == int(ErrorCode::io));
static_assert(int(COMMPRESS_MPI) == int(ErrorCode::mpi));
static_assert(int(COMMPRESS_INTERNAL) == int(ErrorCode::internal));

static_assert(int(COMMPRESS_F32) == int(codec::Dtype::f32));
static_assert(int(COMMPRESS_F64) == int(codec::Dtype::f64));
static_assert(int(COMMPRESS_I32) == int(codec::Dtype::i32));
static_assert(int(COMMPRESS_I64) == int(codec::Dtype::i64));
static_assert(int(COMMPRESS_U8) == int(codec::Dtype::u8));

static_assert(int(COMMPRESS_LOSSLESS) == int(codec::BoundMode::lossless));
static_assert(int(COMMPRESS_ABS) == int(codec::BoundMode::abs));
static_assert(int(COMMPRESS_REL) == int(codec::BoundMode::rel));

static_assert(int(COMMPRESS_SUM) == int(comm::Op::sum));
static_assert(int(COMMPRESS_MIN) == int(comm::Op::min));
static_assert(int(COMMPRESS_MAX) == int(comm::Op::max));
static_assert(int(COMMPRESS_PROD) == int(comm::Op::prod));

// The C enum's values come from the algorithm table's rows (commpress/collective_algorithms.h);
// Auto is the one value that is not a row.
static_assert(int(COMMPRESS_ALG_AUTO) == int(Algorithm::Auto));

thread_local std::string last_error;

}  // namespace

bool known_algorithm(commpress_algorithm a) {
  const int v = int(a);
  // The table's rows, not a last enumerator: a new row is accepted with no edit here.
  return v == COMMPRESS_ALG_AUTO ||
         (v > 0 && v <= 255 && commpress::algorithm_info(Algorithm(v)) != nullptr);
}

commpress_status record(const Status& status) {
  if (status.ok()) return COMMPRESS_OK;
  last_error = status.to_string();
  return static_cast<commpress_status>(status.code());
}

commpress_status fail(ErrorCode code, std::string message) {
  return record(Status{code, std::move(message)});
}

commpress_status null_argument(const char* function, const char* parameter) {
  return fail(ErrorCode::invalid_argument,
              std::string(function) + ": " + parameter + " is NULL");
}

codec::Dtype to_dtype(commpress_dtype d) {
  const int v = int(d);
  return v >= COMMPRESS_F32 && v <= COMMPRESS_U8 ? codec::Dtype(v) : codec::Dtype(0);
}

comm::Op to_op(commpress_op op) {
  const int v = int(op);
  return v >= COMMPRESS_SUM && v <= COMMPRESS_PROD ? comm::Op(v) : comm::Op(255);
}

Status check_dtype(commpress_dtype d) {
  if (codec::dtype_size(to_dtype(d)) != 0) return {};
  return {ErrorCode::invalid_argument,
          "unknown dtype " + std::to_string(int(d)) +
              " (expected COMMPRESS_F32, F64, I32, I64 or U8)"};
}

// Checked where it is given, so a NaN, negative, infinite or zero ABS/REL value is refused by
// the setter rather than by some later call.
Result<codec::ErrorBound> to_bound(commpress_bound_mode mode, double value) {
  codec::ErrorBound b;
  switch (mode) {
    case COMMPRESS_LOSSLESS: b = codec::ErrorBound::lossless(); break;
    case COMMPRESS_ABS: b = codec::ErrorBound::absolute(value); break;
    case COMMPRESS_REL: b = codec::ErrorBound::relative(value); break;
    default:
      return Status{ErrorCode::invalid_argument, "unknown bound mode " + std::to_string(int(mode)) +
                                                     " (expected COMMPRESS_LOSSLESS, ABS or REL)"};
  }
  COMMPRESS_RETURN_IF_ERROR(codec::check_bound(b));
  return b;
}

const comm::Options& options_of(const commpress_options* options) {
  static const comm::Options defaults;
  return options ? options->options : defaults;
}

void copy_name(std::string_view name, char (&out)[COMMPRESS_NAME_MAX]) {
  const size_t n = std::min(name.size(), size_t(COMMPRESS_NAME_MAX - 1));
  std::memcpy(out, name.data(), n);
  out[n] = '\0';
}

commpress_status finish(const Result<comm::Report>& result, commpress_report* report) {
  if (report) *report = commpress_report{};
  if (!result.ok()) return record(result.status());
  if (report) {
    const comm::Report& r = *result;
    report->algorithm = static_cast<commpress_algorithm>(r.algorithm);
    copy_name(r.codec, report->codec);
    report->raw_bytes = r.raw_bytes;
    report->bytes_sent = r.bytes_sent;
    report->ratio = r.ratio();
    report->guaranteed_abs_bound = r.guaranteed_abs_bound;
    report->predicted_seconds = r.predicted_seconds;
    report->chunk_bytes = r.chunk_bytes;
  }
  return COMMPRESS_OK;
}

}  // namespace commpress::capi

extern "C" {

const char* commpress_status_name(commpress_status status) {
  const int v = int(status);
  if (v < COMMPRESS_OK || v > COMMPRESS_INTERNAL) return "unknown";
  return commpress::error_code_name(commpress::ErrorCode(v));
}

const char* commpress_last_error(void) {
  return commpress::capi::last_error.c_str();
}

const char* commpress_version(void) { return commpress::version(); }

const char* commpress_algorithm_name(commpress_algorithm algorithm) {
  if (!commpress::capi::known_algorithm(algorithm)) return "?";
  return commpress::comm::algorithm_name(commpress::comm::Algorithm(int(algorithm)));
}

}  // extern "C"
