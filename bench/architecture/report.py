#!/usr/bin/env python3
# Paired before/after table of bench/architecture/run's JSON lines: per configuration the
# median of each build's per-launch medians and the fastest launch, and new/base of both.
#   report.py FILE KEY_FIELDS (comma-separated fields that name a configuration)
import json, sys, statistics as st, collections
path = sys.argv[1]
key_fields = sys.argv[2].split(',')
rows = collections.defaultdict(lambda: {'base': [], 'new': [], 'basemin': [], 'newmin': [], 'bytes': {}})
loads = []
for line in open(path):
    try: d = json.loads(line)
    except Exception: continue
    if 'seconds_median' not in d: continue
    k = tuple(str(d.get(f)) for f in key_fields)
    b = d['build']
    rows[k][b].append(d['seconds_median']); rows[k][b + 'min'].append(d['seconds_min'])
    loads.append(float(d['load']))
    for f in ('bytes_sent_total', 'bytes_sent', 'ratio'):
        if f in d: rows[k]['bytes'].setdefault(b, d[f])
print(f"load average (1-min) during the run: {min(loads):.1f}-{max(loads):.1f}, median {st.median(loads):.1f}")
print('| ' + ' | '.join(key_fields) + ' | rounds | base median s | new median s | new/base (median) | base min s | new min s | new/base (min) |')
print('|' + '---|' * (len(key_fields) + 7))
gm_med = []; gm_min = []
for k, r in sorted(rows.items()):
    if not r['base'] or not r['new']: continue
    bm, nm = st.median(r['base']), st.median(r['new'])
    bmin, nmin = min(r['basemin']), min(r['newmin'])
    gm_med.append(nm / bm); gm_min.append(nmin / bmin)
    print('| ' + ' | '.join(k) + f" | {len(r['base'])}/{len(r['new'])} | {bm:.4f} | {nm:.4f} | {nm/bm:.3f} | {bmin:.4f} | {nmin:.4f} | {nmin/bmin:.3f} |")
print(f"\ngeometric mean new/base: {st.geometric_mean(gm_med):.3f} (medians), {st.geometric_mean(gm_min):.3f} (minima); per configuration minima {min(gm_min):.2f}-{max(gm_min):.2f}")
