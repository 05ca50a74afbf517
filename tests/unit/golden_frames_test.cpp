// Golden frames pin the wire format (tests/golden/README.md): every committed frame must still
// decode to its committed output, and today's encoder must reproduce it byte for byte from the
// committed input. A missing golden frame fails (a deleted file must not pass for a codec
// nobody pinned yet; a new codec's files are added with commpress_make_golden); a golden
// file whose codec is gone is an error.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <tuple>

#include "commpress/codec.hpp"
#include "golden/golden_files.hpp"
#include "support/bound_check.hpp"
#include "support/registry_params.hpp"

namespace cc = commpress::codec;
namespace golden = commpress::testing::golden;
namespace fs = std::filesystem;

namespace {

fs::path golden_dir() {
  if (const char* src = std::getenv("COMMPRESS_SOURCE_DIR")) return fs::path(src) / "tests" / "golden";
#ifdef COMMPRESS_GOLDEN_DIR
  return COMMPRESS_GOLDEN_DIR;
#else
  return {};
#endif
}

constexpr const char* kRegenerate =
    "If this change is intended, bump kFormatVersion and regenerate the golden files "
    "(tests/golden/README.md).";

template <class T>
std::vector<T> as_array(const std::vector<std::byte>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

std::string first_difference(const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return "sizes " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
         ", first difference at byte " + std::to_string(i);
}

// (codec name, dtype name): strings, so test names and ctest labels read naturally.
using Param = std::tuple<std::string, std::string>;

class GoldenFrames : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    dir_ = golden_dir();
    ASSERT_FALSE(dir_.empty()) << "set COMMPRESS_SOURCE_DIR to the source tree";
    ASSERT_TRUE(fs::is_directory(dir_)) << dir_ << " is not a directory";
    codec_ = cc::find_codec(std::get<0>(GetParam()));
    auto dtype = cc::parse_dtype(std::get<1>(GetParam()));
    ASSERT_TRUE(dtype.ok());
    dtype_ = *dtype;
    ASSERT_NE(codec_, nullptr);
    if (!codec_->supports(dtype_))
      GTEST_SKIP() << codec_->name() << " does not support " << cc::dtype_name(dtype_);
    auto frame_path = dir_ / golden::frame_name(codec_->name(), dtype_);
    ASSERT_TRUE(fs::exists(frame_path))
        << "no golden frame " << frame_path
        << ": restore it, or for a new codec add it with commpress_make_golden "
           "(tests/golden/README.md)";
    auto frame = golden::read_bytes(frame_path);
    auto decoded = golden::read_bytes(dir_ / golden::decoded_name(codec_->name(), dtype_));
    auto input = golden::read_bytes(dir_ / golden::input_name(dtype_));
    ASSERT_TRUE(frame && decoded && input) << "golden files for " << frame_path.stem()
                                           << " or the input are missing or unreadable";
    frame_ = std::move(*frame);
    decoded_ = std::move(*decoded);
    input_ = std::move(*input);
    ASSERT_EQ(input_.size(), golden::kCount * cc::dtype_size(dtype_));
    ASSERT_EQ(decoded_.size(), input_.size());
    auto info = cc::inspect(frame_);
    ASSERT_TRUE(info.ok()) << info.status().to_string() << ". " << kRegenerate;
    info_ = *info;
    ASSERT_EQ(info_.codec, codec_->id());
    ASSERT_EQ(info_.dtype, dtype_);
    ASSERT_EQ(info_.count, golden::kCount);
  }

  template <class T>
  void check_decode() {
    std::vector<T> y(golden::kCount);
    auto st = codec_->decompress(frame_, std::span<T>(y));
    ASSERT_TRUE(st.ok()) << st.to_string() << ". " << kRegenerate;
    auto expected = as_array<T>(decoded_);
    EXPECT_TRUE(commpress::testing::bit_equal<T>(y, expected))
        << "the golden frame no longer decodes to the committed output. " << kRegenerate;
    // The committed output itself keeps the codec's promise about the committed input.
    auto x = as_array<T>(input_);
    if (codec_->lossy()) {
      auto err = commpress::testing::check_bound<T>(
          x, expected, commpress::testing::promised_bound<T>(x, golden::bound_for(*codec_, dtype_)));
      EXPECT_TRUE(err.empty()) << err;
    } else {
      EXPECT_TRUE(commpress::testing::bit_equal<T>(x, expected));
    }
  }

  fs::path dir_;
  const cc::Codec* codec_ = nullptr;
  cc::Dtype dtype_ = cc::Dtype::f32;
  cc::FrameInfo info_;
  std::vector<std::byte> frame_, decoded_, input_;
};

TEST_P(GoldenFrames, DecodesToTheCommittedOutput) {
  if (dtype_ == cc::Dtype::f32) check_decode<float>();
  else check_decode<double>();
}

TEST_P(GoldenFrames, EncoderReproducesTheFrameByteForByte) {
  // The bound comes from the frame, so the golden files alone define the expected output.
  cc::ErrorBound bound{info_.mode, info_.requested_bound};
  std::vector<std::byte> again;
  auto st = codec_->compress(input_.data(), golden::kCount, dtype_, bound, again);
  ASSERT_TRUE(st.ok()) << st.to_string();
  EXPECT_TRUE(again == frame_) << codec_->name() << " " << cc::dtype_name(dtype_)
                               << ": today's frame differs from the golden one ("
                               << first_difference(again, frame_) << "). " << kRegenerate;
}

std::vector<Param> all_params() {
  std::vector<Param> params;
  for (const std::string& name : commpress::testing::registered_codec_names())
    for (cc::Dtype d : golden::kDtypes) params.emplace_back(name, cc::dtype_name(d));
  return params;
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  std::string s = std::get<0>(info.param) + "_" + std::get<1>(info.param);
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Registry, GoldenFrames, ::testing::ValuesIn(all_params()), param_name);

// The frames of the codecs' other layouts (golden::variants_of: the shaped payloads, szp-eh's
// sparse chunks): they decode to their committed output, and today's encoder, given the same
// shape or bound, writes them byte for byte.
template <class T>
void check_variant(const cc::Codec& c, const golden::Variant& v) {
  const fs::path dir = golden_dir();
  const cc::Dtype d = cc::dtype_of<T>();
  const std::string name = golden::variant_name(c.name(), v);
  auto frame = golden::read_bytes(dir / golden::frame_name(name, d));
  auto decoded = golden::read_bytes(dir / golden::decoded_name(name, d));
  auto input = golden::read_bytes(dir / golden::input_name(d));
  ASSERT_TRUE(frame && decoded && input) << name << ": golden files missing (tests/golden/README.md)";
  std::vector<T> y(golden::kCount);
  auto st = c.decompress(*frame, std::span<T>(y));
  ASSERT_TRUE(st.ok()) << name << ": " << st.to_string() << ". " << kRegenerate;
  EXPECT_TRUE(commpress::testing::bit_equal<T>(y, as_array<T>(*decoded))) << name << ". " << kRegenerate;
  auto info = cc::inspect(*frame);
  ASSERT_TRUE(info.ok());
  std::vector<std::byte> again;
  const cc::ErrorBound bound{info->mode, info->requested_bound};
  ASSERT_TRUE((v.shaped ? c.compress(input->data(), golden::kShape, d, bound, again)
                        : c.compress(input->data(), golden::kCount, d, bound, again))
                  .ok());
  EXPECT_TRUE(again == *frame) << name << " " << cc::dtype_name(d) << ": "
                               << first_difference(again, *frame) << ". " << kRegenerate;
}

TEST(GoldenVariants, FramesDecodeAndReencode) {
  for (const cc::Codec* c : cc::list_codecs())
    for (const golden::Variant& v : golden::variants_of(c->name())) {
      check_variant<float>(*c, v);
      check_variant<double>(*c, v);
    }
}

// szp-eh's "+sparse" files hold what they are there for: sparse chunks.
TEST(GoldenVariants, SparseFramesHoldSparseChunks) {
  for (cc::Dtype d : golden::kDtypes) {
    auto frame = golden::read_bytes(golden_dir() / golden::frame_name("szp-eh+sparse", d));
    ASSERT_TRUE(frame && frame->size() > cc::kFrameHeaderSize);
    EXPECT_EQ(std::to_integer<uint8_t>((*frame)[cc::kFrameHeaderSize]) & 0x40, 0x40)
        << cc::dtype_name(d);
  }
}

TEST(GoldenFiles, EveryFileBelongsToARegisteredCodec) {
  fs::path dir = golden_dir();
  ASSERT_TRUE(fs::is_directory(dir)) << "golden directory " << dir << " not found";
  std::vector<std::string> known;
  for (const cc::Codec* c : cc::list_codecs())
    for (cc::Dtype d : golden::kDtypes) {
      known.push_back(golden::frame_name(c->name(), d));
      known.push_back(golden::decoded_name(c->name(), d));
      for (const golden::Variant& v : golden::variants_of(c->name())) {
        known.push_back(golden::frame_name(golden::variant_name(c->name(), v), d));
        known.push_back(golden::decoded_name(golden::variant_name(c->name(), v), d));
      }
    }
  size_t frames = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string(), ext = entry.path().extension().string();
    if (ext != ".frame" && ext != ".decoded") continue;
    frames += ext == ".frame";
    EXPECT_NE(std::find(known.begin(), known.end(), name), known.end())
        << name << " belongs to no registered codec: a codec was removed or renamed, which "
        << "would leave its frames undecodable";
    if (ext == ".frame") {
      fs::path decoded = entry.path();
      decoded.replace_extension(".decoded");
      EXPECT_TRUE(fs::exists(decoded)) << name << " has no " << decoded.filename();
    }
  }
  for (cc::Dtype d : golden::kDtypes)
    EXPECT_TRUE(fs::exists(dir / golden::input_name(d))) << golden::input_name(d) << " is missing";
  EXPECT_GT(frames, 0u) << "no golden frames in " << dir;
}

}  // namespace
