#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ctl_table.py RUN.json...: the stock part of "make bench" as Markdown.

Each RUN.json is a stock.json of tests/bench/ctl_report.py (docs/bench/
keeps them as run*.json). A table per buffer size: per kernel and
strategy, cmabufctl bench's alloc, touch, free (close) and whole cycle in
ms, then cpu-ref (the medians of its runs before and after that bench)
and the cycle over it. Of one run, a cell is
the median of the cycles [the fastest–the slowest]; of several, the median
of the runs' medians [the lowest–the highest]. The kernels were booted
one after the other, each at the host's speed of its boot: compare them
on "cycle ÷ cpu-ref" (the same user-space work timed in the same boot,
tests/testctl/bench_ref.c), not on the milliseconds.
"""

import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import fmt_ms  # noqa: E402

PHASES = ("alloc", "touch", "close", "cycle")
HEADS = ("alloc", "touch", "free (close)", "cycle")


def fmt_size(size):
    if size >= 1 << 30 and not size % (1 << 30):
        return f"{size >> 30} GiB"
    return f"{size >> 20} MiB"


def spread(mid, lo, hi):
    return f"{fmt_ms(mid)} [{fmt_ms(lo)}–{fmt_ms(hi)}]"


def cell(rows):
    """The cell of a phase's rows, one per run (None where missing)."""
    rows = [r for r in rows if r]
    if not rows:
        return "—"
    if len(rows) == 1:
        r = rows[0]
        return spread(r["median_ns"], r["min_ns"], r["max_ns"])
    meds = [r["median_ns"] for r in rows]
    return spread(statistics.median(meds), min(meds), max(meds))


def refs_of(rep, kernel, size):
    """The cpu-ref medians beside @kernel's bench of @size bytes."""
    for b in rep["benches"]:
        if (b["kernel"], b["size_bytes"]) == (kernel, size):
            return b["cpu_ref_ns"]
    return []


def ref_cell(reps, kernel, size):
    refs = [r for r in (refs_of(rep, kernel, size) for rep in reps) if r]
    if not refs:
        return "—"
    if len(refs) == 1:
        return spread(statistics.median(refs[0]), min(refs[0]), max(refs[0]))
    meds = [statistics.median(r) for r in refs]
    return spread(statistics.median(meds), min(meds), max(meds))


def ratio_cell(reps, kernel, size, strategy):
    vals = []
    for rep in reps:
        refs = refs_of(rep, kernel, size)
        row = find(rep, kernel, size, strategy, "cycle")
        if refs and row:
            vals.append(row["median_ns"] / statistics.median(refs))
    if not vals:
        return "—"
    if len(vals) == 1:
        return f"{vals[0]:.2f}"
    return (f"{statistics.median(vals):.2f} "
            f"[{min(vals):.2f}–{max(vals):.2f}]")


def find(rep, kernel, size, strategy, phase):
    for r in rep["rows"]:
        if (r["kernel"], r["size_bytes"], r["strategy"], r["phase"]) == \
           (kernel, size, strategy, phase):
            return r
    return None


def ordered(items):
    out = []
    for i in items:
        if i not in out:
            out.append(i)
    return out


def size_lines(reps, size):
    first = reps[0]
    head = ("of the cycles [fastest–slowest]" if len(reps) == 1 else
            f"of {len(reps)} runs' medians [lowest–highest]")
    lines = [f"**cmabufctl bench, {fmt_size(size)}**: ms, median {head}; "
             f"cpu-ref: that boot's speed, timed before and after", "",
             "| kernel | strategy | n | " + " | ".join(HEADS) +
             " | cpu-ref | cycle ÷ cpu-ref |",
             "|---|---|---|" + "---|" * len(HEADS) + "---|---|"]
    for k in first["kernels"]:
        name = k["name"]
        label = f"{name} ({k['release']})" if k.get("release") else name
        ref = ref_cell(reps, name, size)
        for s in ordered(r["strategy"] for r in first["rows"]
                         if (r["kernel"], r["size_bytes"]) == (name, size)):
            got = [find(rep, name, size, s, "cycle") for rep in reps]
            n = "+".join(str(g["n"]) for g in got if g)
            cells = [cell([find(rep, name, size, s, ph) for rep in reps])
                     for ph in PHASES]
            lines.append(f"| {label} | {s} | {n} | " + " | ".join(cells) +
                         f" | {ref} | {ratio_cell(reps, name, size, s)} |")
        for m in first["missing"]:
            if (m["kernel"], m["size_bytes"]) != (name, size):
                continue
            lines.append(f"| {label} | {m['strategy'] or '—'} | — | "
                         f"{m['why']} | | | | {ref} | — |")
    return lines + [""]


def table_lines(reps):
    """The tables of the runs @reps (stock.json documents), as lines."""
    sizes = sorted({r["size_bytes"] for rep in reps for r in rep["rows"]} |
                   {m["size_bytes"] for rep in reps for m in rep["missing"]})
    lines = []
    for size in sizes:
        lines += size_lines(reps, size)
    return lines


def main(argv):
    reps = []
    for path in argv[1:]:
        with open(path, encoding="utf-8") as f:
            reps.append(json.load(f))
    if not reps:
        print("usage: ctl_table.py RUN.json...", file=sys.stderr)
        return 2
    print("\n".join(table_lines(reps)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
