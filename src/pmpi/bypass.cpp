#include "pmpi/bypass.hpp"

namespace commpress::pmpi {

// Not in an anonymous namespace: the exported C functions below share it. Initial-exec TLS:
// every intercepted call reads it, and a library loaded at start-up (LD_PRELOAD, or linked)
// gets static TLS, which avoids __tls_get_addr on that path.
__attribute__((tls_model("initial-exec"))) thread_local int depth = 0;

bool bypassing() { return depth > 0; }
Bypass::Bypass() { ++depth; }
Bypass::~Bypass() { --depth; }

}  // namespace commpress::pmpi

extern "C" {
void commpress_mpi_bypass_enter(void) { ++commpress::pmpi::depth; }
void commpress_mpi_bypass_leave(void) { --commpress::pmpi::depth; }
}
