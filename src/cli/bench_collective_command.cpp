// Registers `commpress bench collective`: the options of the benchmark interface,
// where --algorithm and the bounds also take comma-separated lists, so one launch measures
// several algorithms and bounds on the same data (each still one JSON line).
#include <memory>

#include "cli/bench_collective.hpp"
#include "cli/commands.hpp"

namespace commpress::cli {

namespace {

void add_collective(CLI::App& group, Outcome& outcome) {
  auto a = std::make_shared<BenchCollectiveArgs>();
  CLI::App* cmd = group.add_subcommand(
      "collective",
      "time a compressed operation (and MPI's own) under mpirun: one JSON line per measurement "
      "on rank 0");
  cmd->add_option("--op", a->op,
                  "allreduce, reduce_scatter, bcast, allgather, scatter, gather or p2p "
                  "(pairs 0->1, 2->3, ...)")
      ->required();
  cmd->add_option("--algorithm", a->algorithms,
                  "auto, mpi (MPI's own operation) or an algorithm name (ring, doc_ring, "
                  "homomorphic_ring, ...); a comma-separated list measures each")
      ->delimiter(',')
      ->required();
  cmd->add_option("--count", a->count,
                  "the operation's count as MPI takes it: elements per rank for allreduce, "
                  "bcast, p2p; per block for reduce_scatter, allgather, scatter, gather")
      ->required();
  cmd->add_option("--dtype", a->dtype, "f32 or f64")->capture_default_str();
  auto* data = cmd->add_option("--data", a->data,
                               "generated data: randomwalk, gaussian, smooth or sparse; rank r "
                               "draws stream (seed, r)")
                   ->capture_default_str();
  auto* input = cmd->add_option("--input", a->input,
                                "raw array of --dtype values; rank r takes elements "
                                "[r*n, (r+1)*n) of it, wrapping around a short file");
  data->excludes(input);
  cmd->add_option("--seed", a->seed, "seed of the generated data")->capture_default_str();
  auto* abs = cmd->add_option("--bound-abs", a->bound_abs,
                              "absolute error bound on the result (list: one measurement each)")
                  ->delimiter(',');
  auto* rel = cmd->add_option("--bound-rel", a->bound_rel,
                              "error bound relative to the global value range (list allowed)")
                  ->delimiter(',');
  auto* lossless = cmd->add_option("--lossless", a->lossless, "measure with this lossless codec");
  auto* codec =
      cmd->add_option("--codec", a->codec, "codec for the lossy bounds")->capture_default_str();
  abs->excludes(rel)->excludes(lossless);
  rel->excludes(lossless);
  codec->excludes(lossless);
  cmd->add_option("--repeat", a->repeat, "timed repeats (median and min reported)")
      ->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "untimed runs before the repeats")->capture_default_str();
  cmd->add_option("--chunk-bytes", a->chunk_bytes, "pipelining chunk; 0 lets commpress choose")
      ->capture_default_str();
  cmd->add_option("--pretend-ranks-per-node", a->pretend_ranks_per_node,
                  "group consecutive ranks into pretend nodes (hierarchical); 0 = real nodes")
      ->capture_default_str();
  cmd->add_option("--root", a->root, "root of bcast, scatter, gather")->capture_default_str();
  cmd->callback([a, &outcome] { outcome.status = run_bench_collective(*a); });
}

}  // namespace

void add_bench_commands(CLI::App& app, Outcome& outcome) {
  CLI::App* group = app.add_subcommand("bench", "measure compressed communication");
  group->require_subcommand(1);
  add_collective(*group, outcome);
}

}  // namespace commpress::cli
