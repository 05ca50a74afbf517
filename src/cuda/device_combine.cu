// codec::combine and codec::combine_raw on device frames, block by block with the CPU's own
// per-block sum (homomorphic/block_operands.hpp). Like the device encoder, two passes: every
// thread sums its block into shared memory to learn the result's size, the sizes are scanned
// into offsets, and the block is summed again into its tile's run (block_tile.cuh).
#include <string>

#include "codec/homomorphic/block_operands.hpp"
#include "codec/homomorphic/frame_pair_check.hpp"
#include "cuda/block_scan.hpp"
#include "cuda/block_tile.cuh"
#include "cuda/device_frames.hpp"

namespace commpress::cuda {

namespace szp = codec::szp;
namespace hom = codec::homomorphic;

namespace {

template <class T>
__device__ hom::FrameBlock<T> frame_block(const std::byte* payload, size_t nb,
                                          const uint64_t* offsets, size_t b) {
  const auto* headers = reinterpret_cast<const uint8_t*>(payload);
  return {headers[b], payload + nb + offsets[b], size_t(offsets[b + 1] - offsets[b])};
}

// Local values (combine_raw) or a second frame (combine) as the first operand, the way the
// CPU orders them, hence the same bytes.
template <class T>
struct FramesPair {
  const std::byte* a;
  const uint64_t* off_a;
  const std::byte* b;
  const uint64_t* off_b;
  __device__ size_t code(size_t n, size_t nb, size_t blk, const szp::LinearQuantizer<T>& qz,
                         uint8_t& h, std::byte* body) const {
    return hom::combine_frame_blocks<T>(frame_block<T>(a, nb, off_a, blk),
                                        frame_block<T>(b, nb, off_b, blk),
                                        szp::valid_in_block(n, blk), qz, h, body);
  }
};

template <class T>
struct LocalAndFrame {
  const T* local;
  const std::byte* f;
  const uint64_t* off_f;
  __device__ size_t code(size_t n, size_t nb, size_t blk, const szp::LinearQuantizer<T>& qz,
                         uint8_t& h, std::byte* body) const {
    return hom::combine_local_block<T>(local + blk * szp::kBlockValues,
                                       szp::valid_in_block(n, blk),
                                       frame_block<T>(f, nb, off_f, blk), qz, h, body);
  }
};

// The planning pass codes each sum into its thread's slot of shared memory to learn the size.
// Two CTAs per multiprocessor at least: the sums need many registers, and with one CTA of
// kTileBlocks threads the multiprocessors wait on memory with too few warps.
template <class T, class Operands>
__global__ void __launch_bounds__(kTileBlocks<T>, 2) plan_sums(Operands ops, size_t n, size_t nb, szp::LinearQuantizer<T> qz,
                          uint8_t* headers, uint64_t* sizes) {
  __shared__ T slots[kTileBlocks<T> * kStride];
  const size_t b = size_t(blockIdx.x) * kTileBlocks<T> + threadIdx.x;
  if (b >= nb) return;
  uint8_t h;
  sizes[b] = ops.code(n, nb, b, qz, h,
                      reinterpret_cast<std::byte*>(slots + threadIdx.x * kStride));
  headers[b] = h;
}

template <class T, class Operands>
__global__ void __launch_bounds__(kTileBlocks<T>, 2) code_sums(Operands ops, size_t n, size_t nb, szp::LinearQuantizer<T> qz,
                          const uint64_t* offsets, std::byte* bodies) {
  __shared__ T run[kTileBlocks<T> * kStride];
  const size_t first = size_t(blockIdx.x) * kTileBlocks<T>;
  code_run<T>(reinterpret_cast<std::byte*>(run), offsets, first, nb, bodies,
              [&](std::byte* body) {
                uint8_t h;
                ops.code(n, nb, first + threadIdx.x, qz, h, body);
              });
}

// The payload of the sum (headers, then bodies) at payload; returns its size.
template <class T, class Operands>
Result<size_t> sum_payload(const Operands& ops, size_t n, double abs_bound, std::byte* payload,
                           cudaStream_t stream, DeviceWorkspace& ws) {
  const size_t nb = szp::block_count(n);
  const szp::LinearQuantizer<T> qz(abs_bound);
  return write_payload<T>(
      nb, payload, stream, ws,
      [&](unsigned ctas, unsigned threads, uint8_t* headers, uint64_t* sizes) {
        plan_sums<T><<<ctas, threads, 0, stream>>>(ops, n, nb, qz, headers, sizes);
      },
      [&](unsigned ctas, unsigned threads, const uint64_t* offsets, std::byte* bodies) {
        code_sums<T><<<ctas, threads, 0, stream>>>(ops, n, nb, qz, offsets, bodies);
      });
}

template <class T, class Operands>
Result<size_t> write_sum(const Operands& ops, const codec::FrameInfo& info, std::byte* out,
                         cudaStream_t stream, DeviceWorkspace& ws) {
  codec::FrameInfo result = info;
  auto payload = sum_payload<T>(ops, info.count, info.abs_bound, out + codec::kFrameHeaderSize,
                                stream, ws);
  if (!payload.ok()) return payload.status();
  result.payload_size = *payload;
  COMMPRESS_RETURN_IF_ERROR(write_device_frame_header(result, out, stream, ws));
  return codec::kFrameHeaderSize + result.payload_size;
}

Status with_role(const char* role, Status st) {
  if (st.ok()) return st;
  return {st.code(), std::string(role) + ": " + st.message()};
}

// open_szp_frame on a device frame: its header and checksum on the host, its blocks' offsets
// on the device (slot).
Result<codec::FrameInfo> open_operand(const std::byte* frame, size_t size, const char* role,
                                      DeviceSlot slot, const uint64_t** offsets,
                                      cudaStream_t stream, DeviceWorkspace& ws) {
  std::span<const std::byte> host;
  auto info = open_device_frame(frame, size, stream, ws, &host);
  if (!info.ok()) return Status{info.status().code(), std::string(role) + ": " + info.status().message()};
  auto op = hom::open_szp_frame(host, role);
  if (!op.ok()) return op.status();
  const std::byte* payload = frame + codec::kFrameHeaderSize;
  Status st = op->info.dtype == Dtype::f64
                  ? device_block_offsets<double>(payload, op->info.payload_size, op->info.count,
                                                 op->info.abs_bound, slot, offsets, stream, ws)
                  : device_block_offsets<float>(payload, op->info.payload_size, op->info.count,
                                                op->info.abs_bound, slot, offsets, stream, ws);
  COMMPRESS_RETURN_IF_ERROR(with_role(role, st));
  return op->info;
}

Status check_room(size_t capacity, const codec::FrameInfo& info) {
  const size_t need = szp_compress_bound(info.count, info.dtype);
  if (capacity >= need) return {};
  return {ErrorCode::capacity, "output holds " + std::to_string(capacity) +
                                   " bytes, the sum may need " + std::to_string(need)};
}

}  // namespace

Result<size_t> combine(const std::byte* a_dev, size_t a_size, const std::byte* b_dev,
                       size_t b_size, std::byte* out_dev, size_t capacity, cudaStream_t stream,
                       DeviceWorkspace& ws) {
  const uint64_t *off_a = nullptr, *off_b = nullptr;
  auto fa = open_operand(a_dev, a_size, "first frame", kOffsetsA, &off_a, stream, ws);
  if (!fa.ok()) return fa.status();
  auto fb = open_operand(b_dev, b_size, "second frame", kOffsetsB, &off_b, stream, ws);
  if (!fb.ok()) return fb.status();
  COMMPRESS_RETURN_IF_ERROR(hom::check_pair(*fa, "first frame", *fb, "second frame"));
  auto param = hom::summed_param(codec::summed_inputs(*fa), codec::summed_inputs(*fb));
  if (!param.ok()) return param.status();
  const codec::FrameInfo info = hom::result_info(*fa, *fb, *param);
  COMMPRESS_RETURN_IF_ERROR(check_room(capacity, info));
  const std::byte* pa = a_dev + codec::kFrameHeaderSize;
  const std::byte* pb = b_dev + codec::kFrameHeaderSize;
  if (info.dtype == Dtype::f64)
    return write_sum<double>(FramesPair<double>{pa, off_a, pb, off_b}, info, out_dev, stream, ws);
  return write_sum<float>(FramesPair<float>{pa, off_a, pb, off_b}, info, out_dev, stream, ws);
}

Result<size_t> combine_raw(const void* local_dev, size_t n, Dtype d, const std::byte* frame_dev,
                           size_t frame_size, std::byte* out_dev, size_t capacity,
                           cudaStream_t stream, DeviceWorkspace& ws) {
  if (n > 0 && local_dev == nullptr)
    return Status{ErrorCode::invalid_argument, "null local array with a non-zero count"};
  const uint64_t* off_f = nullptr;
  auto f = open_operand(frame_dev, frame_size, "frame", kOffsetsA, &off_f, stream, ws);
  if (!f.ok()) return f.status();
  // As on the CPU: the local array is one more quantized input with the frame's bound.
  codec::FrameInfo local_info = *f;
  local_info.dtype = d;
  local_info.count = n;
  local_info.mode = f->abs_bound > 0 ? BoundMode::abs : BoundMode::lossless;
  local_info.requested_bound = f->abs_bound;
  local_info.param = 1;
  COMMPRESS_RETURN_IF_ERROR(hom::check_pair(local_info, "local array", *f, "frame"));
  auto param = hom::summed_param(1, codec::summed_inputs(*f));
  if (!param.ok()) return param.status();
  const codec::FrameInfo info = hom::result_info(local_info, *f, *param);
  COMMPRESS_RETURN_IF_ERROR(check_room(capacity, info));
  const std::byte* pf = frame_dev + codec::kFrameHeaderSize;
  if (d == Dtype::f64)
    return write_sum<double>(
        LocalAndFrame<double>{static_cast<const double*>(local_dev), pf, off_f}, info, out_dev,
        stream, ws);
  return write_sum<float>(LocalAndFrame<float>{static_cast<const float*>(local_dev), pf, off_f},
                          info, out_dev, stream, ws);
}

}  // namespace commpress::cuda

namespace commpress::cuda {

Result<size_t> combine_payloads(const std::byte* a_dev, size_t a_size, const std::byte* b_dev,
                                size_t b_size, size_t n, Dtype d, double abs_bound,
                                std::byte* out_dev, cudaStream_t stream, DeviceWorkspace& ws) {
  if (d != Dtype::f32 && d != Dtype::f64)
    return Status{ErrorCode::unsupported, "szp payloads hold f32 or f64"};
  const uint64_t *off_a = nullptr, *off_b = nullptr;
  auto offsets = [&](const std::byte* p, size_t size, DeviceSlot slot, const uint64_t** off) {
    return d == Dtype::f64
               ? device_block_offsets<double>(p, size, n, abs_bound, slot, off, stream, ws)
               : device_block_offsets<float>(p, size, n, abs_bound, slot, off, stream, ws);
  };
  COMMPRESS_RETURN_IF_ERROR(with_role("first payload", offsets(a_dev, a_size, kOffsetsA, &off_a)));
  COMMPRESS_RETURN_IF_ERROR(with_role("second payload", offsets(b_dev, b_size, kOffsetsB, &off_b)));
  if (d == Dtype::f64)
    return sum_payload<double>(FramesPair<double>{a_dev, off_a, b_dev, off_b}, n, abs_bound,
                               out_dev, stream, ws);
  return sum_payload<float>(FramesPair<float>{a_dev, off_a, b_dev, off_b}, n, abs_bound, out_dev,
                            stream, ws);
}

}  // namespace commpress::cuda
