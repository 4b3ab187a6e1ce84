#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the speedup suite's results of several boots of two kernels at
one speed: each median over its own boot's cpu-ref median of the same
workload, per boot, and the median of the boots.

  at_one_speed.py DIR  (DIR/<kernel>-<n>.jsonl, the "# bench-json" lines of
                        one boot's speedup suite)

Prints a Markdown table: workload, phase, then per kernel the ratios of its
boots and their median. The path is left out: the "before" kernels measure
one path each (LEGACY on the test bed's 6.12, the DMA API's on Debian's).
"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict


def boots(directory):
    """{kernel: [{(workload, phase): ratio}, ...]}, a dict per boot."""
    out = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(directory, "*.jsonl"))):
        kernel = os.path.basename(path).rsplit("-", 1)[0]
        ratios = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                doc = json.loads(line)
                res = doc["results"]
                ref = [r["median_ns"] for r in res if r["path"] == "cpu-ref"]
                for r in res:
                    if r["path"] != "cpu-ref" and ref:
                        ratios[(doc["workload"], r["phase"])] = \
                            r["median_ns"] / ref[0]
        out[kernel].append(ratios)
    return out


def main():
    data = boots(sys.argv[1])
    kernels = sorted(data)
    keys = sorted({k for b in data.values() for r in b for k in r})
    print("| workload | phase | " +
          " | ".join(f"{k}: boots (median)" for k in kernels) + " |")
    print("|---|---|" + "---|" * len(kernels))
    for key in keys:
        cells = []
        for k in kernels:
            vals = [b[key] for b in data[k] if key in b]
            cells.append(", ".join(f"{v:.2f}" for v in vals) +
                         f" ({statistics.median(vals):.2f})" if vals else "—")
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
