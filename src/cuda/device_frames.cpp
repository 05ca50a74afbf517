#include "cuda/device_frames.hpp"

#include "codec/format/frame_header.hpp"

namespace commpress::cuda {

Result<codec::FrameInfo> open_device_frame(const std::byte* frame_dev, size_t frame_size,
                                           cudaStream_t stream, DeviceWorkspace& ws,
                                           std::span<const std::byte>* host_copy) {
  if (frame_size > 0 && frame_dev == nullptr)
    return Status{ErrorCode::invalid_argument, "null frame with a non-zero size"};
  Status err;
  auto* host = static_cast<std::byte*>(ws.state().pinned(kHostPayload, frame_size + 1, err));
  if (!host) return err;
  COMMPRESS_CUDA_TRY(
      cudaMemcpyAsync(host, frame_dev, frame_size, cudaMemcpyDeviceToHost, stream));
  COMMPRESS_CUDA_TRY(cudaStreamSynchronize(stream));
  std::span<const std::byte> frame{host, frame_size};
  if (host_copy) *host_copy = frame;
  return codec::inspect(frame);
}

Status write_device_frame_header(const codec::FrameInfo& info, std::byte* frame_dev,
                                 cudaStream_t stream, DeviceWorkspace& ws) {
  Status err;
  auto* host = static_cast<std::byte*>(
      ws.state().pinned(kHostPayload, codec::kFrameHeaderSize + info.payload_size, err));
  if (!host) return err;
  std::byte* payload = host + codec::kFrameHeaderSize;
  COMMPRESS_CUDA_TRY(cudaMemcpyAsync(payload, frame_dev + codec::kFrameHeaderSize,
                                     info.payload_size, cudaMemcpyDeviceToHost, stream));
  COMMPRESS_CUDA_TRY(cudaStreamSynchronize(stream));
  codec::detail::write_frame_header(info, {payload, info.payload_size}, host);
  COMMPRESS_CUDA_TRY(cudaMemcpyAsync(frame_dev, host, codec::kFrameHeaderSize,
                                     cudaMemcpyHostToDevice, stream));
  COMMPRESS_CUDA_TRY(cudaStreamSynchronize(stream));
  return {};
}

}  // namespace commpress::cuda
