// The run-time choice of the homomorphic kernels (codec/homomorphic/kernel_dispatch.hpp), in
// the codec library the loader chose: where the CPU has GFNI and AVX512-VBMI and the library
// holds the AVX-512 kernels, combine() runs the GFNI ones; with the loader's hwcaps masked
// (the portable path: ctest's portable.homomorphic_kernels_test requires "portable" below) it
// runs neither; and the GFNI and plain AVX-512 kernels write the same bytes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codec/homomorphic/kernel_dispatch.hpp"
#include "commpress/codec.hpp"
#include "commpress/homomorphic.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
namespace hm = commpress::codec::homomorphic;
using Bytes = std::vector<std::byte>;

namespace {

// The first processor's flags in /proc/cpuinfo (empty where there is none).
std::set<std::string> cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

bool has_all(const std::set<std::string>& flags, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (!flags.count(n)) return false;
  return true;
}

// The switch that forces the portable path (docs/environment.md).
bool portable_forced() {
  const char* t = std::getenv("GLIBC_TUNABLES");
  return t && std::strstr(t, "-AVX512F");
}

TEST(HomomorphicKernels, DispatchFollowsTheCpu) {
  const hm::Kernels built = hm::built_kernels(), active = hm::active_kernels();
  std::printf("homomorphic kernels: %s (the library holds: %s)\n", hm::kernels_name(active),
              hm::kernels_name(built));
  if (portable_forced()) {
    EXPECT_NE(active, hm::Kernels::avx512_gfni);
    EXPECT_FALSE(hm::use_kernels(hm::Kernels::avx512_gfni));
    return;
  }
  const auto flags = cpu_flags();
  if (!has_all(flags, {"avx512f", "avx512bw", "avx512vl", "avx512dq"}))
    GTEST_SKIP() << "the CPU lacks AVX-512, which the GFNI kernels build on";
  if (built == hm::Kernels::portable)
    GTEST_SKIP() << "this build of the library holds no AVX-512 kernels (COMMPRESS_HWCAPS "
                    "empty and COMMPRESS_NATIVE off): nothing to dispatch";
  EXPECT_EQ(built, hm::Kernels::avx512_gfni);
  if (!has_all(flags, {"gfni", "avx512vbmi"})) {
    EXPECT_EQ(active, hm::Kernels::avx512);
    EXPECT_FALSE(hm::use_kernels(hm::Kernels::avx512_gfni));
    GTEST_SKIP() << "the CPU lacks GFNI or AVX512-VBMI: the plain AVX-512 kernels run";
  }
  EXPECT_EQ(active, hm::Kernels::avx512_gfni);
}

template <class T>
Bytes szp_frame(const std::vector<T>& x, double eb) {
  Bytes f;
  const auto st = cc::find_codec("szp")->compress(x.data(), x.size(), cc::dtype_of<T>(),
                                                  cc::ErrorBound::absolute(eb), f);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return f;
}

// combine() and combine_raw() of smooth data at bounds that make narrow blocks (the
// transposes' case) and wide ones, with a partial last block.
template <class T>
std::vector<Bytes> sums() {
  using commpress::testing::Shape;
  std::vector<Bytes> out;
  const size_t n = 200003;
  const auto a = commpress::testing::make_data<T>(Shape::smooth3d, n, 5);
  const auto b = commpress::testing::make_data<T>(Shape::smooth3d, n, 6);
  for (double eb : {1e-1, 1e-2, 1e-3, 1e-6}) {
    const Bytes fa = szp_frame(a, eb), fb = szp_frame(b, eb);
    Bytes s, r;
    EXPECT_TRUE(cc::combine(fa, fb, cc::CombineOp::sum, s).ok());
    EXPECT_TRUE(cc::combine_raw(std::span<const T>(a), fb, cc::CombineOp::sum, r).ok());
    out.push_back(std::move(s));
    out.push_back(std::move(r));
  }
  return out;
}

TEST(HomomorphicKernels, GfniAndAvx512WriteTheSameBytes) {
  const hm::Kernels before = hm::active_kernels();
  if (!hm::use_kernels(hm::Kernels::avx512))
    GTEST_SKIP() << "this library runs the portable kernels only (" << hm::kernels_name(before)
                 << "): nothing to compare";
  const auto plain32 = sums<float>();
  const auto plain64 = sums<double>();
  if (!hm::use_kernels(hm::Kernels::avx512_gfni)) {
    hm::use_kernels(before);
    GTEST_SKIP() << "the CPU lacks GFNI or AVX512-VBMI";
  }
  EXPECT_EQ(hm::active_kernels(), hm::Kernels::avx512_gfni);
  const auto gfni32 = sums<float>();
  const auto gfni64 = sums<double>();
  hm::use_kernels(before);
  ASSERT_EQ(plain32.size(), gfni32.size());
  for (size_t i = 0; i < plain32.size(); ++i) EXPECT_TRUE(plain32[i] == gfni32[i]) << "f32 case " << i;
  for (size_t i = 0; i < plain64.size(); ++i) EXPECT_TRUE(plain64[i] == gfni64[i]) << "f64 case " << i;
}

}  // namespace
