// Registers `commpress bench gemm` under the bench group: the options of the benchmark
// interface, where --algorithm, --codec and the bounds also take comma-separated lists, so one
// launch measures several algorithms side by side on the same matrices.
#include <memory>

#include "cli/bench_gemm.hpp"
#include "cli/bench_gemm_plan.hpp"
#include "cli/commands.hpp"

namespace commpress::cli {

void add_bench_gemm_command(CLI::App& app, Outcome& outcome) {
  CLI::App* group = app.get_subcommand("bench");
  auto a = std::make_shared<BenchGemmArgs>();
  CLI::App* cmd = group->add_subcommand(
      "gemm",
      "time the distributed multiply C = op(A) op(B) (and ScaLAPACK's pdgemm) under mpirun: "
      "one JSON line per measurement on rank 0");
  cmd->add_option(
         "--algorithm", a->algorithms,
         gemm_algorithm_list() +
             ", or blas (one local product on one rank); a comma-separated list measures each; "
             "ALG@CODEC measures ALG with that codec only")
      ->delimiter(',')
      ->required();
  cmd->add_option("--m", a->m, "rows of op(A) and C")->required();
  cmd->add_option("--n", a->n, "columns of op(B) and C")->required();
  cmd->add_option("--k", a->k, "columns of op(A), rows of op(B)")->required();
  cmd->add_option("--dtype", a->dtype, "f64 or f32")->capture_default_str();
  cmd->add_option("--transa", a->transa, "N or T (A is stored k x m when T)")
      ->capture_default_str();
  cmd->add_option("--transb", a->transb, "N or T (B is stored n x k when T)")
      ->capture_default_str();
  cmd->add_option("--grid", a->grid,
                  "PRxPC or PRxPCxC; default: the most square 2-D grid (Auto: its own choice)");
  cmd->add_option("--zeros", a->zeros, "fraction of exact zeros in A and B (else uniform [-1,1])")
      ->capture_default_str();
  cmd->add_option("--codec", a->codecs,
                  "codec for the blocks that travel: none, auto or a registry name (zstd-1, lz4, "
                  "szp, zfp...); a list measures each (default none)")
      ->delimiter(',');
  auto* rel = cmd->add_option("--bound-rel", a->bound_rel,
                              "bound on each input element relative to its matrix's value range, "
                              "for lossy codecs (list: one measurement each)")
                  ->delimiter(',');
  auto* abs = cmd->add_option("--bound-abs", a->bound_abs,
                              "absolute bound on each input element, for lossy codecs (list)")
                  ->delimiter(',');
  rel->excludes(abs);
  cmd->add_option(
         "--reference", a->reference,
         "what results are checked against: auto (serial product while its operands fit 1 GiB "
         "per rank, "
         "else ScaLAPACK), serial, scalapack or none")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "seed of A (B uses seed + 1)")->capture_default_str();
  cmd->add_option("--repeat", a->repeat, "timed repeats (median and min reported)")
      ->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "untimed runs before the repeats")->capture_default_str();
  cmd->add_option("--overlap", a->overlap, "on or off: overlap transfers with local products")
      ->capture_default_str();
  cmd->add_option("--panel", a->panel, "SUMMA panel width in columns (0 = chosen)")
      ->capture_default_str();
  cmd->callback([a, &outcome] { outcome.status = run_bench_gemm(*a); });
}

}  // namespace commpress::cli
