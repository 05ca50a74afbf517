// Cost and memory models of the distributed multiply (include/commpress/linalg.hpp): how long
// Cannon, SUMMA, SRUMMA and the 2.5D algorithms take on a measured machine, with and without
// compressed blocks, how much memory each rank needs, and which one GemmAlgorithm::Auto runs.
// Pure arithmetic (no MPI, no I/O), like include/commpress/model.hpp. Formulas and their
// origin: docs/models.md, "Distributed multiply".
//
// Units: seconds, bytes, flop/s. "Bytes" of a block are its UNCOMPRESSED size; the codec's
// ratio turns them into bytes on the wire.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "commpress/gemm_algorithm.hpp"
#include "commpress/model.hpp"

namespace commpress::model {

// The multiply's one algorithm enum (gemm_algorithm.hpp). The models predict the algorithms
// that run; Auto has no model (gemm_runs is false for it).
using GemmAlgorithm = commpress::GemmAlgorithm;

// What an algorithm does with the call's codec.
enum class GemmCodecUse : uint8_t {
  compressed,  // its blocks travel through the codec
  refused,     // it moves raw blocks and refuses a codec
  ignored,     // it moves raw blocks whatever codec is asked for
};
// The grids an algorithm runs on.
enum class GemmGridRule : uint8_t {
  square_flat,    // q x q x 1
  flat,           // pr x pc x 1
  square_layers,  // q x q x c
  any,            // pr x pc x c
};
// What a rule asks of a grid, for error messages: "a square 2-D grid", ...
const char* gemm_grid_needs(GemmGridRule rule);
// Where Auto considers an algorithm.
enum class GemmCandidate : uint8_t { flat, layered, never };

// One row of the algorithm table (src/model/gemm_algorithms.def) as the model sees it.
struct GemmAlgorithmInfo {
  GemmAlgorithm id;
  const char* name;        // "cannon", "summa25d", ...
  const char* literature;  // "Cannon (1969)", ...
  GemmCodecUse codec;
  GemmGridRule grid;
  GemmCandidate candidate;
};
// Every algorithm that runs, in the table's order (Auto's order of preference on ties).
std::span<const GemmAlgorithmInfo> gemm_algorithms();
// The row of a, or nullptr (Auto, or a value that names no algorithm).
const GemmAlgorithmInfo* gemm_algorithm_info(GemmAlgorithm a);

struct GemmGrid {
  int rows = 1, cols = 1, layers = 1;
  int size() const { return rows * cols * layers; }
  bool square() const { return rows == cols; }
};

// The codec of the travelling blocks as the model sees it. Disabled (the default) = raw.
struct GemmCodec {
  bool enabled = false;
  double ratio = 1;          // uncompressed / compressed bytes
  double compress = 0;       // bytes/s of uncompressed data
  double decompress = 0;
  double call_overhead = 0;  // seconds per codec call
  // A frame's largest size (compress_bound) for a block of b raw bytes: b * bound_slope +
  // bound_extra. Receive buffers are sized with it.
  double bound_slope = 1;
  double bound_extra = 0;
  // What the call agrees across the grid for a lossy codec: C's bound (each operand's sums
  // along its grid lines, then their largest) and, for a REL bound, each operand's range.
  bool lossy = false;
  bool relative = false;

  double compress_time(double bytes) const;
  double decompress_time(double bytes) const;
  double wire(double bytes) const { return enabled ? bytes / ratio : bytes; }
  double frame_bound(double bytes) const {
    return enabled ? bytes * bound_slope + bound_extra : bytes;
  }
};

// Codec rates when the profile has none for the codec (a forced codec the profile did not
// measure): about zstd-1 on this machine, and no compression (ratio 1) unless the profile
// knows better, so an unmeasured codec is never predicted to pay.
inline constexpr double kDefaultGemmCompressRate = 0.2e9;
inline constexpr double kDefaultGemmDecompressRate = 0.3e9;
// The codec as the model sees it: the profile's rates and typical_ratio when present (ratio
// 1 when unknown), else the defaults above. Frame bounds are left raw-sized.
GemmCodec gemm_codec(const CodecRates* rates);

// Local dgemm / sgemm rate per rank when the profile has none: the development machine's, with
// one BLAS thread per rank (docs/measured-choices.md); sgemm about twice dgemm.
inline constexpr double kDefaultGemmFlopsF64 = 52e9;
inline constexpr double kDefaultGemmFlopsF32 = 104e9;
double gemm_flop_rate(const MachineProfile& m, Dtype dtype);

// One multiply C (m x n) = op(A) (m x k) * op(B) (k x n) on one grid.
struct GemmScenario {
  int64_t m = 0, n = 0, k = 0;
  int elem_size = 8;
  GemmGrid grid;
  Link link;             // between two ranks on different nodes (the profile's network)
  // The nodes the grid's ranks sit on: node_size consecutive ranks a node (grid rank order:
  // layer, then row, then column), node_link between two ranks of one node. A grid line that
  // stays inside a node moves on node_link; one that crosses nodes shares each node's link
  // with the node's other ranks doing the same step. 0 or 1, or a size that does not tile the
  // grid into several nodes: no nodes known, every message on `link`, unshared.
  int node_size = 0;
  Link node_link;
  // The network's switches (MachineProfile::switch_link, switch_nodes): `link` is then
  // between nodes under two switches, switch_link between two under one.
  std::optional<Link> switch_link;
  int switch_nodes = 0;
  double gamma = 0;      // seconds per byte of one operand of a sum (the C reduction)
  double flops = kDefaultGemmFlopsF64;  // per rank
  GemmCodec codec;
  bool overlap = true;   // transfers overlap the local products
  int64_t panel = 0;     // SUMMA panel width (0 = default_summa_panel)
  // SRUMMA: ranks per shared-memory domain, consecutive in rank order (reads inside a
  // domain are free); 0 or 1 = every piece another rank owns is fetched over the link.
  int ranks_per_node = 0;
  // Whether MPI's one-sided windows work over the grid (SRUMMA's gets across domains need them).
  bool one_sided = true;
};

// Whether the algorithm runs on the scenario's grid and codec: its table row's grid rule, a
// codec only where its blocks travel compressed (Auto: never), and MPI windows where it needs
// them (gemm_needs_windows).
bool gemm_runs(GemmAlgorithm a, const GemmScenario& s);
// Whether it needs MPI one-sided windows over the grid: SRUMMA where its shared-memory domain
// is smaller than the grid (inside one domain it reads shared memory in place).
bool gemm_needs_windows(GemmAlgorithm a, const GemmScenario& s);

// Predicted seconds of the algorithm; +infinity when !gemm_runs.
double gemm_time(GemmAlgorithm a, const GemmScenario& s);
// What the call adds to it: its agreements across the grid (arguments, plan, outcome; a lossy
// codec's bound on C; a REL bound's ranges), small allreduces, latency-bound. ScaLAPACK's
// pdgemm makes none. choose_gemm weighs the sum.
double gemm_agreements_time(GemmAlgorithm a, const GemmScenario& s);
// Extra bytes per rank (largest over the ranks): work blocks, double buffers, frames at
// their bound, shared copies, replicas. 0 when !gemm_runs.
double gemm_memory(GemmAlgorithm a, const GemmScenario& s);

// SUMMA's panel width when the caller gives none: k over the larger grid side times the
// layers, clamped to [1, 256] (as many panels per owner as layers, products still efficient).
int64_t default_summa_panel(int64_t k, const GemmGrid& g);

// Compressed Cannon in the closed form of Jencka & Bienz for a square multiply of A bytes per
// matrix on p = q x q ranks, with the skew charged as q more shifts (their accounting):
//   T = 4 sqrt(p) alpha + (2A / sqrt(p)) (2 beta / r + 1 / (c sqrt(p)) + 1 / d)
// communication and codec only (add 2 N^3 / (p F) for the products). r = 1 with c = d =
// infinity gives the uncompressed Cannon in the same accounting.
double compressed_cannon_time(int p, double matrix_bytes, const LinkParams& link, double ratio,
                              double compress_rate, double decompress_rate);
// The link's seconds per byte above which compressed Cannon is faster than raw Cannon:
//   tau = r / (r - 1) * (d + c sqrt(p)) / (2 d c sqrt(p))   (+infinity for r <= 1)
double compressed_cannon_threshold(int p, double ratio, double compress_rate,
                                   double decompress_rate);

// SRUMMA's terms. omega = max(0, 1 - comp / comm) is the share of the fetch time the
// products cannot hide. With overlap seconds = max(comp + first_fetch, comm + last product):
// max(comp, comm) plus what cannot overlap at either end (comp + comm without overlap).
struct SrummaCost {
  double comp = 0;         // local products (and the shared-window copy)
  double comm = 0;         // remote fetches over the link
  double first_fetch = 0;  // the part of the first remote fetch no product can hide
  double omega = 0;
  double seconds = 0;
  double fetch_buffer_bytes = 0;  // the fetch buffers' bytes, the largest over the ranks
};
SrummaCost srumma_cost(const GemmScenario& s);

// Grid shapes over p ranks: every rows x cols x 1 with rows * cols = p, and q x q x c for
// every c > 1 with p / c a perfect square. layers > 0 keeps only that c.
std::vector<GemmGrid> gemm_grids(int p, int layers = 0);

// What Auto considers on a grid, in the table's order: the flat candidates on 2-D grids (choose_gemm
// skips those that do not run there: Cannon on a non-square one), the layered ones on grids with
// layers > 1; never ScaLapack (it is there to compare).
std::vector<GemmAlgorithm> auto_algorithms(const GemmGrid& g);

// The fastest (algorithm, grid, codec) among the candidates: on every grid the given
// algorithms (empty = auto_algorithms of that grid) that gemm_runs, with every codec. A
// replicated candidate (layers > 1) is skipped when its memory exceeds memory_cap (0 = no
// cap). Ties keep the earlier candidate (grids, then algorithms, then codecs, in the order
// given), so the choice is deterministic. codec = index into codecs; found = false (and
// seconds = +infinity) when nothing runs.
struct GemmChoice {
  GemmAlgorithm algorithm = GemmAlgorithm::Summa;
  GemmGrid grid;
  int codec = 0;
  double seconds = 0;
  double memory = 0;
  bool found = false;
};
GemmChoice choose_gemm(const GemmScenario& base, std::span<const GemmGrid> grids,
                       std::span<const GemmAlgorithm> algorithms,
                       std::span<const GemmCodec> codecs, double memory_cap = 0);

}  // namespace commpress::model
