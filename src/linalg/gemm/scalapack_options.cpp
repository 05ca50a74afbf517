#include "linalg/gemm/scalapack_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "commpress/codec.hpp"

namespace commpress::linalg::detail {

namespace {

Result<GemmOptions> make_options(const char* algorithm, const char* codec_name,
                                 double rel_bound) {
  GemmOptions o;
  auto alg = parse_gemm_algorithm(algorithm ? algorithm : "auto");
  if (!alg.ok()) return alg.status();
  o.algorithm = *alg;
  o.codec = codec_name ? codec_name : "none";
  bool lossy = false;
  if (o.codec != "none" && o.codec != "auto") {
    auto c = codec::get_codec(o.codec);
    if (!c.ok()) return c.status();
    lossy = (*c)->lossy();
  }
  if (!std::isfinite(rel_bound) || rel_bound < 0)
    return Status{ErrorCode::invalid_argument,
                  "relative bound " + std::to_string(rel_bound) + " must be finite and >= 0"};
  // Refused here, not at every later multiply.
  if (lossy && rel_bound == 0)
    return Status{ErrorCode::invalid_argument,
                  "lossy codec " + o.codec + " needs a relative bound > 0"};
  o.bound = rel_bound > 0 ? ErrorBound::relative(rel_bound) : ErrorBound::lossless();
  return o;
}

Result<GemmOptions> options_from_environment() {
  double bound = 0;
  if (const char* text = std::getenv("COMMPRESS_GEMM_REL_BOUND"); text && *text) {
    char* end = nullptr;
    bound = std::strtod(text, &end);
    if (end == text || *end != '\0')
      return Status{ErrorCode::invalid_argument,
                    std::string("COMMPRESS_GEMM_REL_BOUND='") + text + "' is not a number"};
  }
  auto o = make_options(std::getenv("COMMPRESS_GEMM_ALGORITHM"),
                        std::getenv("COMMPRESS_GEMM_CODEC"), bound);
  if (!o.ok())
    return Status{o.status().code(), "COMMPRESS_GEMM_* environment: " + o.status().message()};
  return o;
}

struct OptionState {
  std::mutex mutex;
  bool loaded = false;
  Result<GemmOptions> options{GemmOptions{}};
};

OptionState& state() {
  static OptionState s;
  return s;
}

struct LastError {
  ErrorCode code = ErrorCode::ok;
  std::string message;
};

thread_local LastError last;

}  // namespace

Result<GemmOptions> scalapack_gemm_options() {
  OptionState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.loaded) {
    s.options = options_from_environment();
    s.loaded = true;
  }
  return s.options;
}

Status set_scalapack_gemm_options(const char* algorithm, const char* codec, double rel_bound) {
  auto o = make_options(algorithm, codec, rel_bound);
  if (!o.ok()) return o.status();
  OptionState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.options = std::move(o);
  s.loaded = true;
  return {};
}

void reset_scalapack_gemm_options() {
  OptionState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.loaded = false;
}

void record_last_error(const Status& st) {
  last.code = st.code();
  last.message = st.message();
}

void finish_entry(const char* routine, const Status& st) {
  if (st.ok()) {
    record_last_error(st);
    return;
  }
  const Status full{st.code(), std::string(routine) + ": " + st.message()};
  record_last_error(full);
  std::fprintf(stderr, "%s\n", full.message().c_str());
}

int last_error(char* message, int capacity) {
  if (message && capacity > 0) {
    const size_t n = std::min(last.message.size(), size_t(capacity - 1));
    std::memcpy(message, last.message.data(), n);
    message[n] = '\0';
  }
  return int(last.code);
}

}  // namespace commpress::linalg::detail
