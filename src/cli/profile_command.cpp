// `commpress profile`: measures this machine for the cost models and writes the profile as
// JSON. Runs under mpirun with at least 2 ranks (ranks 0 and 1 play ping-pong; every rank
// measures the codecs at once); rank 0 writes the file and prints the summary.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>
#include <utility>

#include "cli/commands.hpp"
#include "cli/raw_io.hpp"
#include "profile/measure_profile.hpp"
#include "profile/profile_report_json.hpp"
#include "commpress/config.h"
#if COMMPRESS_HAVE_GEMM
#include "commpress/blas_info.hpp"
#endif

namespace commpress::cli {

namespace {

struct ProfileArgs {
  std::string out = "machine-profile.json";
  std::vector<std::string> codecs;
  std::vector<double> bounds = {1e-2, 1e-3, 1e-4};
  double max_bytes = 64.0 * (1 << 20);
  size_t elements = size_t{4} << 20;
  double eager_limit = 0;
};

std::string summary(const model::MachineProfile& m) {
  std::ostringstream s;
  auto line = [&](const char* name, const model::Link& l) {
    s << name << ": eager alpha " << l.eager.alpha * 1e6 << " us, beta " << l.eager.beta * 1e9
      << " ns/B (" << (l.eager.beta > 0 ? 1e-9 / l.eager.beta : 0) << " GB/s); rendezvous from "
      << l.switch_bytes << " B: alpha " << l.rendezvous.alpha * 1e6 << " us, beta "
      << l.rendezvous.beta * 1e9 << " ns/B (" << (l.rendezvous.beta > 0 ? 1e-9 / l.rendezvous.beta : 0)
      << " GB/s); transfers overlap computation up to " << l.overlap_bytes << " B\n";
  };
  s << m.origin << "\n";
  line("network", m.network);
  s << "gamma: " << m.gamma * 1e9 << " ns/B (" << (m.gamma > 0 ? 1e-9 / m.gamma : 0) << " GB/s)\n";
  s << "ranks per node: " << m.ranks_per_node << "\n";
#if COMMPRESS_HAVE_GEMM
  // Every rate here depends on the kernel: a generic fallback one is named with its remedy.
  s << "BLAS: " << linalg::blas_info().describe() << "; dgemm " << m.gemm_flops_f64 / 1e9
    << " GFLOP/s per rank\n";
#endif
  for (const auto& c : m.codecs) {
    s << c.codec << " " << codec::dtype_name(c.dtype) << ": compress " << c.compress / 1e9
      << " GB/s, decompress " << c.decompress / 1e9 << " GB/s";
    if (c.combine > 0) s << ", combine " << c.combine / 1e9 << " GB/s";
    if (c.combine_raw > 0) s << ", combine_raw " << c.combine_raw / 1e9 << " GB/s";
    s << ", per call " << c.call_overhead * 1e6 << " us, ratio at REL 1e-4 " << c.typical_ratio << "\n";
  }
  for (const auto& f : model::mpi_against_plain_fields()) {
    const model::MpiAgainstPlain* measured = &(m.*f.member);
    if (measured->ranks <= 0) continue;
    s << "MPI's " << f.what << " at " << measured->ranks << " ranks:";
    for (const auto& pt : measured->points)
      s << " " << pt.block_bytes / 1024 << " KiB " << pt.slowdown << "x;";
    s << "\n";
  }
  return s.str();
}

Status run_profile(const ProfileArgs& args) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      return {ErrorCode::mpi, "profile: MPI_Init_thread failed"};
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  profile::ProfileOptions o;
  for (const auto& c : args.codecs)  // besides the defaults (measure_profile.hpp)
    if (std::find(o.codecs.begin(), o.codecs.end(), c) == o.codecs.end()) o.codecs.push_back(c);
  o.rel_bounds = args.bounds;
  o.max_message_bytes = args.max_bytes;
  o.codec_elements = args.elements;
  o.eager_limit = args.eager_limit;
  o.progress = [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  };
  auto rep = profile::measure_profile(MPI_COMM_WORLD, o);
  Status st = rep.ok() ? Status{} : rep.status();
  if (st.ok() && rank == 0) {
    const std::string json = profile::profile_report_to_json(*rep);
    st = write_file(args.out, std::as_bytes(std::span(json)));
    if (st.ok()) std::printf("%swrote %s\n", summary(rep->profile).c_str(), args.out.c_str());
  }
  if (!initialized) MPI_Finalize();
  return rank == 0 ? st : Status{};
}

}  // namespace

void add_profile_command(CLI::App& app, Outcome& outcome) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "measure this machine for the cost models (run under mpirun, >= 2 ranks)");
  cmd->add_option("--out", args->out, "machine profile to write (JSON)")->capture_default_str();
  cmd->add_option("--codec", args->codecs, "codecs to measure besides szp, szp-eh, pred-byte and pred-bit (repeatable)");
  cmd->add_option("--bounds", args->bounds, "REL bounds for lossy codecs")->capture_default_str();
  cmd->add_option("--max-bytes", args->max_bytes, "largest ping-pong message")->capture_default_str();
  cmd->add_option("--elements", args->elements, "elements per codec measurement")->capture_default_str();
  cmd->add_option("--eager-limit", args->eager_limit,
                  "MPI's eager/rendezvous switch in bytes (0 = find the knee)")
      ->capture_default_str();
  cmd->callback([args, &outcome] { outcome.status = run_profile(*args); });
}

}  // namespace commpress::cli
