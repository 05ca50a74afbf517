// bench_python: the C++ side of the Python overhead measurement (bench/python/run). Times
// Codec::compress_into and the dispatching decompress on the first n float32 values of a file,
// with the buffers and the Workspace reused (what the Python module does per call, minus
// Python), and prints the per-call medians as JSON for bench/python/numcodecs_compare.py.
//   bench_python FILE.f32 N CODEC REL CALLS_PER_ROUND ROUNDS
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "commpress/codec.hpp"

namespace cc = commpress::codec;

namespace {

template <class F>
double median_per_call(F&& call, int calls, int rounds) {
  std::vector<double> per_call;
  call();  // warm-up: buffers sized, pages touched
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) call();
    std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    per_call.push_back(dt.count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

int fail(const std::string& what) {
  std::fprintf(stderr, "bench_python: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) return fail("usage: bench_python FILE.f32 N CODEC REL CALLS_PER_ROUND ROUNDS");
  const size_t n = std::strtoull(argv[2], nullptr, 10);
  const cc::Codec* codec = cc::find_codec(argv[3]);
  if (codec == nullptr) return fail(std::string("no codec ") + argv[3]);
  const cc::ErrorBound bound = cc::ErrorBound::relative(std::strtod(argv[4], nullptr));
  const int calls = std::atoi(argv[5]);
  const int rounds = std::atoi(argv[6]);
  std::vector<float> data(n);
  std::ifstream in(argv[1], std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(n * 4))) {
    return fail(std::string("cannot read ") + std::to_string(n) + " values from " + argv[1]);
  }
  std::vector<std::byte> frame(codec->compress_bound(n, cc::Dtype::f32));
  std::vector<float> back(n);
  cc::Workspace ws;
  size_t frame_size = 0;
  bool ok = true;
  const double tc = median_per_call([&] {
    auto r = codec->compress_into(data.data(), n, cc::Dtype::f32, bound, frame, ws);
    ok = ok && r.ok();
    if (r.ok()) frame_size = *r;
  }, calls, rounds);
  const std::span<const std::byte> f(frame.data(), frame_size);
  const double td = median_per_call([&] {
    ok = ok && cc::decompress(f, back.data(), n, cc::Dtype::f32).ok();
  }, calls, rounds);
  if (!ok) return fail("a call failed");
  std::printf("{\"compress_s\": %.9g, \"decompress_s\": %.9g, \"frame_bytes\": %zu}\n", tc, td,
              frame_size);
  return 0;
}
