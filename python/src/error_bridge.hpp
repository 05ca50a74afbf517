// How the extension modules raise: a failed commpress::Status becomes the commpress.Error
// subclass for its code, made by the factory python/commpress/_errors.py hands each module
// (set_error_factory) at import.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <stdexcept>

#include "commpress/status.hpp"

namespace commpress::python {

// Leaked on purpose: it must outlive the module's teardown, when the interpreter may already
// have cleared the callable's module. One per extension module (each is its own library).
inline PyObject* g_error_factory = nullptr;

inline void set_error_factory(nanobind::handle factory) {
  Py_XDECREF(g_error_factory);
  g_error_factory = factory.inc_ref().ptr();
}

[[noreturn]] inline void raise_status(const Status& st) {
  if (g_error_factory == nullptr) throw std::runtime_error(st.to_string());
  PyObject* exc = PyObject_CallFunction(g_error_factory, "is", static_cast<int>(st.code()),
                                        st.message().c_str());
  if (exc == nullptr) throw nanobind::python_error();
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
  Py_DECREF(exc);
  throw nanobind::python_error();
}

}  // namespace commpress::python
