#include "comm/select.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>

#include "comm/profile_io.hpp"
#include "comm/ratio_sample.hpp"
#include "comm/selection/choice_cache.hpp"
#include "comm/session/agreement.hpp"
#include "comm/session/environment.hpp"
#include "comm/session/hierarchy.hpp"
#include "comm/transport/wire.hpp"

namespace commpress::comm::detail {

namespace {

// A ratio no data reaches: if compression loses even at this one, sampling is pointless.
constexpr double kOptimisticRatio = 256;

// COMMPRESS_PROFILE's profile; none where unset or unreadable (then probed instead).
std::optional<model::MachineProfile> load_from_environment() {
  const char* path = std::getenv("COMMPRESS_PROFILE");
  if (!path || !*path) return std::nullopt;
  auto m = load_profile(path);
  if (m.ok()) return *m;
  std::fprintf(stderr, "commpress: %s; measuring the machine instead\n",
               m.status().to_string().c_str());
  return std::nullopt;
}

// Before any probe: no rates, so no compressed candidate for a collective (point-to-point
// keeps the codec it is given, as for any codec a profile lacks).
model::MachineProfile unmeasured_profile() {
  model::MachineProfile m;
  m.origin = "unmeasured: no profile given and none probed yet";
  return m;
}

bool is_reduction(model::Operation op) {
  return op == model::Operation::reduce_scatter || op == model::Operation::allreduce ||
         op == model::Operation::reduce;
}

struct Profiled {
  model::MachineProfile value;
  int64_t fingerprint = 0;
  explicit Profiled(model::MachineProfile m)
      : value(std::move(m)), fingerprint(detail::fingerprint(profile_to_json(value))) {}
};

const std::optional<Profiled>& environment_profile() {
  static const std::optional<Profiled> from_environment = []() -> std::optional<Profiled> {
    auto m = load_from_environment();
    if (!m) return std::nullopt;
    return Profiled(std::move(*m));
  }();
  return from_environment;
}

std::mutex g_override_mutex;
std::optional<Profiled> g_override;
// Probed profiles, never freed (a call in flight holds a reference), and the one in force.
std::deque<Profiled> g_probed;
const Profiled* g_probed_in_force = nullptr;

const Profiled& profile_in_force() {
  static const Profiled unmeasured{unmeasured_profile()};
  std::lock_guard<std::mutex> lock(g_override_mutex);
  if (g_override) return *g_override;
  if (environment_profile()) return *environment_profile();
  return g_probed_in_force ? *g_probed_in_force : unmeasured;
}

// Everything about the call except the ratio.
struct Context {
  // One look at the profile per call: its values and its fingerprint agree.
  const Profiled& profile;
  const SelectCall& call;
  const Options& opts;
  int p = 1;
  int ranks_per_node = 0;
  const codec::Codec* codec = nullptr;  // null: the wire sends raw bytes
  bool valid = false;                   // the options make a wire for this dtype
  const model::CodecRates* rates = nullptr;
  double oversubscription = local_oversubscription();  // agreed on for collectives
  bool one_node = false;                               // agreed on for collectives

  Context(const SelectCall& c, const Options& o, int size, const Profiled& in_force = profile_in_force())
      : profile(in_force), call(c), opts(o), p(size) {
    auto wire = Wire::make(o, c.dtype);
    valid = wire.ok();
    if (valid) codec = wire->codec();
    if (codec) rates = profile.value.rates(codec->name(), c.dtype);
    ranks_per_node = modelled_ranks_per_node(profile.value, o);
  }

  bool lossy() const { return codec && codec->lossy(); }
  // How finely a reduction's compressions quantize at most (its ranks' count).
  double fine_divisor() const { return is_reduction(call.op) && lossy() && p > 1 ? p : 1; }

  model::Scenario scenario(double at_bound, double at_fine) const {
    model::Scenario s;
    s.op = call.op;
    s.bytes = double(call.count) * double(codec::dtype_size(call.dtype));
    s.ranks = p;
    s.ranks_per_node = ranks_per_node;
    s.chunk_bytes = double(opts.chunk_bytes);
    s.sum = call.reduce_op == Op::sum;
    s.ratio.at_bound = at_bound;
    s.ratio.at_fine = at_fine;
    s.ratio.fine_divisor = fine_divisor();
    s.ratio.lossless = !lossy();
    s.ratio.elem_size = int(codec::dtype_size(call.dtype));
    s.oversubscription = oversubscription;
    s.one_node = one_node;
    return s;
  }

  std::vector<Algorithm> candidates() const {
    std::vector<Algorithm> out;
    if (!valid || !codec || !rates) return out;
    out.reserve(8);
    if (is_reduction(call.op) && lossy() && call.reduce_op == Op::prod) return out;
    const bool homomorphic_ok = codec->id() == codec::CodecId::szp && call.reduce_op == Op::sum;
    for (Algorithm a : model::compressed_algorithms(call.op)) {
      if (is_homomorphic(a) && !homomorphic_ok) continue;
      if (a == Algorithm::Hierarchical &&
          !(ranks_per_node > 1 && p % ranks_per_node == 0 && p / ranks_per_node > 1))
        continue;
      out.push_back(a);
    }
    return out;
  }

  double predict(Algorithm a, double at_bound, double at_fine) const {
    if (is_compressed(a) && !rates) return 0;
    const double t = model::predict(profile.value, rates, a, scenario(at_bound, at_fine));
    return std::isfinite(t) ? t : 0;
  }

  model::Choice choose(const model::Scenario& s,
                       std::span<const Algorithm> candidates) const {
    return remembered_choice(profile.value, profile.fingerprint, rates, s, candidates);
  }

  // 0 when unknown or infinite (compression never pays at this ratio).
  size_t break_even(double ratio) const {
    if (!rates) return 0;
    const double be = remembered_break_even(profile.value, profile.fingerprint, *rates, ratio);
    return std::isfinite(be) && be < 1e18 ? size_t(be) : 0;
  }
};

RatioSample sample(const Context& ctx, bool partial_sums = false) {
  if (!ctx.codec || !ctx.call.data || ctx.call.data_count == 0) return {};
  return sample_ratio(*ctx.codec, ctx.call.data, ctx.call.data_count, ctx.call.dtype,
                      ctx.opts.bound, ctx.fine_divisor(), partial_sums);
}

// at_bound, at_fine: the ratio to predict with (at_bound 0: none sampled, no prediction).
Selection forced(const Context& ctx, double at_bound, double at_fine) {
  Selection s;
  s.algorithm = ctx.opts.algorithm;
  const double typical = ctx.rates && ctx.rates->typical_ratio > 0 ? ctx.rates->typical_ratio : 1;
  // Deterministic on every rank (the reductions agree on it): from the profile, not the data.
  s.break_even_bytes = ctx.break_even(typical);
  if (!is_compressed(s.algorithm)) {
    s.predicted_seconds = ctx.predict(s.algorithm, 1, 0);
    return s;
  }
  if (at_bound <= 0) return s;
  s.predicted_seconds = ctx.predict(s.algorithm, at_bound, at_fine);
  return s;
}

Selection forced(const Context& ctx) {
  // An uncompressed algorithm's prediction needs no ratio: its data is not read here.
  const RatioSample r = is_compressed(ctx.opts.algorithm) ? sample(ctx) : RatioSample{};
  Selection s = forced(ctx, r.sampled ? r.at_bound : 0, r.sampled ? r.at_fine : 0);
  if (r.sampled)
    s.sample = {r.at_bound, r.at_fine, 0, 0, r.range, codec::dtype_size(ctx.call.dtype)};
  return s;
}

// Where AutoSelection::mins keeps a codec's ratios (at the bound, then finer).
constexpr size_t kFastRatios = selection_slot::at_bound,
                 kEntropyRatios = selection_slot::entropy_at_bound;

// Auto's choice for ctx's codec from the agreed ratios at `ratios` (1 where none was
// sampled), oversubscription and nodes.
Selection decided(Context& ctx, const double* agreed, bool one_node, size_t ratios = kFastRatios) {
  ctx.oversubscription = std::max(1.0, -agreed[selection_slot::oversubscription]);
  ctx.one_node = one_node;
  const double sampled = agreed_ratio(agreed[ratios]);
  const double at_bound = sampled > 0 ? sampled : 1.0;
  const double at_fine = agreed_ratio(agreed[ratios + 1]);
  // An invalid request never gets here: its wire failed the agreement on every rank.
  const model::Choice c = ctx.choose(ctx.scenario(at_bound, at_fine), ctx.candidates());
  Selection s;
  s.algorithm = c.algorithm;
  s.chunk_bytes = size_t(c.chunk_bytes);
  s.predicted_seconds = std::isfinite(c.predicted_seconds) ? c.predicted_seconds : 0;
  s.break_even_bytes = ctx.break_even(ctx.scenario(at_bound, at_fine).ratio.at(ctx.fine_divisor()));
  return s;
}

// The fast mode's context (ctx: codec "auto", so szp) as the entropy mode's: the same call,
// profile and agreed values with codec kEntropyMode.
struct EntropyMode {
  Options opts;
  Context ctx;
  explicit EntropyMode(const Context& fast)
      : opts(with_codec(fast.opts, kEntropyMode)), ctx(fast.call, opts, fast.p, fast.profile) {
    ctx.oversubscription = fast.oversubscription;
    ctx.one_node = fast.one_node;
  }
  static Options with_codec(Options o, const char* codec) {
    o.codec = codec;
    return o;
  }
};

// The entropy mode's sample, taken only where the mode could win: its best choice at a ratio
// no data reaches must beat the fast mode's (fast_seconds; its codec is the slower, so on a
// fast link it never does and nothing is sampled).
RatioSample entropy_sample(const Context& fast, double fast_seconds) {
  const EntropyMode e(fast);
  if (!e.ctx.rates) return {};  // a profile without its rates: the mode is not weighed
  const auto cands = e.ctx.candidates();
  if (cands.empty()) return {};
  const model::Choice best =
      e.ctx.choose(e.ctx.scenario(kOptimisticRatio, kOptimisticRatio), cands);
  if (!is_compressed(best.algorithm) || !(best.predicted_seconds < fast_seconds)) return {};
  // A reduction in the entropy mode decompresses, operates and compresses: what it codes after
  // the first step is partial sums, whose ratio (not one rank's) the prediction needs.
  const bool reduces = (kReductions >> unsigned(fast.call.op)) & 1u;
  return sample(e.ctx, reduces);
}

// Auto with the codec modes weighed: the fast mode's choice, or the entropy mode's where the
// ranks sampled it and its prediction beats the fast mode's by the model's margin (a close
// call keeps the fast mode, whose frames the homomorphic algorithms sum).
Selection decided_modes(Context& fast, const double* agreed, bool one_node) {
  Selection s = decided(fast, agreed, one_node);
  if (!weighs_codec_modes(fast.opts)) return s;
  std::vector<CodecModeTime> modes{{kFastMode, s.algorithm, s.predicted_seconds}};
  EntropyMode e(fast);
  Selection entropy;
  const bool sampled = agreed_ratio(agreed[kEntropyRatios]) > 0;
  if (e.ctx.rates && sampled) {
    entropy = decided(e.ctx, agreed, one_node, kEntropyRatios);
    modes.push_back({kEntropyMode, entropy.algorithm, entropy.predicted_seconds});
  } else {
    modes.push_back({kEntropyMode, Algorithm::Auto, 0});
  }
  const double bar = is_compressed(s.algorithm) ? model::kDefaultMargin * s.predicted_seconds
                                                : s.predicted_seconds;
  if (sampled && e.ctx.rates && is_compressed(entropy.algorithm) &&
      entropy.predicted_seconds > 0 && entropy.predicted_seconds < bar) {
    s = std::move(entropy);
    s.codec = kEntropyMode;
  }
  s.modes = std::move(modes);
  return s;
}

}  // namespace

bool weighs_codec_modes(const Options& opts) {
  return opts.codec == "auto" && opts.algorithm == Algorithm::Auto &&
         opts.bound.mode != codec::BoundMode::lossless;
}

const model::MachineProfile& machine_profile() { return profile_in_force().value; }

int64_t machine_profile_fingerprint() { return profile_in_force().fingerprint; }

void set_machine_profile(std::optional<model::MachineProfile> profile) {
  std::lock_guard<std::mutex> lock(g_override_mutex);
  if (profile) g_override.emplace(std::move(*profile));
  else g_override.reset();
}

bool machine_profile_given() {
  std::lock_guard<std::mutex> lock(g_override_mutex);
  return g_override || environment_profile();
}

const model::MachineProfile* keep_probed_profile(model::MachineProfile m) {
  Profiled p(std::move(m));
  std::lock_guard<std::mutex> lock(g_override_mutex);
  for (const Profiled& kept : g_probed)
    if (kept.fingerprint == p.fingerprint) return &kept.value;
  return &g_probed.emplace_back(std::move(p)).value;
}

void use_probed_profile(const model::MachineProfile* kept) {
  std::lock_guard<std::mutex> lock(g_override_mutex);
  g_probed_in_force = nullptr;
  for (const Profiled& p : g_probed)
    if (&p.value == kept) g_probed_in_force = &p;
}

double local_oversubscription() {
  const int local = environment().local_ranks;
  // Read once: it opens a file under /sys, which costs microseconds per call.
  static const unsigned cores = std::thread::hardware_concurrency();
  if (local <= 0 || cores == 0) return 1;
  return std::max(1.0, double(local) / double(cores));
}

Selection select_forced(const SelectCall& call, const Options& opts, int ranks) {
  return forced(Context(call, opts, ranks));
}

namespace {

// Auto where nothing can be compressed: the model's uncompressed way, without a ratio.
Selection uncompressed(const SelectCall& call, const Options& opts, int ranks,
                       const Profiled& profile, double oversubscription) {
  Options plain = opts;
  // One context for both halves: it reads the options' algorithm only in forced().
  Context ctx(call, plain, ranks, profile);
  ctx.oversubscription = oversubscription;
  plain.algorithm = remembered_choice(ctx.profile.value, ctx.profile.fingerprint, nullptr,
                                      ctx.scenario(1, 0), {})
                        .algorithm;
  return forced(ctx, 0, 0);
}

}  // namespace

Selection select_uncompressed(const SelectCall& call, const Options& opts, int ranks) {
  return uncompressed(call, opts, ranks, profile_in_force(), local_oversubscription());
}

AutoSelection::AutoSelection(const SelectCall& call, const Options& opts, int ranks)
    : call_(call), opts_(opts), ranks_(ranks) {
  Context ctx(call_, opts_, ranks_);
  oversubscription_ = ctx.oversubscription;
  if (model::offers_shared_window(call_.op)) {
    ctx.one_node = true;
    expects_window_ =
        ctx.choose(ctx.scenario(1, 0), {}).algorithm == Algorithm::SharedWindow;
    ctx.one_node = false;
  }
  const auto cands = ctx.candidates();
  // Sample only when some ratio could make compression pay.
  if (cands.empty() ||
      !is_compressed(
          ctx.choose(ctx.scenario(kOptimisticRatio, kOptimisticRatio), cands).algorithm))
    return;
  const RatioSample mine = sample(ctx);
  if (!mine.sampled) return;
  sample_.at_bound = mine.at_bound;
  sample_.at_fine = mine.at_fine;
  sample_.range = mine.range;
  sample_.elem_bytes = codec::dtype_size(call_.dtype);
  const model::Choice fast = ctx.choose(ctx.scenario(mine.at_bound, mine.at_fine), cands);
  expects_mpi_ = fast.algorithm == Algorithm::Mpi;
  if (!weighs_codec_modes(opts_)) return;
  const RatioSample entropy = entropy_sample(ctx, fast.predicted_seconds);
  if (!entropy.sampled) return;
  sample_.entropy_at_bound = entropy.at_bound;
  sample_.entropy_at_fine = entropy.at_fine;
  const EntropyMode e(ctx);
  expects_mpi_ = expects_mpi_ &&
                 e.ctx.choose(e.ctx.scenario(entropy.at_bound, entropy.at_fine),
                              e.ctx.candidates())
                         .algorithm == Algorithm::Mpi;
}

std::vector<double> AutoSelection::no_mins() { return no_selection_mins(); }

std::vector<double> AutoSelection::mins() const {
  // The worst rank's ratio rather than a mean: a ring or a tree moves at the pace of its
  // largest frame. Ranks without a sample (a bcast's non-roots) leave it to the others.
  return selection_mins(sample_, oversubscription_);
}

Selection AutoSelection::decide(const double* agreed, bool one_node) const {
  Context ctx(call_, opts_, ranks_);
  return decided_modes(ctx, agreed, one_node);
}

Selection select_agreed(const SelectCall& call, const Options& opts, int ranks,
                        const model::MachineProfile* profile, const double* agreed,
                        bool one_node) {
  std::optional<Profiled> explicit_profile;
  if (profile) explicit_profile.emplace(*profile);
  const Profiled& given = explicit_profile ? *explicit_profile : profile_in_force();
  Context ctx(call, opts, ranks, given);
  if (opts.algorithm != Algorithm::Auto) {
    return forced(ctx, agreed_ratio(agreed[selection_slot::at_bound]),
                  agreed_ratio(agreed[selection_slot::at_fine]));
  }
  if (!call.compressible && !model::offers_shared_window(call.op))
    return uncompressed(call, opts, ranks, given,
                        std::max(1.0, -agreed[selection_slot::oversubscription]));
  return decided_modes(ctx, agreed, one_node);
}

Selection select_p2p(const Options& opts, size_t count, Dtype dtype,
                     const model::MachineProfile* profile, double ratio) {
  SelectCall call{model::Operation::p2p, count, dtype};
  std::optional<Profiled> explicit_profile;
  if (profile) explicit_profile.emplace(*profile);
  const Profiled& given = explicit_profile ? *explicit_profile : profile_in_force();
  const Context ctx(call, opts, 2, given);
  Selection s;
  s.algorithm = opts.algorithm == Algorithm::Auto ? Algorithm::Direct : opts.algorithm;
  const double typical = ratio > 0                                      ? ratio
                         : ctx.rates && ctx.rates->typical_ratio > 0 ? ctx.rates->typical_ratio
                                                                     : 1;
  if (s.algorithm == Algorithm::Direct && opts.algorithm == Algorithm::Auto && ctx.rates &&
      opts.chunk_bytes == 0 && count > 0)
    s.chunk_bytes = size_t(model::best_chunk_bytes(
        ctx.profile.value, *ctx.rates, Algorithm::Direct, ctx.scenario(typical, 0)));
  if (s.algorithm == Algorithm::Direct && opts.algorithm == Algorithm::Auto && ctx.rates &&
      count > 0) {
    const Algorithm direct[] = {Algorithm::Direct};
    const model::Choice c = ctx.choose(ctx.scenario(typical, 0), direct);
    s.compress = is_compressed(c.algorithm);
  }
  Options tuned = opts;
  if (s.chunk_bytes) tuned.chunk_bytes = s.chunk_bytes;
  if (!s.compress) {
    s.predicted_seconds = ctx.predict(Algorithm::Mpi, 1, 0);
    return s;
  }
  s.predicted_seconds = Context(call, tuned, 2, given).predict(s.algorithm, typical, 0);
  return s;
}

}  // namespace commpress::comm::detail
