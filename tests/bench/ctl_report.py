#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ctl_report.py --out-dir DIR NAME=TAP...: the stock part of "make bench".

Each TAP is the bench-ctl suite's output of one boot (tests/suites/
bench-ctl.sh), NAME the test bed's name of its kernel (stock-6.12, 7.2).
Writes DIR/stock.json (one record a line, report.json_text()) and
DIR/stock.md (tests/bench/ctl_table.py's tables). Exit status 1, with a
line that says why, when a boot has no cmabufctl bench result, a bench
has no cpu-ref beside it, or a line is not JSON.

stock.json: "ctl_bench" (its format), "kernels" (per boot: name, release,
page size, the strategies cmabuf offered, every cpu-ref median in ns),
"benches" (per kernel and size: the instance, its area, the medians of
the cpu-ref runs next to that bench, before and after it), "rows" (per
kernel, size, strategy and phase: cmabufctl bench's figures) and
"missing" (per kernel and size, a strategy offered but not timed, or a
size not run, and why).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctl_table import fmt_size, table_lines  # noqa: E402
from report import json_text  # noqa: E402

FORMAT = 1
NOTE = ("cmabufctl bench, the user's tool: each kernel booted alone, one "
        "after the other, every strategy it offers, interleaved cycle by "
        "cycle. free is the close that frees the buffer (its pages go back "
        "to CMA in the background, untimed). Each boot ran at the host's "
        "speed of its time, which under emulation drifts up to 2.5x: "
        "compare kernels on cycle ÷ cpu-ref (the same user-space work, "
        "timed before and after each bench in the same boot), not on the "
        "milliseconds.")
PREFIXES = ("# ctl-info-json ", "# ctl-bench-json ", "# bench-json ")


class ReportError(Exception):
    pass


def documents(path):
    """[(prefix, document), ...] of the TAP at @path, in its order."""
    docs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            for p in PREFIXES:
                if not line.startswith(p):
                    continue
                try:
                    docs.append((p, json.loads(line[len(p):])))
                except ValueError as e:
                    raise ReportError(f"{path}:{n}: not JSON: {e}")
    return docs


def cpu_refs(doc):
    return [r["median_ns"] for r in doc.get("results", [])
            if r.get("path") == "cpu-ref"]


def beside(docs):
    """[(info, bench, [cpu-ref medians]), ...]: each cmabufctl bench
    document with the instance's info and the cpu-ref runs next to it: the
    ones since the document before it, and the first one after it."""
    out, infos, refs, last = [], {}, [], None
    for p, d in docs:
        if p == PREFIXES[0]:
            for inst in d.get("instances", []):
                infos[inst["device"]] = inst
                label = os.path.basename(inst["device"]).replace("cmabuf-", "")
                infos[label] = inst
        elif p == PREFIXES[2]:
            (last[2] if last else refs).extend(cpu_refs(d))
            last = None
        else:
            last = (infos.get(d["device"]), d, refs)
            out.append(last)
            refs = []
    return out


def compound_fits(info, size):
    """Can a COMPOUND buffer be @size bytes on the instance of @info?"""
    pages = size // info["page_size"]
    order = (pages & -pages).bit_length() - 1
    lo, hi = info.get("min_compound_order"), info.get("max_compound_order")
    return (pages >= 2 and not pages & (pages - 1) and lo is not None and
            lo <= order <= hi)


def why_missing(info, size, strategy):
    if strategy == "compound" and not compound_fits(info, size):
        return (f"not a COMPOUND size here (orders {info.get('min_compound_order')}"
                f" to {info.get('max_compound_order')} of {info['page_size']} B)")
    return "offered, not timed (see the suite's TAP)"


def boot(name, path):
    """One boot's kernel record, benches, rows and missing records."""
    runs = beside(documents(path))
    if not any("results" in d for _, d, _ in runs):
        raise ReportError(f"{name}: no cmabufctl bench result in {path}")
    kernel = {"name": name, "release": None, "page_size": None,
              "strategies": [], "cpu_ref_ns": []}
    benches, rows, missing = [], [], []
    for info, d, refs in runs:
        if info is None:
            raise ReportError(f"{name}: no cmabufctl info of {d['device']}")
        if not refs:
            raise ReportError(f"{name}: no cpu-ref beside the bench of "
                              f"{d['size_bytes']} bytes in {path}")
        size = d["size_bytes"]
        where = {"kernel": name, "size_bytes": size,
                 "device": os.path.basename(info["device"])}
        kernel["page_size"] = info["page_size"]
        kernel["strategies"] = [s for s in info.get("strategies") or []
                                if s != "auto"]
        kernel["cpu_ref_ns"] += refs
        benches.append(dict(where, area=info["area"],
                            area_bytes=info.get("total_bytes"),
                            iterations=d.get("iterations"), cpu_ref_ns=refs))
        if "skipped" in d:
            missing.append(dict(where, strategy=None, why=(
                f"not run: its area ({info['area']}, "
                f"{fmt_size(info['total_bytes'])}) holds less")))
            continue
        kernel["release"] = d["kernel"]
        timed = []
        for r in d["results"]:
            if r["strategy"] not in timed:
                timed.append(r["strategy"])
            rows.append(dict(where, strategy=r["strategy"],
                             **{k: r[k] for k in ("phase", "n", "median_ns",
                                                  "p90_ns", "p99_ns", "min_ns",
                                                  "max_ns", "mean_ns")}))
        for s in kernel["strategies"]:
            if s not in timed:
                missing.append(dict(where, strategy=s,
                                    why=why_missing(info, size, s)))
    return kernel, benches, rows, missing


def build(boots):
    """The report of [(name, TAP path), ...]."""
    rep = {"ctl_bench": FORMAT, "kernels": [], "benches": [], "rows": [],
           "missing": []}
    for name, path in boots:
        kernel, benches, rows, missing = boot(name, path)
        rep["kernels"].append(kernel)
        rep["benches"] += benches
        rep["rows"] += rows
        rep["missing"] += missing
    return rep


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("boots", nargs="+", metavar="NAME=TAP")
    args = ap.parse_args(argv)
    pairs = []
    for b in args.boots:
        name, sep, path = b.partition("=")
        if not sep or not name or not path:
            ap.error(f"not NAME=TAP: '{b}'")
        pairs.append((name, path))
    try:
        rep = build(pairs)
    except (ReportError, OSError, KeyError) as e:
        print(f"ctl_report.py: {e}", file=sys.stderr)
        return 1
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "stock.json"), "w",
              encoding="utf-8") as f:
        f.write(json_text(rep))
    with open(os.path.join(args.out_dir, "stock.md"), "w",
              encoding="utf-8") as f:
        f.write(NOTE + "\n\n" + "\n".join(table_lines([rep])) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
