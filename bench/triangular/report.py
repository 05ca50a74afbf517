"""Renders bench_triangular's JSON lines as bench/results/triangular.md.

    report.py RESULTS.jsonl OUT.md KERNEL_LINE NOTE COMMAND
"""
import json
import sys


def main():
    src, dst, kernel, note, command = sys.argv[1:6]
    rows = [json.loads(line) for line in open(src) if line.startswith("{")]
    scalapack = {(r["op"], r["n"]): r["best_s"] for r in rows if "ScaLAPACK" in r["routine"]}
    serial = {r["n"]: r["gflops"] for r in rows if r["routine"].startswith("dpotrf")}
    out = ["# Triangular solve and Cholesky: commpress next to ScaLAPACK", "",
           f"Command: `{command}`. {kernel}.", ""]
    if note:
        out += [f"**{note}**", ""]
    out += ["Best of the repeats; \"vs ScaLAPACK\": ScaLAPACK's best time over this one's (same "
            "launch); \"of dpotrf\": this rate over LAPACK's dpotrf on one rank with 2 threads.", "",
            "| op | routine | N | grid | best s | median s | GFLOP/s | vs ScaLAPACK | of dpotrf | model s | model error |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    errors = {}
    for r in rows:
        mine = "ScaLAPACK" not in r["routine"] and not r["routine"].startswith("dpotrf")
        base = scalapack.get((r["op"], r["n"]))
        speed = f"{base / r['best_s']:.2f}x" if base and mine else ""
        share = (f"{100 * r['gflops'] / serial[r['n']]:.0f}%"
                 if r["op"] == "potrf" and r["n"] in serial and not r["routine"].startswith("dpotrf")
                 else "")
        model = r.get("model_s")
        error = ""
        if model:
            rel = (model - r["best_s"]) / r["best_s"]
            errors.setdefault(r["routine"], []).append(abs(rel))
            error = f"{100 * rel:+.0f}%"
        out.append(f"| {r['op']} | {r['routine']} | {r['n']} | {r.get('grid', '1 rank')} | "
                   f"{r['best_s']:.3f} | {r['median_s']:.3f} | {r['gflops']:.2f} | {speed} | {share} | "
                   f"{f'{model:.3f}' if model else ''} | {error} |")
    if errors:
        out += ["", "Median |model - measured| / measured per routine (the profile in force; the "
                "default one unless COMMPRESS_PROFILE names a measured profile):", ""]
        for routine, errs in errors.items():
            errs = sorted(errs)
            out.append(f"- {routine}: {100 * errs[len(errs) // 2]:.0f}% over {len(errs)} size(s)")
    open(dst, "w").write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
