// A buffer-protocol export held for the duration of one call. Exporters such as bytearray
// refuse to resize while it is held, so the GIL can be released over the memory.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstddef>
#include <span>

namespace commpress::python {

class BufferView {
 public:
  BufferView(nanobind::handle obj, int flags) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, flags) != 0) throw nanobind::python_error();
  }
  ~BufferView() { PyBuffer_Release(&view_); }
  BufferView(const BufferView&) = delete;
  BufferView& operator=(const BufferView&) = delete;

  std::byte* data() const { return static_cast<std::byte*>(view_.buf); }
  size_t size() const { return static_cast<size_t>(view_.len); }
  std::span<const std::byte> bytes() const { return {data(), size()}; }

 private:
  Py_buffer view_{};
};

inline constexpr int kWritableBuffer = PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS;

}  // namespace commpress::python
