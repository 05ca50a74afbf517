// PlainBinomial: bcast down a binomial tree, uncompressed and unsegmented, run by commpress.
// Each rank receives the whole message from its parent, then sends it on to its children,
// largest subtree first. An MPI library's own bcast may cut a large message into segments
// to pipeline them down the tree; with more ranks than cores every segment costs the
// waiting ranks a wake-up, and with more ranks than cores this unsegmented tree measured
// faster (docs/measured-choices.md). Auto runs it where the machine profile measured MPI's own
// slower.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "comm/session/collective.hpp"

namespace commpress::comm::detail {

// Collective over c.comm; buf holds n elements of c.wire's dtype (the root's are sent, the
// others' overwritten).
Status plain_binomial_bcast(const Collective& c, void* buf, size_t n, int root, Traffic& traffic);

}  // namespace commpress::comm::detail
