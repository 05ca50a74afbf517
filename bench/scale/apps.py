#!/usr/bin/env python3
"""The applications (apps/) under SMPI on a simulated cluster (docs/smpi.md, "Applications").

  bench/scale/apps.py --build build-smpi --out DIR --kind eth10g --nodes 8 --rpn 8
                      [--apps kmeans,fft2d,himeno] [--points 262144] [--fft-n 2048]
                      [--himeno-size M] [--profile PROFILE]

K-means, the 2-D FFT and Himeno, each as its plain MPI build and its commpress build, lossless
(zstd-1) and lossy (szp, REL 1e-4; Auto's choice and always compressed). Ping-pong (two ranks
by design) runs under SMPI too but is not a scale run. A run fails unless every program ends
with status "ok" and the lossless commpress runs give the plain MPI run's results (the FFT's
spectrum checksum and Himeno's pressure checksum bit for bit: their messages move values
without arithmetic; K-means' last label changes exactly, its inertia and Himeno's gosa, sums
over the ranks, up to the rounding of another summation order, 1e-12); the lossy runs' K-means inertia and Himeno's
gosa are reported against it. One JSON line per program run in DIR/apps.jsonl, the table on
stdout.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import platforms  # noqa: E402

# What each application's result is: equal runs give equal values. A lossy run is compared on
# K-means' inertia only: the FFT's checksum sums |re| + |im| over the whole spectrum, where the
# bound's error on millions of tiny coefficients adds up, so it says nothing of the quality
# (the real runs measure that from dumps: bench/results/apps.md).
RESULTS = {"kmeans": ("inertia", "last_changes"), "fft2d": ("checksum",), "himeno": ("gosa", "checksum")}
LOSSY_RESULTS = {"kmeans": ("inertia",), "fft2d": (), "himeno": ("gosa",)}
VARIANTS = [("mpi", []),
            ("commpress", ["--codec", "zstd-1", "--bound", "lossless", "--algorithm", "compressed"]),
            ("commpress", ["--codec", "szp", "--bound", "rel:1e-4", "--algorithm", "auto"]),
            ("commpress", ["--codec", "szp", "--bound", "rel:1e-4", "--algorithm", "compressed"])]


def same_result(app, r, base):
    """Whether a lossless run gave the plain run's result. The FFT's transposes and Himeno's
    halos move values without arithmetic: bit for bit. K-means' inertia and Himeno's gosa are
    sums over the ranks, which commpress's reduction adds in another order than MPI's (at 256
    ranks K-means' inertia differed from MPI's in the last bit): within 1e-12, and K-means'
    labels (last changes) and Himeno's pressure field (checksum) exactly."""
    def close(k):
        return abs(r[k] - base[k]) <= 1e-12 * abs(base[k])
    if app == "kmeans":
        return r["last_changes"] == base["last_changes"] and close("inertia")
    if app == "himeno":
        return r["checksum"] == base["checksum"] and close("gosa")
    return all(r[k] == base[k] for k in RESULTS[app])


def run(build, platform, hostfile, ranks, app, args, env, timeout):
    cmd = ["smpirun", "-np", str(ranks), "-platform", platform, "-hostfile", hostfile,
           *platforms.SMPI_CFG, "--cfg=smpi/coll-selector:ompi",
           os.path.join(build, "apps", app), *args]
    t0 = time.time()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or len(lines) != 1:
        tail = "\n".join(p.stderr.splitlines()[-5:])
        raise RuntimeError(f"{app} {' '.join(args)}: exit {p.returncode}, {len(lines)} lines\n{tail}")
    return dict(lines[0], wall_seconds=time.time() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--kind", default="eth10g")
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--rpn", type=int, default=8)
    ap.add_argument("--apps", default="kmeans,fft2d,himeno")
    ap.add_argument("--points", type=int, default=262144)
    ap.add_argument("--fft-n", type=int, default=2048)
    ap.add_argument("--himeno-size", default="M", help="XS, S, M or L (at least one i-plane a rank)")
    ap.add_argument("--profile", help="the platform's fitted profile (default: bench/results/scale/"
                                      "profile-KIND.json, bench/scale/run's fit of its links)")
    ap.add_argument("--timeout", type=int, default=1800)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    a.profile = a.profile or os.path.join(HERE, "..", "results", "scale", f"profile-{a.kind}.json")
    ranks = a.nodes * a.rpn
    platform = platforms.write(a.kind, a.nodes, a.out)
    hostfile = platforms.hostfile(a.nodes, a.rpn, a.out)
    # The profile as `commpress profile` would record it on this layout (bench/scale/run's
    # with_layout): its links, the run's ranks per node, and on a network of switches the
    # platform's nodes a switch.
    prof = json.load(open(a.profile))
    prof["ranks_per_node"] = a.rpn
    if "switch_link" in prof:
        prof["switch_nodes"] = platforms.switch_nodes(a.kind, a.nodes)
    layout = os.path.join(a.out, f"profile-rpn{a.rpn}.json")
    with open(layout, "w") as f:
        json.dump(prof, f, indent=1)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", COMMPRESS_PROFILE=layout)
    apps = {"kmeans": ["--points", str(a.points), "--dims", "4", "--clusters", "16", "--iters", "10"],
            "fft2d": ["--n", str(a.fft_n)],
            "himeno": ["--size", a.himeno_size, "--iters", "10"]}
    apps = {k: v for k, v in apps.items() if k in a.apps.split(",")}
    failures, rows = [], []
    with open(os.path.join(a.out, "apps.jsonl"), "a") as log:
        for app, args in apps.items():
            base = None
            for variant, extra in VARIANTS:
                name = app if variant == "mpi" else f"{app}-commpress"
                r = run(a.build, platform, hostfile, ranks, name, args + extra, env, a.timeout)
                r.update(platform=a.kind, nodes=a.nodes, ranks_per_node=a.rpn,
                         algorithm_requested=extra[-1] if extra else "mpi")
                if variant == "mpi":
                    base = r
                keys = RESULTS[app] if r["bound"] == "lossless" else LOSSY_RESULTS[app]
                diffs = {k: abs(r[k] - base[k]) / max(abs(base[k]), 1e-300) for k in keys}
                r["rel_diff"] = diffs
                if r.get("status") != "ok":
                    failures.append(f"{name} {' '.join(extra)}: status {r.get('status')}")
                if r["bound"] == "lossless" and not same_result(app, r, base):
                    failures.append(f"{name} {' '.join(extra)}: lossless result differs from MPI's: " +
                                    ", ".join(f"{k} {r[k]!r} against {base[k]!r}" for k in RESULTS[app]))
                log.write(json.dumps(r) + "\n")
                log.flush()
                rows.append(r)
    print(f"{a.kind}, {a.nodes} nodes x {a.rpn} ranks: simulated seconds (slowest rank), "
          "bytes sent over raw, result against the plain MPI run")
    print("| app | build | codec | bound | algorithm | time s | comm s | ratio | result rel. diff | status |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        diff = ", ".join(f"{k} {v:.2g}" for k, v in r["rel_diff"].items()) or "-"
        ratio = f"{r['ratio']:.3g}" if r.get("ratio") else "-"
        print(f"| {r['app']} | {r['variant']} | {r['codec']} | {r['bound']} | {r['algorithm_requested']} | "
              f"{r['time_s']:.4g} | {r['comm_s']:.4g} | {ratio} | {diff} | {r['status']} |")
    for f in failures:
        print("FAILED:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
