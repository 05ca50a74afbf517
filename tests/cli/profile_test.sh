#!/usr/bin/env bash
# End-to-end test of `commpress profile` at 2 ranks (small sweep, small codec arrays): the
# profile it writes is complete and consistent (links, overlap limit, gamma, codec rates, MPI's
# reduce_scatter and bcast against the plain ones, the raw measurements), Auto can decide with it, and bad requests end with a non-zero status and
# one error line. No measured value is compared with a speed.
# Usage: profile_test.sh PATH_TO_COMMPRESS MPIEXEC WORK_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/mpi_test_lib.sh"

MAX=262144
if ! run_np 2 "$BIN" profile --out "$WORK/p.json" --max-bytes $MAX --elements 65536 \
    >"$WORK/out.txt" 2>"$WORK/err.txt"; then
  fail "profile exited non-zero: $(cat "$WORK/err.txt")"
fi
grep -q "transfers overlap computation up to" "$WORK/out.txt" ||
  fail "the summary does not state the overlap limit: $(cat "$WORK/out.txt")"
python3 - "$WORK/p.json" "$MAX" <<'PY' || fail "profile contents: see above"
import json, sys
p, most = json.load(open(sys.argv[1])), float(sys.argv[2])
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
need(p.get("format") == "commpress-machine-profile" and p.get("version") == 1, "format/version")
for name in ("network", "intra_node"):  # 2 ranks on this machine share a node
    l = p.get(name, {})
    e, r = l.get("eager", {}), l.get("rendezvous", {})
    need(all(v >= 0 for v in (e.get("alpha", -1), e.get("beta", -1), r.get("alpha", -1), r.get("beta", -1))),
         f"{name}: alpha and beta must be measured and >= 0: {l}")
    need(r.get("alpha", -1) >= e.get("alpha", 0), f"{name}: rendezvous latency below eager: {l}")
    need(l.get("switch_bytes", 0) > 0, f"{name}: switch_bytes")
    o = l.get("overlap_bytes", -1)
    # 0, or a power of two the probe judged, never beyond the sweep.
    need(o == 0 or (1024 <= o <= most and (int(o) & (int(o) - 1)) == 0), f"{name}: overlap_bytes {o}")
need(p.get("gamma", 0) > 0, "gamma")
need(p.get("codec_oversubscription", 0) >= 1, "codec_oversubscription")
need(p.get("oversubscribed_wait", -1) >= 0, f"oversubscribed_wait {p.get('oversubscribed_wait')}")
# MPI's operations against the plain ones: the sizes up to the sweep's largest (the shared
# window's too: both ranks run on this node).
for key in ("reduce_scatter_mpi", "bcast_mpi", "allreduce_mpi", "allgather_mpi", "bcast_window_mpi"):
    rs = p.get(key, {})
    pts = rs.get("block_bytes_slowdown", [])
    need(rs.get("ranks") == 2 and [b for b, _ in pts] == [65536] and all(s > 0 for _, s in pts),
         f"{key}: {rs}")
szp = {c["dtype"]: c for c in p.get("codecs", []) if c.get("codec") == "szp"}
need(set(szp) == {"f32", "f64"}, f"szp rates for f32 and f64: {sorted(szp)}")
for dt, c in szp.items():
    need(all(c.get(k, 0) > 0 for k in ("compress", "decompress", "combine", "combine_raw")),
         f"szp {dt}: every rate measured: {c}")
    need(c.get("typical_ratio", 0) > 1, f"szp {dt}: typical ratio {c.get('typical_ratio')}")
# The study's other lossy codecs are measured by default, so the model predicts them too.
for name in ("pred-byte", "pred-bit"):
    rows = {c["dtype"]: c for c in p.get("codecs", []) if c.get("codec") == name}
    need(set(rows) == {"f32", "f64"} and all(c.get("compress", 0) > 0 and c.get("decompress", 0) > 0
                                             for c in rows.values()),
         f"{name}: compress and decompress rates for f32 and f64 by default: {rows}")
sizes = [s[0] for s in p.get("measurements", {}).get("pingpong_one_way", [])]
need(sizes and sizes[0] == 8 and sizes[-1] == most, f"ping-pong sizes 8..{most}: {sizes[:3]}..{sizes[-1:]}")
need(all(s[1] > 0 for s in p["measurements"]["pingpong_one_way"]), "ping-pong times > 0")
# The BLAS the rates came from, named (a build without the multiply has no BLAS rates).
if "gemm_flops_f64" in p:
    need("OpenBLAS" in p["measurements"].get("blas", ""), f"the BLAS is not named: {p['measurements'].get('blas')}")
for b in bad:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# Auto decides with it: one measurement, no error, a prediction.
if ! COMMPRESS_PROFILE="$WORK/p.json" run_np 2 -x COMMPRESS_PROFILE "$BIN" bench collective \
    --op allreduce --algorithm auto --count 100000 --bound-rel 1e-3 --repeat 1 \
    >"$WORK/auto.jsonl" 2>"$WORK/auto.err"; then
  fail "Auto with the measured profile exited non-zero: $(cat "$WORK/auto.err")"
fi
python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = len(rows) == 1 and "error" not in rows[0] and rows[0].get("predicted_seconds", 0) > 0
sys.exit(0 if ok else 1)' "$WORK/auto.jsonl" ||
  fail "Auto with the measured profile: $(cat "$WORK/auto.jsonl" "$WORK/auto.err")"
grep -q "unreadable\|cannot" "$WORK/auto.err" && fail "profile not read: $(cat "$WORK/auto.err")"

# Bad requests: one rank, an impossible sweep.
expect_error() {  # expect_error WHAT RANKS ARGS...
  local what=$1 np=$2
  shift 2
  if run_np "$np" "$BIN" profile --out "$WORK/bad.json" "$@" >"$WORK/bad.out" 2>"$WORK/bad.err"; then
    fail "$what: exit status 0"
  fi
  grep -q "commpress: error: " "$WORK/bad.err" || fail "$what: no error line: $(cat "$WORK/bad.err")"
}
expect_error "one rank" 1
expect_error "largest message of 4 bytes" 2 --max-bytes 4

finish profile_test
