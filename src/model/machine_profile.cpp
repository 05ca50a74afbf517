#include <algorithm>
#include <cmath>

#include "commpress/model.hpp"

namespace commpress::model {

double Link::sharing_beta(double bytes) const {
  const double x = std::max(0.0, bytes);
  const bool rdv = x >= switch_bytes;
  const auto n = std::ptrdiff_t(measured.size());
  // Interval i runs from sample i - 1 to sample i; k is the first sample above x, so interval
  // k holds x and interval k - 1 ends at or below it.
  const std::ptrdiff_t k =
      std::upper_bound(measured.begin(), measured.end(), x,
                       [](double v, const Sample& s) { return v < s.bytes; }) -
      measured.begin();
  double best = INFINITY;
  for (std::ptrdiff_t i : {k, k - 1}) {
    if (i < 1 || i >= n) continue;
    const Sample &lo = measured[size_t(i - 1)], &hi = measured[size_t(i)];
    if ((lo.bytes >= switch_bytes) != rdv || (hi.bytes >= switch_bytes) != rdv) continue;
    const double slope = (hi.seconds - lo.seconds) / (hi.bytes - lo.bytes);
    if (slope > 0) best = std::min(best, slope);
  }
  return std::isfinite(best) ? best : rendezvous.beta;
}

double Link::time(double bytes) const {
  const double x = std::max(0.0, bytes);
  const bool rdv = x >= switch_bytes;
  const double queued =
      x * queued_beta + (sharers > 1 ? x * (sharers - 1) * sharing_beta(x) : 0.0);
  const auto above = std::upper_bound(measured.begin(), measured.end(), x,
                                      [](double v, const Sample& s) { return v < s.bytes; });
  if (above != measured.begin()) {
    const Sample& lo = above[-1];
    if (lo.bytes == x) return lo.seconds + queued;
    if (above != measured.end() && (lo.bytes >= switch_bytes) == rdv &&
        (above->bytes >= switch_bytes) == rdv)
      return lo.seconds + (above->seconds - lo.seconds) * (x - lo.bytes) / (above->bytes - lo.bytes) +
             queued;
  }
  const LinkParams& lp = rdv ? rendezvous : eager;
  return lp.alpha + x * lp.beta + queued;
}

namespace {

double call(double bytes, double rate, double overhead) {
  if (bytes <= 0) return 0;
  if (rate <= 0) return INFINITY;
  return overhead + bytes / rate;
}

}  // namespace

double CodecRates::compress_time(double b) const { return call(b, compress, call_overhead); }
double CodecRates::decompress_time(double b) const { return call(b, decompress, call_overhead); }
double CodecRates::combine_time(double b) const { return call(b, combine, call_overhead); }
double CodecRates::combine_raw_time(double b) const { return call(b, combine_raw, call_overhead); }

double MpiAgainstPlain::at(int p, double block_bytes) const {
  if (p != ranks || points.empty()) return 0;
  if (block_bytes <= points.front().block_bytes) return points.front().slowdown;
  for (size_t i = 1; i < points.size(); ++i) {
    const Point &a = points[i - 1], &b = points[i];
    if (block_bytes > b.block_bytes) continue;
    const double f =
        std::log(block_bytes / a.block_bytes) / std::log(b.block_bytes / a.block_bytes);
    return a.slowdown + f * (b.slowdown - a.slowdown);
  }
  return points.back().slowdown;
}

namespace {

constexpr MpiAgainstPlainField kFields[] = {
    {"reduce_scatter_mpi", "reduce_scatter_block against the plain ring",
     &MachineProfile::reduce_scatter_mpi, Operation::reduce_scatter, Algorithm::PlainRing},
    {"bcast_mpi", "bcast against the plain binomial tree", &MachineProfile::bcast_mpi,
     Operation::bcast, Algorithm::PlainBinomial},
    {"allreduce_mpi", "allreduce against the shared window", &MachineProfile::allreduce_mpi,
     Operation::allreduce, Algorithm::SharedWindow},
    {"allgather_mpi", "allgather against the shared window", &MachineProfile::allgather_mpi,
     Operation::allgather, Algorithm::SharedWindow},
    {"bcast_window_mpi", "bcast against the shared window", &MachineProfile::bcast_window_mpi,
     Operation::bcast, Algorithm::SharedWindow}};

// Auto prices an uncompressed algorithm only from MPI's time and this measurement.
constexpr bool every_uncompressed_row_measured() {
  for (const AlgorithmInfo& info : kAlgorithms) {
    if (info.compressed || info.id == Algorithm::Mpi) continue;
    for (unsigned op = 0; op < 8; ++op) {
      if (!info.serves(Operation(op))) continue;
      bool found = false;
      for (const MpiAgainstPlainField& f : kFields)
        found = found || (f.operation == Operation(op) && f.against == info.id);
      if (!found) return false;
    }
  }
  return true;
}
static_assert(every_uncompressed_row_measured(),
              "an uncompressed algorithm serves an operation the profile does not measure");

}  // namespace

std::span<const MpiAgainstPlainField> mpi_against_plain_fields() { return kFields; }

const MpiAgainstPlain* mpi_against(const MachineProfile& m, Operation op, Algorithm plain) {
  for (const MpiAgainstPlainField& f : kFields)
    if (f.operation == op && f.against == plain) return &(m.*f.member);
  return nullptr;
}

const CodecRates* MachineProfile::rates(std::string_view name, Dtype dtype) const {
  for (const CodecRates& c : codecs)
    if (c.codec == name && c.dtype == dtype) return &c;
  return nullptr;
}

RatioCurve RatioCurve::constant(double r, int elem_size) {
  RatioCurve c;
  c.at_bound = r;
  c.lossless = true;
  c.elem_size = elem_size;
  return c;
}

double RatioCurve::at(double k) const {
  const double base = std::max(at_bound, 1e-3);
  if (lossless || k <= 1) return base;
  // Bits per element grow with log k: sampled slope when a finer bound was measured, else
  // one more bit per halving of the bound (a fixed-length quantizer's rule).
  const double bits1 = 8.0 * elem_size / base;
  double slope = 1.0 / std::log(2.0);
  if (at_fine > 0 && fine_divisor > 1)
    slope = std::max(0.0, (8.0 * elem_size / at_fine - bits1) / std::log(fine_divisor));
  const double bits = std::min(bits1 + slope * std::log(k), 8.0 * elem_size * 1.01);
  return 8.0 * elem_size / bits;
}

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::p2p: return "p2p";
    case Operation::bcast: return "bcast";
    case Operation::allgather: return "allgather";
    case Operation::scatter: return "scatter";
    case Operation::gather: return "gather";
    case Operation::reduce_scatter: return "reduce_scatter";
    case Operation::allreduce: return "allreduce";
    case Operation::reduce: return "reduce";
    case Operation::alltoall: return "alltoall";
  }
  return "?";
}

}  // namespace commpress::model
