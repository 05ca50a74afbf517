// The actions behind `commpress codec ...`, one function per subcommand.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::cli {

struct CompressArgs {
  std::string codec;
  std::string dtype;
  std::optional<double> abs_bound;
  std::optional<double> rel_bound;
  std::vector<uint64_t> shape;  // slowest dimension first; empty: a flat array
  std::string in;
  std::string out;
  bool sync = false;  // fsync the output before it replaces the destination
};

struct DecompressArgs {
  std::string in;
  std::string out;
  bool sync = false;
};

struct CompareArgs {
  std::string original;
  std::string decoded;
  std::string dtype;
  std::string frame;  // empty when not given
};

Status run_compress(const CompressArgs& args);
Status run_decompress(const DecompressArgs& args);
Status run_inspect(const std::string& in);
Status run_compare(const CompareArgs& args);
Status run_list();

}  // namespace commpress::cli
