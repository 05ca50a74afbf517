"""A PyTorch DistributedDataParallel communication hook that averages gradient buckets with
commpress's error-bounded allreduce (commpress.mpi) instead of the process group's allreduce.

    from mpi4py import MPI
    import torch, commpress.torch as ctorch
    ctorch.init_process_group()                        # gloo, rank and size from MPI
    model = torch.nn.parallel.DistributedDataParallel(net)
    state = ctorch.AllreduceState(abs=1e-4, start_compression_iter=10)
    model.register_comm_hook(state, ctorch.allreduce_hook)

The shape follows PyTorch's PowerSGD hook: a state object made on every rank, plain (process
group) allreduce for the first ``start_compression_iter`` iterations, then the compressed one.
The bound applies to the averaged gradient the bucket receives. Ranks run under mpirun; the
collective runs on an mpi4py communicator (CPU tensors: DDP's gloo backend).

The hook starts the bucket's allreduce with the nonblocking commpress.mpi.iallreduce on
DDP's thread and returns a torch.futures.Future that completes when the request does: one
waiter thread per state calls the requests' wait() in the order DDP hands the buckets over
(the order they complete in: one communicator's operations run in the order started, the
same on every rank) and sets each future. The collective itself progresses on the library's
progress thread (MPI_THREAD_MULTIPLE), so backward computation goes on while a bucket is on
the wire.
"""

# No `from __future__ import annotations`: DDP's register_comm_hook checks the hook's return
# annotation against torch.futures.Future[torch.Tensor] itself, not its string.
import os
import socket
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

import torch
import torch.distributed as dist
from mpi4py import MPI

from . import mpi as cmpi
from ._errors import InvalidArgument

_DTYPES = (torch.float32, torch.float64)


def init_process_group(comm=None, backend: str = "gloo", **kwargs) -> None:
    """torch.distributed.init_process_group with the rank and size of an mpi4py communicator
    (default MPI.COMM_WORLD), so ranks started by mpirun need no torchrun. Rank 0's host
    (MASTER_ADDR if set) and a free port there (MASTER_PORT if set) are the rendezvous."""
    comm = MPI.COMM_WORLD if comm is None else comm
    where = None
    if comm.Get_rank() == 0:
        host = os.environ.get("MASTER_ADDR") or socket.gethostname()
        port = os.environ.get("MASTER_PORT")
        if port is None:
            with socket.socket() as s:     # the kernel picks a free port
                s.bind(("", 0))
                port = s.getsockname()[1]
        where = f"tcp://{host}:{port}"
    dist.init_process_group(backend, init_method=comm.bcast(where, root=0),
                            rank=comm.Get_rank(), world_size=comm.Get_size(), **kwargs)


class AllreduceState:
    """What allreduce_hook needs; made on every rank of the DDP group (the constructor is
    collective: it raises commpress.InvalidArgument on every rank if the ranks' arguments
    differ, or if the communicator and the process group differ in size).

    comm: the mpi4py communicator (default MPI.COMM_WORLD), the process group's ranks.
    codec, rel, abs, algorithm: as commpress.mpi.allreduce; the bound is on the averaged
      gradient (neither rel nor abs: exact).
    start_compression_iter: iterations averaged by the process group's plain allreduce before
      compression starts (PowerSGD's start_powerSGD_iter): early gradients are large and
      shape the run.
    process_group: the DDP process group (default the world group).

    ``iter`` counts finished iterations; ``reports`` maps a bucket's index to the
    commpress.mpi.Report of its latest compressed allreduce.
    """

    def __init__(self, *, comm=None, codec: Optional[str] = None, rel: Optional[float] = None,
                 abs: Optional[float] = None, algorithm: str = "auto",
                 start_compression_iter: int = 0, process_group=None):
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.codec, self.rel, self.abs, self.algorithm = codec, rel, abs, algorithm
        self.start_compression_iter = start_compression_iter
        self.process_group = process_group
        self.iter = 0
        self.reports = {}   # bucket index -> commpress.mpi.Report
        group_size = dist.get_world_size(process_group)
        mine = (codec, rel, abs, algorithm, start_compression_iter, group_size)
        everyone = self.comm.allgather(mine)
        problems = []
        if start_compression_iter < 0:
            problems.append(f"start_compression_iter {start_compression_iter} < 0")
        if group_size != self.comm.Get_size():
            problems.append(f"process group of {group_size} ranks, communicator of "
                            f"{self.comm.Get_size()}")
        if any(other != mine for other in everyone):
            names = ("codec", "rel", "abs", "algorithm", "start_compression_iter", "group size")
            problems += [f"{name} differs across ranks: {[e[i] for e in everyone]}"
                         for i, name in enumerate(names) if len({repr(e[i]) for e in everyone}) > 1]
        # everyone's problems, so the message and the outcome are the same on every rank
        problems = sorted(set(sum(self.comm.allgather(problems), [])))
        if problems:
            raise InvalidArgument("AllreduceState: " + "; ".join(problems))
        # One waiter thread completes the futures in the order the requests complete. Without
        # MPI_THREAD_MULTIPLE the request has completed when started: no waiter.
        threaded = MPI.Query_thread() == MPI.THREAD_MULTIPLE
        self._worker = ThreadPoolExecutor(1, "commpress-ddp") if threaded else None

    def _start(self, array):
        """Starts the compressed allreduce of ``array`` in place; returns a function that
        waits for it and returns its Report."""
        request = cmpi.iallreduce(MPI.IN_PLACE, array, op="sum", comm=self.comm,
                                  codec=self.codec, rel=self.rel, abs=self.abs,
                                  algorithm=self.algorithm)
        return lambda: request.wait()[1]


def _plain_allreduce(state: AllreduceState, bucket) -> torch.futures.Future[torch.Tensor]:
    """DDP's own averaging (its default hook) through the process group."""
    buf = bucket.buffer().div_(dist.get_world_size(state.process_group))
    work = dist.all_reduce(buf, group=state.process_group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(state: AllreduceState, bucket) -> torch.futures.Future[torch.Tensor]:
    """DDP communication hook (register with ``model.register_comm_hook(state,
    allreduce_hook)``): the bucket's gradients averaged across ranks, within the state's bound
    once ``state.iter`` reaches ``start_compression_iter``. Errors (arguments differing across
    ranks, a failed collective) fail the future on every rank: DDP raises a RuntimeError from
    backward naming the commpress.Error and its message."""
    compress = state.iter >= state.start_compression_iter
    if bucket.is_last():
        state.iter += 1
    if not compress:
        return _plain_allreduce(state, bucket)
    buf = bucket.buffer()
    if buf.device.type != "cpu" or buf.dtype not in _DTYPES:
        raise InvalidArgument(f"allreduce_hook: gradients {buf.dtype} on {buf.device}: CPU "
                              "float32 or float64 only")
    buf.div_(dist.get_world_size(state.process_group))
    wait = state._start(buf.numpy())   # shares the bucket's memory: reduced in place
    index, fut = bucket.index(), torch.futures.Future()

    def finish():
        try:
            state.reports[index] = wait()
        except BaseException as e:   # noqa: B036  (handed to DDP, which raises it in backward)
            # Without its traceback: the traceback's frames hold this future and the request
            # (its buffers), a cycle through the future that Python's collector cannot see.
            fut.set_exception(e.with_traceback(None))
        else:
            fut.set_result(buf)
    if state._worker is None:
        finish()
    else:
        state._worker.submit(finish)
    # DDP reads a future's value in C++, where set_exception's error is no Tensor; an error
    # raised inside `then` completes the returned future as failed, and DDP raises it.
    return fut.then(lambda done: done.value())
