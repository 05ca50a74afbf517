// DeviceWorkspace's scratch: device and pinned host buffers per slot, grown on demand, and the
// error check every CUDA runtime call goes through.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "commpress/cuda.hpp"

namespace commpress::cuda {

enum DeviceSlot { kSizes, kOffsets, kOffsetsA, kOffsetsB, kScanTemp, kFlags, kRanges, kDeviceSlots };
enum HostSlot { kHostPayload, kHostSmall, kHostSlots };

struct DeviceWorkspace::State {
  void* dev[kDeviceSlots] = {};
  size_t dev_size[kDeviceSlots] = {};
  void* host[kHostSlots] = {};
  size_t host_size[kHostSlots] = {};

  ~State();
  // nullptr only with a failed Status in `err`.
  void* device(DeviceSlot slot, size_t bytes, Status& err);
  void* pinned(HostSlot slot, size_t bytes, Status& err);
};

// The runtime's error as a Status naming the call.
Status cuda_status(cudaError_t e, const char* what);

#define COMMPRESS_CUDA_TRY(call)                                                 \
  do {                                                                           \
    if (Status cuda_try_st = ::commpress::cuda::cuda_status((call), #call);      \
        !cuda_try_st.ok())                                                       \
      return cuda_try_st;                                                        \
  } while (0)

}  // namespace commpress::cuda
