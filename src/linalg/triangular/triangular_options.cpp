#include "linalg/triangular/triangular_options.hpp"

#include <cmath>
#include <cstdlib>
#include <mutex>

#include "commpress/codec.hpp"
#include "commpress/scalapack.h"
#include "linalg/gemm/scalapack_options.hpp"

namespace commpress::linalg::detail {

namespace {

Result<TriangularOptions> make_options(const char* codec_name, double abs_bound) {
  TriangularOptions o;
  o.codec = codec_name && *codec_name ? codec_name : "none";
  if (o.codec == "auto")
    return Status{ErrorCode::unsupported,
                  "codec auto: the triangular routines take a codec by name (or none)"};
  if (!std::isfinite(abs_bound) || abs_bound < 0)
    return Status{ErrorCode::invalid_argument,
                  "absolute bound " + std::to_string(abs_bound) + " must be finite and >= 0"};
  bool lossy = false;
  if (o.codec != "none") {
    auto c = codec::get_codec(o.codec);
    if (!c.ok()) return c.status();
    lossy = (*c)->lossy();
  }
  if (lossy && abs_bound == 0)
    return Status{ErrorCode::invalid_argument,
                  "lossy codec " + o.codec +
                      " needs an absolute bound > 0 on what travels (the result's bound is "
                      "derived from it)"};
  o.abs_bound = lossy ? abs_bound : 0;
  return o;
}

Result<TriangularOptions> from_environment() {
  double bound = 0;
  if (const char* text = std::getenv("COMMPRESS_TRIANGULAR_ABS_BOUND"); text && *text) {
    char* end = nullptr;
    bound = std::strtod(text, &end);
    if (end == text || *end != '\0')
      return Status{ErrorCode::invalid_argument,
                    std::string("COMMPRESS_TRIANGULAR_ABS_BOUND='") + text + "' is not a number"};
  }
  auto o = make_options(std::getenv("COMMPRESS_TRIANGULAR_CODEC"), bound);
  if (const char* text = std::getenv("COMMPRESS_TRIANGULAR_LAYERS"); o.ok() && text && *text) {
    char* end = nullptr;
    const long layers = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || layers < 0 || layers > 4096)
      return Status{ErrorCode::invalid_argument,
                    std::string("COMMPRESS_TRIANGULAR_LAYERS='") + text +
                        "' is not 0 (auto) or a layer count"};
    o->layers = int(layers);
  }
  if (const char* text = std::getenv("COMMPRESS_TRIANGULAR_MEMORY_CAP"); o.ok() && text && *text) {
    char* end = nullptr;
    const double cap = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(cap >= 0))
      return Status{ErrorCode::invalid_argument,
                    std::string("COMMPRESS_TRIANGULAR_MEMORY_CAP='") + text +
                        "' is not a byte count"};
    o->memory_cap = cap;
  }
  if (const char* text = std::getenv("COMMPRESS_TRIANGULAR_UPDATE_WIDTH"); o.ok() && text && *text) {
    char* end = nullptr;
    const long width = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || width < 1 || width > (1L << 20))
      return Status{ErrorCode::invalid_argument,
                    std::string("COMMPRESS_TRIANGULAR_UPDATE_WIDTH='") + text +
                        "' is not a column count (1 to 2^20)"};
    o->update_width = width;
  }
  if (!o.ok())
    return Status{o.status().code(),
                  "COMMPRESS_TRIANGULAR_* environment: " + o.status().message()};
  return o;
}

struct State {
  std::mutex mutex;
  bool loaded = false;
  Result<TriangularOptions> options{TriangularOptions{}};
};

State& state() {
  static State s;
  return s;
}

thread_local double last_bound = 0;
thread_local int64_t last_bytes = 0;

}  // namespace

Result<TriangularOptions> triangular_options() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.loaded) {
    s.options = from_environment();
    s.loaded = true;
  }
  return s.options;
}

Status set_triangular_options(const char* codec, double abs_bound) {
  auto o = make_options(codec, abs_bound);
  if (!o.ok()) return o.status();
  if (auto current = triangular_options(); current.ok()) {
    o->layers = current->layers;
    o->memory_cap = current->memory_cap;
    o->update_width = current->update_width;
  }
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.options = std::move(o);
  s.loaded = true;
  return {};
}

Status set_triangular_layers(int layers) {
  if (layers < 0)
    return {ErrorCode::invalid_argument,
            "layers = " + std::to_string(layers) + ": 0 (auto) or a layer count"};
  auto current = triangular_options();
  if (!current.ok()) return current.status();
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.options->layers = layers;
  return {};
}

void record_result_bound(double bound) { last_bound = bound; }
double last_result_bound() { return last_bound; }
void record_moved_bytes(int64_t bytes) { last_bytes = bytes; }
int64_t last_moved_bytes() { return last_bytes; }

}  // namespace commpress::linalg::detail

extern "C" {

int commpress_triangular_set_options(const char* codec, double abs_bound) {
  const commpress::Status st = commpress::linalg::detail::set_triangular_options(codec, abs_bound);
  commpress::linalg::detail::record_last_error(st);
  return int(st.code());
}

int commpress_triangular_set_layers(int layers) {
  const commpress::Status st = commpress::linalg::detail::set_triangular_layers(layers);
  commpress::linalg::detail::record_last_error(st);
  return int(st.code());
}

double commpress_triangular_last_bound(void) {
  return commpress::linalg::detail::last_result_bound();
}

long long commpress_triangular_last_bytes(void) {
  return commpress::linalg::detail::last_moved_bytes();
}

}  // extern "C"
