// commpress_make_golden DIR [--force]
// Writes the golden files into DIR (normally tests/golden): the two input arrays when missing,
// then for every registered codec and each of f32/f64 it supports, the frame of that input
// and the array it decodes to. Existing frames are left alone unless --force is given: a new
// codec gets its files without disturbing the ones that pin the format (see README.md).
#include <cstdio>
#include <cstring>
#include <string>

#include "commpress/codec.hpp"
#include "golden/golden_files.hpp"

namespace cc = commpress::codec;
namespace golden = commpress::testing::golden;

namespace {

// The committed input wins over the generator, so frames always match the files beside them.
template <class T>
bool load_or_make_input(const golden::fs::path& dir, std::vector<T>& x) {
  auto path = dir / golden::input_name(cc::dtype_of<T>());
  if (auto bytes = golden::read_bytes(path)) {
    if (bytes->size() != golden::kCount * sizeof(T)) {
      std::fprintf(stderr, "%s has %zu bytes, expected %zu\n", path.c_str(), bytes->size(),
                   golden::kCount * sizeof(T));
      return false;
    }
    x.resize(golden::kCount);
    std::memcpy(x.data(), bytes->data(), bytes->size());
    return true;
  }
  x = golden::make_input<T>();
  std::printf("wrote %s\n", path.c_str());
  return golden::write_bytes(path, x.data(), x.size() * sizeof(T));
}

// variant: the files of one of the codec's other layouts (golden::variants_of).
template <class T>
bool write_codec_files(const golden::fs::path& dir, const cc::Codec& codec,
                       const std::vector<T>& x, bool force,
                       const golden::Variant* variant = nullptr) {
  cc::Dtype d = cc::dtype_of<T>();
  const std::string name =
      variant ? golden::variant_name(codec.name(), *variant) : std::string(codec.name());
  auto frame_path = dir / golden::frame_name(name, d);
  if (!force && golden::fs::exists(frame_path)) return true;
  std::vector<std::byte> bytes;
  const cc::ErrorBound bound =
      variant ? golden::bound_for(codec, d, *variant) : golden::bound_for(codec, d);
  commpress::Status made = variant && variant->shaped
                               ? codec.compress(x.data(), golden::kShape, d, bound, bytes)
                               : codec.compress(x.data(), x.size(), d, bound, bytes);
  if (!made.ok()) {
    std::fprintf(stderr, "%s %s: %s\n", name.c_str(), cc::dtype_name(d),
                 made.to_string().c_str());
    return false;
  }
  const std::vector<std::byte>* frame = &bytes;
  std::vector<T> y(x.size());
  auto st = codec.decompress(*frame, std::span<T>(y));
  if (!st.ok()) {
    std::fprintf(stderr, "%s %s: %s\n", name.c_str(), cc::dtype_name(d), st.to_string().c_str());
    return false;
  }
  auto decoded_path = dir / golden::decoded_name(name, d);
  std::printf("wrote %s (%zu bytes) and %s\n", frame_path.c_str(), frame->size(),
              decoded_path.c_str());
  return golden::write_bytes(frame_path, frame->data(), frame->size()) &&
         golden::write_bytes(decoded_path, y.data(), y.size() * sizeof(T));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::strcmp(argv[2], "--force") != 0)) {
    std::fprintf(stderr, "usage: %s DIR [--force]\n", argv[0]);
    return 2;
  }
  golden::fs::path dir = argv[1];
  bool force = argc == 3;
  std::vector<float> x32;
  std::vector<double> x64;
  if (!golden::fs::is_directory(dir) || !load_or_make_input(dir, x32) ||
      !load_or_make_input(dir, x64)) {
    std::fprintf(stderr, "cannot prepare the inputs in %s\n", dir.c_str());
    return 1;
  }
  bool ok = true;
  for (const cc::Codec* codec : cc::list_codecs()) {
    if (codec->supports(cc::Dtype::f32)) ok = write_codec_files(dir, *codec, x32, force) && ok;
    if (codec->supports(cc::Dtype::f64)) ok = write_codec_files(dir, *codec, x64, force) && ok;
    for (const golden::Variant& v : golden::variants_of(codec->name())) {
      ok = write_codec_files(dir, *codec, x32, force, &v) && ok;
      ok = write_codec_files(dir, *codec, x64, force, &v) && ok;
    }
  }
  return ok ? 0 : 1;
}
