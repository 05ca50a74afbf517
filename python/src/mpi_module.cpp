// commpress._mpi: the compressed collectives and point-to-point operations of
// include/commpress/comm.hpp for Python (python/commpress/mpi.py gives them mpi4py's argument
// conventions). A communicator arrives as its Fortran handle (mpi4py's Comm.py2f()), so the
// module needs no mpi4py headers; it must run on the MPI library mpi4py uses. The GIL is
// released for the whole operation: other Python threads run while ranks exchange data.
#include <Python.h>
#include <mpi.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "buffer_view.hpp"
#include "commpress/comm.hpp"
#include "error_bridge.hpp"

namespace nb = nanobind;
namespace cm = commpress::comm;
using commpress::python::BufferView;
using commpress::python::kWritableBuffer;
using commpress::python::raise_status;

namespace {

cm::Options options(const std::string& codec, int mode, double value,
                    const std::string& algorithm) {
  cm::Options o;
  o.codec = codec;
  o.bound = {static_cast<commpress::codec::BoundMode>(mode), value};
  auto a = cm::parse_algorithm(algorithm);
  if (!a.ok()) raise_status(a.status());  // every rank gets the same names: fails alike
  o.algorithm = *a;
  return o;
}

nb::dict report(const commpress::Result<cm::Report>& r) {
  if (!r.ok()) raise_status(r.status());
  nb::dict d;
  d["algorithm"] = cm::algorithm_name(r->algorithm);
  d["codec"] = r->codec;
  d["raw_bytes"] = r->raw_bytes;
  d["bytes_sent"] = r->bytes_sent;
  d["ratio"] = r->ratio();
  d["guaranteed_abs_bound"] = r->guaranteed_abs_bound;
  d["predicted_seconds"] = r->predicted_seconds;
  d["chunk_bytes"] = r->chunk_bytes;
  return d;
}

// Runs one operation without the GIL and turns its result into the report dict (or raises).
template <class Operation>
nb::dict run_unlocked(Operation&& operation) {
  commpress::Result<cm::Report> r = commpress::Status{};
  {
    nb::gil_scoped_release unlocked;
    r = operation();
  }
  return report(r);
}

MPI_Comm comm_of(int fortran_handle) { return MPI_Comm_f2c(static_cast<MPI_Fint>(fortran_handle)); }
cm::Dtype dtype_of(int code) { return static_cast<cm::Dtype>(code); }  // the library checks it

// send and recv may be the same buffer (MPI_IN_PLACE): the library sees the same pointer.
nb::dict reduction(bool scatter, nb::handle send, nb::handle recv, size_t count, int dtype, int op,
                   int comm, const std::string& codec, int mode, double value,
                   const std::string& algorithm) {
  const cm::Options o = options(codec, mode, value, algorithm);
  BufferView in(send, PyBUF_C_CONTIGUOUS);
  BufferView out(recv, kWritableBuffer);
  return run_unlocked([&] {
    return scatter ? cm::reduce_scatter_block(in.data(), out.data(), count, dtype_of(dtype),
                                              static_cast<cm::Op>(op), comm_of(comm), o)
                   : cm::allreduce(in.data(), out.data(), count, dtype_of(dtype),
                                   static_cast<cm::Op>(op), comm_of(comm), o);
  });
}

nb::dict bcast(nb::handle buf, size_t count, int dtype, int root, int comm,
               const std::string& codec, int mode, double value, const std::string& algorithm) {
  const cm::Options o = options(codec, mode, value, algorithm);
  BufferView b(buf, kWritableBuffer);
  return run_unlocked([&] {
    return cm::bcast(b.data(), count, dtype_of(dtype), root, comm_of(comm), o);
  });
}

nb::dict allgather(nb::handle send, nb::handle recv, size_t count, int dtype, int comm,
                   const std::string& codec, int mode, double value,
                   const std::string& algorithm) {
  const cm::Options o = options(codec, mode, value, algorithm);
  BufferView in(send, PyBUF_C_CONTIGUOUS);
  BufferView out(recv, kWritableBuffer);
  return run_unlocked([&] {
    return cm::allgather(in.data(), out.data(), count, dtype_of(dtype), comm_of(comm), o);
  });
}

nb::dict point_to_point(bool sending, nb::handle buf, size_t count, int dtype, int peer, int tag,
                        int comm, const std::string& codec, int mode, double value,
                        const std::string& algorithm) {
  const cm::Options o = options(codec, mode, value, algorithm);
  BufferView b(buf, sending ? PyBUF_C_CONTIGUOUS : kWritableBuffer);
  return run_unlocked([&] {
    return sending ? cm::send(b.data(), count, dtype_of(dtype), peer, tag, comm_of(comm), o)
                   : cm::recv(b.data(), count, dtype_of(dtype), peer, tag, comm_of(comm), o);
  });
}

}  // namespace

NB_MODULE(_mpi, m) {
  m.doc() = "commpress compressed MPI operations (include/commpress/comm.hpp)";
  m.def("allreduce", [](nb::handle s, nb::handle r, size_t n, int d, int op, int c,
                        const std::string& codec, int mode, double v, const std::string& a) {
    return reduction(false, s, r, n, d, op, c, codec, mode, v, a);
  });
  m.def("reduce_scatter_block", [](nb::handle s, nb::handle r, size_t n, int d, int op, int c,
                                   const std::string& codec, int mode, double v,
                                   const std::string& a) {
    return reduction(true, s, r, n, d, op, c, codec, mode, v, a);
  });
  m.def("bcast", &bcast);
  m.def("allgather", &allgather);
  m.def("send", [](nb::handle b, size_t n, int d, int peer, int tag, int c,
                   const std::string& codec, int mode, double v, const std::string& a) {
    return point_to_point(true, b, n, d, peer, tag, c, codec, mode, v, a);
  });
  m.def("recv", [](nb::handle b, size_t n, int d, int peer, int tag, int c,
                   const std::string& codec, int mode, double v, const std::string& a) {
    return point_to_point(false, b, n, d, peer, tag, c, codec, mode, v, a);
  });
  m.def("set_error_factory", &commpress::python::set_error_factory);
}
