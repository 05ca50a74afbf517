#include "pmpi/policy.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace commpress::pmpi {

namespace {

struct OpName {
  unsigned bit;
  const char* name;
};
constexpr OpName kOpNames[] = {
    {kAllreduce, "allreduce"},   {kReduce, "reduce"},
    {kReduceScatterBlock, "reduce_scatter_block"}, {kReduceScatter, "reduce_scatter"},
    {kBcast, "bcast"},           {kAllgather, "allgather"},
    {kAlltoall, "alltoall"},     {kP2p, "p2p"},
};

std::string shortest(double v) {
  char buf[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string key(const std::string& prefix, const char* field, bool lower_case) {
  std::string k = prefix + field;
  for (char& ch : k) ch = lower_case ? char(std::tolower(ch)) : char(std::toupper(ch));
  return k;
}

Status invalid(const std::string& name, const char* value, const std::string& why) {
  return {ErrorCode::invalid_argument, name + "='" + value + "': " + why};
}

Status parse_bound(const std::string& name, const char* text, Policy& p) {
  const std::string_view v(text);
  if (v == "off" || v.empty()) {
    p.active = false;
    return {};
  }
  p.active = true;
  if (v == "lossless") {
    p.bound = codec::ErrorBound::lossless();
    return {};
  }
  const bool rel = v.starts_with("rel:"), abs = v.starts_with("abs:");
  if (!rel && !abs) return invalid(name, text, "expected rel:<fraction>, abs:<value>, lossless or off");
  const char* number = text + 4;
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(number, &end);
  if (end == number || *end != '\0' || errno != 0 || !std::isfinite(x) || x <= 0)
    return invalid(name, text, "the bound must be a finite number > 0");
  p.bound = rel ? codec::ErrorBound::relative(x) : codec::ErrorBound::absolute(x);
  return codec::check_bound(p.bound);
}

Status parse_codec(const std::string& name, const char* text, Policy& p) {
  const std::string v(text);
  if (v != "auto" && v != "none" && codec::find_codec(v) == nullptr) {
    auto known = codec::get_codec(v);  // its error lists the known names
    return invalid(name, text, known.status().message());
  }
  p.codec = v;
  return {};
}

Status parse_min_bytes(const std::string& name, const char* text, Policy& p) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || text[0] == '-')
    return invalid(name, text, "expected a number of bytes");
  p.min_bytes = size_t(v);
  return {};
}

Status parse_ops(const std::string& name, const char* text, Policy& p) {
  unsigned ops = 0;
  std::string_view rest(text);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    if (item == "all") {
      ops |= kAllOps;
      continue;
    }
    unsigned bit = 0;
    for (const OpName& o : kOpNames)
      if (item == o.name) bit = o.bit;
    if (bit == 0) {
      std::string why = "unknown operation '" + std::string(item) + "'; known: all";
      for (const OpName& o : kOpNames) why += std::string(", ") + o.name;
      if (item == "send" || item == "recv" || item == "isend" || item == "irecv")
        why += " (point-to-point is 'p2p')";
      return invalid(name, text, why);
    }
    ops |= bit;
  }
  p.ops = ops;
  return {};
}

}  // namespace

const char* op_bit_name(unsigned op) {
  for (const OpName& o : kOpNames)
    if (o.bit == op) return o.name;
  return "?";
}

std::string Policy::bound_text() const {
  switch (bound.mode) {
    case codec::BoundMode::lossless: return "lossless";
    case codec::BoundMode::abs: return "abs:" + shortest(bound.value);
    case codec::BoundMode::rel: return "rel:" + shortest(bound.value);
  }
  return "?";
}

std::string Policy::text() const {
  if (!active) return "off";
  std::string s = "bound=" + bound_text() + " codec=" + codec +
                  " min_bytes=" + std::to_string(min_bytes) + " ops=";
  bool first = true;
  for (const OpName& o : kOpNames) {
    if ((ops & o.bit) == 0) continue;
    s += first ? "" : ",";
    s += o.name;
    first = false;
  }
  if (first) s += "none";
  return s;
}

Result<Policy> parse_policy(const Lookup& lookup, const std::string& prefix, bool lower_case,
                            const Policy& base) {
  Policy p = base;
  struct Field {
    const char* name;
    Status (*parse)(const std::string&, const char*, Policy&);
  };
  // The bound first: it decides whether the rest matters, but every value is still checked so
  // that a typo is reported even while compression is off.
  constexpr Field kFields[] = {{"BOUND", parse_bound},
                               {"CODEC", parse_codec},
                               {"MIN_BYTES", parse_min_bytes},
                               {"OPS", parse_ops}};
  for (const Field& f : kFields) {
    const std::string name = key(prefix, f.name, lower_case);
    if (const char* v = lookup(name)) COMMPRESS_RETURN_IF_ERROR(f.parse(name, v, p));
  }
  return p;
}

Result<Policy> environment_policy() {
  return parse_policy([](const std::string& name) { return std::getenv(name.c_str()); },
                      "COMMPRESS_", false, Policy{});
}

}  // namespace commpress::pmpi
