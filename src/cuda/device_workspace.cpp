#include "cuda/device_workspace.hpp"

namespace commpress::cuda {

Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return {};
  return {ErrorCode::internal, std::string("CUDA: ") + what + ": " + cudaGetErrorString(e)};
}

DeviceWorkspace::DeviceWorkspace() : state_(std::make_unique<State>()) {}
DeviceWorkspace::~DeviceWorkspace() = default;

DeviceWorkspace::State::~State() {
  for (void* p : dev) cudaFree(p);
  for (void* p : host) cudaFreeHost(p);
}

void* DeviceWorkspace::State::device(DeviceSlot slot, size_t bytes, Status& err) {
  if (dev_size[slot] >= bytes && dev[slot]) return dev[slot];
  cudaFree(dev[slot]);
  dev[slot] = nullptr;
  dev_size[slot] = 0;
  if (Status st = cuda_status(cudaMalloc(&dev[slot], bytes), "cudaMalloc(workspace)"); !st.ok()) {
    err = {ErrorCode::capacity, st.message()};
    return nullptr;
  }
  dev_size[slot] = bytes;
  return dev[slot];
}

void* DeviceWorkspace::State::pinned(HostSlot slot, size_t bytes, Status& err) {
  if (host_size[slot] >= bytes && host[slot]) return host[slot];
  cudaFreeHost(host[slot]);
  host[slot] = nullptr;
  host_size[slot] = 0;
  if (Status st = cuda_status(cudaMallocHost(&host[slot], bytes), "cudaMallocHost(workspace)");
      !st.ok()) {
    err = {ErrorCode::capacity, st.message()};
    return nullptr;
  }
  host_size[slot] = bytes;
  return host[slot];
}

}  // namespace commpress::cuda
