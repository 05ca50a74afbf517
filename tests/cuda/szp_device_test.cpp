// The device szp codec against the CPU codec: the same frames byte for byte on the adversarial
// data sets and sizes (NaN/Inf raw fallback, denormals, huge ranges, 0/1/31/33/prime counts),
// each side decoding the other's frames to the same values within the bound, and damaged or
// forged frames refused with the CPU's error codes without a device fault.
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <vector>

#include "codec/format/frame_header.hpp"
#include "commpress/codec.hpp"
#include "commpress/cuda.hpp"
#include "cuda/device_buffers.hpp"
#include "cuda/frame_difference.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
namespace cu = commpress::cuda;
using commpress::codec::Dtype;
using commpress::testing::DeviceBytes;
using Bytes = std::vector<std::byte>;

namespace {

const std::vector<cc::ErrorBound>& bounds() {
  static const std::vector<cc::ErrorBound> b = {cc::ErrorBound::relative(1e-4),
                                                cc::ErrorBound::relative(1e-2),
                                                cc::ErrorBound::absolute(1e-3),
                                                cc::ErrorBound::lossless()};
  return b;
}

const cc::Codec& szp() { return **cc::get_codec("szp"); }

// The device frame of x, copied back.
template <class T>
Bytes device_frame(const std::vector<T>& x, const cc::ErrorBound& b, cu::DeviceWorkspace& ws) {
  DeviceBytes in = DeviceBytes::of(x);
  const size_t cap = cu::szp_compress_bound(x.size(), cc::dtype_of<T>());
  DeviceBytes out(cap);
  auto size = cu::szp_compress(in.data(), x.size(), cc::dtype_of<T>(), b, out.data(), cap,
                               nullptr, ws);
  EXPECT_TRUE(size.ok()) << size.status().message();
  return size.ok() ? out.to_host<std::byte>(*size) : Bytes{};
}

// The device decoder's result on a host frame, or its error.
template <class T>
commpress::Status device_decode(const Bytes& frame, size_t n, std::vector<T>& out,
                                cu::DeviceWorkspace& ws) {
  DeviceBytes f = DeviceBytes::of(frame);
  DeviceBytes y(n * sizeof(T));
  auto st = cu::szp_decompress(f.data(), frame.size(), y.data(), n, cc::dtype_of<T>(), nullptr, ws);
  if (st.ok()) out = y.to_host<T>(n);
  return st;
}

template <class T>
void same_frames_as_cpu() {
  cu::DeviceWorkspace ws;
  for (auto shape : commpress::testing::all_shapes())
    for (size_t n : commpress::testing::awkward_sizes())
      for (const auto& b : bounds()) {
        SCOPED_TRACE(commpress::testing::shape_name(shape) + " n=" + std::to_string(n) +
                     " bound=" + cc::bound_mode_name(b.mode) + " " + std::to_string(b.value));
        auto x = commpress::testing::make_data<T>(shape, n, 7 + n);
        auto cpu = szp().compress(std::span<const T>(x), b);
        ASSERT_TRUE(cpu.ok()) << cpu.status().message();
        Bytes gpu = device_frame(x, b, ws);
        ASSERT_EQ(commpress::testing::frame_difference(*cpu, gpu), "");
        // Each side decodes the other's frame, to the same bits.
        std::vector<T> on_gpu, on_cpu(n);
        ASSERT_TRUE(device_decode<T>(*cpu, n, on_gpu, ws).ok());
        ASSERT_TRUE(cc::decompress(gpu, std::span<T>(on_cpu)).ok());
        EXPECT_EQ(std::memcmp(on_gpu.data(), on_cpu.data(), n * sizeof(T)), 0);
        const long double eb = commpress::testing::promised_bound<T>(x, b);
        EXPECT_EQ(commpress::testing::check_bound<T>(x, on_gpu, eb), "");
      }
}

TEST(SzpDevice, SameFramesAsTheCpuCodecF32) { same_frames_as_cpu<float>(); }
TEST(SzpDevice, SameFramesAsTheCpuCodecF64) { same_frames_as_cpu<double>(); }

// A frame whose payload was changed, re-sealed with a valid checksum so that only the
// decoder's own checks stand between the bytes and the device's memory.
Bytes forge(Bytes frame, size_t at, std::byte value) {
  const cc::FrameInfo info = *cc::inspect(frame);
  frame[cc::kFrameHeaderSize + at] = value;
  cc::detail::write_frame_header(
      info, std::span<const std::byte>(frame).subspan(cc::kFrameHeaderSize), frame.data());
  return frame;
}

TEST(SzpDevice, ForgedAndDamagedFramesAreRefusedLikeOnTheCpu) {
  cu::DeviceWorkspace ws;
  const size_t n = 10007;
  auto x = commpress::testing::make_data<float>(commpress::testing::Shape::nonfinite, n, 3);
  auto frame = szp().compress(std::span<const float>(x), cc::ErrorBound::relative(1e-3));
  ASSERT_TRUE(frame.ok());
  const size_t nb = (n + 31) / 32;
  std::vector<Bytes> bad;
  // Invalid header bytes (lossy outliers end at 0xC0), headers that move every later body,
  // a damaged body without a new checksum, truncation, a count the padding disagrees with.
  for (size_t b : {size_t(0), nb / 2, nb - 1}) {
    bad.push_back(forge(*frame, b, std::byte{0xC7}));
    bad.push_back(forge(*frame, b, std::byte{0x20}));
    bad.push_back(forge(*frame, b, std::byte{0xFF}));
  }
  Bytes damaged = *frame;
  damaged.back() ^= std::byte{1};
  bad.push_back(damaged);
  bad.emplace_back(frame->begin(), frame->end() - 5);
  for (size_t i = 0; i < bad.size(); ++i) {
    SCOPED_TRACE("forged frame " + std::to_string(i));
    std::vector<float> cpu_out(n), gpu_out;
    auto cpu = cc::decompress(bad[i], std::span<float>(cpu_out));
    auto gpu = device_decode<float>(bad[i], n, gpu_out, ws);
    EXPECT_EQ(gpu.code(), cpu.code()) << gpu.message() << " / " << cpu.message();
    if (cpu.ok()) {
      EXPECT_EQ(std::memcmp(gpu_out.data(), cpu_out.data(), n * 4), 0);
    }
    commpress::testing::expect_device_healthy();
  }
}

TEST(SzpDevice, RefusesWhatTheCpuRefuses) {
  cu::DeviceWorkspace ws;
  DeviceBytes in(64), out(16);
  auto small = cu::szp_compress(in.data(), 16, Dtype::f32, cc::ErrorBound::relative(1e-3),
                                out.data(), 16, nullptr, ws);
  EXPECT_EQ(small.status().code(), commpress::ErrorCode::capacity);
  auto ints = cu::szp_compress(in.data(), 16, Dtype::i32, cc::ErrorBound::relative(1e-3),
                               out.data(), 4096, nullptr, ws);
  EXPECT_EQ(ints.status().code(), commpress::ErrorCode::unsupported);
  auto bad_bound = cu::szp_compress(in.data(), 16, Dtype::f32, cc::ErrorBound::absolute(-1),
                                    out.data(), 4096, nullptr, ws);
  EXPECT_EQ(bad_bound.status().code(), commpress::ErrorCode::invalid_argument);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!commpress::testing::have_gpu()) {
    std::fprintf(stderr, "szp_device_test: no CUDA device\n");
    return 1;  // a GPU test without a GPU has not passed
  }
  return RUN_ALL_TESTS();
}
