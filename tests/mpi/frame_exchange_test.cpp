// Frames are the unit that crosses the network: every rank compresses arrays with every
// registered codec, ships the frames to both ring neighbours (sizes first, then bytes), and
// checks what arrived. The data is seeded by the sender's rank, so each receiver rebuilds the
// original and verifies the decode (lossless: bit-exact; lossy: within the frame's bound) and
// that its own encoder produces the very same bytes. Damaged frames must be refused on the
// receiving rank.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "commpress/codec.hpp"
#include "mpi/mpi_harness.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
namespace cmpi = commpress::testing::mpi;
using commpress::testing::Shape;
using Frame = std::vector<std::byte>;

namespace {

// One array to send: identical on every rank except for the data, which depends on the sender.
struct Case {
  const cc::Codec* codec;
  cc::Dtype dtype;
  Shape shape;
};

std::vector<Case> all_cases() {
  const Shape shapes[] = {Shape::random_walk, Shape::smooth3d, Shape::constant, Shape::nonfinite};
  std::vector<Case> cases;
  for (const cc::Codec* codec : cc::list_codecs())
    for (cc::Dtype d : {cc::Dtype::f32, cc::Dtype::f64})
      if (codec->supports(d))
        for (Shape s : shapes) cases.push_back({codec, d, s});
  return cases;
}

size_t count_for(int sender, const Case& c) {
  // Ranks send different, block-unaligned sizes so a receiver cannot get lucky.
  return 700 + 37 * size_t(sender) + size_t(c.shape);
}

cc::ErrorBound bound_for(const Case& c) {
  if (!c.codec->lossy()) return cc::ErrorBound::lossless();
  return c.dtype == cc::Dtype::f32 ? cc::ErrorBound::absolute(1e-3)
                                   : cc::ErrorBound::relative(1e-6);
}

std::string label(const Case& c, int sender) {
  return std::string(c.codec->name()) + " " + cc::dtype_name(c.dtype) + " " +
         commpress::testing::shape_name(c.shape) + " from rank " + std::to_string(sender);
}

template <class T>
std::vector<T> original(const Case& c, int sender) {
  return commpress::testing::make_data<T>(c.shape, count_for(sender, c), uint64_t(sender) + 1);
}

template <class T>
Frame compress_case(const Case& c, int sender) {
  auto x = original<T>(c, sender);
  auto frame = c.codec->compress(std::span<const T>(x), bound_for(c));
  EXPECT_TRUE(frame.ok()) << label(c, sender) << ": " << frame.status().to_string();
  // An empty frame keeps the exchange in step; the receiver then reports it too.
  return frame.ok() ? *frame : Frame{};
}

Frame compress_case(const Case& c, int sender) {
  return c.dtype == cc::Dtype::f32 ? compress_case<float>(c, sender)
                                   : compress_case<double>(c, sender);
}

// Sends frames to dest and receives as many from src: first the sizes, then all the bytes.
std::vector<Frame> exchange(const std::vector<Frame>& out, int dest, int src) {
  std::vector<uint64_t> send_sizes, recv_sizes(out.size());
  Frame send_bytes;
  for (const Frame& f : out) {
    send_sizes.push_back(f.size());
    send_bytes.insert(send_bytes.end(), f.begin(), f.end());
  }
  MPI_Sendrecv(send_sizes.data(), int(send_sizes.size()), MPI_UINT64_T, dest, 1,
               recv_sizes.data(), int(recv_sizes.size()), MPI_UINT64_T, src, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  uint64_t total = 0;
  for (uint64_t s : recv_sizes) total += s;
  Frame recv_bytes(total);
  MPI_Sendrecv(send_bytes.data(), int(send_bytes.size()), MPI_BYTE, dest, 2, recv_bytes.data(),
               int(recv_bytes.size()), MPI_BYTE, src, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::vector<Frame> in;
  size_t pos = 0;
  for (uint64_t s : recv_sizes) {
    in.emplace_back(recv_bytes.begin() + pos, recv_bytes.begin() + pos + s);
    pos += s;
  }
  return in;
}

template <class T>
void verify(const Case& c, int sender, const Frame& frame) {
  SCOPED_TRACE(label(c, sender));
  auto x = original<T>(c, sender);
  auto info = cc::inspect(frame);
  ASSERT_TRUE(info.ok()) << info.status().to_string();
  EXPECT_EQ(info->codec, c.codec->id());
  EXPECT_EQ(info->dtype, c.dtype);
  ASSERT_EQ(info->count, x.size());
  std::vector<T> y(x.size());
  auto st = cc::decompress(frame, std::span<T>(y));
  ASSERT_TRUE(st.ok()) << st.to_string();
  if (c.codec->lossy()) {
    auto err = commpress::testing::check_bound<T>(x, y, commpress::testing::promised_bound<T>(x, bound_for(c)));
    EXPECT_TRUE(err.empty()) << err;
  } else {
    EXPECT_TRUE(commpress::testing::bit_equal<T>(x, y));
  }
  // The format is the same whoever encodes it: the receiver's encoder must agree byte for byte.
  EXPECT_TRUE(compress_case<T>(c, sender) == frame) << "frame bytes differ from a local encode";
}

void verify(const Case& c, int sender, const Frame& frame) {
  if (c.dtype == cc::Dtype::f32) verify<float>(c, sender, frame);
  else verify<double>(c, sender, frame);
}

int right() { return (cmpi::rank() + 1) % cmpi::size(); }
int left() { return (cmpi::rank() + cmpi::size() - 1) % cmpi::size(); }

TEST(FrameExchange, EveryCodecSurvivesTheRingBothWays) {
  const auto cases = all_cases();
  ASSERT_FALSE(cases.empty());
  std::vector<Frame> frames;
  for (const Case& c : cases) frames.push_back(compress_case(c, cmpi::rank()));

  auto from_left = exchange(frames, right(), left());
  auto from_right = exchange(frames, left(), right());
  ASSERT_EQ(from_left.size(), cases.size());
  ASSERT_EQ(from_right.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    verify(cases[i], left(), from_left[i]);
    verify(cases[i], right(), from_right[i]);
  }
}

TEST(FrameExchange, EveryRankSeesTheSameRegistry) {
  // The exchange is only meaningful if all ranks agree on which codecs exist.
  int local = int(all_cases().size()), lo = 0, hi = 0;
  MPI_Allreduce(&local, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&local, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi);
}

// The damage a sender applies to frame i; the receiver knows the rule, not the bytes.
enum class Damage { flip_payload_bit, flip_header_bit, truncate, intact };

Frame damaged(Frame f, Damage d, size_t salt) {
  if (f.empty()) return f;
  switch (d) {
    case Damage::flip_payload_bit: {
      size_t payload = f.size() - cc::kFrameHeaderSize;
      if (payload == 0) break;
      size_t pos = cc::kFrameHeaderSize + (salt * 7919) % payload;
      f[pos] ^= std::byte(1u << (salt % 8));
      break;
    }
    case Damage::flip_header_bit:
      f[(salt * 13) % cc::kFrameHeaderSize] ^= std::byte(1u << (salt % 8));
      break;
    case Damage::truncate:
      f.resize(f.size() - 1 - salt % std::min<size_t>(f.size(), 16));
      break;
    case Damage::intact:
      break;
  }
  return f;
}

// Same rule on sender and receiver: the kind depends on the case index, and a frame without
// payload bytes has its header damaged instead.
Damage damage_for(size_t i, size_t frame_size) {
  const Damage kinds[] = {Damage::flip_payload_bit, Damage::flip_header_bit, Damage::truncate,
                          Damage::intact};
  Damage d = kinds[i % 4];
  if (d == Damage::flip_payload_bit && frame_size <= cc::kFrameHeaderSize) d = Damage::flip_header_bit;
  return d;
}

TEST(FrameExchange, DamagedFramesAreRefusedByTheReceiver) {
  const auto cases = all_cases();
  std::vector<Frame> frames;
  for (size_t i = 0; i < cases.size(); ++i) {
    Frame f = compress_case(cases[i], cmpi::rank());
    Damage d = damage_for(i, f.size());
    frames.push_back(damaged(std::move(f), d, i + size_t(cmpi::rank())));
  }
  auto in = exchange(frames, right(), left());
  ASSERT_EQ(in.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(label(c, left()));
    size_t n = count_for(left(), c);
    std::vector<float> out32(c.dtype == cc::Dtype::f32 ? n : 0);
    std::vector<double> out64(c.dtype == cc::Dtype::f64 ? n : 0);
    auto st = c.dtype == cc::Dtype::f32 ? cc::decompress(in[i], std::span<float>(out32))
                                        : cc::decompress(in[i], std::span<double>(out64));
    switch (damage_for(i, in[i].size())) {
      case Damage::intact:
        EXPECT_TRUE(st.ok()) << st.to_string();
        break;
      case Damage::flip_payload_bit:
        EXPECT_EQ(st.code(), commpress::ErrorCode::checksum_mismatch) << st.to_string();
        break;
      case Damage::truncate:
        EXPECT_EQ(st.code(), commpress::ErrorCode::truncated) << st.to_string();
        break;
      case Damage::flip_header_bit:
        EXPECT_FALSE(st.ok()) << "a frame with a damaged header decoded successfully";
        break;
    }
  }
}

}  // namespace
