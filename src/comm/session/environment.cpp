#include "comm/session/environment.hpp"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace commpress::comm::detail {

namespace {

int positive(const char* text, long most) {
  if (!text) return 0;
  char* end = nullptr;
  const long k = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && k > 0 && k <= most ? int(k) : 0;
}

void read_progress(const char* text, Environment& e) {
  if (!text || !*text || !std::strcmp(text, "thread")) return;
  if (!std::strcmp(text, "spin")) e.progress = ProgressMode::spin;
  else if (!std::strcmp(text, "inline")) e.progress = ProgressMode::inline_;
  else
    e.progress_error = std::string("COMMPRESS_PROGRESS=") + text +
                       ": expected thread (the default), spin or inline";
}

Environment read() {
  Environment e;
  e.pretend_ranks_per_node = positive(std::getenv("COMMPRESS_PRETEND_RANKS_PER_NODE"), 1 << 20);
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"})
    if ((e.local_ranks = positive(std::getenv(var), 1 << 30)) > 0) break;
  read_progress(std::getenv("COMMPRESS_PROGRESS"), e);
  return e;
}

Environment& snapshot() {
  static Environment e = read();
  return e;
}

}  // namespace

const Environment& environment() {
  return snapshot();
}

void reread_environment_for_testing() {
  snapshot() = read();
}

}  // namespace commpress::comm::detail
