// `commpress plan p2p-time`: the cost model's time for one point-to-point message at a given
// compression ratio, on the profile in force (COMMPRESS_PROFILE). A send predicts with the
// profile's typical ratio, the only one it knows before compressing; given the ratio a
// message achieved (or one sampled from its data), this is the model's time for that message,
// which is what a measured transfer is compared against (apps/sweep report's throughput
// against ratio).
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "comm/select.hpp"
#include "commpress/model.hpp"

namespace commpress::cli {

namespace {

struct PlanP2pArgs {
  size_t count = 0;
  std::string dtype = "f32";
  std::string codec = "none";
  double ratio = 0;
  size_t chunk_bytes = 0;
  double oversubscription = 1;
  bool json = false;
};

Status invalid(std::string message) { return {ErrorCode::invalid_argument, std::move(message)}; }

Status run_plan_p2p(const PlanP2pArgs& a) {
  auto dtype = codec::parse_dtype(a.dtype);
  if (!dtype.ok()) return dtype.status();
  const bool raw = a.codec == "none";
  if (!raw && !(std::isfinite(a.ratio) && a.ratio > 0))
    return invalid("plan p2p-time: give --ratio R > 0 (the message's compression ratio) with --codec");
  if (!(a.oversubscription >= 1)) return invalid("plan p2p-time: --oversubscription must be >= 1");
  const model::MachineProfile& m = comm::detail::machine_profile();
  const model::CodecRates* rates = raw ? nullptr : m.rates(a.codec, *dtype);
  if (!raw && !rates)
    return invalid("plan p2p-time: the profile (" + m.origin + ") has no rates for " + a.codec + " " +
                   codec::dtype_name(*dtype));
  model::Scenario s;
  s.op = model::Operation::p2p;
  s.bytes = double(a.count) * double(codec::dtype_size(*dtype));
  s.ranks = 2;
  s.chunk_bytes = double(a.chunk_bytes);
  s.ratio = model::RatioCurve::constant(raw ? 1 : a.ratio, int(codec::dtype_size(*dtype)));
  s.oversubscription = a.oversubscription;
  const model::Algorithm alg = raw ? model::Algorithm::Mpi : model::Algorithm::Direct;
  const double t = model::predict(m, rates, alg, s);
  if (!std::isfinite(t)) return {ErrorCode::internal, "plan p2p-time: the model gives no finite time"};
  if (a.json)
    std::printf("{\"algorithm\": \"%s\", \"codec\": \"%s\", \"bytes\": %.0f, \"ratio\": %.17g, "
                "\"predicted_seconds\": %.17g}\n",
                model::algorithm_name(alg), a.codec.c_str(), s.bytes, raw ? 1.0 : a.ratio, t);
  else
    std::printf("algorithm: %s\ncodec: %s\nbytes: %.0f\nratio: %g\npredicted_seconds: %.9g\n",
                model::algorithm_name(alg), a.codec.c_str(), s.bytes, raw ? 1.0 : a.ratio, t);
  return {};
}

}  // namespace

void add_plan_p2p_command(CLI::App& app, Outcome& outcome) {
  auto a = std::make_shared<PlanP2pArgs>();
  CLI::App* cmd = plan_group(app)->add_subcommand(
      "p2p-time", "the model's time for one point-to-point message at a compression ratio "
             "(no MPI needed)");
  cmd->add_option("--count", a->count, "elements in the message")->required();
  cmd->add_option("--dtype", a->dtype, "f32, f64, i32, ...")->capture_default_str();
  cmd->add_option("--codec", a->codec, "a registry name, or none (MPI's own send)")
      ->capture_default_str();
  cmd->add_option("--ratio", a->ratio, "the message's compression ratio (with --codec)");
  cmd->add_option("--chunk-bytes", a->chunk_bytes, "chunk size (0 = the default)")
      ->capture_default_str();
  cmd->add_option("--oversubscription", a->oversubscription, "ranks per core (>= 1)")
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "one JSON object instead of key: value lines");
  cmd->callback([a, &outcome] { outcome.status = run_plan_p2p(*a); });
}

}  // namespace commpress::cli
