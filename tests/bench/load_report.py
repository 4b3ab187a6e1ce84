#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Allocation under memory load: the "bench-load" suite's results as a report.

Each --in FILE is the JSON lines of one boot (tests/qemu/bench-load.sh):
`cmabufctl bench --json` documents of the loop workloads, one per run, a
result per path and phase in each (every attempt a sample, with its errno,
start time, turn and the kernel counters it moved; the document's "load"
names the memory load it ran under), the load's records
(cmabuf_load: what it placed where before each sample, "record": "load"),
the page-copy rate ("record": "copy"), 7.2's cma_alloc_busy_retry trace
events ("record": "trace"), which are counted to the sample they fall in,
processes killed in the middle of a loaded allocation ("record":
"kill", tests/load/cmabuf_killtime.c), and ready buffers given back once
memory ran short ("record": "shrink", tests/load/cmabuf_shrinktime.c).

A path whose buffers were prepared ahead of every sample (cmabuf-S-prepared:
"prepared" in its results) times a prepared ALLOC, not a cold one: its rows
come after the cold paths', labelled so, with how many of its allocations
took a ready buffer; a cold row where any did says so too.

Writes OUT/report.md, OUT/report.json (one record a line, as report.py
writes it) and, where gnuplot runs, a latency CDF per workload and load
(OUT/cdf-WORKLOAD-LOAD.png): the fraction of attempts done within a time,
so that failures keep a curve below 1.
"""

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import expand, fmt_ms, gnuplot_has, write_json  # noqa: E402

SAMPLED = ("load-64m", "load-1g", "load-blocks-2m", "camera")
LOAD_ORDER = ("idle", "fill", "churn", "pins", "thp", "shmem", "general", "check")
PATH_ORDER = ("cmabuf-compound", "cmabuf-frozen", "cmabuf-legacy",
              "cmabuf-auto", "cma-heap", "cmabuf-compound-prepared",
              "cmabuf-frozen-prepared", "cmabuf-legacy-prepared",
              "cmabuf-auto-prepared")
PREPARED_SUFFIX = "-prepared"
# The seed question's per-block figures (4.9 and 5.4), for context only.
SEED_BLOCK_US = {"p50": 115, "p99": 306}


def rank(value, order):
    return (order.index(value), "") if value in order else (len(order), value)


def is_prepared(result):
    """Were the result's buffers prepared ahead (CMABUF_IOC_PREPARE)? Its
    "prepared", or for results without it, its path's name."""
    return bool(result.get("prepared", result["path"].endswith(PREPARED_SUFFIX)))


def load_file(path):
    """One boot's records: (results, loads, copies, traces, kills, shrinks)."""
    results, loads, copies, traces, kills, shrinks = [], [], [], [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                doc = json.loads(line)
            except json.JSONDecodeError:
                print(f"load_report: {path}: a line that is no JSON",
                      file=sys.stderr)
                continue
            # A bench document's results, each with the run's settings.
            for r in expand(doc):
                if not isinstance(r, dict):
                    continue
                kind = r.get("record")
                if kind == "load":
                    loads.append(r)
                elif kind == "copy":
                    copies.append(r)
                elif kind == "trace":
                    traces.append(r)
                elif kind == "kill":
                    kills.append(r)
                elif kind == "shrink":
                    shrinks.append(r)
                elif "workload" in r and "samples_ns" in r:
                    results.append(r)
    return results, loads, copies, traces, kills, shrinks


def percentile(values, pct):
    """Nearest rank, as cmabufctl computes it."""
    if not values:
        return None
    s = sorted(values)
    k = max(1, -(-pct * len(s) // 100))
    return s[k - 1]


def busy_per_sample(result, traces):
    """cma_alloc_busy_retry events within each attempt of @result."""
    stamps = sorted(int(round(float(t["ts"]) * 1e9)) for t in traces
                    if t.get("load", "") == result.get("load", ""))
    out = []
    for start, ns in zip(result.get("start_ns", []), result["samples_ns"]):
        # The trace clock has microseconds: a microsecond of slack.
        out.append(sum(start - 1000 <= s <= start + ns + 1000 for s in stamps))
    return out


def placement(result, loads):
    """Medians over the refills before @result's samples: the target
    area's free bytes, and the rest of it, which the load's movable pages
    fill (the area hands nothing out between samples)."""
    free, held, met = [], [], []
    for rec in loads:
        if (rec.get("event") != "refill" or rec.get("load") != result.get("load")
                or rec.get("bench_path") != result["path"]):
            continue
        fill, target = rec.get("fill") or {}, rec.get("target") or {}
        if "area_free" in fill and target.get("area_bytes"):
            free.append(fill["area_free"])
            held.append(target["area_bytes"] - fill["area_free"])
        met.append(bool(fill.get("met")))
    return {"area_free": statistics.median(free) if free else None,
            "area_movable": statistics.median(held) if held else None,
            "refills": len(met), "refills_met": sum(met)}


def summarise(boot, result, loads, traces, copy_rate):
    """One row: the attempts of one path, workload, phase and load."""
    ns, err = result["samples_ns"], result["errno"]
    good = [t for t, e in zip(ns, err) if not e]
    row = {"boot": boot, "kernel": result["kernel"], "workload": result["workload"],
           "phase": result["phase"], "path": result["path"],
           "load": result.get("load", "idle"), "procs": result.get("procs"),
           "areas": result.get("areas"), "attempts": len(ns),
           "ok": len(good), "errors": result.get("errors", {}),
           "p50_ns": statistics.median(good) if good else None,
           "p90_ns": percentile(good, 90), "p99_ns": percentile(good, 99),
           "max_ns": max(good) if good else None,
           "fail_max_ns": max((t for t, e in zip(ns, err) if e), default=None),
           "samples_ns": ns, "errno": err, "prepared": is_prepared(result)}
    if row["prepared"]:
        row["prepare_hits"] = result.get("prepare_hits")
        row["prepare_errors"] = result.get("prepare_errors", {})
    # A counter the kernel lacks is null.
    counters = result.get("counters") or {}
    moved = counters.get("pgmigrate_success")
    if moved:
        row["moved_median"] = statistics.median(moved)
        rates = [m / (t / 1e9) for m, t, e in zip(moved, ns, err)
                 if not e and m and t]
        row["migration_pages_s"] = statistics.median(rates) if rates else None
        if row["migration_pages_s"] and copy_rate:
            row["copy_pages_s"] = copy_rate
    for key in ("pgmigrate_fail", "cmabuf_failures", "cmabuf_busy_retries",
                "cmabuf_interrupted", "area_alloc_pages_fail",
                "cmabuf_prepare_hits"):
        if counters.get(key) is not None:
            row[key] = sum(counters[key])
    if traces and "start_ns" in result:
        busy = busy_per_sample(result, traces)
        row["busy_retries_median"] = statistics.median(busy) if busy else 0
        row["busy_retries_max"] = max(busy, default=0)
    if result.get("load") and result["phase"] == "alloc":
        row.update(placement(result, loads))
    for key in ("throughput_mib_s", "series", "max_size_bytes"):
        if key in result:
            row[key] = result[key]
    return row


def collect(files):
    """Rows of every boot, and what each boot's load said apart."""
    rows, boots = [], []
    for path in files:
        boot = os.path.basename(path).rsplit(".", 1)[0]
        results, loads, copies, traces, kills, shrinks = load_file(path)
        copy_rate = copies[-1]["pages_per_s"] if copies else None
        longterm = [r["longterm"] for r in loads
                    if r.get("event") == "start" and r.get("longterm", {}).get("bytes")]
        boots.append({"boot": boot, "file": path, "copy_pages_s": copy_rate,
                      "kernels": sorted({r["kernel"] for r in results}),
                      "longterm": longterm, "kills": kills,
                      "shrinks": shrinks,
                      "trace_events": len(traces)})
        for r in results:
            rows.append(summarise(boot, r, loads, traces, copy_rate))
    rows.sort(key=lambda r: (rank(r["workload"], SAMPLED), r["phase"],
                             rank(r["load"], LOAD_ORDER), r["boot"],
                             r["procs"] or 0, r["areas"] or 0,
                             rank(r["path"], PATH_ORDER)))
    return rows, boots


def ms(ns):
    return "—" if ns is None else fmt_ms(ns)


def errors_cell(row):
    if not row["errors"]:
        return ""
    cell = ", ".join(f"{k} {v}" for k, v in sorted(row["errors"].items()))
    if row.get("prepare_errors"):
        cell += " (in the PREPARE before: " + ", ".join(
            f"{k} {v}" for k, v in sorted(row["prepare_errors"].items())) + ")"
    return cell


def served(hits):
    """How many allocations took a ready buffer, in words."""
    if hits is None:
        return "allocations that took a ready buffer not counted"
    return f"{hits} allocation{'' if hits == 1 else 's'} took a ready buffer"


def path_cell(row):
    """The path, and for a prepared one that it is no cold ALLOC; a cold one
    whose allocations took ready buffers (a reserve) says so."""
    hits = row.get("cmabuf_prepare_hits", row.get("prepare_hits"))
    if row["prepared"]:
        return (f"**{row['path']}**: prepared ahead, untimed; not a cold ALLOC "
                f"({served(hits)})")
    if hits:
        return f"{row['path']} ({served(hits)}: not all cold)"
    return row["path"]


def sampled_table(rows, workload, phase):
    picked = [r for r in rows if r["workload"] == workload and r["phase"] == phase]
    if not picked:
        return []
    what = "per buffer" if phase == "alloc-block" else phase
    lines = ["", f"### {workload}, {what}", "",
             "| boot | load | path | ok / n | p50 | p90 | p99 | max | failures | "
             "moved pages/sample | migration pages/s (÷ copy) | busy windows/sample "
             "(max) | area movable before |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in picked:
        rate = "—"
        if r.get("migration_pages_s"):
            rate = f"{r['migration_pages_s']:.0f}"
            if r.get("copy_pages_s"):
                rate += f" ({r['migration_pages_s'] / r['copy_pages_s']:.3f})"
        busy = "—"
        if "busy_retries_median" in r:
            busy = f"{r['busy_retries_median']:g} ({r['busy_retries_max']})"
        movable = "—"
        if r.get("area_movable") is not None:
            movable = (f"{r['area_movable'] / 2**20:.0f} MiB "
                       f"({r['refills_met']}/{r['refills']} refills met)")
        fails = errors_cell(r)
        if r["fail_max_ns"] is not None:
            fails += f"; slowest {ms(r['fail_max_ns'])} ms"
        lines.append(
            f"| {r['boot']} | {r['load']} | {path_cell(r)} | {r['ok']} / {r['attempts']} | "
            f"{ms(r['p50_ns'])} | {ms(r['p90_ns'])} | {ms(r['p99_ns'])} | "
            f"{ms(r['max_ns'])} | {fails} | {r.get('moved_median', '—')} | {rate} | "
            f"{busy} | {movable} |")
    if phase == "alloc-block":
        lines += ["", f"Context, not a target: the seed question measured "
                  f"{SEED_BLOCK_US['p50']} µs (p50) and {SEED_BLOCK_US['p99']} µs "
                  "(p99) per 2 MiB block."]
    return lines


def concurrent_table(rows):
    picked = [r for r in rows if r["workload"] == "concurrent"]
    if not picked:
        return []
    lines = ["", "### concurrent: processes allocating 64 MiB at once", "",
             "| boot | load | path | processes | areas | call p50 | call p99 | "
             "round p50 | throughput MiB/s | ok / n calls |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    calls = {(r["boot"], r["load"], r["path"], r["procs"], r["areas"]): r
             for r in picked if r["phase"] == "alloc"}
    for r in picked:
        if r["phase"] != "round":
            continue
        c = calls.get((r["boot"], r["load"], r["path"], r["procs"], r["areas"]), {})
        lines.append(
            f"| {r['boot']} | {r['load']} | {r['path']} | {r['procs']} | {r['areas']} | "
            f"{ms(c.get('p50_ns'))} | {ms(c.get('p99_ns'))} | {ms(r['p50_ns'])} | "
            f"{r.get('throughput_mib_s', '—')} | {c.get('ok', '—')} / "
            f"{c.get('attempts', '—')} |")
    return lines


def fragment_table(rows):
    picked = [r for r in rows if r["workload"] == "fragment"]
    if not picked:
        return []
    lines = ["", "### fragment: random 1–64 MiB buffers held and freed", "",
             "| boot | load | path | ok / n | p50 | p99 | max | largest allocatable ÷ "
             "free bytes, median over probes (min) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in picked:
        s = r.get("series") or {}
        ratios = [lg / fr for lg, fr in zip(s.get("largest_bytes", []),
                                           s.get("free_bytes", [])) if fr]
        share = (f"{statistics.median(ratios):.2f} ({min(ratios):.2f})"
                 if ratios else "—")
        lines.append(
            f"| {r['boot']} | {r['load']} | {r['path']} | {r['ok']} / {r['attempts']} | "
            f"{ms(r['p50_ns'])} | {ms(r['p99_ns'])} | {ms(r['max_ns'])} | {share} |")
    return lines


def boots_lines(boots):
    lines = ["| boot | kernel | page copy, pages/s (one CPU) | trace events |",
             "|---|---|---|---|"]
    for b in boots:
        lines.append(f"| {b['boot']} | {', '.join(b['kernels'])} | "
                     f"{b['copy_pages_s'] or '—'} | {b['trace_events']} |")
    for b in boots:
        for lt in b["longterm"]:
            if lt.get("error"):
                lines += ["", f"{b['boot']}: long-term pins not measured: io_uring "
                          f"{lt['error']} (the kernel needs CONFIG_IO_URING)."]
            else:
                lines += ["", f"{b['boot']}: {lt['bytes'] >> 20} MiB registered with "
                          f"io_uring: {lt['in_cma_before'] >> 20} MiB of it in CMA "
                          f"before, {lt['in_cma_after'] >> 20} MiB after; CmaFree "
                          f"{lt['cma_free_before'] >> 20} → {lt['cma_free_after'] >> 20} MiB."]
    return lines


def delta(kill, key):
    """How much a counter moved over the kill, "—" where it is not known."""
    b, a = kill["before"].get(key), kill["after"].get(key)
    return "—" if a is None or b is None else str(a - b)


def kill_table(boots):
    """Processes SIGKILLed in the middle of a loaded allocation."""
    lines = ["", "### SIGKILL during a loaded allocation", "",
             "| boot | path | size | killed after | kills in the call | gone after "
             "(median, max) | CMA pages left | interrupted / failures counted |",
             "|---|---|---|---|---|---|---|---|"]
    found = False
    for b in boots:
        paths = sorted({k["path"] for k in b["kills"]}, key=lambda p: rank(p, PATH_ORDER))
        for path in paths:
            ks = [k for k in b["kills"] if k["path"] == path]
            inside = [k for k in ks if k["call"] == "in the call"]
            gone = [k["exit_ns"] for k in inside]
            left = ", ".join(delta(k, "cma_used_pages") for k in ks)
            counted = ", ".join(f"{delta(k, 'interrupted')} / {delta(k, 'failures')}"
                                for k in inside)
            found = True
            lines.append(
                f"| {b['boot']} | {path} | {ks[0]['size_bytes'] >> 20} MiB | "
                f"{ks[0]['after_ms']} ms | {len(inside)} of {len(ks)} | "
                f"{ms(statistics.median(gone) if gone else None)}, "
                f"{ms(max(gone, default=None))} ms | {left} | {counted} |")
    return lines if found else []


def at_ms(look, t0):
    """When @look was, in ms after @t0 (both records' looks), or "—"."""
    if not look or not t0:
        return "—"
    return fmt_ms(max(look["at_ns"] - t0["at_ns"], 0))


def shrink_table(boots):
    """Ready buffers under memory pressure, one measurement a boot."""
    lines = ["", "### Ready buffers once memory runs short", "",
             "| boot | device | ready as | buffers | reclaim began (s) | first back "
             "(ms after) | all back (ms after) | CmaFree then (MiB) | kept (MiB) "
             "| reclaimed / refilled (buffers) | ALLOCs under it (slowest ms, ready) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    found = False
    for b in boots:
        for r in b.get("shrinks", []):
            found = True
            t0, last = r.get("reclaim"), r.get("all_back")
            began = "never" if not t0 else f"{t0['at_ns'] / 1e9:.1f}"
            cma = "—" if not (t0 and last) else \
                f"{t0['cma_free_bytes'] >> 20} → {last['cma_free_bytes'] >> 20}"
            lines.append(
                f"| {b['boot']} | {r['device']} | {r['by']} | {r['count']} × "
                f"{r['size_bytes'] >> 20} MiB | {began} | "
                f"{at_ms(r.get('first_back'), t0)} | "
                f"{at_ms(last, t0) if last else 'not within ' + str(r['timeout_ms']) + ' ms'} | "
                f"{cma} | {shrink_kept(r)} | {shrink_counts(r)} | "
                f"{shrink_allocs(r)} |")
    return lines if found else []


def shrink_kept(r):
    """The least the instance held ready through the pressure, in MiB."""
    low = r.get("min_prepared_bytes")
    return "—" if low is None else f"{low >> 20}"


def shrink_allocs(r):
    """The ALLOCs made while the pressure held: the slowest, how many ready."""
    a = r.get("alloc_after")
    if not a or not a["ns"]:
        return "—" if not a else f"none (errno {a['errno']})"
    return f"{fmt_ms(max(a['ns']))}, {a['hits']} of {len(a['ns'])} ready"


def shrink_counts(r):
    """The shrinker's given-back and the refilled buffers over the run."""
    c = r.get("counts")
    if not c:
        return "—"
    return f"{c['reclaimed_buffers']} / {c['refilled_buffers']}"


def write_markdown(path, rows, boots):
    lines = ["Allocation under memory load. Times in ms; percentiles of the "
             "attempts that succeeded, ok / n the success rate; moved pages "
             "from /proc/vmstat (pgmigrate_success) over each sample; the "
             "migration rate is moved pages over the allocation's time, beside "
             "one CPU's page-copy rate on the same boot; busy windows are 7.2's "
             "cma_alloc_busy_retry events within the sample; the area's movable "
             "pages as the load found them before each sample. A path "
             "marked prepared had its buffers prepared ahead of every sample "
             "(CMABUF_IOC_PREPARE, untimed): it times a prepared ALLOC, not a "
             "cold one, and comes after the cold paths.", ""]
    lines += boots_lines(boots)
    for w in SAMPLED:
        for phase in ("alloc", "alloc-block", "free"):
            lines += sampled_table(rows, w, phase)
    lines += concurrent_table(rows)
    lines += fragment_table(rows)
    lines += kill_table(boots)
    lines += shrink_table(boots)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def cdf_points(row):
    """(ms, fraction of attempts done): a step at each successful attempt."""
    good = sorted(t for t, e in zip(row["samples_ns"], row["errno"]) if not e)
    n = len(row["samples_ns"])
    points = [(t / 1e6, (i + 1) / n) for i, t in enumerate(good)]
    return [(points[0][0], 0.0)] + points if points else []


# Line colours by path, as report.py's bars; 6.12 dashed, prepared dotted.
COLOURS = {"cmabuf-compound": "#1b7837", "cmabuf-frozen": "#2166ac",
           "cmabuf-legacy": "#b2182b", "cmabuf-auto": "#542788",
           "cma-heap": "#8c510a"}


def chart_phase(workload):
    return {"load-blocks-2m": "alloc-block", "concurrent": "round"}.get(workload,
                                                                      "alloc")


def write_cdf(out_dir, name, title, phase, series):
    """One chart: a CDF per row of @series. Returns the png."""
    plots = []
    for i, r in enumerate(series):
        dat = os.path.join(out_dir, f"cdf-{name}-{i}.dat")
        with open(dat, "w", encoding="utf-8") as f:
            for x, y in cdf_points(r):
                f.write(f"{x:.6g} {y:.6g}\n")
        label = f"{r['path']} ({r['boot']})"
        if r.get("procs"):
            label = f"{r['path']} x{r['procs']}, {r['areas']} area(s) ({r['boot']})"
        # A prepared path in its strategy's colour, dotted.
        cold = r["path"].removesuffix(PREPARED_SUFFIX)
        style = f"lc rgb '{COLOURS.get(cold, '#000000')}'"
        if r["prepared"]:
            label = f"{r['path']}, prepared ahead ({r['boot']})"
            style += " dt 3"
        elif r["kernel"].startswith("6."):
            style += " dt 2"
        if r.get("procs"):
            style = f"lc {i + 1} dt {1 + (r['areas'] or 1) % 2}"
        plots.append(f"'{dat}' using 1:2 with steps lw 2 {style} title '{label}'")
    png = os.path.join(out_dir, f"cdf-{name}.png")
    term = ("pngcairo size 1000,560 font ',9'" if gnuplot_has("pngcairo")
            else "png size 1000,560")
    script = [f"set terminal {term}", f"set output '{png}'",
              "set logscale x", "set yrange [0:1.02]", "set grid",
              "set key outside right top vertical font ',8'",
              f"set xlabel 'ms ({phase}, log scale)'",
              "set ylabel 'fraction of attempts done'",
              f"set title '{title} (a curve short of 1: failures)'",
              "plot " + ", \\\n     ".join(plots)]
    gp = os.path.join(out_dir, f"cdf-{name}.gp")
    with open(gp, "w", encoding="utf-8") as f:
        f.write("\n".join(script) + "\n")
    subprocess.run(["gnuplot", gp], check=True)
    return png


def write_cdfs(out_dir, rows):
    """A chart per workload and load: a CDF per boot and path."""
    charts = []
    keys = sorted({(r["workload"], r["load"]) for r in rows},
                  key=lambda k: (rank(k[0], SAMPLED), rank(k[1], LOAD_ORDER)))
    for w, load in keys:
        phase = chart_phase(w)
        series = [r for r in rows if r["workload"] == w and r["load"] == load
                  and r["phase"] == phase and r["ok"]]
        if series:
            charts.append(write_cdf(out_dir, f"{w}-{load}", f"{w}, {load}: latency CDF",
                                    phase, series))
    return charts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--in", dest="inputs", action="append", required=True,
                    help="JSON lines of one boot")
    ap.add_argument("--out-dir", default="build/bench/load")
    ap.add_argument("--no-chart", action="store_true")
    args = ap.parse_args(argv)

    rows, boots = collect(args.inputs)
    os.makedirs(args.out_dir, exist_ok=True)
    charts = []
    if not args.no_chart and shutil.which("gnuplot"):
        charts = write_cdfs(args.out_dir, rows)
    elif not args.no_chart:
        print("load_report: gnuplot not found; no charts", file=sys.stderr)
    report = {"generated": datetime.datetime.now(datetime.timezone.utc)
              .isoformat(timespec="seconds"),
              "boots": boots, "rows": rows, "charts": charts}
    write_json(os.path.join(args.out_dir, "report.json"), report)
    write_markdown(os.path.join(args.out_dir, "report.md"), rows, boots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
