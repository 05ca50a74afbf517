// What the interposition library does with a call: the policy read from the environment
// (COMMPRESS_BOUND, COMMPRESS_CODEC, COMMPRESS_MIN_BYTES, COMMPRESS_OPS) or, per communicator,
// from MPI_Comm_set_info keys of the same names in lower case. Every rank must hold the same
// policy (policy_agreement.hpp), so its canonical text is what ranks compare.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "commpress/codec.hpp"
#include "commpress/status.hpp"

namespace commpress::pmpi {

// The operations the library may compress (COMMPRESS_OPS names them); a nonblocking form
// (MPI_Iallreduce, ...) follows its blocking operation's bit. "all" names every collective;
// point-to-point (MPI_Send, MPI_Isend and the receives that decode them) is named on its own
// ("p2p"), since it asks more of the receiving program (docs/pmpi.md).
enum OpBit : unsigned {
  kAllreduce = 1u << 0,
  kReduce = 1u << 1,
  kReduceScatterBlock = 1u << 2,
  kReduceScatter = 1u << 3,
  kBcast = 1u << 4,
  kAllgather = 1u << 5,
  kAlltoall = 1u << 6,
  kAllOps = (1u << 7) - 1,  // the collectives: what "all" names
  kP2p = 1u << 7,
  kOpBits = (1u << 8) - 1,  // every operation, for the counters
};

// Below this many bytes a call passes through: intercepting costs one small agreement plus
// commpress's own, which only a large call repays (docs/pmpi.md).
inline constexpr size_t kDefaultMinBytes = 256 * 1024;

struct Policy {
  bool active = false;  // false: every call passes through (COMMPRESS_BOUND unset or "off")
  codec::ErrorBound bound = codec::ErrorBound::lossless();
  std::string codec = "auto";
  size_t min_bytes = kDefaultMinBytes;
  unsigned ops = kAllOps;

  bool intercepts(unsigned op) const { return active && (ops & op) != 0; }
  // "bound=rel:0.0001 codec=auto min_bytes=262144 ops=allreduce,reduce,..." or "off".
  std::string text() const;
  std::string bound_text() const;  // "rel:0.0001", "abs:0.01", "lossless"
};

// name -> value or nullptr; `base` supplies what the source leaves unset. `source` names where
// the values came from in error messages ("COMMPRESS_" for the environment, "commpress_" for
// info keys), and is the prefix of the four names looked up.
using Lookup = std::function<const char*(const std::string& name)>;
Result<Policy> parse_policy(const Lookup& lookup, const std::string& prefix, bool lower_case,
                            const Policy& base);

Result<Policy> environment_policy();

const char* op_bit_name(unsigned op);

}  // namespace commpress::pmpi
