// `commpress blas`: which BLAS kernel this process runs and its dgemm rate. The launchers ask
// it (--coretype) before starting a measurement, because OpenBLAS reads OPENBLAS_CORETYPE only
// when it loads: a fallback kernel can be replaced for the next process, never for this one.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "commpress/blas_info.hpp"

namespace commpress::cli {

namespace {

struct BlasArgs {
  bool coretype = false;
  int64_t n = 1024;
  int reps = 3;
  int threads = 0;  // 0: every online core
};

Status run_blas(const BlasArgs& args) {
  if (args.n < 1 || args.reps < 1 || args.threads < 0)
    return {ErrorCode::invalid_argument, "blas: --n and --reps must be >= 1, --threads >= 0"};
  if (args.coretype) {  // the remedy to start the next process with, or nothing
    const linalg::BlasInfo info = linalg::blas_info();
    if (info.fallback) std::printf("%s\n", info.fit_core.c_str());
    return {};
  }
  const int threads =
      args.threads > 0 ? args.threads : int(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  const double flops = linalg::measure_dgemm_flops(args.n, args.reps, threads);
  const linalg::BlasInfo info = linalg::blas_info();
  std::printf("BLAS: %s; CPU %s\n", info.describe().c_str(),
              info.cpu_isa.empty() ? "without AVX2" : info.cpu_isa.c_str());
  std::printf("dgemm %lld^3: %.1f GFLOP/s with %d thread(s) (best of %d)\n",
              static_cast<long long>(args.n), flops / 1e9, info.threads, args.reps);
  return {};
}

}  // namespace

void add_blas_command(CLI::App& app, Outcome& outcome) {
  auto args = std::make_shared<BlasArgs>();
  CLI::App* cmd = app.add_subcommand(
      "blas", "the BLAS library, version and kernel this process runs, and its dgemm rate");
  cmd->add_flag("--coretype", args->coretype,
                "print only the OPENBLAS_CORETYPE that replaces a fallback kernel (nothing when "
                "the kernel fits the CPU)");
  cmd->add_option("--n", args->n, "size of the timed dgemm (n x n x n)")->capture_default_str();
  cmd->add_option("--reps", args->reps, "timed products (the best counts)")->capture_default_str();
  cmd->add_option("--threads", args->threads, "BLAS threads (0: every core)")->capture_default_str();
  cmd->callback([args, &outcome] { outcome.status = run_blas(*args); });
}

}  // namespace commpress::cli
