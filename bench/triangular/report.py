"""Renders bench_triangular's JSON lines as bench/results/triangular-speed.md.

    report.py RESULTS.jsonl OUT.md KERNEL_LINE NOTE COMMAND
"""
import json
import sys


def where(r):
    """The ranks and how they talk: shared memory unless the line names a network."""
    return f"{r.get('grid', '1 rank')} {r.get('network', 'shm')}"


def main():
    src, dst, kernel, note, command = sys.argv[1:6]
    rows = [json.loads(line) for line in open(src) if line.startswith("{")]
    # ScaLAPACK's best time over the block sizes measured, per op, N and placement.
    best = {}
    for r in rows:
        if "ScaLAPACK" in r["routine"]:
            key = (r["op"], r["n"], where(r))
            best[key] = min(best.get(key, 1e300), r["best_s"])
    serial = {r["n"]: r["gflops"] for r in rows if r["routine"].startswith("dpotrf")}
    out = ["# Triangular solve and Cholesky: commpress next to ScaLAPACK", "",
           f"Command: `{command}`. {kernel}.", ""]
    if note:
        out += [f"**{note}**", ""]
    out += ["Each launch runs ScaLAPACK's routine and commpress's in alternating rounds (the "
            "repeats); a call's time is its slowest rank's. \"vs same nb\": the median over the "
            "rounds of ScaLAPACK's time over commpress's; \"vs best nb\": ScaLAPACK's best time "
            "at its best block size (of those measured, same N and placement) over this best "
            "time; \"of dpotrf\": this rate over LAPACK's dpotrf on one rank with 2 threads; "
            "load: the 1-minute load average when the line was printed (its own ranks "
            "included).", "",
            "\"panels\": how commpress's panels travelled (raw, or the codec with its absolute "
            "bound on every travelling element and the bound on max |A - L L^T| the call "
            "reported for what compression adds).", "",
            "| op | routine | N | nb | ranks | panels | best s | median s | GFLOP/s | vs same nb "
            "| vs best nb | of dpotrf | model s | model error | load |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    errors = {}
    for r in rows:
        serial_row = r["routine"].startswith("dpotrf")
        mine = "ScaLAPACK" not in r["routine"] and not serial_row
        same = f"{r['ratio_median']:.2f}x" if mine and "ratio_median" in r else ""
        base = best.get((r["op"], r["n"], where(r)))
        vs_best = f"{base / r['best_s']:.2f}x" if base and mine else ""
        share = (f"{100 * r['gflops'] / serial[r['n']]:.0f}%"
                 if r["op"] == "potrf" and r["n"] in serial and not serial_row
                 and "network" not in r else "")
        model = r.get("model_s")
        error = ""
        if model:
            rel = (model - r["best_s"]) / r["best_s"]
            coded = mine and r.get("codec", "none") != "none"
            key = (r["routine"] + (f" ({r['codec']} panels)" if coded else "") +
                   f", {r.get('network', 'shared memory')}")
            errors.setdefault(key, []).append(abs(rel))
            error = f"{100 * rel:+.0f}%"
        ranks = "1, 2 threads" if serial_row else where(r)
        panels = ""
        if mine:
            panels = r.get("codec", "none")
            if panels == "none":
                panels = "raw"
            elif "result_bound" in r:
                panels += f" ({r['abs_bound']:g}; residual <= {r['result_bound']:.2g})"
        load = f"{r['load']:.1f}" if "load" in r else ""
        out.append(f"| {r['op']} | {r['routine']} | {r['n']} | {r.get('nb', '')} | {ranks} | "
                   f"{panels} | {r['best_s']:.3f} | {r['median_s']:.3f} | {r['gflops']:.2f} | {same} | "
                   f"{vs_best} | {share} | {f'{model:.3f}' if model else ''} | {error} | {load} |")
    if errors:
        out += ["", "Median |model - measured| / measured per routine and placement (the profile "
                "in force: on shared memory the default one unless COMMPRESS_PROFILE names a "
                "measured profile; on the shaped cluster the one `run` passes, "
                "`--netsim-profile`):", ""]
        for routine, errs in errors.items():
            errs = sorted(errs)
            out.append(f"- {routine}: {100 * errs[len(errs) // 2]:.0f}% over {len(errs)} run(s)")
    open(dst, "w").write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
