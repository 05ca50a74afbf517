// Compresses a smooth field with szp under a REL bound, decodes it, and checks every element
// against the bound computed here; exits non-zero on any failure.
#include <commpress/codec.hpp>
#include <commpress/version.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

int main() {
  namespace cc = commpress::codec;
  if (std::strcmp(commpress::version(), COMMPRESS_VERSION_STRING) != 0) {
    std::fprintf(stderr, "library %s, header %s\n", commpress::version(), COMMPRESS_VERSION_STRING);
    return 1;
  }
  std::vector<float> x(100000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.001f * float(i)) * 50.0f;
  const cc::Codec* szp = cc::find_codec("szp");
  if (!szp) return 1;
  std::vector<std::byte> frame;
  auto st = szp->compress(x.data(), x.size(), cc::Dtype::f32, cc::ErrorBound::relative(1e-4), frame);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  std::vector<float> y(x.size());
  st = cc::decompress(frame, std::span<float>(y));
  if (!st.ok()) return 1;
  const double bound = 1e-4 * 100.0;  // the field spans [-50, 50]
  for (size_t i = 0; i < x.size(); ++i)
    if (std::fabs(double(x[i]) - double(y[i])) > bound) return 1;
  std::printf("codec_only: %s, %zu values in %zu bytes (ratio %.1f)\n", commpress::version(),
              x.size(), frame.size(), double(x.size() * 4) / double(frame.size()));
  return 0;
}
