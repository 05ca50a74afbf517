// The benchmark data sets: the shapes real simulation and training arrays take, generated
// from fixed seeds and written to raw files so every peer measures the identical bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "commpress/codec.hpp"
#include "commpress/status.hpp"

namespace commpress::bench {

struct Dataset {
  std::string name;
  codec::Dtype dtype = codec::Dtype::f32;
  std::vector<size_t> shape;  // slowest dimension first; the product is the count
  std::string description;
  std::vector<float> f32;     // exactly one of f32 / f64 holds the values
  std::vector<double> f64;

  size_t count() const { return dtype == codec::Dtype::f32 ? f32.size() : f64.size(); }
  size_t bytes() const { return count() * codec::dtype_size(dtype); }
  const void* data() const {
    return dtype == codec::Dtype::f32 ? static_cast<const void*>(f32.data()) : f64.data();
  }
  void* mutable_data() {
    return dtype == codec::Dtype::f32 ? static_cast<void*>(f32.data()) : f64.data();
  }
  std::string file_name() const { return name + "." + codec::dtype_name(dtype); }
  std::string shape_string() const;  // "256x256x256"
};

// Bumped whenever a generator changes, so stale files on disk are regenerated.
inline constexpr int kGeneratorVersion = 1;

// The names of every data set, in table order.
const std::vector<std::string>& dataset_names();
// Generates one data set with n values (deterministic: same n, same bytes).
Result<Dataset> generate_dataset(const std::string& name, size_t n);

// <dir>/datasets.csv lists what <dir> holds; readers (C++ and Python) start there.
Status write_datasets(const std::vector<Dataset>& sets, const std::filesystem::path& dir);
// True when dir already holds every named data set at n values from this generator version.
bool datasets_up_to_date(const std::filesystem::path& dir, size_t n);
Result<std::vector<Dataset>> read_datasets(const std::filesystem::path& dir,
                                           const std::vector<std::string>& only);

}  // namespace commpress::bench
