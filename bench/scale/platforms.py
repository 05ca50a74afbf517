#!/usr/bin/env python3
"""Writes the simulated clusters of bench/scale as SimGrid XML (platforms/<kind>-<nodes>.xml).

Every node has 8 cores of speed 1 Gflop/s; runs set smpi/host-speed to the same 1 Gflop/s, so
one second of this machine's CPU (what SMPI times of the code between two MPI calls) is one
simulated second: the nodes compute as fast as this machine's cores (docs/smpi.md). Ranks on
one node talk through its loopback (shared memory); hostfiles place 1 or 8 ranks per node.

kinds:
  ib-fattree  InfiniBand-HDR-like two-level fat-tree: 200 Gbit/s links, 1 us, non-blocking
  torus3d     3-D torus: 100 Gbit/s links, 1 us per hop
  eth10g      10 Gbit/s Ethernet, one non-blocking switch, 10 us
  eth1g       1 Gbit/s Ethernet, one non-blocking switch, 50 us
"""
import argparse
import math
import os

NODE_SPEED = "1Gf"
CORES = 8
LOOPBACK = 'loopback_bw="20GBps" loopback_lat="0.3us"'

def torus_dims(n):
    """Three factors of n (a power of two) as equal as possible."""
    e = int(math.log2(n))
    a = [e // 3 + (1 if i < e % 3 else 0) for i in range(3)]
    return [2 ** x for x in a]

def switched(kind):
    """Whether the kind's nodes sit under several switches (a fat-tree's leaves)."""
    return kind == "ib-fattree"


def switch_nodes(kind, n):
    """Nodes under one leaf switch of an n-node platform (0: one switch for all, or none)."""
    if not switched(kind):
        return 0
    leaves = max(1, n // 32) if n >= 64 else 2
    return n // leaves


def cluster(kind, n):
    common = (f'id="{kind}" prefix="node-" suffix="" radical="0-{n - 1}" '
              f'speed="{NODE_SPEED}" core="{CORES}" {LOOPBACK}')
    if kind == "ib-fattree":
        per_leaf = switch_nodes(kind, n)
        leaves = n // per_leaf
        return (f'<cluster {common} bw="25GBps" lat="0.5us" topology="FAT_TREE" '
                f'topo_parameters="2;{per_leaf},{leaves};1,{per_leaf};1,1"/>')
    if kind == "torus3d":
        dims = ",".join(str(d) for d in torus_dims(n))
        return (f'<cluster {common} bw="12.5GBps" lat="1us" topology="TORUS" '
                f'topo_parameters="{dims}"/>')
    link = {"eth10g": ('1.25GBps', '10us'), "eth1g": ('125MBps', '50us')}[kind]
    # One switch whose backplane carries every link at once.
    return (f'<cluster {common} bw="{link[0]}" lat="{link[1]}" '
            f'bb_bw="{n}TBps" bb_lat="0us"/>')

KINDS = ["ib-fattree", "torus3d", "eth10g", "eth1g"]

def write(kind, n, out):
    path = os.path.join(out, f"{kind}-{n}.xml")
    with open(path, "w") as f:
        f.write("<?xml version='1.0'?>\n"
                '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
                f"<!-- written by bench/scale/platforms.py: {kind}, {n} nodes of {CORES} cores -->\n"
                '<platform version="4.1">\n'
                f'  <zone id="world" routing="Full">\n    {cluster(kind, n)}\n  </zone>\n'
                "</platform>\n")
    return path

def hostfile(n, ranks_per_node, out):
    """Ranks in order, ranks_per_node consecutive ranks per node."""
    path = os.path.join(out, f"hosts-{n}x{ranks_per_node}")
    with open(path, "w") as f:
        for i in range(n):
            f.write(f"node-{i}\n" * ranks_per_node)
    return path

# SMPI injects 100 us of simulated time into every MPI_Test and MPI_Iprobe, growing with each
# one that finds nothing, so that programs polling in a loop advance the clock quickly. A
# real MPI_Test costs well under a microsecond, and the library polls on purpose (Cannon's
# shifts between product panels, the rings' sends between chunks): at the default each poll
# was charged like a tenth of a millisecond of compute. 1 us, not growing, keeps the clock
# moving for a polling loop without charging what no MPI costs.
SMPI_CFG = ["--cfg=smpi/host-speed:1Gf", "--cfg=smpi/shared-malloc:global",
            "--cfg=smpi/test:1e-6", "--cfg=smpi/iprobe:1e-6", "--cfg=smpi/grow-injected-times:no",
            "--log=root.thres:critical", "--log=smpi_kernel.thres:critical"]


# Rates standing for "costs nothing" in a network-only profile (bytes or flop per second).
FREE = 1e18


def free_compute(prof):
    """Every compute rate of a machine profile free (codecs, sums, BLAS), in place, so that the
    models predict the network part alone, which is what a run without charged compute
    (smpi/simulate-computation:no) simulates."""
    for row in prof.get("codecs", []):
        for k in ("compress", "decompress", "combine", "combine_raw"):
            if row.get(k):
                row[k] = FREE
        row["call_overhead"] = 0.0
    prof["gamma"] = 0.0
    prof["gemm_flops_f64"] = prof["gemm_flops_f32"] = FREE
    prof.pop("measurements", None)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "platforms"))
    ap.add_argument("--nodes", default="16,64,128,256,1024")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for kind in KINDS:
        for n in (int(x) for x in a.nodes.split(",")):
            print(write(kind, n, a.out))

if __name__ == "__main__":
    main()
