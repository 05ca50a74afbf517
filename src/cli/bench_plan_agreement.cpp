#include "cli/bench_plan_agreement.hpp"

#include <cstdio>

#include "comm/session/agreement.hpp"

namespace commpress::cli {

std::string plan_text(const std::vector<double>& values) {
  std::string s;
  char buf[64];
  for (double v : values) {
    std::snprintf(buf, sizeof buf, "%s%.17g", s.empty() ? "" : ",", v);
    s += buf;
  }
  return s;
}

std::string plan_text(const std::vector<std::string>& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ",") + v;
  return s;
}

Status agree_on_plan(const std::vector<PlanOption>& options, const Status& local, MPI_Comm comm) {
  std::vector<comm::detail::Field> fields;
  for (const PlanOption& o : options)
    fields.push_back({o.name, comm::detail::fingerprint(o.text)});
  const Status st = comm::detail::agree(comm, fields, local);
  // The agreement names the first option that differs; its text here says more than its
  // fingerprint.
  for (const PlanOption& o : options)
    if (st.message().rfind(std::string("ranks disagree on ") + o.name + ":", 0) == 0)
      return {ErrorCode::mismatch, std::string("the ranks were given different benchmark plans: ") +
                                       o.name + " differs (this rank: '" + o.text + "')"};
  return st;  // ok, or the lowest failing rank's local verdict
}

}  // namespace commpress::cli
