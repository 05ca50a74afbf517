// Every collective of include/commpress/comm.hpp, and the same through the C API of
// include/commpress.h, behind one signature: tests pick "operation k" per rank and call it
// with one set of arguments, whatever its role or its verb's argument list.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "commpress.h"
#include "commpress/comm.hpp"

namespace commpress::testing::comm {

namespace cc = commpress::comm;

// The arguments every collective takes (send/recv hold count * ranks elements where the
// operation needs that many; nothing is read past what the count says).
struct CallArgs {
  const void* send;
  void* recv;
  size_t count;
  codec::Dtype dtype;
  int root;
  MPI_Comm comm;
  cc::Options opts;
};

struct Collective {
  std::string name;  // "allreduce", ...; "C allreduce" through the C API
  std::function<Status(const CallArgs&)> call;
};

inline Status status_of(const Result<cc::Report>& r) {
  return r.status();
}

// A C status as the C++ one, with the message commpress_last_error gives.
inline Status status_of(commpress_status st) {
  return st == COMMPRESS_OK ? Status{} : Status{ErrorCode(int(st)), commpress_last_error()};
}

// C options holding what the C++ options say (codec, bound, algorithm).
class COptions {
 public:
  explicit COptions(const cc::Options& o) {
    commpress_options_create(&opts_);
    commpress_options_set_codec(opts_, o.codec.c_str());
    commpress_options_set_bound(opts_, commpress_bound_mode(int(o.bound.mode)), o.bound.value);
    commpress_options_set_algorithm(opts_, commpress_algorithm(int(o.algorithm)));
  }
  ~COptions() { commpress_options_destroy(opts_); }
  COptions(const COptions&) = delete;
  COptions& operator=(const COptions&) = delete;
  const commpress_options* get() const { return opts_; }

 private:
  commpress_options* opts_ = nullptr;
};

inline std::vector<Collective> cpp_collectives() {
  using A = const CallArgs&;
  const cc::Op sum = cc::Op::sum;
  return {
      {"allreduce",
       [=](A a) {
         return status_of(cc::allreduce(a.send, a.recv, a.count, a.dtype, sum, a.comm, a.opts));
       }},
      {"reduce",
       [=](A a) {
         return status_of(
             cc::reduce(a.send, a.recv, a.count, a.dtype, sum, a.root, a.comm, a.opts));
       }},
      {"reduce_scatter_block",
       [=](A a) {
         return status_of(
             cc::reduce_scatter_block(a.send, a.recv, a.count, a.dtype, sum, a.comm, a.opts));
       }},
      {"bcast",
       [](A a) { return status_of(cc::bcast(a.recv, a.count, a.dtype, a.root, a.comm, a.opts)); }},
      {"allgather",
       [](A a) {
         return status_of(cc::allgather(a.send, a.recv, a.count, a.dtype, a.comm, a.opts));
       }},
      {"scatter",
       [](A a) {
         return status_of(cc::scatter(a.send, a.recv, a.count, a.dtype, a.root, a.comm, a.opts));
       }},
      {"gather",
       [](A a) {
         return status_of(cc::gather(a.send, a.recv, a.count, a.dtype, a.root, a.comm, a.opts));
       }},
  };
}

inline std::vector<Collective> c_collectives() {
  using A = const CallArgs&;
  auto dt = [](codec::Dtype d) { return commpress_dtype(int(d)); };
  return {
      {"C allreduce",
       [=](A a) {
         COptions o(a.opts);
         return status_of(commpress_allreduce(a.send, a.recv, a.count, dt(a.dtype), COMMPRESS_SUM,
                                              a.comm, o.get(), nullptr));
       }},
      {"C reduce",
       [=](A a) {
         COptions o(a.opts);
         return status_of(commpress_reduce(a.send, a.recv, a.count, dt(a.dtype), COMMPRESS_SUM,
                                           a.root, a.comm, o.get(), nullptr));
       }},
      {"C reduce_scatter_block",
       [=](A a) {
         COptions o(a.opts);
         return status_of(commpress_reduce_scatter_block(a.send, a.recv, a.count, dt(a.dtype),
                                                         COMMPRESS_SUM, a.comm, o.get(), nullptr));
       }},
      {"C bcast",
       [=](A a) {
         COptions o(a.opts);
         return status_of(
             commpress_bcast(a.recv, a.count, dt(a.dtype), a.root, a.comm, o.get(), nullptr));
       }},
      {"C allgather",
       [=](A a) {
         COptions o(a.opts);
         return status_of(
             commpress_allgather(a.send, a.recv, a.count, dt(a.dtype), a.comm, o.get(), nullptr));
       }},
      {"C scatter",
       [=](A a) {
         COptions o(a.opts);
         return status_of(commpress_scatter(a.send, a.recv, a.count, dt(a.dtype), a.root, a.comm,
                                            o.get(), nullptr));
       }},
      {"C gather",
       [=](A a) {
         COptions o(a.opts);
         return status_of(commpress_gather(a.send, a.recv, a.count, dt(a.dtype), a.root, a.comm,
                                           o.get(), nullptr));
       }},
  };
}

// Both lists: the C++ collectives, then the C ones in the same order.
inline std::vector<Collective> all_collectives() {
  auto all = cpp_collectives();
  for (auto& c : c_collectives()) all.push_back(std::move(c));
  return all;
}

// The option sets the tests run under: exact (Auto, nothing to compress with), lossy szp,
// and MPI's own operation forced (nothing of commpress's runs after the agreement).
inline std::vector<cc::Options> option_sets() {
  cc::Options lossy, mpi;
  lossy.codec = "szp";
  lossy.bound = codec::ErrorBound::absolute(1e-3);
  mpi.algorithm = cc::Algorithm::Mpi;
  return {cc::Options{}, lossy, mpi};
}

inline std::string describe_options(const cc::Options& o) {
  return o.codec + ", " + cc::algorithm_name(o.algorithm);
}

}  // namespace commpress::testing::comm
