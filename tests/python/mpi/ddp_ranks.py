"""Run under mpirun by tests/python/test_torch.py: commpress.torch's DDP hook on gloo.

A compressed bucket is within the state's bound of the exact average, warm-up iterations are
DDP's plain average bit for bit, a state that differs across ranks raises on every rank, and a
small model trained with the hook ends within 1% of the loss of the same training with DDP's
own allreduce. One launch for all (importing torch is most of its time). Any failed check
exits non-zero.
"""

import sys

import numpy as np
import torch
from mpi4py import MPI
from torch.nn.parallel import DistributedDataParallel as DDP

import commpress
import commpress.torch as ctorch

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
torch.set_num_threads(1)
ctorch.init_process_group()
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def net(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.Tanh(), torch.nn.Linear(64, 64),
                               torch.nn.Tanh(), torch.nn.Linear(64, 1))


def data(seed, n=256):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 32, generator=g)
    y = torch.sin(x[:, :4].sum(1, keepdim=True)) + 0.1 * x[:, 4:5]
    return x, y


def recorded(hook, records):
    """hook, remembering each bucket's local gradients and the future of its average."""
    def run(state, bucket):
        before = bucket.buffer().clone()
        fut = hook(state, bucket)
        records.append((bucket.index(), before, fut))
        return fut
    return run


def exact_average(local):
    a = local.double().numpy()
    out = np.empty_like(a)
    comm.Allreduce(a, out, op=MPI.SUM)
    return out / size


def one_step(model, x, y):
    model.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()


def hook_checks():
    x, y = data(100 + rank)
    # the bound on a bucket (small buckets: several per step)
    model = DDP(net(1), bucket_cap_mb=0.01)
    # (forced: at these sizes "auto" finds that compressing would not pay and runs MPI's own)
    state = ctorch.AllreduceState(codec="szp", abs=1e-4, algorithm="doc_ring")
    records = []
    model.register_comm_hook(state, recorded(ctorch.allreduce_hook, records))
    for step in range(3):
        records.clear()
        state.reports.clear()   # DDP rebuilds its buckets after the first iteration
        one_step(model, x, y)
        # DDP's first iteration runs one bucket, later ones as bucket_cap_mb asks
        check((step == 0 or len(records) > 1) and len(state.reports) == len(records),
              f"{len(records)} buckets")
        for index, before, fut in records:
            err = np.max(np.abs(fut.value().double().numpy() - exact_average(before)))
            rep = state.reports[index]
            bound = rep.guaranteed_abs_bound
            check(0 < bound <= 1e-4 + 1e-12 and err <= bound, f"bucket err {err} bound {bound}")
            check(rep.codec == "szp" and rep.algorithm == "doc_ring", f"ran {rep}")
    check(state.iter == 3, f"iter {state.iter}")

    # warm-up: DDP's plain average (two ranks: one rounding, as a float32 sum) bit for bit
    model = DDP(net(2))
    state = ctorch.AllreduceState(codec="szp", rel=1e-2, algorithm="doc_ring",
                                  start_compression_iter=2)
    model.register_comm_hook(state, recorded(ctorch.allreduce_hook, records))
    for step in range(3):
        records.clear()
        one_step(model, x, y)
        if step < 2:
            check(not state.reports, f"step {step}: compressed during warm-up")
            for _, before, fut in records:
                half = (before / size).numpy()
                want = np.empty_like(half)
                comm.Allreduce(half, want, op=MPI.SUM)
                check(size != 2 or np.array_equal(fut.value().numpy(), want), "warm-up average")
        else:
            check(len(state.reports) == len(records) > 0, "compressed after warm-up")

    # a state that differs across ranks fails on every rank, naming what differs
    for kwargs in ({"rel": 1e-3 * (rank + 1)}, {"start_compression_iter": rank}):
        try:
            ctorch.AllreduceState(codec="szp", **{"rel": 1e-3, **kwargs})
            check(False, f"{kwargs}: no error")
        except commpress.InvalidArgument as e:
            check(next(iter(kwargs)) in str(e), f"{kwargs}: {e}")
    try:
        ctorch.AllreduceState(codec="szp", rel=1e-3, start_compression_iter=-1)
        check(False, "start_compression_iter -1: no error")
    except commpress.InvalidArgument:
        pass
    # ... and so does one changed afterwards: the library's agreement fails the collective,
    # the future carries the error, and DDP raises it from backward on every rank
    model = DDP(net(4))
    state = ctorch.AllreduceState(codec="szp", rel=1e-3, algorithm="doc_ring")
    model.register_comm_hook(state, ctorch.allreduce_hook)
    state.rel = 1e-3 * (rank + 1)
    try:
        one_step(model, x, y)
        check(False, "bound changed on one rank: no error")
    except Exception as e:   # DDP wraps the future's error
        print(f"rank {rank}: {type(e).__name__}: {e}")
        check("mismatch" in str(e).lower(), f"bound changed on one rank: {e}")


def train(hook, state, steps=300):
    """Final training loss (the mean over ranks) of the same run with a given hook."""
    model = DDP(net(3))
    if hook is not None:
        model.register_comm_hook(state, hook)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = data(200 + rank)
    for _ in range(steps):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    with torch.no_grad():
        return comm.allreduce(torch.nn.functional.mse_loss(model(x), y).item()) / size


def train_checks():
    plain = train(None, None)
    state = ctorch.AllreduceState(codec="szp", rel=1e-3, algorithm="doc_ring",
                                  start_compression_iter=10)
    compressed = train(ctorch.allreduce_hook, state)
    ratio = min(r.ratio for r in state.reports.values())
    if rank == 0:
        print(f"final loss: DDP allreduce {plain:.6f}, commpress szp REL 1e-3 {compressed:.6f} "
              f"({100 * (compressed / plain - 1):+.3f}%), bucket ratio {ratio:.2f}")
    check(abs(compressed / plain - 1) <= 0.01, f"loss {compressed} vs {plain}")
    check(state.iter == 300 and ratio > 1, f"iter {state.iter} ratio {ratio}")


hook_checks()
train_checks()
failures = sum(comm.allgather(failures), [])
if rank == 0:
    print(f"ddp checks at {size} ranks: {len(failures)} failures")
    for f in failures:
        print("FAILED:", f)
torch.distributed.destroy_process_group()
sys.exit(1 if failures else 0)
