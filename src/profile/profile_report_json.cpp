#include "profile/profile_report_json.hpp"

#include <nlohmann/json.hpp>

#include "comm/profile_io.hpp"

namespace commpress::profile {

std::string profile_report_to_json(const ProfileReport& report) {
  using nlohmann::json;
  // comm writes the profile itself; its reader and this writer then cannot drift apart.
  json j = json::parse(comm::profile_to_json(report.profile));
  json& raw = j["measurements"];
  raw["ranks"] = report.ranks;
  raw["nodes"] = report.nodes;
  raw["host"] = report.host;
  raw["pair_shares_node"] = report.pair_shares_node;
  if (!report.blas.empty()) raw["blas"] = report.blas;
  raw["pingpong_one_way"] = json::array();
  for (const auto& s : report.pingpong) raw["pingpong_one_way"].push_back({s.bytes, s.seconds});
  raw["codec_rows"] = json::array();
  for (const auto& r : report.codec_rows)
    raw["codec_rows"].push_back({{"codec", r.codec},
                                 {"dtype", codec::dtype_name(r.dtype)},
                                 {"rel_bound", r.rel_bound},
                                 {"ratio", r.ratio},
                                 {"compress", r.compress},
                                 {"decompress", r.decompress},
                                 {"combine", r.combine},
                                 {"combine_raw", r.combine_raw}});
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace commpress::profile
