// commpress._mpi: the compressed collectives and point-to-point operations of
// include/commpress/comm.hpp for Python (python/commpress/mpi.py gives them mpi4py's argument
// conventions). A communicator arrives as its Fortran handle (mpi4py's Comm.py2f()), so the
// module needs no mpi4py headers; it must run on the MPI library mpi4py uses. The GIL is
// released for the whole operation: other Python threads run while ranks exchange data.
// The nonblocking forms (include/commpress/nonblocking.hpp) return a Request that holds the
// buffers' exports until the operation completes, so the arrays outlive it and cannot be
// resized under it.
#include <Python.h>
#include <mpi.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <memory>
#include <string>

#include "buffer_view.hpp"
#include "commpress/comm.hpp"
#include "commpress/nonblocking.hpp"
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

// MPI_Allgather's and MPI_Alltoall's arguments: count elements per rank.
nb::dict exchange(bool all_to_all, nb::handle send, nb::handle recv, size_t count, int dtype,
                  int comm, const std::string& codec, int mode, double value,
                  const std::string& algorithm) {
  const cm::Options o = options(codec, mode, value, algorithm);
  BufferView in(send, PyBUF_C_CONTIGUOUS);
  BufferView out(recv, kWritableBuffer);
  return run_unlocked([&] {
    return all_to_all
               ? cm::alltoall(in.data(), out.data(), count, dtype_of(dtype), comm_of(comm), o)
               : cm::allgather(in.data(), out.data(), count, dtype_of(dtype), comm_of(comm), o);
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

// A nonblocking collective in flight with the exports of its buffers (one for bcast, or an
// in-place reduction given the same buffer twice: exporting it twice is harmless).
class Request {
 public:
  Request(nb::handle send, nb::handle recv) {
    if (send.is_valid()) in_ = std::make_unique<BufferView>(send, PyBUF_C_CONTIGUOUS);
    out_ = std::make_unique<BufferView>(recv, kWritableBuffer);
  }
  ~Request() {
    if (request_.active()) {  // dropped unfinished: the operation still needs the memory
      nb::gil_scoped_release unlocked;
      request_ = cm::CollectiveRequest{};
    }
  }
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  const void* in() const { return in_ ? in_->data() : nullptr; }
  void* out() const { return out_->data(); }

  // Starts the operation without the GIL (below MPI_THREAD_MULTIPLE it runs right here).
  template <class Start>
  void start(Start&& begin) {
    nb::gil_scoped_release unlocked;
    request_ = begin();
  }

  bool test() const { return done_ || request_.test(); }

  // The report dict, or the commpress.Error; the second call gives the first one's outcome.
  nb::dict wait() {
    if (!done_) {
      {
        nb::gil_scoped_release unlocked;
        result_ = request_.wait();
      }
      done_ = true;
      in_.reset();  // the library is done with the memory
      out_.reset();
    }
    return report(result_);
  }

 private:
  std::unique_ptr<BufferView> in_, out_;
  cm::CollectiveRequest request_;
  commpress::Result<cm::Report> result_ = commpress::Status{};
  bool done_ = false;
};

// Starts one nonblocking collective: `begin(request, options)` returns its CollectiveRequest.
template <class Begin>
std::unique_ptr<Request> start(nb::handle send, nb::handle recv, const std::string& codec,
                               int mode, double value, const std::string& algorithm,
                               Begin&& begin) {
  const cm::Options o = options(codec, mode, value, algorithm);
  auto r = std::make_unique<Request>(send, recv);
  r->start([&] { return begin(*r, o); });
  return r;
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
  m.def("allgather", [](nb::handle s, nb::handle r, size_t n, int d, int c,
                        const std::string& codec, int mode, double v, const std::string& a) {
    return exchange(false, s, r, n, d, c, codec, mode, v, a);
  });
  m.def("alltoall", [](nb::handle s, nb::handle r, size_t n, int d, int c,
                       const std::string& codec, int mode, double v, const std::string& a) {
    return exchange(true, s, r, n, d, c, codec, mode, v, a);
  });
  m.def("send", [](nb::handle b, size_t n, int d, int peer, int tag, int c,
                   const std::string& codec, int mode, double v, const std::string& a) {
    return point_to_point(true, b, n, d, peer, tag, c, codec, mode, v, a);
  });
  m.def("recv", [](nb::handle b, size_t n, int d, int peer, int tag, int c,
                   const std::string& codec, int mode, double v, const std::string& a) {
    return point_to_point(false, b, n, d, peer, tag, c, codec, mode, v, a);
  });

  nb::class_<Request>(m, "Request")
      .def("test", &Request::test)
      .def("wait", &Request::wait);
  // Nonblocking forms: the same arguments; recv is the result buffer (send None for bcast).
  m.def("iallreduce", [](nb::handle s, nb::handle r, size_t n, int d, int op, int c,
                         const std::string& codec, int mode, double v, const std::string& a) {
    return start(s, r, codec, mode, v, a, [&](Request& q, const cm::Options& o) {
      return cm::iallreduce(q.in(), q.out(), n, dtype_of(d), static_cast<cm::Op>(op),
                            comm_of(c), o);
    });
  });
  m.def("ireduce_scatter_block", [](nb::handle s, nb::handle r, size_t n, int d, int op, int c,
                                    const std::string& codec, int mode, double v,
                                    const std::string& a) {
    return start(s, r, codec, mode, v, a, [&](Request& q, const cm::Options& o) {
      return cm::ireduce_scatter_block(q.in(), q.out(), n, dtype_of(d), static_cast<cm::Op>(op),
                                       comm_of(c), o);
    });
  });
  m.def("ibcast", [](nb::handle b, size_t n, int d, int root, int c, const std::string& codec,
                     int mode, double v, const std::string& a) {
    return start(nb::handle(), b, codec, mode, v, a, [&](Request& q, const cm::Options& o) {
      return cm::ibcast(q.out(), n, dtype_of(d), root, comm_of(c), o);
    });
  });
  m.def("iallgather", [](nb::handle s, nb::handle r, size_t n, int d, int c,
                         const std::string& codec, int mode, double v, const std::string& a) {
    return start(s, r, codec, mode, v, a, [&](Request& q, const cm::Options& o) {
      return cm::iallgather(q.in(), q.out(), n, dtype_of(d), comm_of(c), o);
    });
  });
  m.def("ialltoall", [](nb::handle s, nb::handle r, size_t n, int d, int c,
                        const std::string& codec, int mode, double v, const std::string& a) {
    return start(s, r, codec, mode, v, a, [&](Request& q, const cm::Options& o) {
      return cm::ialltoall(q.in(), q.out(), n, dtype_of(d), comm_of(c), o);
    });
  });
  m.def("progress_thread_available", &cm::progress_thread_available);
  m.def("set_error_factory", &commpress::python::set_error_factory);
}
