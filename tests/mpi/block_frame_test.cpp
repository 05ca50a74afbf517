// A block of a column-major matrix travels as ONE frame of its Wire: exactly the frame the
// codec writes for the packed block with the resolved absolute bound (a lossy codec with no
// bound writes exact frames), or the packed elements when uncompressed, whatever the ld and
// the wire's chunk size; and the frame decodes back to the block within the bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "linalg/gemm/block_frame.hpp"
#include "support/datasets.hpp"

namespace cd = commpress::comm::detail;
namespace ct = commpress::testing;
namespace codec = commpress::codec;
using commpress::linalg::detail::block_wire;
using commpress::linalg::detail::encode_block_frame;

namespace {

template <class T>
std::vector<std::byte> codec_frame(const std::string& name, const std::vector<T>& packed,
                                   double abs) {
  if (name == "none") {
    const auto* p = reinterpret_cast<const std::byte*>(packed.data());
    return {p, p + packed.size() * sizeof(T)};
  }
  auto c = codec::get_codec(name);
  EXPECT_TRUE(c.ok());
  std::vector<std::byte> out;
  const auto bound = abs > 0 ? codec::ErrorBound::absolute(abs) : codec::ErrorBound::lossless();
  EXPECT_TRUE((*c)->compress(packed.data(), packed.size(), codec::dtype_of<T>(), bound, out).ok());
  return out;
}

template <class T>
void check_codec(const std::string& name, double abs) {
  auto w = block_wire<T>(
      name, abs > 0 ? codec::ErrorBound::absolute(abs) : codec::ErrorBound::lossless());
  ASSERT_TRUE(w.ok()) << name << ": " << w.status().message();
  struct Shape {
    int64_t rows, cols, ld;
  };
  // Blocks above the wire's 1 MiB chunk still make one frame.
  for (Shape s : {Shape{0, 5, 3}, Shape{1, 1, 1}, Shape{37, 29, 37}, Shape{37, 29, 41},
                  Shape{600, 300, 611}}) {
    const auto x = ct::make_data<T>(ct::Shape::random_walk, size_t(s.ld * s.cols), 11);
    std::vector<T> packed;
    for (int64_t j = 0; j < s.cols; ++j)
      for (int64_t i = 0; i < s.rows; ++i) packed.push_back(x[size_t(i + j * s.ld)]);
    cd::Buffer frame(17, std::byte{0xab});  // stale bytes must not matter
    ASSERT_TRUE(encode_block_frame(*w, x.data(), s.ld, s.rows, s.cols, frame).ok());
    const std::string what = name + " " + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
                             " ld " + std::to_string(s.ld);
    EXPECT_EQ(std::vector<std::byte>(frame.begin(), frame.end()), codec_frame(name, packed, abs))
        << what;
    std::vector<T> y(packed.size(), T(NAN));
    ASSERT_TRUE(w->decode(frame, y.data(), y.size()).ok()) << what;
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_LE(std::fabs(double(y[i]) - double(packed[i])), abs) << what << " element " << i;
  }
}

TEST(BlockFrame, IsTheCodecsFrameOfThePackedBlock) {
  for (const char* name : {"none", "zstd-1", "lz4"}) {
    check_codec<double>(name, 0);
    check_codec<float>(name, 0);
  }
  for (const char* name : {"szp", "zfp"}) {
    check_codec<double>(name, 1e-4);
    check_codec<float>(name, 1e-3);
    check_codec<double>(name, 0);  // a REL bound resolved to 0: exact frames
  }
}

TEST(BlockFrame, RefusesAWireOfAnotherElementSize) {
  auto w = block_wire<float>("none", codec::ErrorBound::lossless());
  ASSERT_TRUE(w.ok());
  const std::vector<double> x(6, 1.0);
  cd::Buffer frame;
  EXPECT_FALSE(encode_block_frame(*w, x.data(), 3, 3, 2, frame).ok());
}

}  // namespace
