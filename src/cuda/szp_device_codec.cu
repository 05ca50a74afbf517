// The szp codec on the device: one thread per 32-value block, running the block functions
// the CPU codec runs (portable_block.hpp), on tiles staged through shared memory
// (block_tile.cuh). Encoding is two passes over the input: plan every block's header and body
// size, scan the sizes into offsets, then code every block at its offset; recomputing the
// plan costs less than a round trip of the bodies through scratch.
#include <cfloat>
#include <cmath>
#include <string>

#include "codec/lossy/szp/portable_block.hpp"
#include "cuda/block_scan.hpp"
#include "cuda/block_tile.cuh"
#include "cuda/device_frames.hpp"

namespace commpress::cuda {

namespace szp = codec::szp;

namespace {

template <class T>
__global__ void plan_blocks(const T* x, size_t n, size_t nb, szp::LinearQuantizer<T> qz,
                            uint8_t* headers, uint64_t* sizes) {
  __shared__ T tile[kTileBlocks<T> * kStride];
  const size_t first = size_t(blockIdx.x) * kTileBlocks<T>, b = first + threadIdx.x;
  load_tile(x, n, first, tile);
  if (b >= nb) return;
  uint8_t h;
  sizes[b] = szp::portable::plan_lossy_block(tile + threadIdx.x * kStride,
                                             szp::valid_in_block(n, b), qz, h);
  headers[b] = h;
}

template <class T>
__global__ void code_blocks(const T* x, size_t n, size_t nb, szp::LinearQuantizer<T> qz,
                            const uint64_t* offsets, std::byte* bodies) {
  __shared__ T tile[kTileBlocks<T> * kStride];
  const size_t first = size_t(blockIdx.x) * kTileBlocks<T>, b = first + threadIdx.x;
  load_tile(x, n, first, tile);
  // The block's values leave the tile, whose space then holds the bodies.
  T values[szp::kBlockValues];
  const size_t valid = b < nb ? szp::valid_in_block(n, b) : 0;
  for (size_t i = 0; i < valid; ++i) values[i] = tile[threadIdx.x * kStride + i];
  __syncthreads();
  code_run<T>(reinterpret_cast<std::byte*>(tile), offsets, first, nb, bodies,
              [&](std::byte* body) {
                uint8_t h;
                szp::portable::encode_lossy_block(values, valid, qz, h, body);
              });
}

// Offsets were validated against the payload (device_block_offsets), so every body read
// stays inside it.
template <class T>
__global__ void decode_blocks(const uint8_t* headers, const std::byte* bodies, size_t n,
                              size_t nb, szp::LinearQuantizer<T> qz, const uint64_t* offsets,
                              T* out) {
  __shared__ T tile[kTileBlocks<T> * kStride];
  const size_t first = size_t(blockIdx.x) * kTileBlocks<T>, b = first + threadIdx.x;
  if (b < nb)
    szp::portable::decode_lossy_block(headers[b], bodies + offsets[b], szp::valid_in_block(n, b),
                                      qz, tile + threadIdx.x * kStride);
  store_tile(tile, n, first, out);
}

// The CPU decoder's check of the last block's padding lanes (block_driver.hpp,
// check_padding_lanes): flag = 1 when they do not repeat the last valid value.
template <class T>
__global__ void check_padding(const uint8_t* headers, const std::byte* bodies, size_t n,
                              size_t nb, szp::LinearQuantizer<T> qz, const uint64_t* offsets,
                              unsigned long long* flag) {
  const size_t valid = szp::valid_in_block(n, nb - 1);
  const uint8_t h = headers[nb - 1];
  *flag = 0;
  if (valid == szp::kBlockValues || h == szp::kRawHeader) return;
  T lanes[szp::kBlockValues];
  szp::portable::decode_lossy_block(h, bodies + offsets[nb - 1], szp::kBlockValues, qz, lanes);
  using U = typename szp::BlockTraits<T>::UInt;
  U last, lane;
  memcpy(&last, &lanes[valid - 1], sizeof(T));
  for (size_t i = valid; i < szp::kBlockValues; ++i) {
    memcpy(&lane, &lanes[i], sizeof(T));
    if (lane != last) *flag = 1;
  }
}

// Per-CTA min and max of the finite values (+inf / -inf when none), finished on the host.
template <class T>
__global__ void finite_minmax(const T* x, size_t n, double* ranges) {
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const double v = double(x[i]);
    if (isfinite(v)) {
      lo = fmin(lo, v);
      hi = fmax(hi, v);
    }
  }
  for (int d = 16; d > 0; d /= 2) {
    lo = fmin(lo, __shfl_down_sync(0xffffffffu, lo, d));
    hi = fmax(hi, __shfl_down_sync(0xffffffffu, hi, d));
  }
  __shared__ double warp_lo[kThreadsPerCta / 32], warp_hi[kThreadsPerCta / 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    warp_lo[warp] = lo;
    warp_hi[warp] = hi;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreadsPerCta / 32; ++w) {
      lo = fmin(lo, warp_lo[w]);
      hi = fmax(hi, warp_hi[w]);
    }
    ranges[2 * blockIdx.x] = lo;
    ranges[2 * blockIdx.x + 1] = hi;
  }
}

inline constexpr unsigned kRangeCtas = 1024;

template <class T>
Result<size_t> encode_as(const T* x, size_t n, double abs_bound, std::byte* payload,
                         cudaStream_t stream, DeviceWorkspace& ws) {
  const szp::LinearQuantizer<T> qz(abs_bound);
  return write_payload<T>(
      szp::block_count(n), payload, stream, ws,
      [&](unsigned ctas, unsigned threads, uint8_t* headers, uint64_t* sizes) {
        plan_blocks<T><<<ctas, threads, 0, stream>>>(x, n, szp::block_count(n), qz, headers,
                                                     sizes);
      },
      [&](unsigned ctas, unsigned threads, const uint64_t* offsets, std::byte* bodies) {
        code_blocks<T><<<ctas, threads, 0, stream>>>(x, n, szp::block_count(n), qz, offsets,
                                                     bodies);
      });
}

template <class T>
Status decode_as(const std::byte* payload, size_t payload_size, size_t n, double abs_bound,
                 T* out, cudaStream_t stream, DeviceWorkspace& ws) {
  if (!(abs_bound >= 0) || !std::isfinite(abs_bound))
    return {ErrorCode::corrupt_frame,
            "szp frame needs a finite absolute bound >= 0, got " + std::to_string(abs_bound)};
  const size_t nb = szp::block_count(n);
  if (nb == 0) {
    if (payload_size != 0)
      return {ErrorCode::corrupt_frame, "szp payload of an empty array must be empty"};
    return {};
  }
  const uint64_t* offsets = nullptr;
  COMMPRESS_RETURN_IF_ERROR(device_block_offsets<T>(payload, payload_size, n, abs_bound, kOffsets,
                                                    &offsets, stream, ws));
  const szp::LinearQuantizer<T> qz(abs_bound);
  const auto* headers = reinterpret_cast<const uint8_t*>(payload);
  decode_blocks<T><<<tiles_for<T>(nb), kTileBlocks<T>, 0, stream>>>(headers, payload + nb, n,
                                                                    nb, qz, offsets, out);
  COMMPRESS_CUDA_TRY(cudaGetLastError());
  Status err;
  auto* flag = static_cast<unsigned long long*>(ws.state().device(kFlags, 64, err));
  if (!flag) return err;
  check_padding<T><<<1, 1, 0, stream>>>(headers, payload + nb, n, nb, qz, offsets, flag);
  COMMPRESS_CUDA_TRY(cudaGetLastError());
  auto bad = read_back(flag, stream, ws);
  if (!bad.ok()) return bad.status();
  if (*bad)
    return {ErrorCode::corrupt_frame,
            "szp's last block does not repeat value " +
                std::to_string(szp::valid_in_block(n, nb - 1) - 1) +
                " into its padding: the payload was written for another element count"};
  return {};
}

Status check_float(Dtype d) {
  if (d == Dtype::f32 || d == Dtype::f64) return {};
  return {ErrorCode::unsupported,
          std::string("codec szp does not support dtype ") + codec::dtype_name(d)};
}

}  // namespace

Result<size_t> szp_encode_payload(const void* x_dev, size_t n, Dtype d, double abs_bound,
                                  std::byte* payload_dev, cudaStream_t stream, DeviceWorkspace& ws) {
  COMMPRESS_RETURN_IF_ERROR(check_float(d));
  if (d == Dtype::f64)
    return encode_as(static_cast<const double*>(x_dev), n, abs_bound, payload_dev, stream, ws);
  return encode_as(static_cast<const float*>(x_dev), n, abs_bound, payload_dev, stream, ws);
}

Status szp_decode_payload(const std::byte* payload_dev, size_t payload_size, size_t n, Dtype d,
                          double abs_bound, void* out_dev, cudaStream_t stream,
                          DeviceWorkspace& ws) {
  COMMPRESS_RETURN_IF_ERROR(check_float(d));
  if (d == Dtype::f64)
    return decode_as(payload_dev, payload_size, n, abs_bound, static_cast<double*>(out_dev),
                     stream, ws);
  return decode_as(payload_dev, payload_size, n, abs_bound, static_cast<float*>(out_dev), stream,
                   ws);
}

codec::ValueRange finite_range(const void* x_dev, size_t n, Dtype d, cudaStream_t stream,
                               DeviceWorkspace& ws) {
  codec::ValueRange r;
  Status err;
  auto* ranges = static_cast<double*>(ws.state().device(kRanges, kRangeCtas * 16, err));
  auto* host = ranges ? static_cast<double*>(ws.state().pinned(kHostPayload, kRangeCtas * 16, err))
                      : nullptr;
  if (!host || n == 0) return r;
  if (d == Dtype::f64)
    finite_minmax<double><<<kRangeCtas, kThreadsPerCta, 0, stream>>>(
        static_cast<const double*>(x_dev), n, ranges);
  else
    finite_minmax<float><<<kRangeCtas, kThreadsPerCta, 0, stream>>>(
        static_cast<const float*>(x_dev), n, ranges);
  cudaMemcpyAsync(host, ranges, kRangeCtas * 16, cudaMemcpyDeviceToHost, stream);
  if (cudaStreamSynchronize(stream) != cudaSuccess) return r;
  double lo = INFINITY, hi = -INFINITY;
  for (unsigned c = 0; c < kRangeCtas; ++c) {
    lo = std::fmin(lo, host[2 * c]);
    hi = std::fmax(hi, host[2 * c + 1]);
  }
  r.any_finite = lo <= hi;
  if (r.any_finite) {
    r.min = lo;
    r.max = hi;
  }
  return r;
}

size_t szp_compress_bound(size_t n, Dtype d) {
  return codec::kFrameHeaderSize + (d == Dtype::f64
                                        ? szp::max_payload_size<double>(n, szp::Mode::lossy)
                                        : szp::max_payload_size<float>(n, szp::Mode::lossy));
}

Result<size_t> szp_compress(const void* x_dev, size_t n, Dtype d, const codec::ErrorBound& bound,
                            std::byte* frame_dev, size_t capacity, cudaStream_t stream,
                            DeviceWorkspace& ws) {
  COMMPRESS_RETURN_IF_ERROR(check_float(d));
  COMMPRESS_RETURN_IF_ERROR(codec::check_count(n));
  COMMPRESS_RETURN_IF_ERROR(codec::check_bound(bound));
  if (n > 0 && x_dev == nullptr)
    return Status{ErrorCode::invalid_argument, "null input with a non-zero count"};
  if (capacity < szp_compress_bound(n, d))
    return Status{ErrorCode::capacity,
                  "output holds " + std::to_string(capacity) + " bytes, compress_bound is " +
                      std::to_string(szp_compress_bound(n, d))};
  double abs_eb = 0;
  if (bound.mode == BoundMode::abs) abs_eb = bound.value;
  if (bound.mode == BoundMode::rel)
    abs_eb = codec::rel_to_abs(bound.value, finite_range(x_dev, n, d, stream, ws), d);
  auto payload = szp_encode_payload(x_dev, n, d, abs_eb, frame_dev + codec::kFrameHeaderSize,
                                    stream, ws);
  if (!payload.ok()) return payload.status();
  codec::FrameInfo info;
  info.version = codec::kFormatVersion;
  info.codec = codec::CodecId::szp;
  info.dtype = d;
  info.mode = bound.mode;
  info.count = n;
  info.requested_bound = bound.value;
  info.abs_bound = abs_eb;
  info.payload_size = *payload;
  COMMPRESS_RETURN_IF_ERROR(write_device_frame_header(info, frame_dev, stream, ws));
  return codec::kFrameHeaderSize + *payload;
}

Status szp_decompress(const std::byte* frame_dev, size_t frame_size, void* out_dev, size_t n,
                      Dtype d, cudaStream_t stream, DeviceWorkspace& ws) {
  auto info = open_device_frame(frame_dev, frame_size, stream, ws);
  if (!info.ok()) return info.status();
  if (info->codec != codec::CodecId::szp)
    return {ErrorCode::unsupported, "the device decoder reads szp frames only"};
  if (info->dtype != d || info->count != n)
    return {ErrorCode::mismatch, "frame holds " + std::to_string(info->count) + " " +
                                     codec::dtype_name(info->dtype) + " values, the caller expects " +
                                     std::to_string(n) + " " + codec::dtype_name(d)};
  if (n > 0 && out_dev == nullptr)
    return {ErrorCode::invalid_argument, "null output with a non-zero count"};
  return szp_decode_payload(frame_dev + codec::kFrameHeaderSize, info->payload_size, n, d,
                            info->abs_bound, out_dev, stream, ws);
}

}  // namespace commpress::cuda
