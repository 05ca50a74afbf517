// The library's own version, compiled in, for programs to compare with the header they used.
#include "commpress/version.h"

namespace commpress {

const char* version() { return COMMPRESS_VERSION_STRING; }

}  // namespace commpress
