// Command line of bench_codecs (see usage()).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::bench {

struct Options {
  std::string command;                  // gen | run | list | info
  std::string section = "codecs";       // run: codecs | homomorphic
  size_t n = size_t(1) << 24;           // gen: values per data set
  std::filesystem::path data_dir = "bench/data";
  std::filesystem::path out = "-";      // run: CSV destination, "-" for stdout
  int repeats = 5;                      // timed repeats after the warm-up, at most
  double budget_seconds = 0.6;          // fewer repeats when one run is slower than budget/repeats
  double subset_seconds = 1.0;          // a prefix when compress + decompress of all takes longer
  std::vector<int> threads = {1, 2};
  std::vector<double> rels = {1e-2, 1e-3, 1e-4};
  std::vector<std::string> codecs;      // empty: every registered codec
  std::vector<std::string> datasets;    // empty: every data set in data_dir
};

std::string usage();
Result<Options> parse_options(int argc, char** argv);

}  // namespace commpress::bench
