// Hook for the homomorphic section. The combine operations on szp frames are declared in
// include/commpress/homomorphic.hpp; until that header exists this section reports itself
// unavailable and the driver skips it. When it exists, measure per data set and REL bound:
// combine(frame_a, frame_b) and combine_raw against decompress both + add + compress, with
// the same median-of-repeats timing as the codec section, and check the combined result
// against the exact sum within the bound the combined frame promises.
#include "codecs/homomorphic.hpp"

namespace commpress::bench {

std::string homomorphic_unavailable_reason() {
#if __has_include("commpress/homomorphic.hpp")
  return "include/commpress/homomorphic.hpp exists but bench/codecs/homomorphic.cpp does not "
         "measure it yet";
#else
  return "include/commpress/homomorphic.hpp is not part of this build yet";
#endif
}

Status run_homomorphic(const std::vector<Dataset>&, const Options&, std::ostream&) {
  return {ErrorCode::unsupported, "homomorphic section: " + homomorphic_unavailable_reason()};
}

}  // namespace commpress::bench
