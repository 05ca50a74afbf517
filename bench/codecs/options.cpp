#include "codecs/options.hpp"

#include <charconv>

namespace commpress::bench {
namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t pos = s.find(',', start);
    if (pos == std::string::npos) pos = s.size();
    if (pos > start) out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
  return out;
}

template <class T>
Result<T> parse_number(const std::string& flag, const std::string& s) {
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size())
    return Status{ErrorCode::invalid_argument, flag + ": '" + s + "' is not a number"};
  return v;
}

// Accepts 16777216, 16M, 4M, 1M, 64K.
Result<size_t> parse_count(const std::string& flag, std::string s) {
  size_t scale = 1;
  if (!s.empty() && (s.back() == 'M' || s.back() == 'm')) scale = size_t(1) << 20;
  if (!s.empty() && (s.back() == 'K' || s.back() == 'k')) scale = size_t(1) << 10;
  if (scale != 1) s.pop_back();
  auto v = parse_number<size_t>(flag, s);
  if (!v.ok()) return v.status();
  if (*v == 0) return Status{ErrorCode::invalid_argument, flag + " must be positive"};
  return *v * scale;
}

template <class T>
Status parse_list(const std::string& flag, const std::string& s, std::vector<T>& out) {
  out.clear();
  for (const std::string& item : split_list(s)) {
    auto v = parse_number<T>(flag, item);
    if (!v.ok()) return v.status();
    if (!(*v > 0)) return {ErrorCode::invalid_argument, flag + " values must be positive"};
    out.push_back(*v);
  }
  if (out.empty()) return {ErrorCode::invalid_argument, flag + " needs at least one value"};
  return {};
}

}  // namespace

std::string usage() {
  return "usage: bench_codecs <command> [options]\n"
         "  gen   --n N --data DIR            write the data sets (N values each, e.g. 16M)\n"
         "  run   --data DIR [--out FILE.csv] [--section codecs|homomorphic]\n"
         "        [--repeats K] [--budget S] [--subset-seconds S] [--threads 1,2]\n"
         "        [--rel 1e-2,1e-3,1e-4] [--codecs a,b] [--datasets a,b]\n"
         "  list                              the registered codecs\n"
         "  info                              compiler and flags of this build\n";
}

Result<Options> parse_options(int argc, char** argv) {
  Options o;
  if (argc < 2) return Status{ErrorCode::invalid_argument, "missing command\n" + usage()};
  o.command = argv[1];
  if (o.command != "gen" && o.command != "run" && o.command != "list" && o.command != "info")
    return Status{ErrorCode::invalid_argument, "unknown command '" + o.command + "'\n" + usage()};
  for (int i = 2; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) return Status{ErrorCode::invalid_argument, flag + " needs a value"};
    std::string v = argv[++i];
    Status st;
    if (flag == "--n") {
      auto c = parse_count(flag, v);
      if (!c.ok()) return c.status();
      o.n = *c;
    } else if (flag == "--data") {
      o.data_dir = v;
    } else if (flag == "--out") {
      o.out = v;
    } else if (flag == "--section") {
      if (v != "codecs" && v != "homomorphic")
        return Status{ErrorCode::invalid_argument, "--section is codecs or homomorphic"};
      o.section = v;
    } else if (flag == "--repeats") {
      auto r = parse_number<int>(flag, v);
      if (!r.ok()) return r.status();
      if (*r < 1) return Status{ErrorCode::invalid_argument, "--repeats must be at least 1"};
      o.repeats = *r;
    } else if (flag == "--budget" || flag == "--subset-seconds") {
      auto s = parse_number<double>(flag, v);
      if (!s.ok()) return s.status();
      if (!(*s > 0)) return Status{ErrorCode::invalid_argument, flag + " must be positive"};
      (flag == "--budget" ? o.budget_seconds : o.subset_seconds) = *s;
    } else if (flag == "--threads") {
      st = parse_list(flag, v, o.threads);
    } else if (flag == "--rel") {
      st = parse_list(flag, v, o.rels);
    } else if (flag == "--codecs") {
      o.codecs = split_list(v);
    } else if (flag == "--datasets") {
      o.datasets = split_list(v);
    } else {
      return Status{ErrorCode::invalid_argument, "unknown option " + flag + "\n" + usage()};
    }
    if (!st.ok()) return st;
  }
  return o;
}

}  // namespace commpress::bench
