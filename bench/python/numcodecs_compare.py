#!/usr/bin/env python3
"""commpress from Python next to the numcodecs codecs users pick today, and the Python
overhead over the C++ call. Writes bench/results/python-numcodecs.md (bench/python/run).

1. On the benchmark data sets (bench/codecs: `bench_codecs gen`), through the numcodecs
   interface (encode, decode): commpress.numcodecs.Commpress (szp, zfp, pred-bit at an ABS
   bound; szp-lossless, zstd-3, blosc-lz4-bitshuffle lossless), numcodecs' Blosc and Zstd, ZFPY
   (zfpy) and SZ3 (pysz, no numcodecs codec: called directly). Lossy codecs get the same
   absolute bound, REL resolved over the whole data set as bench/codecs does. Ratio and GB/s
   (uncompressed bytes / median seconds), largest error checked against the bound.
2. commpress.compress/decompress against bench_python (the same calls in C++) on the first
   16 MiB and 4 KiB of smooth_field: per-call medians, overhead = Python / C++ - 1.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "codecs"))
import peers  # noqa: E402  (re-executes this script with its allocator settings)
import numpy as np  # noqa: E402
from numcodecs.compat import ensure_ndarray  # noqa: E402

import commpress  # noqa: E402
from commpress.numcodecs import Commpress  # noqa: E402


def numcodecs_contenders(eb):
    import numcodecs
    lossy = [("commpress szp", Commpress(codec="szp", abs=eb)),
             ("commpress zfp", Commpress(codec="zfp", abs=eb)),
             ("commpress pred-bit", Commpress(codec="pred-bit", abs=eb)),
             ("numcodecs ZFPY", numcodecs.ZFPY(tolerance=eb))]
    lossless = [("commpress szp-lossless", Commpress(codec="szp-lossless")),
                ("commpress zstd-3", Commpress(codec="zstd-3")),
                ("commpress blosc-lz4-bitshuffle", Commpress(codec="blosc-lz4-bitshuffle")),
                ("numcodecs Zstd(3)", numcodecs.Zstd(level=3)),
                ("numcodecs Blosc(lz4, bitshuffle)",
                 numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.BITSHUFFLE)),
                ("numcodecs Blosc(zstd, shuffle)",
                 numcodecs.Blosc(cname="zstd", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE))]
    return lossy, lossless


class Sz3Codec:
    """pysz as encode/decode (it has no numcodecs codec), given the data set's shape."""

    def __init__(self, eb, like):
        self.peer, self.eb, self.like = peers.Sz3(), eb, like

    def encode(self, x):
        return self.peer.compress(x, self.eb, 1)

    def decode(self, blob):
        return self.peer.decompress(blob, self.like, 1)


def measure(codec, x, repeats):
    tc, enc = peers.time_once(lambda: codec.encode(x))       # warm-up
    dec = codec.decode(enc)
    tc, _ = peers.time_median(lambda: codec.encode(x), repeats)
    td, _ = peers.time_median(lambda: codec.decode(enc), repeats)
    back = ensure_ndarray(dec).view(x.dtype).reshape(x.shape)   # Zstd, Blosc decode to bytes
    err = float(np.max(np.abs(back.astype(np.float64) - x))) if x.size else 0.0
    return {"ratio": x.nbytes / len(memoryview(enc).cast("B")),
            "c_gbps": x.nbytes / tc / 1e9, "d_gbps": x.nbytes / td / 1e9, "err": err}


def comparison(args):
    rows = []
    for ds in peers.load_datasets(args.data, args.datasets):
        eb = peers.abs_bound(ds["span"], args.rel)
        x = ds["x"]
        lossy, lossless = numcodecs_contenders(eb)
        shaped = peers.shaped(x, ds["shape"], True)
        entries = [(n, c, x, eb) for n, c in lossy] + [("pysz SZ3", Sz3Codec(eb, shaped), shaped, eb)]
        entries += [(n, c, x, 0.0) for n, c in lossless]
        for name, codec, data, bound in entries:
            m = measure(codec, data, args.repeats)
            ok = m["err"] <= bound if bound > 0 else m["err"] == 0
            rows.append({"dataset": ds["name"], "dtype": ds["dtype"], "codec": name,
                         "bound": bound, "ok": ok, **m})
            print(f"{ds['name']:>16} {name:<34} ratio {m['ratio']:7.2f}  "
                  f"c {m['c_gbps']:6.3f} GB/s  d {m['d_gbps']:6.3f} GB/s  {'ok' if ok else 'BOUND VIOLATED'}",
                  flush=True)
    return rows


def python_per_call(fn, calls, rounds):
    fn()
    per = []
    for _ in range(rounds):
        t, _ = peers.time_once(lambda: [fn() for _ in range(calls)])
        per.append(t / calls)
    return float(np.median(per))


def overhead(args):
    path = os.path.join(args.data, "smooth_field.f32")
    rows = []
    for label, nbytes, calls, rounds in (("16 MiB", 16 << 20, 3, 7), ("4 KiB", 4 << 10, 2000, 7)):
        n = nbytes // 4
        x = np.fromfile(path, dtype=np.float32, count=n)
        cpp_runs, py_runs = [], []
        for _ in range(args.alternations):     # alternated, so both see the same machine load
            out = subprocess.run([args.bench_python, path, str(n), "szp", str(args.rel),
                                  str(calls), str(rounds)], check=True, capture_output=True,
                                 text=True).stdout
            cpp_runs.append(json.loads(out))
            buf = commpress.compress(x, "szp", rel=args.rel)
            dst = np.empty_like(x)
            py_runs.append({
                "compress_s": python_per_call(lambda: commpress.compress(x, "szp", rel=args.rel),
                                              calls, rounds),
                "decompress_s": python_per_call(lambda: commpress.decompress(buf), calls, rounds),
                "decompress_out_s": python_per_call(lambda: commpress.decompress(buf, out=dst),
                                                    calls, rounds)})
        best = lambda runs, k: min(r[k] for r in runs)  # noqa: E731  (least disturbed run)
        rows.append({"size": label, "cpp_c": best(cpp_runs, "compress_s"),
                     "cpp_d": best(cpp_runs, "decompress_s"), "py_c": best(py_runs, "compress_s"),
                     "py_d": best(py_runs, "decompress_s"),
                     "py_d_out": best(py_runs, "decompress_out_s")})
    return rows


def render(args, rows, over):
    import numcodecs
    import zfpy
    from importlib import metadata
    lines = ["# Python: commpress next to numcodecs, and the Python overhead", "",
             f"Command: `bench/python/run{(' ' + ' '.join(args.argv)) if args.argv else ''}`  ",
             f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}  ",
             f"Machine: {platform.node()}, {os.cpu_count()} CPUs ({platform.processor() or platform.machine()}); "
             f"Python {platform.python_version()}, numpy {np.__version__}, commpress {commpress.__version__} "
             f"(wheel built without the hwcaps variants: baseline x86-64), numcodecs {numcodecs.__version__}, "
             f"zfpy {metadata.version('zfpy')}, pysz {metadata.version('pysz')}  ",
             f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; one run, "
             f"median of {args.repeats} timed calls after a warm-up; the machine was shared with "
             "other jobs, so GB/s carry noise of tens of percent.", "",
             f"## Codecs through numcodecs' interface (REL {args.rel} resolved over each whole data set)",
             "", "Data: bench/codecs' data sets (`bench_codecs gen`, "
             f"{os.path.basename(os.path.normpath(args.data))} values each). GB/s = uncompressed bytes / "
             "median seconds of `encode` / `decode`; `decode` allocates its output. "
             "`max err ≤ bound` is checked on every element.", "",
             "| data set | codec | bound | ratio | encode GB/s | decode GB/s | max err ≤ bound |",
             "|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['dataset']} ({r['dtype']}) | {r['codec']} | "
                     f"{'lossless' if r['bound'] == 0 else format(r['bound'], '.3g')} | {r['ratio']:.2f} | "
                     f"{r['c_gbps']:.3f} | {r['d_gbps']:.3f} | {'yes' if r['ok'] else '**NO**'} |")
    lines += ["", "## Python overhead over the C++ call (szp, REL "
              f"{args.rel}, smooth_field float32)", "",
              "C++: `bench_python` (`Codec::compress_into` into a reused buffer and Workspace, the "
              "dispatching `decompress` into a reused array). Python: `commpress.compress` "
              "(bytes out) and `commpress.decompress` (new array; and with `out=`). Per-call "
              f"medians; the best of {args.alternations} alternated runs of each.", "",
              "| size | C++ compress | Python compress | overhead | C++ decompress | Python decompress | overhead | Python decompress(out=) | overhead |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    fmt = lambda s: f"{s * 1e6:.1f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"  # noqa: E731
    pct = lambda a, b: f"{(a / b - 1) * 100:+.1f}%"  # noqa: E731
    for o in over:
        lines.append(f"| {o['size']} | {fmt(o['cpp_c'])} | {fmt(o['py_c'])} | {pct(o['py_c'], o['cpp_c'])} | "
                     f"{fmt(o['cpp_d'])} | {fmt(o['py_d'])} | {pct(o['py_d'], o['cpp_d'])} | "
                     f"{fmt(o['py_d_out'])} | {pct(o['py_d_out'], o['cpp_d'])} |")
    big = next(o for o in over if o["size"] == "16 MiB")
    worst = max(big["py_c"] / big["cpp_c"], big["py_d"] / big["cpp_d"]) - 1
    lines += ["", "## Targets", "",
              f"- Python overhead ≤ 5% at 16 MiB: {'met' if worst <= 0.05 else '**missed**'} "
              f"(worst {worst * 100:+.1f}%). At 4 KiB the fixed cost per call (argument parsing, "
              "the container header, allocating the result) is a visible share; see the table.",
              *(["- A negative overhead means the machine's load changed between the alternated "
                 "runs: differences of that size are noise, not a gain."]
                if any(o[k] < o[c] for o in over for k, c in
                       (("py_c", "cpp_c"), ("py_d", "cpp_d"), ("py_d_out", "cpp_d"))) else []),
              f"- Bounds: {'every lossy result within its bound' if all(r['ok'] for r in rows) else '**violations above**'}."]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--bench-python", required=True, help="the bench_python program")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rel", type=float, default=1e-3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--alternations", type=int, default=3)
    ap.add_argument("--datasets", default="")
    ap.add_argument("--argv", nargs=argparse.REMAINDER, default=[])
    args = ap.parse_args()
    args.datasets = [d for d in args.datasets.split(",") if d]
    rows = comparison(args)
    over = overhead(args)
    with open(args.out, "w") as f:
        f.write(render(args, rows, over))
    print(f"wrote {args.out}")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
