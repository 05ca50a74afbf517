// The command groups of the `commpress` tool. Each group lives in its own file and adds its
// subcommands to the top-level app; main() lists the groups and turns the outcome into the
// exit status. A new group (bench, profile, ...) is one more file and one more entry in main.
#pragma once

#include <CLI/CLI.hpp>

#include "commpress/status.hpp"

namespace commpress::cli {

// A command's callback stores its result here; main() reports it.
struct Outcome {
  Status status;
};

// `commpress codec ...`: compress, decompress, inspect, compare, list.
void add_codec_commands(CLI::App& app, Outcome& outcome);
void add_profile_command(CLI::App& app, Outcome& outcome);  // `commpress profile`
// `commpress blas`: the BLAS kernel and its dgemm rate (blas_command.cpp).
void add_blas_command(CLI::App& app, Outcome& outcome);
// `commpress bench collective`: timed operations under mpirun (bench_collective_command.cpp).
void add_bench_commands(CLI::App& app, Outcome& outcome);
// `commpress bench gemm`, added to the bench group (bench_gemm_command.cpp).
void add_bench_gemm_command(CLI::App& app, Outcome& outcome);
// The `plan` group: created by the first of its commands to register (plan_group.cpp).
CLI::App* plan_group(CLI::App& app);
// `commpress plan gemm`: the multiply's plan, printed (plan_gemm_command.cpp).
void add_plan_gemm_command(CLI::App& app, Outcome& outcome);
// `commpress plan allreduce` and the other collectives that select (plan_collective_command.cpp).
void add_plan_collective_commands(CLI::App& app, Outcome& outcome);

}  // namespace commpress::cli
