// commpress._codec: the codec layer (include/commpress/codec.hpp) for Python. The public
// functions and the shape container live in python/commpress/_array.py; this module moves
// bytes: any C-contiguous buffer in, a bytes object out, and back into a caller's buffer,
// with the GIL released while a codec runs. Failures become commpress.Error subclasses
// through the factory python/commpress/_errors.py installs (set_error_factory).
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "buffer_view.hpp"
#include "commpress/codec.hpp"
#include "commpress/version.h"
#include "error_bridge.hpp"

namespace nb = nanobind;
namespace cc = commpress::codec;
using commpress::python::BufferView;
using commpress::python::raise_status;

namespace {

cc::Dtype to_dtype(int code) {
  if (code < 1 || code > 5) {
    raise_status({commpress::ErrorCode::invalid_argument,
                  "dtype code " + std::to_string(code) + " is not one of 1..5"});
  }
  return static_cast<cc::Dtype>(code);
}

const cc::Codec* codec_named(const std::string& name) {
  auto codec = cc::get_codec(name);
  if (!codec.ok()) raise_status(codec.status());
  return *codec;
}

// One frame of `data` (count elements of dtype) after the bytes of `prefix` (the Python
// container's header), written straight into the bytes object returned: no copy of the frame.
// `shape` (the array's, slowest first) reaches codecs that predict across dimensions.
nb::object compress(nb::handle data, int dtype_code, const std::string& codec_name,
                    int bound_mode, double bound_value, nb::bytes prefix,
                    const std::vector<uint64_t>& shape) {
  const cc::Dtype dtype = to_dtype(dtype_code);
  const cc::Codec* codec = codec_named(codec_name);
  if (bound_mode < 0 || bound_mode > 2) {
    raise_status({commpress::ErrorCode::invalid_argument, "bound mode must be 0, 1 or 2"});
  }
  const cc::ErrorBound bound{static_cast<cc::BoundMode>(bound_mode), bound_value};
  BufferView in(data, PyBUF_C_CONTIGUOUS);
  const size_t esize = cc::dtype_size(dtype);
  if (in.size() % esize != 0) {
    raise_status({commpress::ErrorCode::invalid_argument,
                  "buffer of " + std::to_string(in.size()) + " bytes is not a whole number of " +
                      cc::dtype_name(dtype) + " elements"});
  }
  const size_t n = in.size() / esize;
  const size_t capacity = codec->compress_bound(n, dtype);
  if (capacity == SIZE_MAX) raise_status(cc::check_count(n));
  const size_t head = prefix.size();
  PyObject* out = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(head + capacity));
  if (out == nullptr) throw nb::python_error();
  nb::object owned = nb::steal(out);
  auto* dst = reinterpret_cast<std::byte*>(PyBytes_AS_STRING(out));
  std::memcpy(dst, prefix.c_str(), head);
  commpress::Result<size_t> written = commpress::Status{};
  {
    nb::gil_scoped_release unlocked;
    thread_local cc::Workspace ws;
    // A shape is passed only when it is the buffer's count (a 0-d or empty array is flat).
    uint64_t count = 1;
    for (uint64_t d : shape) count *= d;
    const std::span<std::byte> room(dst + head, capacity);
    written = shape.size() > 1 && count == n
                  ? codec->compress_into(in.data(), shape, dtype, bound, room, ws)
                  : codec->compress_into(in.data(), n, dtype, bound, room, ws);
  }
  if (!written.ok()) raise_status(written.status());
  owned.release();
  if (_PyBytes_Resize(&out, static_cast<Py_ssize_t>(head + *written)) != 0) {
    throw nb::python_error();
  }
  return nb::steal(out);
}

// Decodes one frame into `out`, a writable C-contiguous buffer of exactly the frame's count
// elements of dtype (the dispatching decompress refuses any other count or dtype).
void decompress_into(nb::handle frame, nb::handle out, int dtype_code) {
  const cc::Dtype dtype = to_dtype(dtype_code);
  BufferView in(frame, PyBUF_SIMPLE);
  BufferView dst(out, commpress::python::kWritableBuffer);
  const size_t esize = cc::dtype_size(dtype);
  if (dst.size() % esize != 0) {
    raise_status({commpress::ErrorCode::invalid_argument,
                  "output of " + std::to_string(dst.size()) + " bytes is not a whole number of " +
                      cc::dtype_name(dtype) + " elements"});
  }
  commpress::Status st;
  {
    nb::gil_scoped_release unlocked;
    st = cc::decompress(in.bytes(), dst.data(), dst.size() / esize, dtype);
  }
  if (!st.ok()) raise_status(st);
}

nb::dict inspect(nb::handle frame) {
  commpress::Result<cc::FrameInfo> info = commpress::Status{};
  {
    BufferView in(frame, PyBUF_SIMPLE);
    nb::gil_scoped_release unlocked;
    info = cc::inspect(in.bytes());
  }
  if (!info.ok()) raise_status(info.status());
  // The name the frame was written with where its id and parameter tell it (szp-e and szp-eh,
  // zstd's levels share an id), else the id's first name.
  auto codec = cc::codec_for_id(info->codec);
  for (const cc::Codec* c : cc::list_codecs())
    if (c->id() == info->codec && c->param() == info->param) {
      codec = c;
      break;
    }
  nb::dict d;
  d["version"] = info->version;
  d["codec_id"] = static_cast<int>(info->codec);
  d["codec"] = codec.ok() ? std::string((*codec)->name()) : std::string();
  d["dtype"] = cc::dtype_name(info->dtype);
  d["bound_mode"] = cc::bound_mode_name(info->mode);
  d["count"] = info->count;
  d["requested_bound"] = info->requested_bound;
  d["abs_bound"] = info->abs_bound;
  d["payload_size"] = info->payload_size;
  d["frame_size"] = info->frame_size();
  d["param"] = info->param;
  d["checksum"] = info->checksum;
  return d;
}

nb::list codecs() {
  nb::list out;
  for (const cc::Codec* c : cc::list_codecs()) {
    nb::list dtypes;
    for (cc::Dtype d : {cc::Dtype::f32, cc::Dtype::f64, cc::Dtype::i32, cc::Dtype::i64,
                        cc::Dtype::u8}) {
      if (c->supports(d)) dtypes.append(cc::dtype_name(d));
    }
    nb::dict d;
    d["name"] = std::string(c->name());
    d["id"] = static_cast<int>(c->id());
    d["lossy"] = c->lossy();
    d["dtypes"] = dtypes;
    d["description"] = std::string(c->description());
    d["param"] = c->param();
    out.append(d);
  }
  return out;
}

}  // namespace

NB_MODULE(_codec, m) {
  m.doc() = "commpress codec layer (frames and codecs, no MPI)";
  m.def("compress", &compress, nb::arg("data"), nb::arg("dtype"), nb::arg("codec"),
        nb::arg("bound_mode"), nb::arg("bound_value"), nb::arg("prefix"),
        nb::arg("shape") = std::vector<uint64_t>{});
  m.def("decompress_into", &decompress_into, nb::arg("frame"), nb::arg("out"), nb::arg("dtype"));
  m.def("inspect", &inspect, nb::arg("frame"));
  m.def("codecs", &codecs);
  m.def("set_error_factory", &commpress::python::set_error_factory);
  m.attr("version") = commpress::version();
  m.attr("compiled_version") = COMMPRESS_VERSION_STRING;
  m.attr("frame_header_size") = cc::kFrameHeaderSize;
}
