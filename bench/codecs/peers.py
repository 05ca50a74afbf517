#!/usr/bin/env python3
"""Peer compressors (SZ3, ZFP, zstd, LZ4, Blosc2) on the benchmark data sets.

Same files, same metrics, same rules as bench_codecs: REL resolved to an absolute bound as
(max - min) * rel over the whole array; one warm-up, then the median of up to --repeats timed
runs within --budget seconds per direction; a prefix when one compress + decompress of the
whole would take longer than --subset-seconds; GB/s = uncompressed bytes / seconds.

The bindings allocate their outputs. So that this costs what buffer reuse costs in the C++
bench (no fresh page faults per call), the script re-executes itself with glibc's mmap
threshold disabled and heap trimming off: freed buffers are reused by the next call.
"""
import argparse
import csv
import json
import os
import platform
import sys
import time
from importlib import metadata

MALLOC_ENV = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(1 << 40)}
if any(os.environ.get(k) != v for k, v in MALLOC_ENV.items()):
    os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, **MALLOC_ENV})

import numpy as np  # noqa: E402

COLUMNS = ("source,codec,dataset,dtype,n,n_used,layout,mode,rel,abs_bound,threads,repeats_c,"
           "repeats_d,bytes_in,bytes_out,ratio,compress_gbps,decompress_gbps,max_abs_err,check,"
           "note,elapsed_s").split(",")
PROBE_COUNT = 1 << 18      # as in measure.cpp
SUBSET_QUANTUM = 1 << 16


# --- the peers -------------------------------------------------------------------------------
class Peer:
    """A compressor binding: compress(x, abs_bound, threads) -> bytes-like,
    decompress(blob, like, threads) -> array of like's shape and dtype."""
    lossy = False
    threads = (1,)           # thread counts the binding can be told to use
    uses_shape = False       # True: given the data set's n-D shape instead of a flat array

    def __init__(self, name):
        self.name = name


class Sz3(Peer):
    lossy = True
    uses_shape = True

    def __init__(self):
        super().__init__("sz3")
        import pysz
        self.pysz = pysz

    def compress(self, x, eb, threads):
        cfg = self.pysz.szConfig()
        cfg.errorBoundMode = self.pysz.szErrorBoundMode.ABS
        cfg.absErrorBound = eb
        cfg.openmp = False
        blob, _ = self.pysz.sz.compress(x, cfg)
        return blob

    def decompress(self, blob, like, threads):
        out, _ = self.pysz.sz.decompress(blob, like.dtype, like.shape)
        return out


class Zfpy(Peer):
    lossy = True
    uses_shape = True

    def __init__(self):
        super().__init__("zfpy")
        import zfpy
        self.zfpy = zfpy

    def compress(self, x, eb, threads):
        return self.zfpy.compress_numpy(x, tolerance=eb)

    def decompress(self, blob, like, threads):
        return self.zfpy.decompress_numpy(blob)


class Zstandard(Peer):
    def __init__(self, level):
        super().__init__(f"zstandard-{level}")
        import zstandard
        self.c = zstandard.ZstdCompressor(level=level, threads=0)  # 0: no worker threads
        self.d = zstandard.ZstdDecompressor()

    def compress(self, x, eb, threads):
        return self.c.compress(x)

    def decompress(self, blob, like, threads):
        return np.frombuffer(self.d.decompress(blob), dtype=like.dtype)


class Lz4Block(Peer):
    def __init__(self):
        super().__init__("lz4.block")
        import lz4.block
        self.lz4 = lz4.block

    def compress(self, x, eb, threads):
        return self.lz4.compress(x, mode="default")

    def decompress(self, blob, like, threads):
        return np.frombuffer(self.lz4.decompress(blob), dtype=like.dtype)


class Blosc2(Peer):
    threads = (1, 2)

    def __init__(self, codec, filt):
        import blosc2
        super().__init__(f"blosc2-{codec.lower()}-{filt.lower()}")
        self.blosc2 = blosc2
        self.codec = getattr(blosc2.Codec, codec)
        self.filt = getattr(blosc2.Filter, filt)

    def compress(self, x, eb, threads):
        cp = self.blosc2.CParams(codec=self.codec, typesize=x.itemsize, nthreads=threads,
                                 filters=[self.filt])  # clevel: the binding's default (5)
        return self.blosc2.compress2(x, cparams=cp)

    def decompress(self, blob, like, threads):
        out = np.empty_like(like)
        self.blosc2.decompress2(blob, dst=out, dparams=self.blosc2.DParams(nthreads=threads))
        return out


def all_peers():
    makers = [Sz3, Zfpy, lambda: Zstandard(1), lambda: Zstandard(3), Lz4Block]
    makers += [lambda c=c, f=f: Blosc2(c, f) for c in ("BLOSCLZ", "LZ4", "ZSTD")
               for f in ("SHUFFLE", "BITSHUFFLE")]
    peers, missing = [], []
    for make in makers:
        try:
            peers.append(make())
        except ImportError as e:  # a peer that is not installed is reported, not fatal
            missing.append(str(e))
    return peers, missing


# --- data ------------------------------------------------------------------------------------
def load_datasets(data_dir, only):
    with open(os.path.join(data_dir, "datasets.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    sets = []
    for r in rows:
        if only and r["name"] not in only:
            continue
        dtype = {"f32": np.float32, "f64": np.float64}[r["dtype"]]
        x = np.fromfile(os.path.join(data_dir, r["file"]), dtype=dtype)
        if x.size != int(r["count"]):
            sys.exit(f"peers.py: {r['file']} holds {x.size} values, the manifest says {r['count']}")
        shape = tuple(int(s) for s in r["shape"].split("x"))
        finite = x[np.isfinite(x)]
        span = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
        sets.append({"name": r["name"], "dtype": r["dtype"], "x": x, "shape": shape, "span": span})
    for name in only or ():
        if name not in [s["name"] for s in sets]:
            sys.exit(f"peers.py: no data set '{name}' in {data_dir}")
    return sets


def abs_bound(span, rel):
    """REL -> ABS as commpress::codec::resolve_abs_bound does; span = (min, max) of the finite
    values."""
    lo, hi = span
    eb = rel * (hi - lo)
    if not eb > 0:
        eb = rel * max(abs(lo), abs(hi))
    return eb


def shaped(x, shape, uses_shape):
    """x (a prefix of the data set) in the shape the peer is given."""
    if uses_shape and len(shape) > 1:
        slab = int(np.prod(shape[1:]))
        if x.size % slab == 0:
            return x.reshape((x.size // slab,) + tuple(shape[1:]))
    return x


# --- measuring -------------------------------------------------------------------------------
def time_once(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def time_median(fn, repeats):
    return float(np.median([time_once(fn)[0] for _ in range(repeats)])), repeats


def repeats_within(one_run, budget, max_repeats):
    if not one_run > 0:
        return max_repeats
    return max(1, min(max_repeats, int(budget / one_run)))


def values_to_measure(peer, ds, eb, threads, args):
    n = ds["x"].size
    if n <= PROBE_COUNT:
        return n
    probe = shaped(ds["x"][:PROBE_COUNT], ds["shape"], peer.uses_shape)
    tc, blob = time_once(lambda: peer.compress(probe, eb, threads))
    td, _ = time_once(lambda: peer.decompress(blob, probe, threads))
    whole = (tc + td) * n / PROBE_COUNT
    if whole <= args.subset_seconds:
        return n
    used = int(n * args.subset_seconds / whole) // SUBSET_QUANTUM * SUBSET_QUANTUM
    return min(max(used, PROBE_COUNT), n)


def measure(peer, ds, rel, threads, used, args):
    """used: values to measure, 0 to decide by timing."""
    x_all = ds["x"]
    row = dict(source="peer", codec=peer.name, dataset=ds["name"], dtype=ds["dtype"],
               n=x_all.size, mode="rel" if rel else "lossless", rel=rel, abs_bound=0.0,
               threads=threads, check="ok", note="")
    eb = abs_bound(ds["span"], rel) if rel else 0.0
    row["abs_bound"] = eb
    used = used or values_to_measure(peer, ds, eb, threads, args)
    x = shaped(x_all[:used], ds["shape"], peer.uses_shape)
    row.update(n_used=used, layout="x".join(map(str, x.shape)) if x.ndim > 1 else "1-D",
               bytes_in=x.nbytes)
    if used < x_all.size:
        row["note"] = f"measured on the first {used} values (slow codec)"

    tc, blob = time_once(lambda: peer.compress(x, eb, threads))
    td, y = time_once(lambda: peer.decompress(blob, x, threads))
    y = np.asarray(y).reshape(x.shape)
    err = float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))) if x.size else 0.0
    row["max_abs_err"] = err
    if peer.lossy and not err <= eb:
        row["check"] = "VIOLATION"
        row["note"] = (row["note"] + "; " if row["note"] else "") + f"max error {err} > bound {eb}"
    if not peer.lossy and not np.array_equal(x.view(np.uint8), np.ascontiguousarray(y).view(np.uint8)):
        row["check"] = "VIOLATION"
        row["note"] = (row["note"] + "; " if row["note"] else "") + "lossless round trip differs"
    row["bytes_out"] = len(blob) if not isinstance(blob, np.ndarray) else blob.nbytes

    row["compress_s"], row["repeats_c"] = time_median(
        lambda: peer.compress(x, eb, threads), repeats_within(tc, args.budget, args.repeats))
    row["decompress_s"], row["repeats_d"] = time_median(
        lambda: peer.decompress(blob, x, threads), repeats_within(td, args.budget, args.repeats))
    return row


def csv_row(r):
    gbps = lambda s: r["bytes_in"] / s / 1e9 if s > 0 else 0.0  # noqa: E731
    out = dict(r)
    out.update(rel=f"{r['rel']:.6g}", abs_bound=f"{r['abs_bound']:.17g}",
               ratio=f"{r['bytes_in'] / r['bytes_out']:.6f}" if r.get("bytes_out") else "0",
               compress_gbps=f"{gbps(r.get('compress_s', 0)):.6g}",
               decompress_gbps=f"{gbps(r.get('decompress_s', 0)):.6g}",
               max_abs_err=f"{r.get('max_abs_err', 0):.9g}", elapsed_s=f"{r['elapsed_s']:.3f}",
               note=str(r.get("note", "")).replace(",", ";").replace("\n", " "))
    return {k: out.get(k, 0) for k in COLUMNS}


def versions():
    v = {"python": platform.python_version(), "numpy": np.__version__}
    for dist in ("pysz", "zfpy", "zstandard", "lz4", "blosc2"):
        try:
            v[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            v[dist] = "not installed"
    return v


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="directory written by `bench_codecs gen`")
    p.add_argument("--out", default="-", help="CSV destination, - for stdout")
    p.add_argument("--meta", help="write the peers' versions here (JSON)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--budget", type=float, default=0.6)
    p.add_argument("--subset-seconds", type=float, default=1.0)
    p.add_argument("--rel", default="1e-2,1e-3,1e-4")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--peers", default="", help="comma-separated names; default all")
    p.add_argument("--datasets", default="", help="comma-separated names; default all")
    a = p.parse_args()
    a.rel = [float(s) for s in a.rel.split(",") if s]
    a.threads = [int(s) for s in a.threads.split(",") if s]
    a.peers = [s for s in a.peers.split(",") if s]
    a.datasets = [s for s in a.datasets.split(",") if s]
    if a.repeats < 1 or not a.budget > 0 or not a.subset_seconds > 0 or not a.rel or not a.threads:
        p.error("--repeats, --budget, --subset-seconds, --rel and --threads must be positive")
    return a


def main():
    args = parse_args()
    peers, missing = all_peers()
    for m in missing:
        print(f"peers.py: skipping a peer that is not installed: {m}", file=sys.stderr)
    if args.peers:
        unknown = set(args.peers) - {p.name for p in peers}
        if unknown:
            sys.exit(f"peers.py: unknown peers {sorted(unknown)}; known: {[p.name for p in peers]}")
        peers = [p for p in peers if p.name in args.peers]
    sets = load_datasets(args.data, args.datasets)
    if args.meta:
        with open(args.meta, "w") as f:
            json.dump(versions(), f, indent=2)

    jobs = [(p, ds, rel, t) for ds in sets for p in peers
            for rel in (args.rel if p.lossy else [0.0])
            for t in p.threads if t in args.threads]
    out = sys.stdout if args.out == "-" else open(args.out, "w", newline="")
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    problems, start = [], time.perf_counter()
    subset = {}  # the first thread count's choice, so all thread counts measure the same bytes
    for i, (peer, ds, rel, t) in enumerate(jobs, 1):
        t0 = time.perf_counter()
        try:
            row = measure(peer, ds, rel, t, subset.get((peer.name, ds["name"], rel), 0), args)
            subset[(peer.name, ds["name"], rel)] = row["n_used"]
        except Exception as e:  # a failing peer is a result to report, not a crash
            row = dict(source="peer", codec=peer.name, dataset=ds["name"], dtype=ds["dtype"],
                       n=ds["x"].size, n_used=0, mode="rel" if rel else "lossless", rel=rel,
                       abs_bound=0.0, threads=t, check="error", note=f"{type(e).__name__}: {e}")
        row["elapsed_s"] = time.perf_counter() - t0
        line = csv_row(row)
        writer.writerow(line)
        out.flush()
        bound = f"rel {rel:g}" if rel else "lossless"
        print(f"[{i}/{len(jobs)}] {peer.name:<24} {ds['name']:<15} {bound:<8} {t}T ratio "
              f"{float(line['ratio']):8.3f}  c {float(line['compress_gbps']):7.3f} GB/s  "
              f"d {float(line['decompress_gbps']):7.3f} GB/s  err {float(line['max_abs_err']):.3g}"
              f" <= {float(line['abs_bound']):.3g}  {line['check']} ({row['elapsed_s']:.1f} s)"
              f"{'  ' + line['note'] if line['note'] else ''}", file=sys.stderr)
        if line["check"] != "ok":
            problems.append(f"{line['check']}: {peer.name} on {ds['name']} ({bound}, {t}T): "
                            f"{line['note']}")
    print(f"peers.py: {len(jobs)} measurements in {time.perf_counter() - start:.0f} s",
          file=sys.stderr)
    if problems:
        print(f"\n!!!!!!!! peers.py: {len(problems)} PROBLEM(S) !!!!!!!!", file=sys.stderr)
        for p in problems:
            print("!!! " + p, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
