#!/usr/bin/env python3
"""The multiplies of a bench/scale run predicted again by another build's model.

  bench/scale/repredict.py --build OLD_BUILD_SMPI --out DIR --scale DIR/scale.jsonl > before.jsonl

The simulated times of a network-only run do not depend on the model (the algorithm and the
grid are forced), so an earlier model is judged on the same runs by asking its `commpress plan
gemm` (under `smpirun -np 1`: the SMPI build's programs are loaded by smpirun) for each line's
prediction, with the profile that line ran with; an Auto line is predicted as the algorithm,
grid and codec it ran. Each line is written back with that predicted_seconds.
bench/scale/report.py --gemm-cases --before takes the result.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import platforms  # noqa: E402


def profile_of(out, r, ratio):
    """The profile bench/scale/run gave the line's multiply (its layout, network-only, ratio)."""
    pat = f"profile-{r['platform']}-rpn{r['ranks_per_node']}"
    tail = "-network" if r.get("compute") == "no" else ""
    tail += f"-ratio{ratio}.json" if ratio else ".json"
    # A network of switches' profiles name the run's node count too.
    paths = (glob.glob(os.path.join(out, f"{pat}-nodes{r['nodes']}{tail}")) or
             glob.glob(os.path.join(out, pat + tail)))
    if len(paths) != 1:
        raise RuntimeError(f"no single profile {pat} in {out}")
    return paths[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="the SMPI build whose model predicts")
    ap.add_argument("--out", required=True, help="the run's directory (its profiles)")
    ap.add_argument("--scale", required=True)
    ap.add_argument("--ratio", default="3.16", help="the run's --gemm-ratio as written in its profiles' names ('' for none)")
    a = ap.parse_args()
    pf = platforms.write("eth10g", 2, a.out)
    hf = platforms.hostfile(1, 1, a.out)
    for line in open(a.scale):
        r = json.loads(line)
        if "grid" not in r or r.get("error"):
            continue
        argv = ["smpirun", "-np", "1", "-platform", pf, "-hostfile", hf,
                "--log=root.thres:critical", "--log=smpi_kernel.thres:critical",
                os.path.join(a.build, "commpress"), "plan", "gemm",
                "--m", str(r["m"]), "--n", str(r["n"]), "--k", str(r["k"]), "--grid", r["grid"],
                # Auto's lines as what it ran: the other model may choose otherwise, and
                # the line's simulated time is of the run's choice.
                "--algorithm", r["algorithm"], "--codec", r["codec"],
                "--overlap", "on" if r["overlap"] else "off", "--dtype", r["dtype"]]
        if r["codec"] != "none":
            argv += ["--bound-rel", str(r["bound"])]
        env = dict(os.environ, COMMPRESS_PROFILE=profile_of(a.out, r, a.ratio))
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        got = [l.split(":", 1)[1] for l in p.stdout.splitlines() if l.startswith("predicted_seconds:")]
        if p.returncode != 0 or not got:
            raise RuntimeError(" ".join(argv) + "\n" + p.stdout[-1000:] + p.stderr[-2000:])
        r["predicted_seconds"] = float(got[0])
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
