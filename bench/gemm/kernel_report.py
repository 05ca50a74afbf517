#!/usr/bin/env python3
"""Renders bench/gemm/kernel-check's lines (gemm-blas-kernel.jsonl) as a markdown table naming
the kernel of every figure, with the verdicts of the BLAS-kernel targets:
    kernel_report.py LINES.jsonl --command C --load L"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import sh  # noqa: E402  (the gemm report's provenance helper)


def header(a):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    dirty = sh(f"git -C '{root}' status --porcelain --untracked-files=no")
    commit = sh(f"git -C '{root}' rev-parse --short HEAD") + (" + uncommitted changes" if dirty else "")
    cpu = sh("lscpu | sed -n 's/^Model name: *//p' | head -1") or "?"
    model = sh("lscpu | sed -n 's/^Model: *//p' | head -1") or "?"
    return [
        "# The distributed multiply on OpenBLAS's fallback kernel and on the CPU's own", "",
        f"- Command: `{a.command}`; date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"commit {commit}; load average at the start {a.load}",
        f"- Machine: {sh('nproc') or '?'} cores, {cpu} (model {model}); OpenBLAS (pthreads), "
        "ScaLAPACK (libscalapack-openmpi), Open MPI on shared memory (`--bind-to none --mca btl "
        "self,vader`)",
        "- *fallback*: every process starts with the generic kernel forced (`OPENBLAS_CORETYPE` "
        "as in the command) and the launcher's remedy held back (`COMMPRESS_BLAS_REMEDY=0`): "
        "what every figure measured where OpenBLAS falls back by itself. *remedy*: the same "
        "start, and the `OPENBLAS_CORETYPE` the launcher sets once `commpress blas --coretype` "
        "detects the fallback.",
        "- C = A B, dense uniform [-1, 1) f64; 2 ranks on a 1x2 grid, one OpenBLAS thread each "
        "(Auto: its own choice, with no profile file: the zero-configuration probe); *dgemm*: one rank "
        "with both cores' threads (`bench gemm --algorithm blas`). Median of the timed rounds "
        "after one warm-up (slowest rank, `MPI_Wtime`); every result checked against a "
        "reference product.", ""]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("jsonl")
    p.add_argument("--command", default="?")
    p.add_argument("--load", default="?")
    a = p.parse_args()
    rows = [json.loads(line) for line in open(a.jsonl) if line.strip()]
    ok = [r for r in rows if not r.get("error")]
    dgemm = {r["pass"]: r["gflops"] for r in ok if r["algorithm_requested"] == "blas"}
    pdgemm = {r["pass"]: r["gflops"] for r in ok if r["algorithm_requested"] == "scalapack"}
    good = dgemm.get("remedy")  # the two-core rate of the CPU's own kernel
    out = header(a)
    out.append("| pass | kernel | measurement | ranks | median s | GFLOP/s | vs pdgemm | "
               "of two-core dgemm (remedy) | within bound |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        name = r["algorithm_requested"]
        if r.get("algorithm") not in (None, name):
            name += f" → {r['algorithm']}"
        kernel = r.get("blas_core", "?") + (" (fallback)" if r.get("blas_fallback") else "")
        if r.get("error"):
            out.append(f"| {r['pass']} | {kernel} | {name} | {r['ranks']} | error: {r['error']} "
                       "| | | | |")
            continue
        vs_pd = r["gflops"] / pdgemm[r["pass"]] if r["pass"] in pdgemm and r["ranks"] > 1 else None
        vs_dg = r["gflops"] / good if good else None
        out.append(f"| {r['pass']} | {kernel} | {name} | {r['ranks']} | "
                   f"{r['seconds_median']:.2f} | {r['gflops']:.1f} | "
                   f"{'%.2fx' % vs_pd if vs_pd else ''} | "
                   f"{'%.0f%%' % (100 * vs_dg) if vs_dg else ''} | {r.get('within_bound')} |")
    out += ["", "## Targets", ""]
    best = max((r for r in ok if r["pass"] == "remedy" and r["ranks"] == 2
                and r["algorithm_requested"] != "scalapack"), key=lambda r: r["gflops"], default=None)
    if best and good and "remedy" in pdgemm:
        share, speed = best["gflops"] / good, best["gflops"] / pdgemm["remedy"]
        out.append(f"- With the fallback detected and the remedy applied, commpress's fastest "
                   f"2-rank multiply ({best['algorithm_requested']}, kernel "
                   f"{best.get('blas_core')}) reaches {best['gflops']:.1f} GFLOP/s = "
                   f"{100 * share:.0f}% of the two-core dgemm rate of {good:.1f} GFLOP/s (target "
                   f">= 85%: {'met' if share >= 0.85 else 'MISSED'}) and {speed:.2f}x pdgemm's "
                   f"{pdgemm['remedy']:.1f} GFLOP/s in the same run (target >= 1.2x: "
                   f"{'met' if speed >= 1.2 else 'MISSED'}).")
    else:
        out.append("- The targets cannot be judged: a measurement of the remedy pass is missing.")
    if "fallback" in dgemm and good:
        out.append(f"- On the fallback kernel the two-core dgemm rate is {dgemm['fallback']:.1f} "
                   f"GFLOP/s, {good / dgemm['fallback']:.1f}x below the CPU's own kernel.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
