#!/usr/bin/env python3
"""Summarizes a COMMPRESS_TRIANGULAR_TRACE of commpress_pdpotrf (docs/triangular.md, "Tracing").

    trace_summary.py PREFIX [--call I]

reads PREFIX.<rank> for every rank and prints, for call I (default: the last), per rank its
wall and CPU seconds and the seconds it spent blocked waiting for panels ("wait" to
"arrived"), in the rest of a step's update outside the waits ("rest"), in the look-ahead
("ahead" to the panel's "factor"), in the in-step updates ("inner") and in update pieces done
while a panel was on its way; then, as medians over the panels, the chain from one panel to
the next: the root posts panel k, the next process column has all of it, starts factoring
panel k + 1, and posts it. The ranks' clocks are one steady clock (same host).
"""
import argparse
import collections
import glob
import statistics


def load(prefix, call):
    ranks = {}
    for path in glob.glob(prefix + '.*'):
        suffix = path.rsplit('.', 1)[1]
        if not suffix.isdigit():
            continue
        calls = []
        for line in open(path):
            t, what, *rest = line.split()
            if what == 'call':
                calls.append({'grid': (int(rest[0]), int(rest[1])), 'events': []})
            elif what == 'end':
                calls[-1]['wall'], calls[-1]['cpu'] = float(rest[1]), float(rest[3])
            else:
                calls[-1]['events'].append((float(t), what, int(rest[0])))
        ranks[int(suffix)] = calls[call]
    return ranks


def spans(events):
    total = collections.Counter()
    opened = {}
    pairs = {'wait': 'arrived', 'rest': 'rest_end', 'ahead': 'factor', 'inner': 'inner_end',
             'await': 'wait'}
    for t, what, _ in events:
        for start, end in pairs.items():
            if what == end and start in opened:
                total[start] += t - opened.pop(start)
        if what in pairs:
            opened[what] = t
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('prefix')
    ap.add_argument('--call', type=int, default=-1)
    args = ap.parse_args()
    ranks = load(args.prefix, args.call)
    print('rank (row, col): wall cpu | blocked rest ahead inner pieces-while-waiting (s)')
    for r, c in sorted(ranks.items()):
        s = spans(c['events'])
        print('%d %s: %.3f %.3f | %.3f %.3f %.3f %.3f %.3f' % (
            r, c['grid'], c['wall'], c['cpu'], s['wait'], s['rest'], s['ahead'], s['inner'],
            s['await']))
    cols = max(c['grid'][1] for c in ranks.values()) + 1
    at = {r: {(w, k): t for t, w, k in c['events']} for r, c in ranks.items()}
    ks = sorted({k for r in at for (w, k) in at[r] if w == 'posted'})
    arrive, start, factor, chain = [], [], [], []
    for k in ks[:-1]:
        owners = [r for r, c in ranks.items() if c['grid'][1] == k % cols]
        nexts = [r for r, c in ranks.items() if c['grid'][1] == (k + 1) % cols]
        posted = max(at[r][('posted', k)] for r in owners)
        arrived = max(at[r][('arrived', k)] for r in nexts)
        begun = max(at[r][('factor', k + 1)] for r in nexts)
        sent = max(at[r][('posted', k + 1)] for r in nexts)
        arrive.append(arrived - posted)
        start.append(begun - arrived)
        factor.append(sent - begun)
        chain.append(sent - posted)
    ms = lambda x: 1e3 * statistics.median(x) if x else float('nan')
    print('per panel, median ms: posted -> next column has it %.2f | -> factoring the next %.2f'
          ' | factored and posted %.2f | posted to posted %.2f' % (
              ms(arrive), ms(start), ms(factor), ms(chain)))


if __name__ == '__main__':
    main()
