// The commpress HDF5 filter: each chunk becomes one commpress frame (docs/format.md), so a
// chunk's REL bound resolves against that chunk's own range (docs/python.md says what that
// means for users). Loaded by HDF5 from HDF5_PLUGIN_PATH through H5PLget_plugin_type and
// H5PLget_plugin_info; docs/hdf5.md has the filter id and the cd_values layout.
//
// The plugin does not link libhdf5: h5py's wheels carry their own HDF5, loaded privately, and
// a plugin linked to the system's would bring a second HDF5 into the process. set_local, the
// only place that calls HDF5, takes the functions from the libhdf5 already loaded (the one
// that opened this plugin).
#include <H5PLextern.h>
#include <hdf5.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "commpress/codec.hpp"

namespace cc = commpress::codec;

namespace {

// Filter ids 256-511 are HDF5's range for filters not registered with The HDF Group.
constexpr H5Z_filter_t kFilterId = 305;
constexpr unsigned kParamsVersion = 1;
constexpr size_t kNameSlot = 5;         // cd_values[5..] hold the codec name
constexpr size_t kMaxNameValues = 8;    // 4 characters each: names up to 32 characters
constexpr size_t kMaxValues = kNameSlot + kMaxNameValues;

void report(const std::string& what) { std::fprintf(stderr, "H5Zcommpress: %s\n", what.c_str()); }

struct Params {
  cc::Dtype dtype = cc::Dtype::u8;
  bool dtype_known = false;
  cc::ErrorBound bound;
  std::string codec;
};

bool parse_params(size_t n, const unsigned cd[], Params& p) {
  if (n < kNameSlot + 1 || n > kMaxValues || cd[0] != kParamsVersion) {
    report("cd_values are not a commpress filter's parameters (version " +
           std::to_string(kParamsVersion) + ", " + std::to_string(kNameSlot + 1) + " to " +
           std::to_string(kMaxValues) + " values)");
    return false;
  }
  if (cd[1] != 0) {
    if (cd[1] > 5) return report("dtype code " + std::to_string(cd[1]) + " is unknown"), false;
    p.dtype = static_cast<cc::Dtype>(cd[1]);
    p.dtype_known = true;
  }
  if (cd[2] > 2) return report("bound mode " + std::to_string(cd[2]) + " is unknown"), false;
  const uint64_t bits = uint64_t{cd[3]} | (uint64_t{cd[4]} << 32);
  double value;
  std::memcpy(&value, &bits, sizeof value);
  p.bound = {static_cast<cc::BoundMode>(cd[2]), value};
  for (size_t i = kNameSlot; i < n; ++i) {
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((cd[i] >> (8 * b)) & 0xffu);
      if (c == '\0') return true;
      p.codec.push_back(c);
    }
  }
  return true;
}

// The HDF5 functions set_local needs, from the libhdf5 loaded in this process.
struct Hdf5Api {
  H5T_class_t (*tget_class)(hid_t);
  size_t (*tget_size)(hid_t);
  H5T_order_t (*tget_order)(hid_t);
  H5T_sign_t (*tget_sign)(hid_t);
  herr_t (*pget_filter_by_id2)(hid_t, H5Z_filter_t, unsigned*, size_t*, unsigned[], size_t,
                               char[], unsigned*);
  herr_t (*pmodify_filter)(hid_t, H5Z_filter_t, unsigned, size_t, const unsigned[]);
};

template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

bool bind_all(void* lib, Hdf5Api& api) {
  return bind(lib, "H5Tget_class", api.tget_class) && bind(lib, "H5Tget_size", api.tget_size) &&
         bind(lib, "H5Tget_order", api.tget_order) && bind(lib, "H5Tget_sign", api.tget_sign) &&
         bind(lib, "H5Pget_filter_by_id2", api.pget_filter_by_id2) &&
         bind(lib, "H5Pmodify_filter", api.pmodify_filter);
}

int find_loaded_hdf5(dl_phdr_info* info, size_t, void* data) {
  const char* name = info->dlpi_name;
  if (name == nullptr || std::strstr(name, "libhdf5") == nullptr) return 0;
  void* lib = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
  if (lib == nullptr) return 0;
  Hdf5Api api{};
  if (!bind_all(lib, api)) {
    dlclose(lib);
    return 0;  // libhdf5_hl and the like: not the library itself
  }
  *static_cast<Hdf5Api*>(data) = api;  // the handle stays open: HDF5 outlives this plugin
  return 1;
}

const Hdf5Api* hdf5_api() {
  static const Hdf5Api api = [] {
    Hdf5Api found{};
    if (!bind_all(RTLD_DEFAULT, found)) {
      found = {};
      dl_iterate_phdr(find_loaded_hdf5, &found);
    }
    return found;
  }();
  return api.pmodify_filter != nullptr ? &api : nullptr;
}

// The dataset's element type as a commpress dtype; false for types commpress cannot code.
bool dtype_of(const Hdf5Api& h5, hid_t type, cc::Dtype& d) {
  const H5T_class_t cls = h5.tget_class(type);
  const size_t size = h5.tget_size(type);
  if (size > 1 && h5.tget_order(type) != H5T_ORDER_LE) return false;
  if (cls == H5T_FLOAT && size == 4) d = cc::Dtype::f32;
  else if (cls == H5T_FLOAT && size == 8) d = cc::Dtype::f64;
  else if (cls == H5T_INTEGER && size == 4 && h5.tget_sign(type) == H5T_SGN_2) d = cc::Dtype::i32;
  else if (cls == H5T_INTEGER && size == 8 && h5.tget_sign(type) == H5T_SGN_2) d = cc::Dtype::i64;
  else if (cls == H5T_INTEGER && size == 1 && h5.tget_sign(type) == H5T_SGN_NONE) d = cc::Dtype::u8;
  else return false;
  return true;
}

// Records the dataset's dtype in cd_values[1] and refuses, when the dataset is created, a
// codec that does not exist or cannot code that dtype.
herr_t set_local(hid_t dcpl, hid_t type, hid_t) {
  const Hdf5Api* h5 = hdf5_api();
  if (h5 == nullptr) return report("no libhdf5 found in this process"), -1;
  unsigned flags = 0;
  size_t n = kMaxValues;
  unsigned cd[kMaxValues] = {};
  if (h5->pget_filter_by_id2(dcpl, kFilterId, &flags, &n, cd, 0, nullptr, nullptr) < 0) return -1;
  Params p;
  if (n > kMaxValues || !parse_params(n, cd, p)) return -1;
  cc::Dtype d;
  if (!dtype_of(*h5, type, d)) {
    return report("the dataset's type is not f32, f64, i32, i64 or u8 (little-endian)"), -1;
  }
  const cc::Codec* codec = cc::find_codec(p.codec);
  if (codec == nullptr) return report("no codec named '" + p.codec + "'"), -1;
  if (!codec->supports(d)) {
    return report(p.codec + " cannot code " + cc::dtype_name(d) + " data"), -1;
  }
  commpress::Status st = cc::check_bound(p.bound);
  if (!st.ok()) return report(st.to_string()), -1;
  cd[1] = static_cast<unsigned>(d);
  return h5->pmodify_filter(dcpl, kFilterId, flags, n, cd);
}

size_t encode_chunk(const Params& p, size_t nbytes, size_t* buf_size, void** buf) {
  if (!p.dtype_known) return report("no dtype in cd_values (set_local did not run)"), 0;
  const cc::Codec* codec = cc::find_codec(p.codec);
  if (codec == nullptr) return report("no codec named '" + p.codec + "'"), 0;
  const size_t esize = cc::dtype_size(p.dtype);
  if (nbytes % esize != 0) return report("chunk is not a whole number of elements"), 0;
  const size_t n = nbytes / esize;
  const size_t capacity = codec->compress_bound(n, p.dtype);
  if (capacity == SIZE_MAX) return report(cc::check_count(n).to_string()), 0;
  void* out = std::malloc(capacity);
  if (out == nullptr) return report("out of memory"), 0;
  cc::Workspace ws;
  auto written = codec->compress_into(*buf, n, p.dtype, p.bound,
                                      {static_cast<std::byte*>(out), capacity}, ws);
  if (!written.ok()) {
    std::free(out);
    return report(written.status().to_string()), 0;
  }
  std::free(*buf);
  *buf = out;
  *buf_size = capacity;
  return *written;
}

size_t decode_chunk(size_t nbytes, size_t* buf_size, void** buf) {
  const std::span<const std::byte> frame(static_cast<const std::byte*>(*buf), nbytes);
  auto info = cc::inspect(frame);
  if (!info.ok()) return report(info.status().to_string()), 0;
  const size_t size = info->count * cc::dtype_size(info->dtype);  // count <= kMaxCount
  void* out = std::malloc(size > 0 ? size : 1);
  if (out == nullptr) return report("out of memory"), 0;
  commpress::Status st = cc::decompress(frame, out, info->count, info->dtype);
  if (!st.ok()) {
    std::free(out);
    return report(st.to_string()), 0;
  }
  std::free(*buf);
  *buf = out;
  *buf_size = size > 0 ? size : 1;
  return size;
}

size_t filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
              size_t* buf_size, void** buf) {
  if (flags & H5Z_FLAG_REVERSE) return decode_chunk(nbytes, buf_size, buf);
  Params p;
  if (!parse_params(cd_nelmts, cd_values, p)) return 0;
  return encode_chunk(p, nbytes, buf_size, buf);
}

const H5Z_class2_t kFilterClass = {
    H5Z_CLASS_T_VERS, kFilterId, 1, 1, "commpress: error-bounded and lossless codecs",
    nullptr, set_local, filter};

}  // namespace

extern "C" {
__attribute__((visibility("default"))) H5PL_type_t H5PLget_plugin_type(void) {
  return H5PL_TYPE_FILTER;
}
__attribute__((visibility("default"))) const void* H5PLget_plugin_info(void) {
  return &kFilterClass;
}
}
