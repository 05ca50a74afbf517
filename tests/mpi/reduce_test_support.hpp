// Shared by the reduction tests (reduce_scatter_block, allreduce, reduce): one Case runs any
// of the three operations with any algorithm, and is checked against an exact reference
// every rank computes locally (each rank rebuilds every rank's input from seeds), against
// MPI's own operation (lossless: bit for bit where the order does not matter, else within the
// reported rounding bound), and for identical results on every rank.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "comm/selection/choose_reduce.hpp"
#include "comm/transport/frame_transport.hpp"
#include "mpi/comm_test_support.hpp"

namespace commpress::testing::reduce {

using namespace commpress::testing::comm;
using cc::Algorithm;
using cc::Op;

enum class Which { reduce_scatter, allreduce, reduce };

inline const char* which_name(Which w) {
  return w == Which::reduce_scatter ? "reduce_scatter_block"
                                    : w == Which::allreduce ? "allreduce" : "reduce";
}

struct Case {
  Which which = Which::allreduce;
  Algorithm alg = Algorithm::Auto;
  Config cfg{"szp", ErrorBound::absolute(1e-2)};
  Dtype d = Dtype::f32;
  Op op = Op::sum;
  size_t n = 0;  // per rank for reduce_scatter_block, the vector otherwise
  size_t chunk_bytes = 0;
  int pretend = 0;
  int root = 0;
  bool in_place = false;
};

inline std::string label(const Case& c) {
  std::string s = std::string(which_name(c.which)) + " " + cc::algorithm_name(c.alg) + " " +
                  describe(c.cfg) + " " + codec::dtype_name(c.d) + " " + cc::op_name(c.op) +
                  " n=" + std::to_string(c.n);
  if (c.chunk_bytes) s += " chunk=" + std::to_string(c.chunk_bytes);
  if (c.pretend) s += " pretend=" + std::to_string(c.pretend);
  if (c.which == Which::reduce) s += " root=" + std::to_string(c.root);
  if (c.in_place) s += " in place";
  return s;
}

inline cc::Options options(const Case& c) {
  cc::Options o;
  o.codec = c.cfg.codec;
  o.bound = c.cfg.bound;
  o.algorithm = c.alg;
  o.chunk_bytes = c.chunk_bytes;
  o.pretend_ranks_per_node = c.pretend;
  return o;
}

// Whether the case compresses lossily (the uncompressed algorithms ignore the codec).
inline bool lossy(const Case& c) {
  const codec::Codec* k = codec::find_codec(c.cfg.codec);
  return k && k->lossy() && c.alg != Algorithm::Mpi && c.alg != Algorithm::PlainRing;
}

// Elements of each rank's input vector.
inline size_t input_count(const Case& c) {
  return c.which == Which::reduce_scatter ? c.n * size_t(world_size()) : c.n;
}

// Rank r's input: random walks for sums, min and max; values near 1 for products (so p of
// them neither overflow nor vanish); small integers for integer dtypes (no overflow either).
inline Bytes input_of(const Case& c, int rank) {
  const size_t n = input_count(c);
  const uint64_t seed = 1000 * uint64_t(rank) + n + 7 * uint64_t(c.op) + 3;
  Bytes out(n * codec::dtype_size(c.d));
  std::mt19937_64 rng(seed);
  auto uniform = [&] { return double(rng() >> 11) * 0x1.0p-53; };
  const bool prod = c.op == Op::prod;
  if (codec::is_float(c.d) && !prod) return make_bytes(c.d, n, seed);
  for (size_t i = 0; i < n; ++i) {
    if (c.d == Dtype::f32) {
      float v = float(0.5 + uniform());
      std::memcpy(out.data() + 4 * i, &v, 4);
    } else if (c.d == Dtype::f64) {
      double v = 0.5 + uniform();
      std::memcpy(out.data() + 8 * i, &v, 8);
    } else {
      int64_t span = prod ? 5 : 201;  // [-2, 2] or [-100, 100]
      int64_t v = int64_t(rng() % uint64_t(span)) - span / 2;
      if (c.d == Dtype::i32) {
        int32_t w = int32_t(v);
        std::memcpy(out.data() + 4 * i, &w, 4);
      } else {
        std::memcpy(out.data() + 8 * i, &v, 8);
      }
    }
  }
  return out;
}

inline long double element(Dtype d, const Bytes& b, size_t i) {
  switch (d) {
    case Dtype::f32: { float v; std::memcpy(&v, b.data() + 4 * i, 4); return v; }
    case Dtype::f64: { double v; std::memcpy(&v, b.data() + 8 * i, 8); return v; }
    case Dtype::i32: { int32_t v; std::memcpy(&v, b.data() + 4 * i, 4); return v; }
    case Dtype::i64: { int64_t v; std::memcpy(&v, b.data() + 8 * i, 8); return v; }
    default: { uint8_t v; std::memcpy(&v, b.data() + i, 1); return v; }
  }
}

// The exact reduction of elements [begin, begin + n) over every rank's input (long double:
// exact for the integer data, far below any bound tested for the floating-point data).
inline std::vector<long double> exact_reduction(const Case& c, const std::vector<Bytes>& inputs,
                                                size_t begin, size_t n) {
  std::vector<long double> r(n);
  for (size_t i = 0; i < n; ++i) {
    long double acc = element(c.d, inputs[0], begin + i);
    for (size_t k = 1; k < inputs.size(); ++k) {
      long double x = element(c.d, inputs[k], begin + i);
      switch (c.op) {
        case Op::sum: acc += x; break;
        case Op::prod: acc *= x; break;
        case Op::min: acc = std::min(acc, x); break;
        case Op::max: acc = std::max(acc, x); break;
      }
    }
    r[i] = acc;
  }
  return r;
}

// Empty when every element of got is within bound of exact; else the worst element.
inline std::string check_exact(const Case& c, const std::vector<long double>& exact, const Bytes& got,
                               double bound) {
  size_t worst = 0;
  long double worst_err = -1;
  for (size_t i = 0; i < exact.size(); ++i) {
    long double err = std::fabs(element(c.d, got, i) - exact[i]);
    if (!(err <= worst_err)) {  // NaN counts as worst
      worst_err = err;
      worst = i;
    }
  }
  if (exact.empty() || worst_err <= (long double)bound) return {};
  return "element " + std::to_string(worst) + ": got " +
         std::to_string(double(element(c.d, got, worst))) + ", exact " +
         std::to_string(double(exact[worst])) + ", error " + std::to_string(double(worst_err)) +
         " > bound " + std::to_string(bound);
}

// COMMPRESS_TEST_VERBOSE=1: how much of the guarantee the observed error used (rank 0).
inline void report_margin(const Case& c, const std::vector<long double>& exact, const Bytes& got,
                          double bound) {
  if (!std::getenv("COMMPRESS_TEST_VERBOSE") || world_rank() != 0 || exact.empty()) return;
  long double worst = 0;
  for (size_t i = 0; i < exact.size(); ++i)
    worst = std::max(worst, std::fabs(element(c.d, got, i) - exact[i]));
  std::fprintf(stderr, "  max error %.3g of guaranteed %.3g (%.0f%%)\n", double(worst), bound,
               bound > 0 ? double(100 * worst / bound) : 0.0);
}

// The bound the user asked for, computed here (REL: of the global finite range, in long
// double), not by the library.
inline double requested_abs(const Case& c, const std::vector<Bytes>& inputs) {
  if (c.cfg.bound.mode != codec::BoundMode::rel) return c.cfg.bound.value;
  Bytes all;
  for (const Bytes& b : inputs) all.insert(all.end(), b.begin(), b.end());
  return promised_bound(c.cfg, c.d, all);
}

inline Result<cc::Report> call(const Case& c, const void* send, void* recv) {
  cc::Options o = options(c);
  switch (c.which) {
    case Which::reduce_scatter:
      return cc::reduce_scatter_block(send, recv, c.n, c.d, c.op, MPI_COMM_WORLD, o);
    case Which::allreduce: return cc::allreduce(send, recv, c.n, c.d, c.op, MPI_COMM_WORLD, o);
    case Which::reduce: return cc::reduce(send, recv, c.n, c.d, c.op, c.root, MPI_COMM_WORLD, o);
  }
  return Status{ErrorCode::internal, "unknown operation"};
}

inline MPI_Datatype mpi_type(Dtype d) {
  switch (d) {
    case Dtype::f32: return MPI_FLOAT;
    case Dtype::f64: return MPI_DOUBLE;
    case Dtype::i32: return MPI_INT32_T;
    case Dtype::i64: return MPI_INT64_T;
    default: return MPI_UINT8_T;
  }
}
inline MPI_Op mpi_op(Op op) {
  return op == Op::sum ? MPI_SUM : op == Op::prod ? MPI_PROD : op == Op::min ? MPI_MIN : MPI_MAX;
}

// MPI's own result for this rank (empty output where the operation gives it nothing).
inline Bytes mpi_reference(const Case& c, const Bytes& mine) {
  const size_t es = codec::dtype_size(c.d);
  Bytes out(c.n * es);
  switch (c.which) {
    case Which::reduce_scatter:
      MPI_Reduce_scatter_block(mine.data(), out.data(), int(c.n), mpi_type(c.d), mpi_op(c.op),
                               MPI_COMM_WORLD);
      break;
    case Which::allreduce:
      MPI_Allreduce(mine.data(), out.data(), int(c.n), mpi_type(c.d), mpi_op(c.op), MPI_COMM_WORLD);
      break;
    case Which::reduce:
      MPI_Reduce(mine.data(), out.data(), int(c.n), mpi_type(c.d), mpi_op(c.op), c.root,
                 MPI_COMM_WORLD);
      break;
  }
  return out;
}

// Whether this rank holds a result.
inline bool has_result(const Case& c) { return c.which != Which::reduce || world_rank() == c.root; }

// Empty when got equals ref bit for bit (tol 0) or element-wise within tol.
inline std::string check_close(const Case& c, const Bytes& ref, const Bytes& got, double tol) {
  const size_t n = ref.size() / codec::dtype_size(c.d);
  for (size_t i = 0; i < n; ++i) {
    long double a = element(c.d, ref, i), b = element(c.d, got, i);
    bool ok = tol == 0 ? std::memcmp(ref.data() + i * codec::dtype_size(c.d),
                                     got.data() + i * codec::dtype_size(c.d),
                                     codec::dtype_size(c.d)) == 0
                       : std::fabs(a - b) <= (long double)tol;
    if (!ok)
      return "element " + std::to_string(i) + ": MPI " + std::to_string(double(a)) + ", got " +
             std::to_string(double(b)) + " (tolerance " + std::to_string(tol) + ")";
  }
  return {};
}

// The algorithms that can run this case (the homomorphic ones only sum with szp).
inline bool runs(Algorithm alg, const Config& cfg, Op op) {
  bool homomorphic = alg == Algorithm::HomomorphicRing || alg == Algorithm::FusedRing ||
                     alg == Algorithm::HomomorphicRecursiveDoubling;
  return !homomorphic || (op == Op::sum && cfg.codec == "szp");
}

inline bool is_float_exact_op(const Case& c) {
  return c.op == Op::min || c.op == Op::max || !codec::is_float(c.d);
}

// Collective: runs the case and checks everything a successful call promises.
inline int pretend_from_env() {
  const char* e = std::getenv("COMMPRESS_PRETEND_RANKS_PER_NODE");
  return e ? std::atoi(e) : 0;
}

// COMMPRESS_TEST_VERBOSE=1 prints every case on rank 0 before it runs (to find a hang).
inline void announce(const Case& c) {
  static const bool verbose = std::getenv("COMMPRESS_TEST_VERBOSE") != nullptr;
  if (verbose && world_rank() == 0) std::fprintf(stderr, "case: %s\n", label(c).c_str());
}

inline void check_case(const Case& c) {
  SCOPED_TRACE(label(c));
  announce(c);
  const int p = world_size(), me = world_rank();
  const size_t es = codec::dtype_size(c.d);
  std::vector<Bytes> inputs;
  for (int r = 0; r < p; ++r) inputs.push_back(input_of(c, r));
  const Bytes& mine = inputs[me];
  Bytes ref = mpi_reference(c, mine);
  // In place, the input sits in the output buffer (reduce_scatter_block: all p blocks).
  Bytes out = c.in_place ? mine : Bytes(c.n * es, std::byte{0xcd});
  auto r = call(c, c.in_place ? out.data() : mine.data(), out.data());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  out.resize(c.n * es);
  EXPECT_NE(r->algorithm, Algorithm::Auto);
  if (c.alg != Algorithm::Auto && c.alg != Algorithm::Hierarchical) {
    EXPECT_EQ(r->algorithm, c.alg);
  }
  if (c.alg == Algorithm::Hierarchical && p > 1) {
    // Nodes of k ranks are even when k divides p or p <= k (real nodes: one node here); uneven
    // ones run the cross-node ring over everyone.
    int k = c.pretend ? c.pretend : pretend_from_env();
    Algorithm ring = c.op == Op::sum && c.cfg.codec == "szp" ? Algorithm::HomomorphicRing
                                                              : Algorithm::DocRing;
    EXPECT_EQ(r->algorithm, k == 0 || p % k == 0 || p <= k ? Algorithm::Hierarchical : ring)
        << cc::algorithm_name(r->algorithm);
  }
  const double bound = r->guaranteed_abs_bound;
  EXPECT_GE(bound, 0.0);
  // A REL request over a range of 0 travels exactly: its guarantee is the additions' rounding.
  if (lossy(c) && requested_abs(c, inputs) > 0) {
    EXPECT_LE(bound, requested_abs(c, inputs) * (1 + 1e-12)) << "guarantee above the request";
  }
  if (is_float_exact_op(c) && !lossy(c)) {
    EXPECT_EQ(bound, 0.0) << "exact arithmetic must promise exactness";
  }
  if (has_result(c)) {
    size_t begin = c.which == Which::reduce_scatter ? size_t(me) * c.n : 0;
    auto exact = exact_reduction(c, inputs, begin, c.n);
    std::string err = check_exact(c, exact, out, bound);
    EXPECT_TRUE(err.empty()) << "against the exact reduction: " << err;
    report_margin(c, exact, out, bound);
    if (!lossy(c)) {
      // Both are within the rounding bound of the exact result, hence within twice of each
      // other; exact operations must agree bit for bit.
      err = check_close(c, ref, out, is_float_exact_op(c) ? 0.0 : 2 * bound);
      EXPECT_TRUE(err.empty()) << "against MPI: " << err;
    }
  }
  if (c.which == Which::allreduce && r->algorithm != Algorithm::Mpi) {
    EXPECT_TRUE(same_bytes_everywhere(out)) << "ranks hold different results";
  }
  if (r->algorithm != Algorithm::Mpi && p > 1 && c.n > 0 && c.which != Which::reduce) {
    EXPECT_GT(r->bytes_sent, 0u);
  }
}

// Collective: runs the case and expects the same failure on every rank.
inline void check_refused(const Case& c, ErrorCode expected) {
  announce(c);
  std::vector<Bytes> inputs;
  Bytes mine = input_of(c, world_rank());
  Bytes out(std::max<size_t>(1, c.n * codec::dtype_size(c.d)));
  auto r = call(c, mine.data(), out.data());
  expect_failed_alike(r.status(), label(c), expected);
}

inline std::vector<Config> lossy_configs_for(Dtype d) {
  if (d == Dtype::f32) return {{"szp", ErrorBound::absolute(1e-2)}, {"szp", ErrorBound::relative(1e-3)}};
  return {{"szp", ErrorBound::absolute(1e-4)}, {"szp", ErrorBound::relative(1e-6)}};
}

// The lossless wire used for each dtype in the exactness tests.
inline Config lossless_config_for(Dtype d) {
  switch (d) {
    case Dtype::f32: return {"szp-lossless", ErrorBound::lossless()};
    case Dtype::f64: return {"zstd-1", ErrorBound::lossless()};
    case Dtype::i32: return {"lz4", ErrorBound::lossless()};
    default: return {"none", ErrorBound::lossless()};
  }
}

// Every algorithm (Hierarchical on the real node and on 1-, 2- and 3-rank pretend nodes).
struct Variant {
  Algorithm alg;
  int pretend;
};
inline std::vector<Variant> every_variant() {
  return {{Algorithm::Auto, 0},          {Algorithm::Mpi, 0},
          {Algorithm::DocRing, 0},       {Algorithm::HomomorphicRing, 0},
          {Algorithm::FusedRing, 0},     {Algorithm::HomomorphicRecursiveDoubling, 0},
          {Algorithm::Rabenseifner, 0},  {Algorithm::Hierarchical, 0},
          {Algorithm::Hierarchical, 1},  {Algorithm::Hierarchical, 2},
          {Algorithm::Hierarchical, 3}};
}
// The decompress-operate ones (every op).
inline std::vector<Variant> doc_variants() {
  return {{Algorithm::DocRing, 0}, {Algorithm::Rabenseifner, 0}, {Algorithm::Hierarchical, 1},
          {Algorithm::Hierarchical, 3}};
}

// Forces the break-even size for the scope (same on every rank), whatever the model says.
class BreakEven {
 public:
  explicit BreakEven(size_t bytes) {
    commpress::comm::detail::force_compression_break_even_bytes_for_testing(bytes);
  }
  ~BreakEven() { commpress::comm::detail::force_compression_break_even_bytes_for_testing(SIZE_MAX); }
};

// ---- the checks every operation runs -------------------------------------------------------

// The counts and chunk sizes every algorithm sees: empty, single, odd, and multi-chunk blocks.
struct Size {
  size_t n, chunk_bytes;
};

inline void lossy_sums(Which w, const std::vector<Size>& sizes) {
  for (Variant v : every_variant())
    for (Dtype d : {Dtype::f32, Dtype::f64})
      for (const Config& cfg : lossy_configs_for(d))
        for (Size s : sizes) {
          Case c{w, v.alg, cfg, d, Op::sum, s.n, s.chunk_bytes, v.pretend};
          check_case(c);
        }
}

inline void lossy_min_max(Which w, const std::vector<Size>& sizes) {
  for (Variant v : doc_variants())
    for (Op op : {Op::min, Op::max})
      for (Dtype d : {Dtype::f32, Dtype::f64})
        for (Size s : sizes) check_case({w, v.alg, lossy_configs_for(d)[1], d, op, s.n, s.chunk_bytes, v.pretend});
}

inline void lossless_every_op(Which w, const std::vector<Size>& sizes) {
  std::vector<Variant> vs = doc_variants();
  vs.push_back({Algorithm::Mpi, 0});
  vs.push_back({Algorithm::Auto, 0});
  for (Variant v : vs)
    for (Op op : {Op::sum, Op::prod, Op::min, Op::max})
      for (Dtype d : {Dtype::f32, Dtype::f64, Dtype::i32, Dtype::i64})
        for (Size s : sizes)
          check_case({w, v.alg, lossless_config_for(d), d, op, s.n, s.chunk_bytes, v.pretend});
}

// The homomorphic algorithms with szp's lossless mode (no frames to combine) and with min,
// a lossy prod, and a bound smaller than the rounding of the sum itself.
inline void refusals(Which w) {
  for (Algorithm a : {Algorithm::HomomorphicRing, Algorithm::FusedRing,
                      Algorithm::HomomorphicRecursiveDoubling}) {
    check_refused({w, a, {"szp", ErrorBound::absolute(1e-3)}, Dtype::f32, Op::min, 100},
                  ErrorCode::unsupported);
    check_refused({w, a, {"zstd-1", ErrorBound::lossless()}, Dtype::f32, Op::sum, 100},
                  ErrorCode::unsupported);
  }
  for (Algorithm a : {Algorithm::DocRing, Algorithm::Rabenseifner, Algorithm::Hierarchical})
    check_refused({w, a, {"szp", ErrorBound::absolute(1e-3)}, Dtype::f64, Op::prod, 100},
                  ErrorCode::unsupported);
  if (w != Which::reduce_scatter)  // the plain ring is a reduce-scatter only
    check_refused(
        {w, Algorithm::PlainRing, {"none", ErrorBound::lossless()}, Dtype::f32, Op::sum, 100},
        ErrorCode::invalid_argument);
  if (w != Which::allreduce)  // the shared window is an allreduce (and allgather) only
    check_refused(
        {w, Algorithm::SharedWindow, {"none", ErrorBound::lossless()}, Dtype::f32, Op::sum, 100},
        ErrorCode::invalid_argument);
  if (world_size() > 1)  // one rank has no arithmetic to round
    for (Algorithm a : {Algorithm::DocRing, Algorithm::HomomorphicRing, Algorithm::Rabenseifner})
      check_refused({w, a, {"szp", ErrorBound::absolute(1e-9)}, Dtype::f32, Op::sum, 100},
                    ErrorCode::invalid_argument);
}

// Arguments that differ between ranks: every rank fails alike, nobody hangs.
inline void mismatches(Which w) {
  const bool odd = world_rank() == world_size() - 1;
  if (world_size() == 1) return;
  Case base{w, Algorithm::DocRing, {"szp", ErrorBound::absolute(1e-2)}, Dtype::f32, Op::sum, 100};
  Case c = base;
  c.n = odd ? 101 : 100;
  check_refused(c, ErrorCode::mismatch);
  c = base;
  c.op = odd ? Op::max : Op::sum;
  check_refused(c, ErrorCode::mismatch);
  c = base;
  c.alg = odd ? Algorithm::Rabenseifner : Algorithm::DocRing;
  check_refused(c, ErrorCode::mismatch);
  c = base;
  c.cfg.codec = odd ? "zstd-1" : "szp";
  check_refused(c, ErrorCode::mismatch);
  c = base;  // the homomorphic ring cannot take max: a local refusal on one rank fails all
  c.alg = Algorithm::HomomorphicRing;
  c.op = odd ? Op::max : Op::sum;
  check_refused(c, ErrorCode::unsupported);
  c = base;
  c.alg = Algorithm::Hierarchical;
  c.pretend = odd ? 2 : 1;
  check_refused(c, ErrorCode::mismatch);
  c = base;
  c.cfg.bound = ErrorBound::absolute(odd ? 2e-2 : 1e-2);
  check_refused(c, ErrorCode::mismatch);
}

// A damaged frame on one link fails every rank (and leaves nothing behind for the next call).
inline void corrupt_link(Which w) {
  if (world_size() == 1) return;
  BreakEven all_compressed(0);
  for (Variant v : {Variant{Algorithm::DocRing, 0}, Variant{Algorithm::HomomorphicRing, 0},
                    Variant{Algorithm::FusedRing, 0},
                    Variant{Algorithm::HomomorphicRecursiveDoubling, 0},
                    Variant{Algorithm::Rabenseifner, 0}, Variant{Algorithm::Hierarchical, 1}}) {
    Case c{w, v.alg, {"szp", ErrorBound::absolute(1e-2)}, Dtype::f32, Op::sum, 1000, 0, v.pretend};
    // Rank 1 sends in every algorithm (the reduce's root is 0, whose tree receives only).
    if (world_rank() == 1) commpress::comm::detail::corrupt_next_send_for_testing();
    check_refused(c, ErrorCode::checksum_mismatch);
    commpress::comm::detail::corrupt_next_send_for_testing(false);
    check_case(c);  // the next call is clean
  }
}

}  // namespace commpress::testing::reduce
