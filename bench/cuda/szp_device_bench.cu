// The device szp codec and homomorphic sum against the CPU codec, side by side in one run:
//   szp compress / decompress GB/s on a float32 field at REL 1e-4: device payload kernels
//     (timed with CUDA events) and the CPU codec with every OpenMP thread;
//   combine(frame, frame) on the device against decompress both + add + compress on the
//     device, both as frames (each path copies its payloads to the host once for checksums)
//     and as payloads (kernels only).
// Usage: szp_device_bench [--gib G] [--repeats K] [--out FILE.md]
#include <cuda_runtime_api.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "commpress/codec.hpp"
#include "commpress/cuda.hpp"

namespace cc = commpress::codec;
namespace cu = commpress::cuda;
using commpress::codec::Dtype;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}
template <class R>
auto must(R r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, r.status().message().c_str());
    std::exit(2);
  }
  return *r;
}
void must(const commpress::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.message().c_str());
    std::exit(2);
  }
}

// A smooth 3-D field (sum of sines) with small noise, as the codec benchmark's smooth_field.
__global__ void make_field(float* x, size_t n, size_t side, float phase) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const size_t a = i % side, b = (i / side) % side, c = i / (side * side);
    const float noise = float((i * 2654435761u) % 1000u) * 1e-6f;
    x[i] = sinf(0.05f * a + phase) + cosf(0.03f * b) * sinf(0.02f * c + phase) + noise;
  }
}

__global__ void add(const float* a, const float* b, float* out, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = a[i] + b[i];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds of `repeats` runs after one warm-up, timed with events on the stream.
double time_device(int repeats, cudaStream_t s, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int k = 0; k < repeats; ++k) {
    cudaEventRecord(a, s);
    f();
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1e-3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(t);
}

double time_host(int repeats, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  for (int k = 0; k < repeats; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

}  // namespace

int main(int argc, char** argv) {
  double gib = 1.0;
  int repeats = 5;
  std::string out_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--gib") gib = std::stod(argv[i + 1]);
    else if (a == "--repeats") repeats = std::stoi(argv[i + 1]);
    else if (a == "--out") out_path = argv[i + 1];
  }
  const size_t n = size_t(gib * double(1ull << 30)) / sizeof(float);
  const size_t bytes = n * sizeof(float);
  const size_t side = size_t(std::cbrt(double(n))) + 1;
  cudaStream_t s;
  check(cudaStreamCreate(&s), "stream");
  cu::DeviceWorkspace ws;
  float *x, *y, *z, *w;
  std::byte *frame, *frame2, *sum;
  const size_t cap = cu::szp_compress_bound(n, Dtype::f32);
  check(cudaMalloc(&x, bytes), "x");
  check(cudaMalloc(&y, bytes), "y");
  check(cudaMalloc(&z, bytes), "z");
  check(cudaMalloc(&w, bytes), "w");
  check(cudaMalloc(&frame, cap), "frame");
  check(cudaMalloc(&frame2, cap), "frame2");
  check(cudaMalloc(&sum, cap), "sum");
  make_field<<<4096, 256, 0, s>>>(x, n, side, 0.0f);
  make_field<<<4096, 256, 0, s>>>(y, n, side, 0.7f);
  check(cudaStreamSynchronize(s), "field");

  // The bound REL 1e-4 resolves to on x, as a frame would carry it.
  const auto rel = cc::ErrorBound::relative(1e-4);
  const double eb = cc::rel_to_abs(1e-4, cu::finite_range(x, n, Dtype::f32, s, ws), Dtype::f32);
  size_t payload = 0;
  const double t_enc = time_device(repeats, s, [&] {
    payload = must(cu::szp_encode_payload(x, n, Dtype::f32, eb, frame, s, ws), "encode");
  });
  const double t_dec = time_device(repeats, s, [&] {
    must(cu::szp_decode_payload(frame, payload, n, Dtype::f32, eb, z, s, ws), "decode");
  });

  // The CPU codec on the same values, every thread.
  std::vector<float> hx(n), hz(n);
  check(cudaMemcpy(hx.data(), x, bytes, cudaMemcpyDeviceToHost), "to host");
  const cc::Codec& szp = **cc::get_codec("szp");
  std::vector<std::byte> hframe(szp.compress_bound(n, Dtype::f32));
  cc::Workspace hws;
  size_t hsize = 0;
  const double t_cpu_enc = time_host(repeats, [&] {
    hsize = must(szp.compress_into(hx.data(), n, Dtype::f32, rel, hframe, hws), "cpu compress");
  });
  const double t_cpu_dec = time_host(repeats, [&] {
    must(szp.decompress(std::span<const std::byte>(hframe.data(), hsize), hz.data(), n, Dtype::f32,
                        hws),
         "cpu decompress");
  });
  // The device frame equals the CPU's (the tests check this on many inputs; here once more).
  const size_t fsize = must(cu::szp_compress(x, n, Dtype::f32, cc::ErrorBound::absolute(eb),
                                             frame, cap, s, ws),
                            "frame");
  const size_t fsize2 = must(cu::szp_compress(y, n, Dtype::f32, cc::ErrorBound::absolute(eb),
                                              frame2, cap, s, ws),
                             "frame2");

  // combine on device vs decompress + add + compress on device, frames in and out.
  const double t_comb = time_device(repeats, s, [&] {
    must(cu::combine(frame, fsize, frame2, fsize2, sum, cap, s, ws), "combine");
  });
  const double t_dac = time_device(repeats, s, [&] {
    must(cu::szp_decompress(frame, fsize, z, n, Dtype::f32, s, ws), "decompress a");
    must(cu::szp_decompress(frame2, fsize2, w, n, Dtype::f32, s, ws), "decompress b");
    add<<<4096, 256, 0, s>>>(z, w, z, n);
    must(cu::szp_compress(z, n, Dtype::f32, cc::ErrorBound::absolute(2 * eb), sum, cap, s, ws),
         "compress");
  });

  // The same two at the payload level (kernels only; the frame versions above add a host
  // copy and checksum of every payload they read or write).
  std::byte *pa = frame + cc::kFrameHeaderSize, *pb = frame2 + cc::kFrameHeaderSize,
            *ps = sum + cc::kFrameHeaderSize;
  const size_t sa = fsize - cc::kFrameHeaderSize, sb = fsize2 - cc::kFrameHeaderSize;
  const double t_comb_p = time_device(repeats, s, [&] {
    must(cu::combine_payloads(pa, sa, pb, sb, n, Dtype::f32, eb, ps, s, ws), "combine payloads");
  });
  const double t_dac_p = time_device(repeats, s, [&] {
    must(cu::szp_decode_payload(pa, sa, n, Dtype::f32, eb, z, s, ws), "decode a");
    must(cu::szp_decode_payload(pb, sb, n, Dtype::f32, eb, w, s, ws), "decode b");
    add<<<4096, 256, 0, s>>>(z, w, z, n);
    must(cu::szp_encode_payload(z, n, Dtype::f32, 2 * eb, ps, s, ws), "encode");
  });

  int dev = 0;
  cudaDeviceProp prop{};
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&prop, dev);
  const double gb = double(bytes) / 1e9;
  char text[3072];
  std::snprintf(
      text, sizeof text,
      "# szp on the device (%s) vs the CPU codec (%d OpenMP threads)\n\n"
      "%zu float32 values (%.3f GiB), smooth field, REL 1e-4 (abs %.6g), median of %d.\n\n"
      "| what | seconds | GB/s |\n|---|---|---|\n"
      "| device szp compress (payload kernels) | %.6f | %.1f |\n"
      "| device szp decompress (payload kernels) | %.6f | %.1f |\n"
      "| CPU szp compress (frame) | %.6f | %.2f |\n"
      "| CPU szp decompress (frame) | %.6f | %.2f |\n"
      "| device combine (frames) | %.6f | %.1f |\n"
      "| device decompress x2 + add + compress (frames) | %.6f | %.1f |\n"
      "| device combine (payload kernels) | %.6f | %.1f |\n"
      "| device decode x2 + add + encode (payload kernels) | %.6f | %.1f |\n\n"
      "ratio %.2f (device payload %zu bytes, CPU payload %zu bytes); combine speed-up over "
      "decompress-add-compress: %.2fx on frames, %.2fx on payloads.\n",
      prop.name, omp_get_max_threads(), n, gib, eb, repeats, t_enc, gb / t_enc, t_dec,
      gb / t_dec, t_cpu_enc, gb / t_cpu_enc, t_cpu_dec, gb / t_cpu_dec, t_comb, gb / t_comb,
      t_dac, gb / t_dac, t_comb_p, gb / t_comb_p, t_dac_p, gb / t_dac_p,
      double(bytes) / double(payload), payload, hsize - cc::kFrameHeaderSize, t_dac / t_comb,
      t_dac_p / t_comb_p);
  std::fputs(text, stdout);
  if (!out_path.empty()) std::ofstream(out_path) << text;
  const bool same = payload == hsize - cc::kFrameHeaderSize;
  if (!same) std::fprintf(stderr, "device and CPU payload sizes differ\n");
  (void)fsize;
  return same ? 0 : 1;
}
