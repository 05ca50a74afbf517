// The szp codec, its homomorphic sums and the fused homomorphic ring allreduce on CUDA device
// memory (built with -DCOMMPRESS_ENABLE_CUDA=ON; library commpress_cuda). Every pointer named
// *_dev is device memory. Work is enqueued on `stream` in order with the caller's other work
// on it; each call returns once the stream has reached the end of its own work, because the
// host needs what it computes (a frame's size, whether a frame was valid).
//
// Frames are the CPU codec's, byte for byte (docs/cuda.md): a frame written here decodes with
// codec::decompress and the reverse. The blocks are coded by the same functions the CPU codec
// uses (codec/lossy/szp/portable_block.hpp). The frame checksum (XXH3-64) is computed on the
// host, over a pinned copy of the payload.
#pragma once

#include <cuda_runtime_api.h>
#include <mpi.h>

#include <cstddef>
#include <memory>

#include "commpress/codec.hpp"
#include "commpress/comm.hpp"
#include "commpress/status.hpp"

namespace commpress::cuda {

using codec::BoundMode;
using codec::Dtype;

// Device and pinned scratch reused across calls (grown, never shrunk). One per stream and
// thread; not thread-safe.
class DeviceWorkspace {
 public:
  DeviceWorkspace();
  ~DeviceWorkspace();
  DeviceWorkspace(const DeviceWorkspace&) = delete;
  DeviceWorkspace& operator=(const DeviceWorkspace&) = delete;
  struct State;
  State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

// Largest frame szp_compress can write for n values of dtype d (codec::Codec::compress_bound).
size_t szp_compress_bound(size_t n, Dtype d);

// The szp frame of x_dev[0..n) with the bound (ABS, REL or lossless), into frame_dev (room for
// szp_compress_bound bytes). Returns the frame's size. d: f32 or f64.
Result<size_t> szp_compress(const void* x_dev, size_t n, Dtype d, const codec::ErrorBound& bound,
                            std::byte* frame_dev, size_t capacity, cudaStream_t stream,
                            DeviceWorkspace& ws);

// Decodes the szp frame frame_dev[0..frame_size) into out_dev[0..n). Corrupt, truncated or
// forged frames are refused with the CPU codec's error codes; no kernel reads or writes out of
// bounds whatever the bytes.
Status szp_decompress(const std::byte* frame_dev, size_t frame_size, void* out_dev, size_t n,
                      Dtype d, cudaStream_t stream, DeviceWorkspace& ws);

// codec::combine and codec::combine_raw on device frames: out_dev gets the frame of a + b
// (room for szp_compress_bound bytes). Returns its size.
Result<size_t> combine(const std::byte* a_dev, size_t a_size, const std::byte* b_dev,
                       size_t b_size, std::byte* out_dev, size_t capacity, cudaStream_t stream,
                       DeviceWorkspace& ws);
Result<size_t> combine_raw(const void* local_dev, size_t n, Dtype d, const std::byte* frame_dev,
                           size_t frame_size, std::byte* out_dev, size_t capacity,
                           cudaStream_t stream, DeviceWorkspace& ws);

// The payload level under the frame functions: kernels only, no host copy of the payload (what
// the benchmark times). abs_bound as in a frame header.
Result<size_t> szp_encode_payload(const void* x_dev, size_t n, Dtype d, double abs_bound,
                                  std::byte* payload_dev, cudaStream_t stream, DeviceWorkspace& ws);
Status szp_decode_payload(const std::byte* payload_dev, size_t payload_size, size_t n, Dtype d,
                          double abs_bound, void* out_dev, cudaStream_t stream,
                          DeviceWorkspace& ws);

// combine at the payload level (kernels only): the payloads of two szp frames of n values with
// the same abs_bound, summed into out_payload_dev (room for szp_compress_bound - header).
Result<size_t> combine_payloads(const std::byte* a_payload_dev, size_t a_size,
                                const std::byte* b_payload_dev, size_t b_size, size_t n, Dtype d,
                                double abs_bound, std::byte* out_payload_dev,
                                cudaStream_t stream, DeviceWorkspace& ws);

// The range of the finite values of x_dev[0..n) (codec::finite_range on the device).
codec::ValueRange finite_range(const void* x_dev, size_t n, Dtype d, cudaStream_t stream,
                               DeviceWorkspace& ws);

// True when the MPI library says it moves device buffers itself (MPIX_Query_cuda_support).
bool mpi_is_cuda_aware();

// Sum-allreduce of device buffers by HomComp_F's fused homomorphic ring (the CPU's
// Algorithm::FusedRing): every rank's input is quantized once, hops add quantized integers
// (combine_raw on the device), so the result carries the same guarantee as on the CPU
// (Report::guaranteed_abs_bound <= the requested bound). Frames travel through CUDA-aware MPI
// when the library is, else through pinned host memory. Collective over comm; every rank
// passes the same n, dtype and bound. send_dev and recv_dev may be the same buffer.
Result<comm::Report> allreduce_fused_ring(const void* send_dev, void* recv_dev, size_t n,
                                          Dtype d, const codec::ErrorBound& bound, MPI_Comm comm,
                                          cudaStream_t stream, DeviceWorkspace& ws);

}  // namespace commpress::cuda
