#include "cli/bench_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace commpress::cli {

namespace {

constexpr size_t kPiece = size_t(1) << 16;

double element_error(double exact, double got) {
  if (std::isfinite(exact) && std::isfinite(got)) return std::fabs(got - exact);
  bool same = (std::isnan(exact) && std::isnan(got)) || exact == got;
  return same ? 0.0 : std::numeric_limits<double>::infinity();
}

}  // namespace

Reference::Reference(const DataSource& src, codec::Dtype d, std::vector<Segment> segments,
                     size_t cache_limit)
    : src_(&src), dtype_(d), segments_(std::move(segments)) {
  size_t total = 0;
  for (const Segment& s : segments_) total += s.length;
  if (total > cache_limit) return;
  cache_.reserve(total);
  for_each_piece([&](size_t, std::span<const double> exact) {
    cache_.insert(cache_.end(), exact.begin(), exact.end());
  });
  cached_ = true;
}

template <class F>
void Reference::for_each_piece(F&& f) const {
  for (const Segment& seg : segments_) {
    std::vector<std::unique_ptr<ValueStream>> streams;
    for (int id : seg.streams) {
      streams.push_back(src_->open(id, seg.stream_length));
      streams.back()->skip(seg.stream_offset);
    }
    std::vector<double> sum(std::min(seg.length, kPiece)), part(sum.size());
    for (size_t done = 0; done < seg.length;) {
      size_t take = std::min(seg.length - done, sum.size());
      std::fill_n(sum.begin(), take, 0.0);
      for (auto& s : streams) {
        s->next({part.data(), take});
        if (dtype_ == codec::Dtype::f32)
          for (size_t i = 0; i < take; ++i) sum[i] += double(float(part[i]));
        else
          for (size_t i = 0; i < take; ++i) sum[i] += part[i];
      }
      f(seg.out_offset + done, std::span<const double>(sum.data(), take));
      done += take;
    }
  }
}

template <class T>
double Reference::max_error(std::span<const T> out) const {
  double worst = 0;
  auto check = [&](size_t at, std::span<const double> exact) {
    for (size_t i = 0; i < exact.size(); ++i)
      worst = std::max(worst, element_error(exact[i], double(out[at + i])));
  };
  if (!cached_) {
    for_each_piece(check);
    return worst;
  }
  size_t pos = 0;
  for (const Segment& seg : segments_) {
    check(seg.out_offset, std::span<const double>(cache_.data() + pos, seg.length));
    pos += seg.length;
  }
  return worst;
}

template double Reference::max_error<float>(std::span<const float>) const;
template double Reference::max_error<double>(std::span<const double>) const;

}  // namespace commpress::cli
