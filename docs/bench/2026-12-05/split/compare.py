#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare.py BEFORE.json AFTER.json: two make bench reports, one from
before cmabufctl's test-bed workloads moved to tests/testctl (issue 34)
and one after. Prints which rows each has, and how the figures compare:
the reports' own ratios (6.12 on one boot against 7.2 on another) and,
within the 7.2 boot of each run, the CMA heap's median over each path's."""
import json
import statistics
import sys


def rows(path):
    with open(path) as f:
        report = json.load(f)
    return {(r['setting'], r['workload'], r['phase'], r['path'],
             r['prepared']): r for r in report['rows']}


def spread(values):
    values = sorted(values)
    n = len(values)
    return (f'median {statistics.median(values):.2f}, '
            f'p10 {values[n // 10]:.2f}, p90 {values[9 * n // 10]:.2f}, '
            f'{n} rows')


def against_heap(report):
    out = {}
    for key, row in report.items():
        heap = report.get(key[:3] + ('cma-heap', key[4]))
        if key[3] == 'cma-heap' or not heap:
            continue
        mine, theirs = row.get('after'), heap.get('after')
        if mine and theirs and mine.get('median_ns') and theirs.get('median_ns'):
            out[key] = theirs['median_ns'] / mine['median_ns']
    return out


def main():
    before, after = rows(sys.argv[1]), rows(sys.argv[2])
    both = set(before) & set(after)
    print(f'rows: {len(before)} before, {len(after)} after, {len(both)} in both; '
          f'only before {len(set(before) - both)}, only after {len(set(after) - both)}')
    cross = [after[k]['ratio'] / before[k]['ratio'] for k in both
             if isinstance(after[k].get('ratio'), float) and
             isinstance(before[k].get('ratio'), float) and before[k]['ratio']]
    print(f'6.12 ÷ 7.2 (two boots), after run over before run: {spread(cross)}')
    hb, ha = against_heap(before), against_heap(after)
    within = [ha[k] / hb[k] for k in set(ha) & set(hb)]
    print(f'CMA heap ÷ path (one 7.2 boot), after run over before run: {spread(within)}')


if __name__ == '__main__':
    main()
