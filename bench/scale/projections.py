#!/usr/bin/env python3
"""Where compression stops paying as the link gets faster and the ranks more numerous
(bench/results/scale.md, "Projections").

  bench/scale/projections.py --commpress build/commpress [--profile bench/results/profile-1gbit.json]
                             [--ratio 3.13] [--simulated RUNS.jsonl ...]
                             [--csv FILE] [--plot FILE.png] [--md FILE]

One machine profile's codec rates, the project's cost models (`commpress plan`, no MPI) and
links of 1..400 Gbit/s in place of the profile's:

1. tau, the threshold of compressed Cannon (the compressed-Cannon paper's eq. 4):
   tau = r / (r - 1) * (d + c sqrt(p)) / (2 d c sqrt(p)) seconds a byte, c and d the codec's
   compress and decompress rates, r its ratio; compression pays where tau < beta, the link's
   seconds a byte. Per codec of the profile, against each link's beta (the paper's figure 7).
2. The models' speedup of compressed Cannon over uncompressed Cannon, communication only (the
   multiply free, as the paper's figure 8), blocks of 1024 x 1024 f64 per rank (weak
   scaling), szp at the given ratio; and of the compressed allreduce (the faster of FusedRing
   and homomorphic recursive doubling with szp at that ratio) over MPI's, 64 MiB of f64 per
   rank, compute charged at the profile's rates.
3. The allreduce's model, on the links bench/scale/run fitted to the simulated platform
   (--fitted), against simulated runs (`smpi_allreduce` JSON lines, MPI's among
   them, in files whose names hold the platform: *eth1g-*, *eth10g-*, *ib-fattree-*; and
   "network" where the run charged no compute, `smpi/simulate-computation:no`, so that the
   prediction charges none either); and Cannon's, from `commpress bench gemm` lines with
   codecs none and szp in such files.

Prints the tables (markdown); --csv, --plot and --md write them to files too.
"""
import argparse
import copy
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import platforms  # noqa: E402

# Links: name, latency (s), Gbit/s. The three named ones are bench/scale's platforms.
LINKS = [("1 Gbit/s Ethernet", 50e-6, 1), ("10 Gbit/s Ethernet", 10e-6, 10), ("25 Gbit/s", 2e-6, 25),
         ("100 Gbit/s", 1e-6, 100), ("InfiniBand HDR 200 Gbit/s", 0.5e-6, 200), ("400 Gbit/s", 0.5e-6, 400)]
RANKS = [16, 64, 256, 1024, 4096]
# Always compressed: Rabenseifner is not among them, as it sends raw every exchange below the
# break-even size and so becomes MPI's own algorithm where compression does not pay.
ALLREDUCE_COMPRESSED = ["fused_ring", "homomorphic_recursive_doubling"]
PLATFORM_LINK = {"eth1g": 0, "eth10g": 1, "ib-fattree": 4}


def with_link(profile, latency, gbit, ratio=None, free_multiply=False, network_only=False,
              fitted=None):
    """The profile with every message on a link of `latency` and `gbit` (or on the links of
    `fitted`, a profile of bench/scale/run fitted to a simulated platform), szp f64's ratio
    set; network_only: every compute rate free, as a run without charged compute simulates."""
    p = copy.deepcopy(profile)
    for proto in ("eager", "rendezvous"):
        p["network"][proto] = {"alpha": latency, "beta": 8.0 / (gbit * 1e9)}
    if fitted:
        p["network"] = copy.deepcopy(fitted["network"])
    p["ranks_per_node"] = 1
    p.pop("measurements", None)  # MPI's measured verbs belong to the measured link only
    p.pop("bcast_mpi", None)
    p.pop("reduce_scatter_mpi", None)
    for row in p.get("codecs", []):
        if ratio and row.get("codec") == "szp" and row.get("dtype") == "f64":
            row["typical_ratio"] = ratio
    if free_multiply:
        p["gemm_flops_f64"] = p["gemm_flops_f32"] = platforms.FREE
    if network_only:
        platforms.free_compute(p)
    return p


def plan(commpress, profile, out, argv):
    path = os.path.join(out, "projection-profile.json")
    with open(path, "w") as f:
        json.dump(profile, f)
    env = dict(os.environ, COMMPRESS_PROFILE=path)
    r = subprocess.run([commpress, "plan", *argv], env=env, capture_output=True, text=True,
                       check=True)
    for line in r.stdout.splitlines():
        if line.startswith("predicted_seconds:"):
            return float(line.split(":")[1])
    return json.loads(r.stdout)["predicted_seconds"]


def allreduce_time(commpress, profile, out, algorithm, ranks, count, ratio):
    codec = "none" if algorithm == "mpi" else "szp"
    return plan(commpress, profile, out,
                ["allreduce", "--count", str(count), "--ranks", str(ranks), "--dtype", "f64",
                 "--algorithm", algorithm, "--codec", codec, "--bound-rel", "1e-4",
                 "--ratio", str(ratio), "--ranks-per-node", "1", "--json"])


def cannon_time(commpress, profile, out, ranks, block, codec):
    q = int(round(math.sqrt(ranks)))
    n = str(block * q)
    return plan(commpress, profile, out,
                ["gemm", "--m", n, "--n", n, "--k", n, "--grid", f"{q}x{q}", "--algorithm",
                 "cannon", "--codec", codec, "--bound-rel", "1e-6", "--ranks-per-node", "1"])


def platform_of(path):
    """The simulated platform a file of runs names (eth1g, eth10g, ib-fattree), or None."""
    name = "-" + os.path.basename(path)
    return next((k for k in sorted(PLATFORM_LINK, key=len, reverse=True) if f"-{k}-" in name), None)


def tau(ratio, c, d, p):
    s = math.sqrt(p)
    return ratio / (ratio - 1) * (d + c * s) / (2 * d * c * s)


def codec_rows(profile):
    """(label, c, d, r) of the profile's f64 codecs, at the ratio the profile measured."""
    rows = []
    for row in profile.get("codecs", []):
        r = row.get("typical_ratio") or 0
        if row.get("dtype") == "f64" and row.get("compress") and row.get("decompress") and r > 1:
            rows.append((row["codec"], row["compress"], row["decompress"], r))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commpress", required=True)
    ap.add_argument("--csv")
    ap.add_argument("--plot")
    ap.add_argument("--md")
    ap.add_argument("--profile", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "..", "results", "profile-1gbit.json"))
    ap.add_argument("--ratio", type=float, default=3.13,
                    help="szp's ratio on the wire (default: the 1024-rank simulated allreduce's)")
    ap.add_argument("--block", type=int, default=1024, help="Cannon's block order per rank")
    ap.add_argument("--count", type=int, default=8388608, help="allreduce f64 values per rank")
    ap.add_argument("--simulated", nargs="*", default=[])
    ap.add_argument("--fitted", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..", "results", "scale"),
                    help="folder of bench/scale/run's fitted profiles, profile-PLATFORM.json")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="projections-")  # the profiles handed to `commpress plan`
    profile = json.load(open(a.profile))
    rows, md = [], []

    # 1. tau per codec against each link's beta.
    codecs = codec_rows(profile)
    szp = next((row for row in codecs if row[0] == "szp"), None)
    if szp:
        codecs.append((f"szp at ratio {a.ratio:g}", szp[1], szp[2], a.ratio))
    md.append("tau of compressed Cannon, ns a byte (compression pays where tau < beta); "
              "beta: " + ", ".join(f"{n} {8 / g:.3g}" for n, _, g in LINKS) + "\n")
    md.append("| codec | ratio | compress GB/s | decompress GB/s | " +
              " | ".join(f"p = {p}" for p in RANKS) + " | pays on |")
    md.append("|---" * (5 + len(RANKS)) + "|")
    for name, c, d, r in codecs:
        taus = [tau(r, c, d, p) for p in RANKS]
        pays = [n for n, _, g in LINKS if taus[-1] < 8.0 / (g * 1e9)]
        md.append(f"| {name} | {r:.3g} | {c / 1e9:.3g} | {d / 1e9:.3g} | " +
                  " | ".join(f"{t * 1e9:.3g}" for t in taus) + f" | {', '.join(pays) or 'none'} (p = {RANKS[-1]}) |")
        for p, t in zip(RANKS, taus):
            rows.append({"kind": "tau", "codec": name, "ratio": r, "ranks": p, "value": t})

    # 2. The models' speedups over link rate and ranks.
    for label, lat, gbit in LINKS:
        comm_only = with_link(profile, lat, gbit, a.ratio, free_multiply=True)
        full = with_link(profile, lat, gbit, a.ratio)
        for p in RANKS:
            none = cannon_time(a.commpress, comm_only, work, p, a.block, "none")
            szp = cannon_time(a.commpress, comm_only, work, p, a.block, "szp")
            rows.append({"kind": "cannon", "link": label, "gbit": gbit, "ranks": p,
                         "uncompressed_s": none, "compressed_s": szp, "value": none / szp})
            mpi = allreduce_time(a.commpress, full, work, "mpi", p, a.count, a.ratio)
            best = min((allreduce_time(a.commpress, full, work, alg, p, a.count, a.ratio), alg)
                       for alg in ALLREDUCE_COMPRESSED)
            rows.append({"kind": "allreduce", "link": label, "gbit": gbit, "ranks": p,
                         "uncompressed_s": mpi, "compressed_s": best[0], "algorithm": best[1],
                         "value": mpi / best[0]})
    for kind, title in (("cannon", f"compressed Cannon over uncompressed, communication only, "
                                   f"{a.block}x{a.block} f64 blocks, szp ratio {a.ratio:g}"),
                        ("allreduce", f"compressed allreduce (fastest compressed algorithm) over "
                                      f"MPI's, {a.count * 8 >> 20} MiB f64 per rank, szp ratio {a.ratio:g}")):
        md.append(f"\nSpeedup predicted, {title}:\n")
        md.append("| link | " + " | ".join(f"p = {p}" for p in RANKS) + " |")
        md.append("|---" * (1 + len(RANKS)) + "|")
        for label, _, gbit in LINKS:
            cells = [r for r in rows if r["kind"] == kind and r["gbit"] == gbit]
            md.append(f"| {label} | " + " | ".join(
                f"{r['value']:.2f}" + (f" ({r['algorithm']})" if kind == "allreduce" else "")
                for r in cells) + " |")

    # 3. Against simulated runs: the same model on the platform's link, the run's ratio.
    sims = []
    for path in a.simulated:
        platform = platform_of(path)
        runs = [json.loads(l) for l in open(path) if l.startswith("{")]
        by_alg = {r["algorithm_requested"]: r for r in runs if r.get("op") == "allreduce"}
        if platform is None or "mpi" not in by_alg:
            continue
        label, lat, gbit = LINKS[PLATFORM_LINK[platform]]
        fitted = json.load(open(os.path.join(a.fitted, f"profile-{platform}.json")))
        network_only = "network" in os.path.basename(path)
        for alg, r in by_alg.items():
            if alg == "mpi":
                continue
            full = with_link(profile, lat, gbit, r["ratio"], network_only=network_only,
                             fitted=fitted)
            pred_mpi = allreduce_time(a.commpress, full, work, "mpi", r["ranks"], r["count"], r["ratio"])
            pred = allreduce_time(a.commpress, full, work, alg, r["ranks"], r["count"], r["ratio"])
            sims.append((platform + (" (network only)" if network_only else ""), r["ranks"], alg, r["ratio"], by_alg["mpi"]["seconds"], r["seconds"],
                         pred_mpi, pred))
    if sims:
        md.append("\nAllreduce speedup over MPI's, simulated against the model on the same link:\n")
        md.append("| platform | ranks | algorithm | ratio | MPI simulated s | simulated s | simulated speedup | "
                  "MPI predicted s | predicted s | predicted speedup | same side of 1 |")
        md.append("|---" * 11 + "|")
        for pf, p, alg, r, sm, s, pm, pr in sims:
            md.append(f"| {pf} | {p} | {alg} | {r:.3g} | {sm:.4g} | {s:.4g} | {sm / s:.2f} | {pm:.4g} | "
                      f"{pr:.4g} | {pm / pr:.2f} | {'yes' if (sm > s) == (pm > pr) else 'no'} |")
            rows.append({"kind": "simulated", "link": pf, "ranks": p, "algorithm": alg,
                         "uncompressed_s": sm, "compressed_s": s, "value": sm / s,
                         "predicted_speedup": pm / pr})

    cannon_sims = []
    for path in a.simulated:
        platform = platform_of(path)
        runs = [json.loads(l) for l in open(path) if l.startswith("{")]
        if platform is None or not runs or "grid" not in runs[0]:
            continue
        lat, gbit = LINKS[PLATFORM_LINK[platform]][1:]
        fitted = json.load(open(os.path.join(a.fitted, f"profile-{platform}.json")))
        network_only = "network" in os.path.basename(path)
        for n in sorted({r["m"] for r in runs}):
            by_codec = {r["codec"]: r for r in runs if r["m"] == n}
            if "none" not in by_codec or "szp" not in by_codec:
                continue
            ratio = by_codec["szp"]["ratio"]
            prof = with_link(profile, lat, gbit, ratio, network_only=network_only, fitted=fitted)
            q = by_codec["szp"]["grid_rows"]
            pred = {c: cannon_time(a.commpress, prof, work, q * q, n // q, c) for c in ("none", "szp")}
            sim = {c: by_codec[c]["seconds_median"] for c in ("none", "szp")}
            cannon_sims.append((platform + (" (network only)" if network_only else ""), q * q, n, ratio,
                                sim, pred))
            rows.append({"kind": "simulated_cannon", "link": platform, "ranks": q * q, "n": n,
                         "uncompressed_s": sim["none"], "compressed_s": sim["szp"],
                         "value": sim["none"] / sim["szp"], "predicted_speedup": pred["none"] / pred["szp"]})
    if cannon_sims:
        md.append("\nCompressed Cannon's speedup over uncompressed Cannon (multiply included), simulated "
                  "against the model on the same link:\n")
        md.append("| platform | ranks | n | ratio | simulated s (none / szp) | simulated speedup | "
                  "predicted s (none / szp) | predicted speedup | same side of 1 |")
        md.append("|---" * 9 + "|")
        for pf, p, n, r, sim, pred in cannon_sims:
            ss, ps = sim["none"] / sim["szp"], pred["none"] / pred["szp"]
            md.append(f"| {pf} | {p} | {n} | {r:.3g} | {sim['none']:.4g} / {sim['szp']:.4g} | {ss:.2f} | "
                      f"{pred['none']:.4g} / {pred['szp']:.4g} | {ps:.2f} | {'yes' if (ss > 1) == (ps > 1) else 'no'} |")

    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=sorted({k for r in rows for k in r}))
            w.writeheader()
            w.writerows(rows)
    if a.md:
        with open(a.md, "w") as f:
            f.write("\n".join(md) + "\n")
    if a.plot:
        plot(rows, codecs, a.plot)
    print("\n".join(md))


def plot(rows, codecs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 4, figsize=(21, 4.8))
    for name, c, d, r in codecs:
        ps = list(range(4, 4097))
        ax[0].plot(ps, [tau(r, c, d, p) * 1e9 for p in ps], label=f"{name} (r = {r:.3g})")
    for label, _, gbit in LINKS:
        ax[0].axhline(8.0 / gbit, ls="--", lw=0.8, color="grey")
        ax[0].text(4096, 8.0 / gbit, f" {label}", va="center", fontsize=7)
    ax[0].set(xscale="log", yscale="log", xlabel="processes p", ylabel="ns a byte",
              title="tau of compressed Cannon: pays below the link's beta")
    ax[0].legend(fontsize=7)
    for i, kind, title in ((1, "cannon", "compressed Cannon / Cannon, communication"),
                           (2, "allreduce", "compressed allreduce / MPI's")):
        for label, _, gbit in LINKS:
            cells = [r for r in rows if r["kind"] == kind and r["gbit"] == gbit]
            ax[i].plot([r["ranks"] for r in cells], [r["value"] for r in cells], marker="o", label=label)
        ax[i].axhline(1.0, color="black", lw=0.8)
        ax[i].set(xscale="log", yscale="log", xlabel="processes p", ylabel="speedup (model)", title=title)
        ax[i].legend(fontsize=7)
    for kind, marker, label in (("simulated", "o", "allreduce / MPI's"),
                                ("simulated_cannon", "s", "compressed Cannon / Cannon")):
        sims = [r for r in rows if r["kind"] == kind]
        ax[3].scatter([r["predicted_speedup"] for r in sims], [r["value"] for r in sims],
                      marker=marker, label=label)
    ax[3].plot([0.05, 10], [0.05, 10], color="black", lw=0.8)
    ax[3].axhline(1.0, color="grey", lw=0.6)
    ax[3].axvline(1.0, color="grey", lw=0.6)
    ax[3].set(xscale="log", yscale="log", xlabel="speedup predicted (fitted links)",
              ylabel="speedup simulated (SMPI, 64 ranks)", title="model against simulation")
    ax[3].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
