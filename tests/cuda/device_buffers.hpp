// Device memory for the GPU tests and benchmark: RAII buffers, copies both ways, and the check
// that the device is still healthy (no sticky error) after a call that refused its input.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <cstdio>
#include <vector>

namespace commpress::testing {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(e));
  std::abort();
}

class DeviceBytes {
 public:
  explicit DeviceBytes(size_t n = 0) { resize(n); }
  ~DeviceBytes() { cudaFree(p_); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  DeviceBytes(DeviceBytes&& o) noexcept : p_(o.p_), n_(o.n_) {
    o.p_ = nullptr;
    o.n_ = 0;
  }
  void resize(size_t n) {
    cudaFree(p_);
    p_ = nullptr;
    n_ = n;
    cuda_check(cudaMalloc(&p_, n > 0 ? n : 1), "cudaMalloc");
  }
  std::byte* data() const { return static_cast<std::byte*>(p_); }
  size_t size() const { return n_; }

  template <class T>
  static DeviceBytes of(const std::vector<T>& host) {
    DeviceBytes d(host.size() * sizeof(T));
    cuda_check(cudaMemcpy(d.p_, host.data(), d.n_, cudaMemcpyHostToDevice), "copy to device");
    return d;
  }
  template <class T>
  std::vector<T> to_host(size_t count) const {
    std::vector<T> h(count);
    cuda_check(cudaMemcpy(h.data(), p_, count * sizeof(T), cudaMemcpyDeviceToHost),
               "copy to host");
    return h;
  }

 private:
  void* p_ = nullptr;
  size_t n_ = 0;
};

// A refused call must leave no error behind on the device (an out-of-bounds access would).
inline void expect_device_healthy() {
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

inline bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

}  // namespace commpress::testing
