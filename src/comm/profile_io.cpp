#include "comm/profile_io.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace commpress::comm {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "commpress-machine-profile";
constexpr int kVersion = 1;

json line(const model::LinkParams& lp) { return {{"alpha", lp.alpha}, {"beta", lp.beta}}; }
json link(const model::Link& l) {
  json out = {{"eager", line(l.eager)},
              {"rendezvous", line(l.rendezvous)},
              {"switch_bytes", l.switch_bytes},
              {"overlap_bytes", l.overlap_bytes}};
  if (!l.measured.empty()) {
    out["measured"] = json::array();
    for (const model::Sample& s : l.measured) out["measured"].push_back({s.bytes, s.seconds});
  }
  return out;
}

// Reading: every accessor names the field it failed on.
struct Reader {
  std::string error;

  double number(const json& j, const std::string& path) {
    if (!error.empty()) return 0;
    if (!j.is_number()) {
      error = "field " + path + " must be a number";
      return 0;
    }
    double v = j.get<double>();
    if (!std::isfinite(v) || v < 0) error = "field " + path + " must be finite and >= 0";
    return v;
  }
  const json& field(const json& j, const char* key, const std::string& path) {
    static const json null;
    if (!error.empty()) return null;
    if (!j.is_object() || !j.contains(key)) {
      error = "missing field " + path + (path.empty() ? "" : ".") + key;
      return null;
    }
    return j.at(key);
  }
  double num(const json& j, const char* key, const std::string& path) {
    const json& v = field(j, key, path);
    return number(v, path + (path.empty() ? "" : ".") + key);
  }
  model::LinkParams params(const json& j, const std::string& path) {
    return {num(j, "alpha", path), num(j, "beta", path)};
  }
  model::Link link(const json& j, const std::string& path) {
    model::Link l;
    l.eager = params(field(j, "eager", path), path + ".eager");
    l.rendezvous = params(field(j, "rendezvous", path), path + ".rendezvous");
    l.switch_bytes = num(j, "switch_bytes", path);
    // Older profiles lack it: no overlap assumed, as before it was measured.
    if (j.contains("overlap_bytes")) l.overlap_bytes = num(j, "overlap_bytes", path);
    // Optional: the one-way times the lines were fitted to (Link::measured).
    if (j.contains("measured")) l.measured = samples(j.at("measured"), path + ".measured");
    return l;
  }
  // [x, y] pairs, both positive, x increasing (the model interpolates between them).
  std::vector<std::pair<double, double>> increasing_pairs(const json& pts, const std::string& path,
                                                          const char* shape) {
    std::vector<std::pair<double, double>> out;
    if (!error.empty()) return out;
    if (!pts.is_array()) error = "field " + path + " must be an array";
    for (size_t i = 0; error.empty() && i < pts.size(); ++i) {
      const std::string at = path + "[" + std::to_string(i) + "]";
      if (!pts[i].is_array() || pts[i].size() != 2) {
        error = "field " + at + " must be " + shape;
        break;
      }
      const double x = number(pts[i][0], at), y = number(pts[i][1], at);
      if (error.empty() && (x <= 0 || y <= 0 || (!out.empty() && x <= out.back().first)))
        error = "field " + at + " must be positive, its first value above the previous entry's";
      out.emplace_back(x, y);
    }
    return out;
  }
  std::vector<model::Sample> samples(const json& pts, const std::string& path) {
    std::vector<model::Sample> out;
    for (const auto& [b, t] : increasing_pairs(pts, path, "[bytes, seconds]")) out.push_back({b, t});
    return out;
  }
  model::MpiAgainstPlain mpi_against_plain(const json& j, const std::string& path) {
    model::MpiAgainstPlain m;
    m.ranks = int(num(j, "ranks", path));
    const json& pts = field(j, "block_bytes_slowdown", path);
    for (const auto& [b, s] :
         increasing_pairs(pts, path + ".block_bytes_slowdown", "[block bytes, slowdown]"))
      m.points.push_back({b, s});
    return m;
  }
};

}  // namespace

std::string profile_to_json(const model::MachineProfile& m) {
  json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["origin"] = m.origin;
  j["network"] = link(m.network);
  if (m.intra_node) j["intra_node"] = link(*m.intra_node);
  if (m.switch_link) j["switch_link"] = link(*m.switch_link);
  if (m.switch_nodes > 0) j["switch_nodes"] = m.switch_nodes;
  j["gamma"] = m.gamma;
  j["ranks_per_node"] = m.ranks_per_node;
  j["threads_per_rank"] = m.threads_per_rank;
  j["codec_oversubscription"] = m.codec_oversubscription;
  if (m.oversubscribed_wait >= 0) j["oversubscribed_wait"] = m.oversubscribed_wait;
  if (m.gemm_flops_f64 > 0) j["gemm_flops_f64"] = m.gemm_flops_f64;
  if (m.gemm_flops_f32 > 0) j["gemm_flops_f32"] = m.gemm_flops_f32;
  for (const auto& f : model::mpi_against_plain_fields()) {
    const model::MpiAgainstPlain* measured = &(m.*f.member);
    if (measured->ranks <= 0) continue;
    json& out = j[f.key];
    out["ranks"] = measured->ranks;
    out["block_bytes_slowdown"] = json::array();
    for (const auto& pt : measured->points)
      out["block_bytes_slowdown"].push_back({pt.block_bytes, pt.slowdown});
  }
  j["codecs"] = json::array();
  for (const auto& c : m.codecs)
    j["codecs"].push_back({{"codec", c.codec},
                           {"dtype", codec::dtype_name(c.dtype)},
                           {"compress", c.compress},
                           {"decompress", c.decompress},
                           {"combine", c.combine},
                           {"combine_raw", c.combine_raw},
                           {"call_overhead", c.call_overhead},
                           {"typical_ratio", c.typical_ratio}});
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<model::MachineProfile> profile_from_json(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status{ErrorCode::invalid_argument, "machine profile: not valid JSON"};
  auto fail = [](const std::string& why) {
    return Status{ErrorCode::invalid_argument, "machine profile: " + why};
  };
  if (!j.is_object() || j.value("format", std::string()) != kFormat)
    return fail(std::string("not a ") + kFormat + " document");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kVersion)
    return fail("unsupported version (this library reads version " + std::to_string(kVersion) + ")");
  Reader rd;
  model::MachineProfile m;
  m.origin = j.contains("origin") && j["origin"].is_string() ? j["origin"].get<std::string>() : "";
  m.network = rd.link(rd.field(j, "network", ""), "network");
  if (j.contains("intra_node")) m.intra_node = rd.link(j["intra_node"], "intra_node");
  // Only profiles of a network of switches have them (bench/scale's simulated fat-tree).
  if (j.contains("switch_link")) m.switch_link = rd.link(j["switch_link"], "switch_link");
  if (j.contains("switch_nodes")) m.switch_nodes = int(rd.num(j, "switch_nodes", ""));
  m.gamma = rd.num(j, "gamma", "");
  if (j.contains("ranks_per_node")) m.ranks_per_node = int(rd.num(j, "ranks_per_node", ""));
  if (j.contains("threads_per_rank")) m.threads_per_rank = int(rd.num(j, "threads_per_rank", ""));
  // Older profiles lack it: their rates are taken as measured on unshared cores.
  if (j.contains("codec_oversubscription"))
    m.codec_oversubscription = std::max(1.0, rd.num(j, "codec_oversubscription", ""));
  // Older profiles lack it: the model assumes a scheduler slice per step then.
  if (j.contains("oversubscribed_wait"))
    m.oversubscribed_wait = rd.num(j, "oversubscribed_wait", "");
  // Local BLAS rates: absent in profiles measured before the multiply existed (0 = defaults).
  if (j.contains("gemm_flops_f64")) m.gemm_flops_f64 = rd.num(j, "gemm_flops_f64", "");
  if (j.contains("gemm_flops_f32")) m.gemm_flops_f32 = rd.num(j, "gemm_flops_f32", "");
  // Older profiles lack them: MPI's operations are then priced by their algorithms' formulas.
  for (const auto& f : model::mpi_against_plain_fields())
    if (j.contains(f.key)) m.*f.member = rd.mpi_against_plain(j[f.key], f.key);
  const json& codecs = rd.field(j, "codecs", "");
  if (rd.error.empty() && !codecs.is_array()) rd.error = "field codecs must be an array";
  for (size_t i = 0; rd.error.empty() && i < codecs.size(); ++i) {
    const json& c = codecs[i];
    const std::string path = "codecs[" + std::to_string(i) + "]";
    model::CodecRates r;
    const json& name = rd.field(c, "codec", path);
    const json& dtype = rd.field(c, "dtype", path);
    if (!rd.error.empty()) break;
    if (!name.is_string() || !dtype.is_string()) {
      rd.error = path + ": codec and dtype must be strings";
      break;
    }
    r.codec = name.get<std::string>();
    auto dt = codec::parse_dtype(dtype.get<std::string>());
    if (!dt.ok()) {
      rd.error = path + ": " + dt.status().message();
      break;
    }
    r.dtype = *dt;
    r.compress = rd.num(c, "compress", path);
    r.decompress = rd.num(c, "decompress", path);
    r.combine = rd.num(c, "combine", path);
    r.combine_raw = rd.num(c, "combine_raw", path);
    r.call_overhead = rd.num(c, "call_overhead", path);
    r.typical_ratio = rd.num(c, "typical_ratio", path);
    m.codecs.push_back(r);
  }
  if (!rd.error.empty()) return fail(rd.error);
  return m;
}

Result<model::MachineProfile> load_profile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status{ErrorCode::io, "machine profile: cannot open " + path};
  std::ostringstream text;
  text << in.rdbuf();
  auto m = profile_from_json(text.str());
  if (!m.ok()) return Status{m.status().code(), m.status().message() + " (" + path + ")"};
  return m;
}

Status save_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return {ErrorCode::io, "cannot open " + path + " for writing"};
  out << text;
  out.close();
  if (!out) return {ErrorCode::io, "write to " + path + " failed"};
  return {};
}

}  // namespace commpress::comm
