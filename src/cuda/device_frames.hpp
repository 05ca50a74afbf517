// Frame headers of device frames, handled on the host: the header's XXH3-64 checksum covers
// the payload, so reading or writing one copies the payload to pinned host memory once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>

#include "commpress/codec.hpp"
#include "cuda/device_workspace.hpp"

namespace commpress::cuda {

// codec::inspect on a device frame (magic, version, lengths, checksum). The host copy stays
// in the workspace until the next call: host_copy (if given) points at it.
Result<codec::FrameInfo> open_device_frame(const std::byte* frame_dev, size_t frame_size,
                                           cudaStream_t stream, DeviceWorkspace& ws,
                                           std::span<const std::byte>* host_copy = nullptr);

// Writes the header of info in front of the info.payload_size payload bytes at
// frame_dev + kFrameHeaderSize.
Status write_device_frame_header(const codec::FrameInfo& info, std::byte* frame_dev,
                                 cudaStream_t stream, DeviceWorkspace& ws);

}  // namespace commpress::cuda
