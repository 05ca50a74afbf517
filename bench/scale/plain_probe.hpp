// What the plain-MPI programs under bench/scale share (smpi_line_bcast, smpi_cannon_shift):
// their "--name value" arguments and the slowest rank's time, gathered on rank 0.
#pragma once

#include <mpi.h>

#include <cstdlib>
#include <map>
#include <string>

namespace plain_probe {

// The value given for `name`, else `fallback`.
class Flags {
 public:
  Flags(int argc, char** argv) {
    for (int i = 1; i + 1 < argc; i += 2) values_[argv[i]] = argv[i + 1];
  }
  std::string text(const std::string& name, const std::string& fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }
  long long number(const std::string& name, long long fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : std::atoll(it->second.c_str());
  }

 private:
  std::map<std::string, std::string> values_;
};

inline double slowest(double seconds) {
  double m = 0;
  MPI_Reduce(&seconds, &m, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return m;
}

}  // namespace plain_probe
