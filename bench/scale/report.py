#!/usr/bin/env python3
"""Tables and plots of bench/scale's runs, and of the logged predictions in collectives.csv.

  bench/scale/report.py --scale DIR/scale.jsonl [--csv bench/results/collectives.csv]
                        [--plots bench/results]
  bench/scale/report.py --gemm-cases --scale AFTER/scale.jsonl [--before BEFORE/scale.jsonl]

For each group (platform, verb, algorithm) at every rank count: simulated seconds, the model's
prediction and their ratio; per group the median and worst |measured/predicted - 1|; then each
collective algorithm over every platform and layout (a setting's latest run).
Auto is compared with the fastest algorithm of the same verb, platform and ranks (a multiply's
with the forced multiplies of the same size, codec and look-ahead).
"""
import argparse
import csv
import json
import statistics
from collections import defaultdict


def err(m, p):
    return abs(m / p - 1.0) if p and p > 0 else None


def seconds(r):
    """A run's measured time: from the last rank's entry where the clock was global (the
    simulated one: the ranks leave the barrier before it at different times, and the model
    prices ranks that start together), else the slowest rank's own time."""
    return r.get("seconds_after_last_entry_median", r.get("seconds_median", r.get("seconds")))


def table_errors(rows, key, min_ranks):
    groups = defaultdict(list)
    for r in rows:
        p, m = r.get("predicted_seconds"), seconds(r)
        if r.get("error") or not p or not m:
            continue
        if r["ranks"] < min_ranks:
            continue
        groups[key(r)].append((r["ranks"], m, p))
    out = ["| group | runs | median measured/predicted | median error | worst error (ranks) | within 15 % |",
           "|---|---|---|---|---|---|"]
    for k in sorted(groups):
        out.append(summary_row(' '.join(map(str, k)), [(m / p, ranks) for ranks, m, p in groups[k]]))
    return "\n".join(out)


def summary_row(label, cases):
    """A table row of (measured/predicted, where) cases: their count, median ratio, median and
    worst error, and whether the median error is within 15 %."""
    errs = [abs(x - 1) for x, _ in cases]
    worst = max(range(len(cases)), key=lambda i: errs[i])
    med = statistics.median(errs)
    return (f"| {label} | {len(cases)} | {statistics.median([x for x, _ in cases]):.2f} | "
            f"{100 * med:.0f} % | {100 * errs[worst]:.0f} % ({cases[worst][1]}) | "
            f"{'yes' if med <= 0.15 else 'no'} |")


def algorithm_table(rows, min_ranks):
    """Each collective algorithm over every platform and layout (the issue's "every algorithm"
    criterion). A setting run again (a later file, a later line) counts once, as its latest run."""
    latest = {}
    for r in rows:
        p, m = r.get("predicted_seconds"), seconds(r)
        if (r.get("op") is None or r.get("error") or not p or not m or r["ranks"] < min_ranks
                or r.get("algorithm_requested") == "auto"):
            continue
        setting = (r.get("platform"), r.get("nodes"), r.get("ranks_per_node"), r.get("compute", "yes"),
                   r["op"], r["algorithm_requested"], r.get("codec"), r.get("bytes_per_rank"))
        latest[setting] = (m / p, f"{r.get('platform')} {r.get('nodes')}x{r.get('ranks_per_node')}")
    groups = defaultdict(list)
    for s, v in latest.items():
        groups[(s[3], s[4], s[5])].append(v)
    out = ["| compute | verb | algorithm | settings | median measured/predicted | median error | worst error (setting) | within 15 % |",
           "|---|---|---|---|---|---|---|---|"]
    for k in sorted(groups):
        out.append(summary_row(' | '.join(k), groups[k]))
    return "\n".join(out)


def auto_table(rows, min_ranks):
    """Auto's own call (its first includes the sampling and agreement of its choice) and the
    forced run of the algorithm it chose, against the fastest forced run."""
    forced = defaultdict(dict)
    auto = {}
    for r in rows:
        if (r.get("error") or seconds(r) is None or r.get("algorithm_requested") is None
                or r["ranks"] < min_ranks):
            continue
        if r.get("op") is not None:
            k = (r.get("platform"), r["op"], r["ranks"], r.get("ranks_per_node"), r.get("count"),
                 r.get("compute", "yes"))
        elif "grid" in r:  # a multiply: Auto against the forced ones of its size, codec, look-ahead
            k = (r.get("platform"), "gemm " + r.get("codec", "none"), r["ranks"],
                 r.get("ranks_per_node"), (r.get("m"), r.get("n"), r.get("k"), r.get("overlap")),
                 r.get("compute", "yes"))
        else:
            continue
        if r["algorithm_requested"] == "auto":
            auto[k] = (seconds(r), r.get("algorithm"))
        else:
            forced[k][r["algorithm_requested"]] = seconds(r)
    out = ["| platform | verb | ranks | per node | compute | Auto ran | Auto's call s | its choice forced s | best | best s | choice/best |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    hits = 0
    for k in sorted(auto):
        if not forced[k]:
            continue
        best = min(forced[k], key=forced[k].get)
        b = forced[k][best]
        choice = forced[k].get(auto[k][1], auto[k][0])
        ratio = choice / b if b > 0 else float("inf")
        hits += ratio <= 1.10
        out.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {k[5]} | {auto[k][1]} | {auto[k][0]:.4g} | "
                   f"{choice:.4g} | {best} | {b:.4g} | {ratio:.2f} |")
    out.append(f"\nAuto's choice within 10 % of the best: {hits} of {len(auto)} cases.")
    return "\n".join(out)


def gemm_key(r):
    return (r.get("platform"), f'{r.get("nodes")}x{r.get("ranks_per_node")}', r["ranks"],
            r["algorithm_requested"], r.get("grid"), r.get("codec"),
            "on" if r.get("overlap") else "off")


def gemm_table(rows, before_rows, min_ranks):
    """Every multiply case: simulated against predicted, after (rows) and, where given, before
    (before_rows: the same runs predicted by the earlier model); then median and worst error per
    algorithm, codec and overlap over the platforms and layouts."""
    def cases(rs):
        return {gemm_key(r): r for r in rs if "grid" in r and not r.get("error")
                and r.get("predicted_seconds") and seconds(r) and r["ranks"] >= min_ranks}
    after, before = cases(rows), cases(before_rows)
    head = "| platform | nodes x per node | ranks | algorithm | grid | codec | overlap | simulated ms |"
    if before:
        head += " predicted before ms | sim/pred before |"
    head += " predicted ms | sim/pred |"
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    groups = defaultdict(list)
    for k in sorted(after):
        r = after[k]
        m, p = seconds(r), r["predicted_seconds"]
        line = f"| {' | '.join(map(str, k))} | {1e3 * m:.2f} |"
        b = before.get(k)
        if before:
            line += f" {1e3 * b['predicted_seconds']:.2f} | {m / b['predicted_seconds']:.2f} |" if b else " | |"
        out.append(line + f" {1e3 * p:.2f} | {m / p:.2f} |")
        groups[(k[3], k[5], k[6])].append((abs(m / p - 1), abs(m / b["predicted_seconds"] - 1) if b else None, k))
        groups[("all", "", "")].append(groups[(k[3], k[5], k[6])][-1])
    out.append("")
    out.append("| algorithm | codec | overlap | cases |" + (" median error before | worst before |" if before else "")
               + " median error | worst error (case) | within 15 % |")
    out.append("|" + "---|" * (out[-1].count("|") - 1))
    for g in sorted(groups, key=lambda g: (g[0] == "all", g)):
        v = groups[g]
        errs = [e for e, _, _ in v]
        worst = max(v, key=lambda x: x[0])
        line = f"| {g[0]} | {g[1]} | {g[2]} | {len(v)} |"
        if before:
            eb = [x for _, x, _ in v if x is not None]
            line += (f" {100 * statistics.median(eb):.0f} % | {100 * max(eb):.0f} % |" if eb else " | |")
        med = statistics.median(errs)
        line += (f" {100 * med:.0f} % | {100 * worst[0]:.0f} % ({worst[2][0]} {worst[2][1]}) |"
                 f" {'yes' if med <= 0.15 else 'no'} |")
        out.append(line)
    return "\n".join(out)


def csv_rows(path):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if not r["predicted_seconds"] or r["error"]:
                continue
            rows.append({"op": r["op"], "algorithm_requested": r["algorithm_requested"],
                         "algorithm": r["algorithm"], "ranks": int(r["ranks"]),
                         "platform": f'{r["net"]}-{r["rate"]}', "seconds": float(r["seconds_median"]),
                         "predicted_seconds": float(r["predicted_seconds"]), "error": ""})
    return rows


def plot(rows, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pts = defaultdict(list)
    for r in rows:
        p, m = r.get("predicted_seconds"), seconds(r)
        if p and m and not r.get("error"):
            pts[r["algorithm"]].append((p, m))
    fig, ax = plt.subplots(figsize=(6, 5))
    for alg, v in sorted(pts.items()):
        ax.scatter([x for x, _ in v], [y for _, y in v], s=12, label=alg)
    lo = min(min(min(x, y) for x, y in v) for v in pts.values())
    hi = max(max(max(x, y) for x, y in v) for v in pts.values())
    ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
    ax.set_xscale("log"); ax.set_yscale("log")
    ax.set_xlabel("predicted s (src/model)"); ax.set_ylabel("simulated s (SMPI)")
    ax.legend(fontsize=6); fig.tight_layout(); fig.savefig(out, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", nargs="*", default=[])
    ap.add_argument("--csv")
    ap.add_argument("--plot")
    ap.add_argument("--min-ranks", type=int, default=64)
    ap.add_argument("--gemm-cases", action="store_true",
                    help="the multiplies case by case (with --before: the earlier model's predictions too)")
    ap.add_argument("--before", nargs="*", default=[],
                    help="scale.jsonl of the same runs predicted by the earlier model")
    a = ap.parse_args()
    rows = [json.loads(l) for p in a.scale for l in open(p) if l.strip()]
    if a.gemm_cases:
        before = [json.loads(l) for p in a.before for l in open(p) if l.strip()]
        print(gemm_table(rows, before, a.min_ranks))
        return
    if rows:
        print(f"## Simulated (SMPI) against src/model, >= {a.min_ranks} ranks\n")
        print(table_errors(rows, lambda r: (r.get("platform"), "compute " + r.get("compute", "yes"),
                                            r.get("op", "gemm"), r["algorithm_requested"],
                                            r.get("codec", "szp")), a.min_ranks))
        print("\n## Every collective algorithm over the platforms and layouts\n")
        print(algorithm_table(rows, a.min_ranks))
        print("\n## Auto against the fastest algorithm\n")
        print(auto_table(rows, a.min_ranks))
        if a.plot:
            plot(rows, a.plot)
    if a.csv:
        print("\n## collectives.csv: this machine's measurements against the logged predictions\n")
        print(table_errors(csv_rows(a.csv), lambda r: (r["platform"], r["op"], r["algorithm"]), 0))


if __name__ == "__main__":
    main()
