// Paired one-core speed of szp modes: every codec of the list is run in turn on the same data
// set and bound, repeat after repeat (A, B, C, A, B, C, ...), so that load from other work on
// the machine falls on all of them alike. Reports the median thread CPU time (what the codec
// itself spent, immune to waiting for a core) and the median wall time of compress and
// decompress, the ratio and the largest error against the bound.
//
//   bench_szp_speed [--n 16M] [--repeats 5] [--datasets random_walk,smooth_field]
//                   [--rels 1e-2,1e-3,1e-4] [--codecs szp,szp-eh,szp-eh:nd,...]
//
// A codec named with ":nd" is given the data set's shape. Run with OMP_NUM_THREADS=1.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "codecs/datasets.hpp"
#include "commpress/codec.hpp"

namespace {

using namespace commpress;

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double wall_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t comma = std::min(s.find(',', at), s.size());
    if (comma > at) out.push_back(s.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

size_t parse_count(const std::string& s) {
  const char unit = s.empty() ? 0 : s.back();
  const size_t mult = unit == 'M' ? size_t{1} << 20 : unit == 'K' ? size_t{1} << 10 : 1;
  return size_t(std::stod(unit == 'M' || unit == 'K' ? s.substr(0, s.size() - 1) : s)) * mult;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Run {
  std::string name;
  const codec::Codec* codec = nullptr;
  bool shaped = false;
  std::vector<std::byte> frame;
  std::vector<double> c_cpu, c_wall, d_cpu, d_wall;
  double max_err = 0;
};

}  // namespace

int main(int argc, char** argv) {
  size_t n = size_t{1} << 24;
  int repeats = 5;
  std::vector<std::string> sets = {"random_walk", "smooth_field"};
  std::vector<std::string> rels = {"1e-2", "1e-3", "1e-4"};
  std::vector<std::string> names = {"szp", "szp-eh", "szp-eh:nd"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--n") n = parse_count(v);
    else if (a == "--repeats") repeats = std::max(1, std::atoi(v.c_str()));
    else if (a == "--datasets") sets = split(v);
    else if (a == "--rels") rels = split(v);
    else if (a == "--codecs") names = split(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  std::printf("| data set | REL | codec | ratio | comp GB/s (CPU) | comp GB/s (wall) | "
              "decomp GB/s (CPU) | decomp GB/s (wall) | max error / bound |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  int failures = 0;
  for (const std::string& set : sets) {
    auto data = bench::generate_dataset(set, n);
    if (!data.ok()) {
      std::fprintf(stderr, "%s\n", data.status().message().c_str());
      return 2;
    }
    const bench::Dataset& d = *data;
    const std::vector<uint64_t> shape(d.shape.begin(), d.shape.end());
    const double bytes = double(d.bytes());
    std::vector<std::byte> back(d.bytes());
    for (const std::string& rel : rels) {
      const double r = std::stod(rel);
      float lo = d.f32[0], hi = d.f32[0];
      for (float x : d.f32) lo = std::min(lo, x), hi = std::max(hi, x);
      const double abs_bound = (double(hi) - double(lo)) * r;
      std::vector<Run> runs;
      for (const std::string& name : names) {
        Run run;
        run.name = name;
        run.shaped = name.size() > 3 && name.substr(name.size() - 3) == ":nd";
        auto c = codec::get_codec(run.shaped ? name.substr(0, name.size() - 3) : name);
        if (!c.ok()) {
          std::fprintf(stderr, "%s\n", c.status().message().c_str());
          return 2;
        }
        run.codec = *c;
        run.frame.resize(run.codec->compress_bound(d.count(), d.dtype));
        runs.push_back(std::move(run));
      }
      codec::Workspace ws;
      for (int rep = -1; rep < repeats; ++rep) {  // rep -1: the warm-up
        for (Run& run : runs) {
          const auto bound = codec::ErrorBound::relative(r);
          double c0 = thread_cpu_s(), w0 = wall_s();
          auto size = run.shaped ? run.codec->compress_into(d.data(), shape, d.dtype, bound,
                                                            run.frame, ws)
                                 : run.codec->compress_into(d.data(), d.count(), d.dtype, bound,
                                                            run.frame, ws);
          double c1 = thread_cpu_s(), w1 = wall_s();
          if (!size.ok()) {
            std::fprintf(stderr, "%s: %s\n", run.name.c_str(), size.status().message().c_str());
            return 1;
          }
          const std::span<const std::byte> frame(run.frame.data(), *size);
          double c2 = thread_cpu_s(), w2 = wall_s();
          Status st = run.codec->decompress(frame, back.data(), d.count(), d.dtype, ws);
          double c3 = thread_cpu_s(), w3 = wall_s();
          if (!st.ok()) {
            std::fprintf(stderr, "%s: %s\n", run.name.c_str(), st.message().c_str());
            return 1;
          }
          if (rep < 0) {
            const float* y = reinterpret_cast<const float*>(back.data());
            for (size_t i = 0; i < d.count(); ++i)
              run.max_err = std::max(run.max_err, std::fabs(double(d.f32[i]) - double(y[i])));
            if (run.max_err > abs_bound) ++failures;
            run.frame.resize(std::max(run.frame.size(), *size));
            run.c_cpu.push_back(double(*size));  // the frame's size, popped below
            continue;
          }
          run.c_cpu.push_back(c1 - c0);
          run.c_wall.push_back(w1 - w0);
          run.d_cpu.push_back(c3 - c2);
          run.d_wall.push_back(w3 - w2);
        }
      }
      for (Run& run : runs) {
        const double frame_bytes = run.c_cpu.front();
        run.c_cpu.erase(run.c_cpu.begin());
        std::printf("| %s | %s | %s | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", set.c_str(),
                    rel.c_str(), run.name.c_str(), bytes / frame_bytes,
                    bytes / median(run.c_cpu) * 1e-9, bytes / median(run.c_wall) * 1e-9,
                    bytes / median(run.d_cpu) * 1e-9, bytes / median(run.d_wall) * 1e-9,
                    run.max_err / abs_bound);
        std::fflush(stdout);
      }
    }
  }
  return failures ? 1 : 0;
}
