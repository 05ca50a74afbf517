// Codec work on SMPI shared memory done once (COMMPRESS_SMPI only; docs/smpi.md, "Codec work
// on the shared payload"). SMPI runs every simulated rank in this one process, and a driver's
// large buffers can be SMPI shared memory, the same pages for every rank. A codec operation
// on values lying wholly in such memory, with the same inputs (values, incoming frame, codec,
// dtype, bound, length) as one already executed by any rank, is not executed again: its frame
// is the one computed then, byte for byte, and the rank is charged the CPU time that execution
// took, converted as SMPI's benchmark converts it (smpi_execute), as SMPI_SHARED_CALL and
// SMPI_SAMPLE_* do for a program's own kernels. Values in private memory are always computed;
// COMMPRESS_SMPI_REUSE=off computes everything. Outside SMPI these are the computation itself.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "comm/transport/wire.hpp"

namespace commpress::comm::detail {

#ifdef COMMPRESS_SMPI
// compute() writes into out the frame made from values (n elements of wire's dtype) and, if
// non-empty, the incoming frame in; op names the operation (its other parameters are wire's).
Status reused_frame(const Wire& wire, const char* op, const void* values, size_t n,
                    std::span<const std::byte> in, std::vector<std::byte>& out,
                    const std::function<Status()>& compute);
// compute() decodes frame into out (n elements); on a reuse out is left as it is: it is
// shared memory, where every rank's result lands on the same pages and none is checked.
Status reused_decode(const Wire& wire, std::span<const std::byte> frame, void* out, size_t n,
                     const std::function<Status()>& compute);
#else
template <class F>
Status reused_frame(const Wire&, const char*, const void*, size_t, std::span<const std::byte>,
                    std::vector<std::byte>&, F&& compute) {
  return compute();
}
template <class F>
Status reused_decode(const Wire&, std::span<const std::byte>, void*, size_t, F&& compute) {
  return compute();
}
#endif

}  // namespace commpress::comm::detail
