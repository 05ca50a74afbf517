// Every registered codec, every data shape, every awkward size: lossless codecs return the
// input bit for bit; lossy codecs keep every finite element within the bound the frame states.
#include <gtest/gtest.h>

#include "commpress/codec.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"
#include "support/registry_params.hpp"

namespace cc = commpress::codec;
using commpress::testing::Shape;

namespace {

template <class T>
void roundtrip_all(const cc::Codec& codec, const cc::ErrorBound& bound, int seeds) {
  for (Shape shape : commpress::testing::all_shapes()) {
    for (size_t n : commpress::testing::awkward_sizes()) {
      for (int seed = 0; seed < seeds; ++seed) {
        auto x = commpress::testing::make_data<T>(shape, n, seed);
        SCOPED_TRACE(std::string(codec.name()) + " " + commpress::testing::shape_name(shape) +
                     " n=" + std::to_string(n) + " seed=" + std::to_string(seed));
        auto frame = codec.compress(std::span<const T>(x), bound);
        ASSERT_TRUE(frame.ok()) << frame.status().to_string();
        ASSERT_LE(frame->size(), codec.compress_bound(n, cc::dtype_of<T>()));
        auto info = cc::inspect(*frame);
        ASSERT_TRUE(info.ok()) << info.status().to_string();
        EXPECT_EQ(info->count, n);
        std::vector<T> y(n, T(-12345));
        auto st = codec.decompress(*frame, std::span<T>(y));
        ASSERT_TRUE(st.ok()) << st.to_string();
        // The dispatching decoder must agree with the codec's own.
        std::vector<T> z(n);
        ASSERT_TRUE(cc::decompress(*frame, std::span<T>(z)).ok());
        ASSERT_TRUE(commpress::testing::bit_equal<T>(y, z));
        if (codec.lossy()) {
          // Against the request, computed here, not the frame's own word for it; and the
          // frame may claim no more than was asked.
          const long double promised = commpress::testing::promised_bound<T>(x, bound);
          ASSERT_LE((long double)info->abs_bound, promised);
          auto err = commpress::testing::check_bound<T>(x, y, promised);
          ASSERT_TRUE(err.empty()) << err;
        } else {
          ASSERT_TRUE(commpress::testing::bit_equal<T>(x, y));
        }
      }
    }
  }
}

class EveryCodec : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryCodec, RoundTripsF32WithinBound) {
  const cc::Codec* codec = cc::find_codec(GetParam());
  ASSERT_NE(codec, nullptr);
  if (!codec->supports(cc::Dtype::f32)) GTEST_SKIP();
  roundtrip_all<float>(*codec, cc::ErrorBound::absolute(1e-3), 3);
  if (codec->lossy()) {
    roundtrip_all<float>(*codec, cc::ErrorBound::relative(1e-4), 2);
    roundtrip_all<float>(*codec, cc::ErrorBound::absolute(0.5), 1);
  }
}

TEST_P(EveryCodec, RoundTripsF64WithinBound) {
  const cc::Codec* codec = cc::find_codec(GetParam());
  ASSERT_NE(codec, nullptr);
  if (!codec->supports(cc::Dtype::f64)) GTEST_SKIP();
  roundtrip_all<double>(*codec, cc::ErrorBound::absolute(1e-6), 3);
  if (codec->lossy()) roundtrip_all<double>(*codec, cc::ErrorBound::relative(1e-9), 2);
}

TEST_P(EveryCodec, RefusesWrongDestination) {
  const cc::Codec* codec = cc::find_codec(GetParam());
  ASSERT_NE(codec, nullptr);
  if (!codec->supports(cc::Dtype::f32)) GTEST_SKIP();
  auto x = commpress::testing::make_data<float>(Shape::gaussian, 100, 1);
  auto frame = codec->compress(std::span<const float>(x), cc::ErrorBound::absolute(1e-2));
  ASSERT_TRUE(frame.ok());
  std::vector<float> small(99);
  EXPECT_EQ(codec->decompress(*frame, std::span<float>(small)).code(),
            commpress::ErrorCode::mismatch);
  std::vector<double> wrong_type(100);
  EXPECT_EQ(codec->decompress(*frame, std::span<double>(wrong_type)).code(),
            commpress::ErrorCode::mismatch);
}

COMMPRESS_INSTANTIATE_FOR_EVERY_CODEC(EveryCodec);

TEST(Registry, UnknownNameListsKnownCodecs) {
  auto r = cc::get_codec("no-such-codec");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("raw"), std::string::npos);
}

}  // namespace
