#include "cli/bench_collective_agreement.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "comm/detail/agreement.hpp"

namespace commpress::cli {

namespace {

// An option as this rank parsed it; lists in order, so another length or order differs.
struct Option {
  const char* name;
  std::string text;
};

std::string text_of(const std::vector<double>& values) {
  std::string s;
  char buf[64];
  for (double v : values) {
    std::snprintf(buf, sizeof buf, "%s%.17g", s.empty() ? "" : ",", v);
    s += buf;
  }
  return s;
}

std::string text_of(const std::vector<std::string>& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ",") + v;
  return s;
}

std::vector<Option> options_of(const BenchCollectiveArgs& a) {
  using std::to_string;
  return {{"--op", a.op},
          {"--algorithm", text_of(a.algorithms)},
          {"--count", to_string(a.count)},
          {"--dtype", a.dtype},
          {"--data", a.data},
          {"--input", a.input},
          {"--seed", to_string(a.seed)},
          {"--bound-abs", text_of(a.bound_abs)},
          {"--bound-rel", text_of(a.bound_rel)},
          {"--lossless", a.lossless},
          {"--codec", a.codec},
          {"--repeat", to_string(a.repeat)},
          {"--warmup", to_string(a.warmup)},
          {"--chunk-bytes", to_string(a.chunk_bytes)},
          {"--pretend-ranks-per-node", to_string(a.pretend_ranks_per_node)},
          {"--root", to_string(a.root)}};
}

}  // namespace

Status agree_on_plan(const BenchCollectiveArgs& args, const Status& local, MPI_Comm comm) {
  const std::vector<Option> options = options_of(args);
  std::vector<comm::detail::Field> fields;
  for (const Option& o : options) fields.push_back({o.name, comm::detail::fingerprint(o.text)});
  const Status st = comm::detail::agree(comm, fields, local);
  // The agreement names the first option that differs; its text here says more than its
  // fingerprint.
  for (const Option& o : options)
    if (st.message().rfind(std::string("ranks disagree on ") + o.name + ":", 0) == 0)
      return {ErrorCode::mismatch, std::string("the ranks were given different benchmark plans: ") +
                                       o.name + " differs (this rank: '" + o.text + "')"};
  return st;  // ok, or the lowest failing rank's local verdict
}

}  // namespace commpress::cli
