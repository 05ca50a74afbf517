// Registers `commpress codec {compress,decompress,inspect,compare,list}`.
#include "cli/codec_commands.hpp"

#include <memory>

#include "cli/commands.hpp"

namespace commpress::cli {

namespace {

constexpr const char* kSyncHelp =
    "flush the output to disk (fsync) before it replaces OUT; without it the replacement is "
    "still atomic for every reader, as with cp";

void add_compress(CLI::App& group, Outcome& outcome) {
  auto args = std::make_shared<CompressArgs>();
  CLI::App* cmd = group.add_subcommand("compress", "compress a raw little-endian array into a frame");
  cmd->add_option("--codec", args->codec,
                  "codec name (see `commpress codec list`), or auto: the szp mode a sample of "
                  "the data suits (szp, szp-e, szp-e with --shape)")
      ->required();
  auto* abs = cmd->add_option("--abs", args->abs_bound, "absolute error bound (lossy codecs)");
  auto* rel = cmd->add_option("--rel", args->rel_bound,
                              "error bound relative to the value range (lossy codecs)");
  abs->excludes(rel);
  // An empty value would otherwise leave the option unset, silently asking for no bound.
  for (auto* bound : {abs, rel})
    bound->check([](const std::string& v) { return v.empty() ? "a bound needs a value" : ""; });
  cmd->add_option("--dtype", args->dtype, "element type: f32, f64, i32, i64 or u8")->required();
  cmd->add_option("--shape", args->shape,
                  "the array's dimensions, slowest first (e.g. --shape 512 512 256); codecs "
                  "that predict across dimensions (szp-e) use them")
      ->expected(1, 64);
  cmd->add_option("IN", args->in, "raw input array")->required();
  cmd->add_option("OUT", args->out, "frame to write")->required();
  cmd->add_flag("--sync", args->sync, kSyncHelp);
  cmd->callback([args, &outcome] { outcome.status = run_compress(*args); });
}

void add_decompress(CLI::App& group, Outcome& outcome) {
  auto args = std::make_shared<DecompressArgs>();
  CLI::App* cmd = group.add_subcommand(
      "decompress", "decode a frame into a raw array (dtype and count come from its header)");
  cmd->add_option("IN", args->in, "frame")->required();
  cmd->add_option("OUT", args->out, "raw array to write")->required();
  cmd->add_flag("--sync", args->sync, kSyncHelp);
  cmd->callback([args, &outcome] { outcome.status = run_decompress(*args); });
}

void add_inspect(CLI::App& group, Outcome& outcome) {
  auto in = std::make_shared<std::string>();
  CLI::App* cmd = group.add_subcommand("inspect", "validate a frame and print its header");
  cmd->add_option("IN", *in, "frame")->required();
  cmd->callback([in, &outcome] { outcome.status = run_inspect(*in); });
}

void add_compare(CLI::App& group, Outcome& outcome) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = group.add_subcommand(
      "compare", "error statistics of a decoded array against its original");
  cmd->add_option("ORIGINAL", args->original, "raw original array")->required();
  cmd->add_option("DECODED", args->decoded, "raw decoded array")->required();
  cmd->add_option("--dtype", args->dtype, "element type: f32 or f64")->required();
  cmd->add_option("--frame", args->frame, "the frame, to report its ratio and bound");
  cmd->callback([args, &outcome] { outcome.status = run_compare(*args); });
}

void add_list(CLI::App& group, Outcome& outcome) {
  CLI::App* cmd = group.add_subcommand("list", "list the codecs built into this library");
  cmd->callback([&outcome] { outcome.status = run_list(); });
}

}  // namespace

void add_codec_commands(CLI::App& app, Outcome& outcome) {
  CLI::App* group = app.add_subcommand("codec", "compress, decode, inspect and compare arrays");
  group->require_subcommand(1);
  add_compress(*group, outcome);
  add_decompress(*group, outcome);
  add_inspect(*group, outcome);
  add_compare(*group, outcome);
  add_list(*group, outcome);
}

}  // namespace commpress::cli
