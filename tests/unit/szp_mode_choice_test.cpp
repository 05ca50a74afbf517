// choose_szp_mode on distinct kinds of data: the mode it picks from samples is the one the
// whole array compresses best with (szp kept unless szp-eh buys a clear gain), and exact
// bounds and other dtypes are handled.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "commpress/szp_mode.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
using commpress::testing::Shape;
using Dims = std::vector<uint64_t>;

namespace {

size_t frame_size(const cc::Codec& c, const std::vector<float>& x, const Dims& shape,
                  const cc::ErrorBound& b) {
  std::vector<std::byte> frame;
  commpress::Status st = shape.empty()
                             ? c.compress(x.data(), x.size(), cc::Dtype::f32, b, frame)
                             : c.compress(x.data(), shape, cc::Dtype::f32, b, frame);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return frame.size();
}

// Checks the choice against the whole array: the chosen mode's frame is the smallest, or
// szp's within the gain the entropy modes must buy.
void check_choice(const std::vector<float>& x, const Dims& shape, const cc::ErrorBound& b,
                  const std::string& want, bool want_shaped, const std::string& what) {
  auto choice = cc::choose_szp_mode(x.data(), shape, x.size(), cc::Dtype::f32, b);
  ASSERT_TRUE(choice.ok()) << what << ": " << choice.status().to_string();
  EXPECT_EQ(choice->codec->name(), want) << what;
  EXPECT_EQ(choice->shaped, want_shaped) << what;
  const size_t fast = frame_size(*cc::find_codec("szp"), x, {}, b);
  const size_t dense = frame_size(*cc::find_codec("szp-eh"), x, {}, b);
  const size_t nd = shape.empty() ? dense : frame_size(*cc::find_codec("szp-eh"), x, shape, b);
  const size_t chosen = choice->codec->name() == "szp" ? fast : choice->shaped ? nd : dense;
  const size_t best = std::min({fast, dense, nd});
  EXPECT_LE(double(chosen), 1.5 * double(best)) << what;
}

std::vector<float> smooth(const Dims& d) {
  std::vector<float> x(d[0] * d[1] * d[2]);
  for (size_t z = 0, i = 0; z < d[0]; ++z)
    for (size_t y = 0; y < d[1]; ++y)
      for (size_t v = 0; v < d[2]; ++v, ++i)
        x[i] = float(std::sin(0.09 * double(v)) * std::cos(0.06 * double(y)) +
                     0.5 * std::sin(0.05 * double(z) + 0.03 * double(v)));
  return x;
}

TEST(SzpModeChoice, RandomWalkAtALooseBoundTakesSzpEhFlat) {
  auto x = commpress::testing::make_data<float>(Shape::random_walk, 1 << 18, 3);
  check_choice(x, {}, cc::ErrorBound::relative(1e-2), "szp-eh", false, "random walk");
}

TEST(SzpModeChoice, NoiseKeepsSzp) {
  auto x = commpress::testing::make_data<float>(Shape::gaussian, 1 << 18, 3);
  check_choice(x, {}, cc::ErrorBound::relative(1e-3), "szp", false, "noise");
  check_choice(x, {64, 64, 64}, cc::ErrorBound::relative(1e-3), "szp", false, "noise, shaped");
}

TEST(SzpModeChoice, SmoothFieldWithItsShapeTakesTheShapedForm) {
  const Dims d = {48, 64, 80};
  auto x = smooth(d);
  check_choice(x, d, cc::ErrorBound::relative(1e-3), "szp-eh", true, "smooth 3-D");
  // Without the shape only the flat modes compete.
  auto flat = cc::choose_szp_mode(x.data(), {}, x.size(), cc::Dtype::f32,
                                  cc::ErrorBound::relative(1e-3));
  ASSERT_TRUE(flat.ok());
  EXPECT_FALSE(flat->shaped);
  EXPECT_EQ(flat->shaped_ratio, 0);
}

TEST(SzpModeChoice, ExactBoundsAndOtherDtypes) {
  std::vector<float> c(1000, 2.5f);  // a constant array: REL resolves to an exact frame
  auto exact = cc::choose_szp_mode(c.data(), {}, c.size(), cc::Dtype::f32,
                                   cc::ErrorBound::relative(1e-3));
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->codec->name(), "szp");
  std::vector<int32_t> ints(100, 1);
  EXPECT_EQ(cc::choose_szp_mode(ints.data(), {}, ints.size(), cc::Dtype::i32,
                                cc::ErrorBound::absolute(1))
                .status()
                .code(),
            commpress::ErrorCode::unsupported);
}

}  // namespace
