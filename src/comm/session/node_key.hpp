// Which machine this process runs on, as one number every rank can compare in the argument
// agreement: ranks with equal keys share memory. The key hashes the host name with the
// kernel's boot id, so it agrees with Open MPI's own notion of a node (host names) and two
// containers of one name on different machines still differ. The netsim's namespaces carry
// distinct host names, so they count as separate nodes there, as they should. Under SimGrid's
// SMPI (COMMPRESS_SMPI) the key is the simulated host's.
#pragma once

namespace commpress::comm::detail {

// A non-negative integer below 2^52 (exact in a double), the same for every call.
double node_key();

}  // namespace commpress::comm::detail
