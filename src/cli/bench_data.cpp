// The data shapes follow the codec benchmark's (bench/codecs/datasets.cpp) and draw from its
// seeded generator, whose bytes do not depend on the standard library: every rank, on any
// machine, regenerates exactly the stream another rank sent.
#include "cli/bench_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "../../bench/codecs/rng.hpp"
#include "cli/raw_io.hpp"

namespace commpress::cli {

namespace {

using bench::Rng;

constexpr size_t kChunk = size_t(1) << 16;

// Distinct, well-mixed generator seeds for each (seed, stream) pair.
uint64_t stream_seed(uint64_t seed, int id) {
  return seed * 0x9E3779B97F4A7C15ull + uint64_t(id) * 0xD1B54A32D192ED03ull + 1;
}

class GeneratedStream final : public ValueStream {
 public:
  GeneratedStream(DataShape shape, uint64_t seed) : shape_(shape), rng_(seed) {
    phase_ = rng_.uniform();
  }

  void next(std::span<double> out) override {
    for (double& v : out) v = value();
  }

 private:
  double value() {
    switch (shape_) {
      case DataShape::random_walk:  // cumulative sum of N(0,1)
        return acc_ += rng_.normal();
      case DataShape::gaussian:  // N(0,1)
        return rng_.normal();
      case DataShape::smooth: {  // a few sine waves plus noise at 1e-3 of the amplitude
        constexpr double kTwoPi = 2.0 * std::numbers::pi;
        double t = double(i_++);
        return std::sin(kTwoPi * (t / 4096.0 + phase_)) +
               0.5 * std::sin(kTwoPi * (t / 977.0 + 2.0 * phase_)) +
               0.1 * std::sin(kTwoPi * t / 61.0) + 1e-3 * rng_.normal();
      }
      case DataShape::sparse: {  // uniform[-1, 1] with 30% exact zeros
        bool zero = rng_.uniform() < 0.3;
        double u = 2.0 * rng_.uniform() - 1.0;
        return zero ? 0.0 : u;
      }
    }
    return 0;
  }

  DataShape shape_;
  Rng rng_;
  double acc_ = 0;
  double phase_ = 0;
  uint64_t i_ = 0;
};

class FileStream final : public ValueStream {
 public:
  FileStream(std::shared_ptr<const std::vector<double>> values, size_t start)
      : values_(std::move(values)), pos_(start % values_->size()) {}

  void next(std::span<double> out) override {
    const std::vector<double>& v = *values_;
    size_t done = 0;
    while (done < out.size()) {
      size_t take = std::min(out.size() - done, v.size() - pos_);
      std::copy_n(v.begin() + ptrdiff_t(pos_), take, out.begin() + ptrdiff_t(done));
      done += take;
      pos_ = (pos_ + take) % v.size();
    }
  }

 private:
  std::shared_ptr<const std::vector<double>> values_;
  size_t pos_;
};

}  // namespace

void ValueStream::skip(size_t n) {
  std::vector<double> scratch(std::min(n, kChunk));
  while (n > 0) {
    size_t take = std::min(n, scratch.size());
    next({scratch.data(), take});
    n -= take;
  }
}

Result<DataShape> parse_data_shape(std::string_view name) {
  for (DataShape s :
       {DataShape::random_walk, DataShape::gaussian, DataShape::smooth, DataShape::sparse})
    if (name == data_shape_name(s)) return s;
  return Status{ErrorCode::invalid_argument, "unknown data shape '" + std::string(name) +
                                                 "'; known: randomwalk, gaussian, smooth, sparse"};
}

const char* data_shape_name(DataShape s) {
  switch (s) {
    case DataShape::random_walk:
      return "randomwalk";
    case DataShape::gaussian:
      return "gaussian";
    case DataShape::smooth:
      return "smooth";
    case DataShape::sparse:
      return "sparse";
  }
  return "?";
}

DataSource DataSource::generated(DataShape shape, uint64_t seed) {
  DataSource s;
  s.shape_ = shape;
  s.seed_ = seed;
  return s;
}

Result<DataSource> DataSource::from_file(const std::string& path, codec::Dtype d) {
  if (d != codec::Dtype::f32 && d != codec::Dtype::f64)
    return Status{ErrorCode::unsupported, "--input files hold f32 or f64 values"};
  auto bytes = read_array(path, d);
  if (!bytes.ok()) return bytes.status();
  size_t n = bytes->size() / codec::dtype_size(d);
  if (n == 0) return Status{ErrorCode::invalid_argument, "'" + path + "' holds no values"};
  auto values = std::make_shared<std::vector<double>>(n);
  for (size_t i = 0; i < n; ++i) {
    if (d == codec::Dtype::f32) {
      float f;
      std::memcpy(&f, bytes->data() + 4 * i, 4);
      (*values)[i] = f;
    } else {
      std::memcpy(&(*values)[i], bytes->data() + 8 * i, 8);
    }
  }
  DataSource s;
  s.path_ = path;
  s.file_values_ = std::move(values);
  return s;
}

std::unique_ptr<ValueStream> DataSource::open(int id, size_t length) const {
  if (file_values_) return std::make_unique<FileStream>(file_values_, size_t(id) * length);
  return std::make_unique<GeneratedStream>(shape_, stream_seed(seed_, id));
}

std::string DataSource::describe() const {
  if (file_values_)
    return "file " + path_ + " (" + std::to_string(file_values_->size()) + " values)";
  return std::string(data_shape_name(shape_)) + " (seed " + std::to_string(seed_) + ")";
}

std::string DataSource::name() const {
  return file_values_ ? "file" : data_shape_name(shape_);
}

template <class T>
void fill_from_stream(const DataSource& src, int id, size_t length, size_t offset,
                      std::span<T> out) {
  auto stream = src.open(id, length);
  stream->skip(offset);
  std::vector<double> chunk(std::min(out.size(), kChunk));
  for (size_t done = 0; done < out.size();) {
    size_t take = std::min(out.size() - done, chunk.size());
    stream->next({chunk.data(), take});
    for (size_t i = 0; i < take; ++i) out[done + i] = T(chunk[i]);
    done += take;
  }
}

template void fill_from_stream<float>(const DataSource&, int, size_t, size_t, std::span<float>);
template void fill_from_stream<double>(const DataSource&, int, size_t, size_t, std::span<double>);

}  // namespace commpress::cli
