// commpress._mpi: the compressed collectives and point-to-point operations of
// include/commpress/comm.hpp and nonblocking.hpp for Python (python/commpress/mpi.py gives them
// mpi4py's argument conventions). A communicator arrives as its Fortran handle (mpi4py's
// Comm.py2f()), so the module needs no mpi4py headers; it must run on the MPI library mpi4py
// uses. The GIL is released for the whole operation: other Python threads run while ranks
// exchange data. The nonblocking and persistent forms return requests that hold the buffers'
// exports until the operation completes (persistent: while the request lives), so the arrays
// outlive it and cannot be resized under it.
//
// A buffer may be None: a null pointer. mpi.py passes None (and a non-zero count) on a rank
// whose own argument checks failed, so the library refuses the call there and, through its
// agreement, on every rank together (docs/python.md).
#include <Python.h>
#include <mpi.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "buffer_view.hpp"
#include "commpress/comm.hpp"
#include "commpress/nonblocking.hpp"
#include "error_bridge.hpp"

namespace nb = nanobind;
namespace cm = commpress::comm;
using commpress::python::BufferView;
using commpress::python::kWritableBuffer;
using commpress::python::raise_status;
using Counts = std::vector<size_t>;
using Buffer = std::optional<nb::handle>;  // None: a null pointer

namespace {

// The options as mpi.py's Call.opts() hands them over: codec, bound mode and value,
// algorithm name, chunk_bytes.
using OptionArgs = std::tuple<std::string, int, double, std::string, size_t>;

cm::Options options(const OptionArgs& args) {
  const auto& [codec, mode, value, algorithm, chunk_bytes] = args;
  cm::Options o;
  o.codec = codec;
  o.chunk_bytes = chunk_bytes;
  o.bound = {static_cast<commpress::codec::BoundMode>(mode), value};
  auto a = cm::parse_algorithm(algorithm);
  if (!a.ok()) raise_status(a.status());  // mpi.py checked the name (check_algorithm) first
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

MPI_Comm comm_of(int fortran_handle) {
  return MPI_Comm_f2c(static_cast<MPI_Fint>(fortran_handle));
}
cm::Dtype dtype_of(int code) {
  return static_cast<cm::Dtype>(code);
}  // the library checks it
cm::Op op_of(int code) {
  return static_cast<cm::Op>(code);
}

// The exports of an operation's input and output (None: null). An in-place reduction passes
// the same buffer twice (MPI_IN_PLACE: the library sees the same pointer); exporting it twice
// is harmless.
class Buffers {
 public:
  Buffers(const Buffer& in, const Buffer& out) {
    if (in) in_ = std::make_unique<BufferView>(*in, PyBUF_C_CONTIGUOUS);
    if (out) out_ = std::make_unique<BufferView>(*out, kWritableBuffer);
  }
  const void* in() const { return in_ ? in_->data() : nullptr; }
  void* out() const { return out_ ? out_->data() : nullptr; }
  void release() { in_.reset(), out_.reset(); }

 private:
  std::unique_ptr<BufferView> in_, out_;
};

// Runs one blocking operation without the GIL and turns its result into the report dict (or
// raises).
template <class Operation>
nb::dict run_unlocked(Operation&& operation) {
  commpress::Result<cm::Report> r = commpress::Status{};
  {
    nb::gil_scoped_release unlocked;
    r = operation();
  }
  return report(r);
}

// Runs one blocking operation: `run(buffers, options)` returns its Result<Report>.
template <class Run>
nb::dict blocking(const Buffer& in, const Buffer& out, const OptionArgs& opts, Run&& run) {
  const cm::Options o = options(opts);
  Buffers b(in, out);
  return run_unlocked([&] { return run(b, o); });
}

// A nonblocking operation in flight (Native: cm::CollectiveRequest, or cm::Request for
// isend/irecv) with its buffers. One Python thread at a time tests or waits (the mutex, taken
// without the GIL); the second wait() gives the first one's outcome.
template <class Native>
class Pending {
 public:
  Pending(const Buffer& in, const Buffer& out) : buffers_(in, out) {}
  ~Pending() {
    if (request_.active()) {  // dropped unfinished: the operation still needs the memory
      nb::gil_scoped_release unlocked;
      request_ = Native{};
    }
  }
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;

  const Buffers& buffers() const { return buffers_; }

  // Starts the operation without the GIL (a collective below MPI_THREAD_MULTIPLE runs here).
  template <class Start>
  void start(Start&& begin) {
    nb::gil_scoped_release unlocked;
    request_ = begin();
  }

  bool test() {
    nb::gil_scoped_release unlocked;
    std::lock_guard lock(mutex_);
    return done_ || request_.test();
  }

  // The report dict, or the commpress.Error.
  nb::dict wait() {
    {
      nb::gil_scoped_release unlocked;
      std::lock_guard lock(mutex_);
      if (!done_) {
        result_ = request_.wait();
        done_ = true;
      }
    }
    buffers_.release();  // the library is done with the memory
    return report(result_);
  }

 private:
  Buffers buffers_;
  Native request_;
  std::mutex mutex_;
  commpress::Result<cm::Report> result_ = commpress::Status{};
  bool done_ = false;
};

using CollectivePending = Pending<cm::CollectiveRequest>;
using PointToPointPending = Pending<cm::Request>;

// Starts one nonblocking operation: `begin(buffers, options)` returns its native request.
template <class Native, class Begin>
std::unique_ptr<Pending<Native>> start(const Buffer& in, const Buffer& out, const OptionArgs& opts,
                                       Begin&& begin) {
  const cm::Options o = options(opts);
  auto p = std::make_unique<Pending<Native>>(in, out);
  p->start([&] { return begin(p->buffers(), o); });
  return p;
}

// MPI_Allreduce_init's request (cm::PersistentRequest) with its buffers, held while it lives:
// every start() runs on their contents at that moment.
class Persistent {
 public:
  Persistent(const Buffer& in, const Buffer& out) : buffers_(in, out) {}
  ~Persistent() {
    if (request_.active()) {  // a started run still uses the memory
      nb::gil_scoped_release unlocked;
      request_ = cm::PersistentRequest{};
    }
  }
  Persistent(const Persistent&) = delete;
  Persistent& operator=(const Persistent&) = delete;

  const Buffers& buffers() const { return buffers_; }
  void set(cm::PersistentRequest r) { request_ = std::move(r); }

  void start() {
    commpress::Status st;
    {
      nb::gil_scoped_release unlocked;
      std::lock_guard lock(mutex_);
      st = request_.start();
    }
    if (!st.ok()) raise_status(st);
  }
  bool test() {
    nb::gil_scoped_release unlocked;
    std::lock_guard lock(mutex_);
    return !request_.active() || request_.test();
  }
  // Without a started run: the empty report of MPI's inactive request.
  nb::dict wait() {
    return run_unlocked([&] {
      std::lock_guard lock(mutex_);
      return request_.wait();
    });
  }
  std::string algorithm() const { return cm::algorithm_name(request_.algorithm()); }

 private:
  Buffers buffers_;
  cm::PersistentRequest request_;
  std::mutex mutex_;
};

}  // namespace

NB_MODULE(_mpi, m) {
  m.doc() = "commpress compressed MPI operations (include/commpress/comm.hpp, nonblocking.hpp)";
  m.def("check_algorithm", [](const std::string& name) {
    auto a = cm::parse_algorithm(name);
    if (!a.ok()) raise_status(a.status());
  });

  // Blocking operations; recv is the result buffer (send None for bcast and recv).
  using B = const Buffers&;
  using O = const cm::Options&;
  m.def("allreduce", [](const Buffer& s, const Buffer& r, size_t n, int d, int op, int c,
                        const OptionArgs& opts) {
    return blocking(s, r, opts, [&](B b, O o) {
      return cm::allreduce(b.in(), b.out(), n, dtype_of(d), op_of(op), comm_of(c), o);
    });
  });
  m.def("reduce_scatter_block", [](const Buffer& s, const Buffer& r, size_t n, int d, int op, int c,
                                   const OptionArgs& opts) {
    return blocking(s, r, opts, [&](B b, O o) {
      return cm::reduce_scatter_block(b.in(), b.out(), n, dtype_of(d), op_of(op), comm_of(c), o);
    });
  });
  m.def("bcast", [](const Buffer& buf, size_t n, int d, int root, int c, const OptionArgs& opts) {
    return blocking(std::nullopt, buf, opts, [&](B b, O o) {
      return cm::bcast(b.out(), n, dtype_of(d), root, comm_of(c), o);
    });
  });
  m.def("allgather",
        [](const Buffer& s, const Buffer& r, size_t n, int d, int c, const OptionArgs& opts) {
          return blocking(s, r, opts, [&](B b, O o) {
            return cm::allgather(b.in(), b.out(), n, dtype_of(d), comm_of(c), o);
          });
        });
  m.def("alltoall",
        [](const Buffer& s, const Buffer& r, size_t n, int d, int c, const OptionArgs& opts) {
          return blocking(s, r, opts, [&](B b, O o) {
            return cm::alltoall(b.in(), b.out(), n, dtype_of(d), comm_of(c), o);
          });
        });
  m.def("alltoallv", [](const Buffer& s, const Counts& sc, const Counts& sd, const Buffer& r,
                        const Counts& rc, const Counts& rd, int d, int c, const OptionArgs& opts) {
    return blocking(s, r, opts, [&](B b, O o) {
      return cm::alltoallv(b.in(), sc, sd, b.out(), rc, rd, dtype_of(d), comm_of(c), o);
    });
  });
  m.def("send",
        [](const Buffer& buf, size_t n, int d, int dest, int tag, int c, const OptionArgs& opts) {
          return blocking(buf, std::nullopt, opts, [&](B b, O o) {
            return cm::send(b.in(), n, dtype_of(d), dest, tag, comm_of(c), o);
          });
        });
  m.def("recv",
        [](const Buffer& buf, size_t n, int d, int source, int tag, int c, const OptionArgs& opts) {
          return blocking(std::nullopt, buf, opts, [&](B b, O o) {
            return cm::recv(b.out(), n, dtype_of(d), source, tag, comm_of(c), o);
          });
        });

  nb::class_<CollectivePending>(m, "CollectiveRequest")
      .def("test", &CollectivePending::test)
      .def("wait", &CollectivePending::wait);
  nb::class_<PointToPointPending>(m, "PointToPointRequest")
      .def("test", &PointToPointPending::test)
      .def("wait", &PointToPointPending::wait);
  nb::class_<Persistent>(m, "PersistentRequest")
      .def("start", &Persistent::start)
      .def("test", &Persistent::test)
      .def("wait", &Persistent::wait)
      .def_prop_ro("algorithm", &Persistent::algorithm);

  // Nonblocking forms: the blocking ones' arguments.
  using Collective = cm::CollectiveRequest;
  m.def("iallreduce", [](const Buffer& s, const Buffer& r, size_t n, int d, int op, int c,
                         const OptionArgs& opts) {
    return start<Collective>(s, r, opts, [&](B b, O o) {
      return cm::iallreduce(b.in(), b.out(), n, dtype_of(d), op_of(op), comm_of(c), o);
    });
  });
  m.def("ireduce_scatter_block", [](const Buffer& s, const Buffer& r, size_t n, int d, int op,
                                    int c, const OptionArgs& opts) {
    return start<Collective>(s, r, opts, [&](B b, O o) {
      return cm::ireduce_scatter_block(b.in(), b.out(), n, dtype_of(d), op_of(op), comm_of(c), o);
    });
  });
  m.def("ibcast", [](const Buffer& buf, size_t n, int d, int root, int c, const OptionArgs& opts) {
    return start<Collective>(std::nullopt, buf, opts, [&](B b, O o) {
      return cm::ibcast(b.out(), n, dtype_of(d), root, comm_of(c), o);
    });
  });
  m.def("iallgather",
        [](const Buffer& s, const Buffer& r, size_t n, int d, int c, const OptionArgs& opts) {
          return start<Collective>(s, r, opts, [&](B b, O o) {
            return cm::iallgather(b.in(), b.out(), n, dtype_of(d), comm_of(c), o);
          });
        });
  m.def("ialltoall",
        [](const Buffer& s, const Buffer& r, size_t n, int d, int c, const OptionArgs& opts) {
          return start<Collective>(s, r, opts, [&](B b, O o) {
            return cm::ialltoall(b.in(), b.out(), n, dtype_of(d), comm_of(c), o);
          });
        });
  m.def("ialltoallv", [](const Buffer& s, const Counts& sc, const Counts& sd, const Buffer& r,
                         const Counts& rc, const Counts& rd, int d, int c, const OptionArgs& opts) {
    return start<Collective>(s, r, opts, [&](B b, O o) {
      return cm::ialltoallv(b.in(), sc, sd, b.out(), rc, rd, dtype_of(d), comm_of(c), o);
    });
  });
  m.def("isend",
        [](const Buffer& buf, size_t n, int d, int dest, int tag, int c, const OptionArgs& opts) {
          return start<cm::Request>(buf, std::nullopt, opts, [&](B b, O o) {
            return cm::isend(b.in(), n, dtype_of(d), dest, tag, comm_of(c), o);
          });
        });
  m.def("irecv",
        [](const Buffer& buf, size_t n, int d, int source, int tag, int c, const OptionArgs& opts) {
          return start<cm::Request>(std::nullopt, buf, opts, [&](B b, O o) {
            return cm::irecv(b.out(), n, dtype_of(d), source, tag, comm_of(c), o);
          });
        });
  // Collective (the arguments are agreed here): raises on every rank, or returns the request.
  m.def("allreduce_init", [](const Buffer& s, const Buffer& r, size_t n, int d, int op, int c,
                             const OptionArgs& opts) {
    const cm::Options o = options(opts);
    auto p = std::make_unique<Persistent>(s, r);
    commpress::Result<cm::PersistentRequest> made = commpress::Status{};
    {
      nb::gil_scoped_release unlocked;
      made = cm::allreduce_init(p->buffers().in(), p->buffers().out(), n, dtype_of(d), op_of(op),
                                comm_of(c), o);
    }
    if (!made.ok()) raise_status(made.status());
    p->set(std::move(*made));
    return p;
  });
  m.def("progress_thread_available", &cm::progress_thread_available);
  m.def("set_error_factory", &commpress::python::set_error_factory);
}
