// Shared pieces of the compressed-communication MPI tests: codec configurations, seeded
// arrays of any dtype as bytes, element-wise bound checks, and the check that a failure
// reached every rank with the same error code.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "comm/transport/frame_transport.hpp"
#include "commpress/comm.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"

namespace commpress::testing::comm {

namespace cc = commpress::comm;
namespace codec = commpress::codec;
using Bytes = std::vector<std::byte>;
using codec::Dtype;
using codec::ErrorBound;

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

struct Config {
  std::string codec;
  ErrorBound bound;
};

inline std::string describe(const Config& c) {
  std::string s = c.codec;
  if (c.bound.mode != codec::BoundMode::lossless)
    s += std::string(" ") + codec::bound_mode_name(c.bound.mode) + " " + std::to_string(c.bound.value);
  return s;
}

// Bit-exact transfers: no codec, general-purpose lossless codecs, szp's lossless mode.
inline std::vector<Config> lossless_configs() {
  return {{"none", ErrorBound::lossless()},
          {"zstd-1", ErrorBound::lossless()},
          {"lz4", ErrorBound::lossless()},
          {"szp-lossless", ErrorBound::lossless()}};
}

inline std::vector<Config> lossy_configs() {
  return {{"szp", ErrorBound::absolute(1e-3)}, {"szp", ErrorBound::relative(1e-4)}};
}

inline bool codec_supports(const std::string& name, Dtype d) {
  if (name == "none") return true;
  const codec::Codec* c = codec::find_codec(name);
  return c && c->supports(d);
}

inline std::vector<Dtype> all_dtypes() { return {Dtype::f32, Dtype::f64, Dtype::i32, Dtype::u8}; }

// n elements of dtype d determined by seed: random walks for floats (NaN and Inf included
// when nonfinite), small integers otherwise.
inline Bytes make_bytes(Dtype d, size_t n, uint64_t seed, bool nonfinite = false) {
  Bytes out(n * codec::dtype_size(d));
  auto shape = nonfinite ? Shape::nonfinite : Shape::random_walk;
  if (d == Dtype::f32) {
    auto v = make_data<float>(shape, n, seed);
    if (n) std::memcpy(out.data(), v.data(), out.size());
  } else if (d == Dtype::f64) {
    auto v = make_data<double>(shape, n, seed);
    if (n) std::memcpy(out.data(), v.data(), out.size());
  } else {
    std::mt19937_64 rng(seed);
    for (auto& b : out) b = std::byte(rng() % 7);
  }
  return out;
}

// Empty when every element of got is within bound of exact (floats; non-finite exactly).
inline std::string check_within(Dtype d, const Bytes& exact, const Bytes& got, double bound) {
  if (exact.size() != got.size()) return "size mismatch";
  if (d == Dtype::f32)
    return check_bound<float>({reinterpret_cast<const float*>(exact.data()), exact.size() / 4},
                              {reinterpret_cast<const float*>(got.data()), got.size() / 4}, bound);
  return check_bound<double>({reinterpret_cast<const double*>(exact.data()), exact.size() / 8},
                             {reinterpret_cast<const double*>(got.data()), got.size() / 8}, bound);
}

// The absolute bound a lossy configuration promises for these values, computed here in long
// double (REL: rel x the range of their finite values), independently of the library.
inline double promised_bound(const Config& c, Dtype d, const Bytes& exact) {
  if (d == Dtype::f32)
    return double(testing::promised_bound<float>(
        {reinterpret_cast<const float*>(exact.data()), exact.size() / 4}, c.bound));
  return double(testing::promised_bound<double>(
      {reinterpret_cast<const double*>(exact.data()), exact.size() / 8}, c.bound));
}

// Collective: the same value on every rank.
inline bool same_everywhere(double v) {
  double lo = v, hi = v;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

// Collective: the same bytes on every rank.
inline bool same_bytes_everywhere(const Bytes& b) {
  Bytes first = b;
  MPI_Bcast(first.data(), int(first.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
  int differ = first != b;
  MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return differ == 0;
}

// Collective: every rank failed, all with the same error code (expected, when given).
inline void expect_failed_alike(const Status& st, const std::string& what,
                                ErrorCode expected = ErrorCode::ok) {
  int code[2] = {int(st.code()), -int(st.code())};
  MPI_Allreduce(MPI_IN_PLACE, code, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_NE(code[0], 0) << what << ": some rank succeeded (this rank: " << st.to_string() << ")";
  EXPECT_EQ(code[0], -code[1]) << what << ": ranks failed with different codes (this rank: "
                               << st.to_string() << ")";
  if (expected != ErrorCode::ok) {
    EXPECT_EQ(st.code(), expected) << what << ": " << st.to_string();
  }
}

// Ranks worth testing as roots: first, last, middle.
inline std::vector<int> roots() {
  int p = world_size();
  std::vector<int> r{0};
  if (p > 1) r.push_back(p - 1);
  if (p > 2) r.push_back(p / 2);
  return r;
}

}  // namespace commpress::testing::comm
