#include "comm/probe/codec_share.hpp"

#include <algorithm>
#include <vector>

#include "comm/probe/timing.hpp"
#include "comm/session/private_comm.hpp"

namespace commpress::comm::probe {

namespace {
constexpr double kOnCore = 0.01;
constexpr double kLongest = 0.5;
}  // namespace

template <class T>
Result<double> codec_share(MPI_Comm comm, const codec::Codec& c, double rel, const T* a, size_t n,
                           double fastest, double window) {
  constexpr codec::Dtype dt = codec::dtype_of<T>();
  codec::ErrorBound bound = codec::ErrorBound::lossless();
  Status st;
  if (c.lossy()) {
    auto abs = codec::resolve_abs_bound(a, n, dt, codec::ErrorBound::relative(rel));
    if (abs.ok()) bound = codec::ErrorBound::absolute(*abs);
    else st = abs.status();
  }
  codec::Workspace ws;
  std::vector<std::byte> frame;
  if (st.ok()) st = c.compress(a, n, dt, bound, frame, ws);  // buffers sized before the clock
  COMMPRESS_MPI(MPI_Barrier(comm));
  double share = 1;
  if (st.ok()) {
    // The window also lasts until the rank has done kOnCore seconds of work at its fastest
    // rate: on a loaded machine a rank may wait longer than the window for its turn, and a
    // share from one or two time slices is a matter of luck. The wait for that is the load's
    // (at most kLongest).
    const double calls_on_core = fastest > 0 ? kOnCore * fastest / double(n * sizeof(T)) : 0;
    const auto t0 = Clock::now();
    int calls = 0;
    double elapsed = 0;
    while (st.ok() && (calls < 2 || ((elapsed < window || calls < calls_on_core) && elapsed < kLongest))) {
      st = c.compress(a, n, dt, bound, frame, ws);
      ++calls;
      elapsed = seconds_since(t0);
    }
    if (fastest > 0 && elapsed > 0) share = double(calls) * double(n * sizeof(T)) / elapsed / fastest;
  }
  // A failure on any rank fails every rank; otherwise the slowest rank's share.
  double v[2] = {st.ok() ? 0.0 : 1.0, -share};
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm));
  if (!st.ok()) return st;
  if (v[0] > 0) return Status{ErrorCode::internal, "probe: the codec share failed on another rank"};
  return std::clamp(-v[1], 1e-3, 1.0);
}

template Result<double> codec_share<float>(MPI_Comm, const codec::Codec&, double, const float*,
                                           size_t, double, double);
template Result<double> codec_share<double>(MPI_Comm, const codec::Codec&, double, const double*,
                                            size_t, double, double);

}  // namespace commpress::comm::probe
