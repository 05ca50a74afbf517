// Cost models of the communication layer: how long each algorithm of include/commpress/comm.hpp
// takes on a measured machine, with and without compression, and which one Algorithm::Auto
// should run. Pure arithmetic (no MPI, no I/O): the machine profile is measured by
// `commpress profile` and read by the comm layer. Formulas and their origin: docs/models.md.
//
// Units: seconds, bytes, bytes per second. "Bytes" of a message are always its UNCOMPRESSED
// size; the compression ratio r turns them into bytes on the wire.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commpress/algorithm.hpp"
#include "commpress/codec.hpp"

namespace commpress::model {

using codec::Dtype;

// One message of m bytes between two ranks costs alpha + m * beta.
struct LinkParams {
  double alpha = 0;  // seconds per message
  double beta = 0;   // seconds per byte
};

// One message's one-way time at a size, as measured.
struct Sample {
  double bytes;
  double seconds;
};

// MPI switches protocol at a size (eager below, rendezvous from it on); each side of the
// switch gets its own line.
struct Link {
  LinkParams eager;
  LinkParams rendezvous;
  double switch_bytes = 0;  // messages of at least this size use rendezvous
  // The largest message that crosses while both ends compute, outside MPI calls (handed to
  // the kernel or the peer's buffers at once); larger ones move only inside MPI calls, so a
  // pipeline's transfers overlap its (de)compression only in chunks up to this size.
  // Measured by `commpress profile`; 0 = none or not measured.
  double overlap_bytes = 0;
  // One-way times measured at these sizes (ascending; optional). A message between two of
  // them on the same side of the switch takes the time interpolated between theirs, elsewhere
  // its side's line: a network whose efficiency steps with the size (SMPI's piecewise
  // latency and bandwidth factors) is missed by up to 20 % by one line a side.
  std::vector<Sample> measured{};
  // Seconds per byte a message also waits for other flows' bytes: a link several messages
  // share at once (the model's shared links; not part of a profile).
  double queued_beta = 0;
  // Messages of the same size crossing the link at once, this one included (the model's
  // shared links; not part of a profile): each waits for the others' bytes at sharing_beta.
  double sharers = 1;

  double time(double bytes) const;  // one message; 0 bytes still pays alpha
  // Seconds per byte of a message of this size once it flows: the measured times' slope
  // inside its size class (the smaller positive slope of the measured intervals at and just
  // below it, on its side of the switch: a step in latency or protocol between two sizes only
  // steepens the slope across it), else the rendezvous line's beta. SMPI gives each size class
  // its own share of a link (its bandwidth factor: 0.70 of it from 15424 bytes, 0.94 from
  // 65472), which concurrent messages of that size then share.
  double sharing_beta(double bytes) const;
};

// A codec's speed on this machine for one dtype, in bytes per second of UNCOMPRESSED data
// (0 = not measured: that operation is not available). Every call also pays call_overhead.
struct CodecRates {
  std::string codec;  // registry name
  Dtype dtype = Dtype::f32;
  double compress = 0;
  double decompress = 0;
  double combine = 0;      // frame + frame (szp homomorphic sum), per byte of one operand
  double combine_raw = 0;  // local array + frame, fused
  double call_overhead = 0;
  double typical_ratio = 0;  // on the profile's random walk at REL 1e-4 (informational)

  double compress_time(double bytes) const;
  double decompress_time(double bytes) const;
  double combine_time(double bytes) const;
  double combine_raw_time(double bytes) const;
};

// One of MPI's own operations against the uncompressed algorithm commpress can run in its
// stead (reduce_scatter_block: Algorithm::PlainRing; bcast: Algorithm::PlainBinomial), timed
// side by side by `commpress profile` at one rank count: how many times the plain one's time
// MPI's took, per size. Which algorithm an MPI library runs depends on the rank count and the
// size (Open MPI 4.1 reduces a reduce_scatter's whole vector at one rank and scatters it for
// blocks of 1 MiB and more at 4 to 7 ranks), so the model uses it at that rank count only.
struct MpiAgainstPlain {
  int ranks = 0;  // 0 = not measured
  struct Point {
    double block_bytes;  // the operation's count in bytes (a block, a bcast's message)
    double slowdown;     // MPI's time / the plain algorithm's
  };
  std::vector<Point> points;  // increasing block_bytes

  // Log-linear in the block size between the points, the nearest end's beyond them;
  // 0 = not measured at p ranks.
  double at(int p, double block_bytes) const;
};

struct MachineProfile {
  std::string origin;              // how the numbers were obtained
  Link network;                    // between two ranks (ping-pong of ranks 0 and 1)
  std::optional<Link> intra_node;  // within a node when known apart from network
  // A network of switches (a fat-tree's leaves): switch_nodes consecutive nodes under one
  // switch, switch_link between two of them, `network` then between nodes of two switches
  // (0 or no switch_link: one network, every pair of nodes alike).
  std::optional<Link> switch_link;
  int switch_nodes = 0;
  double gamma = 0;                // seconds per byte to combine one operand (local sum)
  int ranks_per_node = 0;          // 0 = unknown
  int threads_per_rank = 0;        // OpenMP threads the codec rates were measured with
  // Ranks per core on the busiest node while the codec rates were measured (every rank
  // measures at once, so the rates already include that sharing of the cores).
  double codec_oversubscription = 1;
  // What one message of a step costs beyond alpha when every rank computes between steps,
  // measured under codec_oversubscription (a descheduled peer's delay; how long depends on
  // whether MPI yields the core while it waits). Negative = not measured: the model then
  // assumes a scheduler slice (kOversubscribedWait) per extra rank per core.
  double oversubscribed_wait = -1;
  // Flop/s of one rank's local dgemm / sgemm with the BLAS threads the distributed multiply
  // gives it (0 = not measured: the gemm models use their defaults).
  double gemm_flops_f64 = 0, gemm_flops_f32 = 0;
  std::vector<CodecRates> codecs;
  MpiAgainstPlain reduce_scatter_mpi;  // against PlainRing
  MpiAgainstPlain bcast_mpi;           // against PlainBinomial
  // Against SharedWindow, measured only where every rank of the profiling run shared a node
  // (allreduce: the vector's bytes; allgather: a block's; bcast: the message's).
  MpiAgainstPlain allreduce_mpi;
  MpiAgainstPlain allgather_mpi;
  MpiAgainstPlain bcast_window_mpi;

  const CodecRates* rates(std::string_view codec, Dtype dtype) const;
  const Link& node_link() const { return intra_node ? *intra_node : network; }
};

// The MpiAgainstPlain members of MachineProfile, with the name each has in a profile's JSON,
// the words `commpress profile` prints for it, and the operation and uncompressed algorithm
// it compares MPI's own with: one for every operation each uncompressed row of the algorithm
// table serves (machine_profile.cpp checks that at compile time).
struct MpiAgainstPlainField {
  const char* key;
  const char* what;
  MpiAgainstPlain MachineProfile::*member;
  Operation operation;
  Algorithm against;
};
std::span<const MpiAgainstPlainField> mpi_against_plain_fields();
// The measurement of MPI's own operation against `plain`; null where there is none.
const MpiAgainstPlain* mpi_against(const MachineProfile& m, Operation op, Algorithm plain);

// The compression ratio as a function of how finely the codec must quantize. A reduction
// splits the user's bound among its quantizations (bound / k); the ratio drops with k. The
// curve interpolates log-linearly in k between two sampled points; lossless ratios ignore k.
struct RatioCurve {
  double at_bound = 1;     // ratio at the step bound the user asked for (k = 1)
  double at_fine = 0;      // ratio at bound / fine_divisor (0 = not sampled)
  double fine_divisor = 1;
  bool lossless = false;
  int elem_size = 4;

  static RatioCurve constant(double r, int elem_size = 4);
  double at(double k) const;  // >= 1/(1 + frame overhead) never above at_bound for k >= 1
  bool operator==(const RatioCurve&) const = default;
};

// The collective algorithms and operations (commpress/algorithm.hpp; comm's are the same types).
using commpress::Algorithm;
using commpress::algorithm_name;
using commpress::is_compressed;
using commpress::Operation;

const char* operation_name(Operation op);

// One call to predict.
struct Scenario {
  Operation op = Operation::allreduce;
  // Uncompressed bytes of the call's count argument: the message (p2p, bcast), each rank's
  // block (allgather, scatter, gather, reduce_scatter) or the vector (allreduce, reduce).
  double bytes = 0;
  int ranks = 1;
  int ranks_per_node = 0;      // Hierarchical's node size (0 or 1: one rank per node)
  // Nodes from one of the communicator's nodes to the next (a grid column's, whose members
  // sit on every k-th node): with the profile's switches, which partners share one.
  int node_stride = 1;
  double chunk_bytes = 0;      // pipelining granularity; 0 = 1 MiB
  RatioCurve ratio;
  bool sum = true;             // reduction op is a sum (errors add up) rather than min/max
  double break_even_bytes = -1;  // Rabenseifner's switch; < 0 = break_even_bytes() below
  // Ranks per core on the busiest node (>= 1). Oversubscribed, the compressed algorithms'
  // codec work shares cores and every message step waits for a peer to be scheduled
  // (kOversubscribedWait each); MPI's own operations block in MPI and pay neither.
  double oversubscription = 1;
  // Every rank runs on one node (agreed by the ranks), where SharedWindow can run.
  bool one_node = false;

  bool operator==(const Scenario&) const = default;
};

// What one message step of a compressed algorithm waits per extra rank on a core when the
// profile did not measure it (MachineProfile::oversubscribed_wait): a scheduler time slice
// (4 ranks on 2 cores once made compressed collectives 40-100x slower than on 2 ranks, with
// ranks that polled instead of yielding the core; docs/models.md).
inline constexpr double kOversubscribedWait = 4e-3;

inline constexpr double kDefaultChunkBytes = 1 << 20;

// Predicted seconds for one algorithm (Mpi = MPI's own operation, uncompressed). rates may
// be null only for Mpi. Algorithms the operation does not offer predict +infinity.
double predict(const MachineProfile& m, const CodecRates* rates, Algorithm a, const Scenario& s);

// The compressed algorithms that serve an operation, in the table's order.
std::vector<Algorithm> compressed_algorithms(Operation op);
// Uncompressed algorithms commpress runs in place of MPI's own where that is measured slower.
std::vector<Algorithm> uncompressed_algorithms(Operation op);
// Whether SharedWindow is among them: then the uncompressed way depends on whether the ranks
// share one node, which only their argument agreement tells.
bool offers_shared_window(Operation op);

// The best of the candidates against the best uncompressed way: MPI's own operation, or an
// uncompressed_algorithms() one predicted faster by kUncompressedMargin (both are priced
// from measurements of MPI itself, so a small margin suffices). Compression is chosen only
// when its prediction beats that by the margin (compressed < margin * uncompressed), so a
// close call stays uncompressed.
struct Choice {
  Algorithm algorithm = Algorithm::Mpi;
  double predicted_seconds = 0;  // of the chosen algorithm
  double mpi_seconds = 0;        // of MPI's own operation, for comparison
  double chunk_bytes = 0;        // 0 = default
};
inline constexpr double kDefaultMargin = 0.9;
inline constexpr double kUncompressedMargin = 0.95;
Choice choose(const MachineProfile& m, const CodecRates* rates, const Scenario& s,
              std::span<const Algorithm> candidates, double margin = kDefaultMargin);

// Pipelined operations (p2p, bcast): the chunk size among 64 KiB .. 16 MiB that minimizes
// the prediction.
double best_chunk_bytes(const MachineProfile& m, const CodecRates& rates, Algorithm a,
                        Scenario s);

// The smallest message size from which sending it compressed (compress, transfer m / r,
// decompress or combine) is faster than sending it raw, for a ratio r; +infinity when
// compression never pays on this machine (codec slower than the link gains). Rabenseifner
// compresses ranges at least this large, and Auto need not look at data below it.
double break_even_bytes(const MachineProfile& m, const CodecRates& rates, double ratio,
                        bool homomorphic = false);

// Least-squares line t = alpha + beta * m through measured (bytes, seconds) points, fitted
// separately below and above the protocol switch. With switch_bytes <= 0 the switch is
// found as the split that fits best (relative error); with switch_bytes > 0 it is used.
LinkParams fit_line(std::span<const Sample> points);
Link fit_link(std::span<const Sample> points, double switch_bytes = 0);

}  // namespace commpress::model
