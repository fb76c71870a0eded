#!/usr/bin/env python3
# Checks a simulate schedule.csv against its SWF trace: no job starts before its submit, each runs
# exactly its trace run time on exactly procs distinct nodes, and no node runs two jobs at once
# (one-CPU nodes). Usage: check-schedule.py schedule.csv TRACE NODES
import csv, gzip, re, sys
# usage: check.py schedule.csv trace nodes
sched, trace, nodes = sys.argv[1], sys.argv[2], int(sys.argv[3])
op = gzip.open if open(trace,'rb').read(2) == b'\x1f\x8b' else open
runs = {}
with op(trace, 'rt') as f:
    for line in f:
        if line.startswith(';') or not line.strip(): continue
        x = line.split()
        runs[int(x[0])] = (int(x[1]), int(x[3]))
def expand(h):
    out = []
    for part in re.findall(r'[^,\[]+(?:\[[^\]]*\])?', h):
        m = re.match(r'([^\[]+)\[([^\]]*)\]$', part)
        if not m: out.append(part); continue
        pre, body = m.groups()
        for r in body.split(','):
            if '-' in r:
                a, b = r.split('-'); w = len(a)
                out += [pre + str(i).zfill(w) for i in range(int(a), int(b)+1)]
            else: out.append(pre + r)
    return out
ev = []; per = {}; bad = 0; n = 0
with open(sched) as f:
    for row in csv.DictReader(f):
        n += 1
        j = int(row['job_id']); s, st, e, p = int(row['submit']), int(row['start']), int(row['end']), int(row['procs'])
        sub, run = runs[j]
        if st < sub or e - st != run or s != sub: bad += 1
        hs = expand(row['nodes'])
        if len(hs) != p or len(set(hs)) != p: bad += 1
        for h in hs: per.setdefault(h, []).append((st, e))
        ev.append((st, p)); ev.append((e, -p))
ev.sort(key=lambda t: (t[0], t[1]))
busy = 0; peak = 0
for t, d in ev:
    busy += d; peak = max(peak, busy)
overlap = 0
for h, spans in per.items():
    spans.sort()
    for a, b in zip(spans, spans[1:]):
        if b[0] < a[1]: overlap += 1
print(f"{sched}: jobs={n} bad_rows={bad} peak_busy={peak}/{nodes} node_overlaps={overlap} nodes_used={len(per)}")
