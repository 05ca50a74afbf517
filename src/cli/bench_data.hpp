// Where `commpress bench collective` gets each rank's input: a seeded generator of one of the
// benchmark data shapes, or slices of a raw file. Stream r is rank r's contribution, and any
// rank can regenerate any stream, so every rank computes the exact result of an operation
// locally instead of moving reference data over the network being measured.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commpress/codec.hpp"
#include "commpress/status.hpp"

namespace commpress::cli {

enum class DataShape { random_walk, gaussian, smooth, sparse };

// "randomwalk", "gaussian", "smooth", "sparse"
Result<DataShape> parse_data_shape(std::string_view name);
const char* data_shape_name(DataShape s);

// One stream's values in order, produced a chunk at a time (so references of any size can be
// built without holding every rank's input at once).
class ValueStream {
 public:
  virtual ~ValueStream() = default;
  virtual void next(std::span<double> out) = 0;
  void skip(size_t n);
};

class DataSource {
 public:
  static DataSource generated(DataShape shape, uint64_t seed);
  // The file holds raw little-endian values of dtype d (f32 or f64).
  static Result<DataSource> from_file(const std::string& path, codec::Dtype d);

  // Stream `id` of a contribution of `length` elements: generated data ignores the length;
  // a file gives rank r the elements [r*length, (r+1)*length), wrapping around its end.
  std::unique_ptr<ValueStream> open(int id, size_t length) const;

  std::string describe() const;  // "randomwalk (seed 1)" or "file x.f32 (1000 values)"
  std::string name() const;      // "randomwalk" or "file"

 private:
  DataShape shape_ = DataShape::random_walk;
  uint64_t seed_ = 0;
  std::string path_;
  std::shared_ptr<const std::vector<double>> file_values_;  // empty for generated data
};

// Writes `out.size()` values of stream `id` (length `length`), starting at value `offset`,
// rounded to T.
template <class T>
void fill_from_stream(const DataSource& src, int id, size_t length, size_t offset,
                      std::span<T> out);

}  // namespace commpress::cli
