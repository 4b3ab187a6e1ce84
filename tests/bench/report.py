#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge the before (6.12) and after (7.2) results of `cmabufctl bench --json`.

Writes OUT/report.json (one record a line: json_text()), OUT/report.md (a
Markdown table) and, when gnuplot is installed, OUT/report.png (bars per
path with min-max whiskers) from the script OUT/report.gp. With --check,
also tests speedup ratios and prints them as TAP; the exit status is 1
when one fails.

A check is "WORKLOAD PHASE SIDE:PATH SIDE:PATH RATIO [MIN_N] [by=REF]": the
median of the first must be at least RATIO times the median of the second,
both measured with at least MIN_N samples (default --min-n) and neither
zero. SIDE is "before" or "after". With by=REF, each median is first
divided by its side's median of REF's phase "ref" in the same workload
(cpu-ref: the same user-space work on both boots), so that two boots at
different speeds of the machine compare as at one. Example:
  --check "contig-64m free before:cmabuf-legacy after:cmabuf-frozen 2"
PATH may name alternatives, "cmabuf-legacy|cmabuf-dma": the first the
side measured is taken (the "before" kernel's cma_alloc() path is LEGACY
where the kernel exports it, the DMA API's where it exports nothing of
CMA). A check that needs a side given as --unavailable SIDE=REASON, or
names exactly a SIDE:PATH given as --unavailable SIDE:PATH=REASON, is a
skip with that reason; a check whose results are missing fails.

Results carry the setting they were measured in (init_on_alloc, vCPUs):
each setting gets its own table, before and after compared within it, and
a check needs the result it names to exist in one setting only. For the
end-to-end workloads, each setting also gets the limit table: ALLOC against
the in-kernel allocation of the same size plus the clearing that path must
do at best (see limits()).

What an in-kernel allocation includes depends on the path and the
setting: as shipped (init_on_alloc=1) the page allocator clears LEGACY's
pages inside the call, on one CPU, while FROZEN and COMPOUND on a kernel
with the noinit API (clears_frozen) come out uncleared and ALLOC clears
them afterwards, on every CPU; with init_on_alloc=0 no in-kernel
allocation clears. Every "alloc" row of an in-kernel workload says which
it is on each side, and has no ratio where the two differ (an allocation
that clears nothing against one that clears the whole buffer). The
"alloc+clear" rows compare the same work: the buffer as ALLOC hands it
out, cleared, i.e. the allocation plus the clearing ALLOC adds to it,
timed beside each allocation in the kernel (cmabufctl bench, the bench
file's clear=1); for results from before that, the sum of the medians of
the allocation and of the clearing on every CPU timed in the same setting
(beside the end-to-end cycles, or else the zero workload's). A check on an
in-kernel "alloc" across paths that clear differently fails.

The report opens with the end-to-end figures (allocate, map, touch every
page, unmap and free through the uapi, every buffer cleared), the work a
user's buffer costs, before the tables.

`concurrent` is filed per number of processes (and of areas, when spread):
"concurrent-2 round" is the round of two callers in one area.

A prepared path (cmabuf-S-prepared: its buffer prepared ahead of every
cycle, "prepared" in its results) times a prepared ALLOC, not a cold one:
its rows come after the cold paths', labelled so; it is compared with
itself only (never with the baseline path) and has no limit row.
"""

import argparse
import datetime
import json
import math
import os
import shutil
import subprocess
import sys

REQUIRED = ("kernel", "path", "workload", "phase", "median_ns", "min_ns",
            "max_ns", "n")
# The end-to-end workloads first: they are what a user's buffer costs.
WORKLOAD_ORDER = ("e2e-64m", "e2e-1g", "contig-64m", "gigantic-1g", "blocks-2m",
                  "zero-64m", "zero-1g", "concurrent-1", "concurrent-2",
                  "concurrent-4")
# The in-kernel allocations (the debugfs bench file), whose "alloc" clears
# only what the page allocator clears (see allocator_clears()).
KERNEL_WORKLOADS = ("contig-64m", "gigantic-1g", "blocks-2m", "zero-64m",
                    "zero-1g")
# The in-kernel allocation plus the clearing ALLOC adds to it.
CLEARED = "alloc+clear"
PHASE_ORDER = ("alloc", CLEARED, "free", "zero-1cpu", "zero-all", "mmap", "sync",
               "touch", "munmap", "close", "cycle", "round", "ref")
# End-to-end workload: (in-kernel workload of the same size, zero workload).
E2E_PARTS = {"e2e-64m": ("contig-64m", "zero-64m"),
             "e2e-1g": ("gigantic-1g", "zero-1g")}
# In-kernel workload of one allocation: the end-to-end one of its size.
KERNEL_E2E = {k: e2e for e2e, (k, _) in E2E_PARTS.items()}
# The strategies the noinit frozen API allocates uncleared (clears_frozen).
NOINIT_STRATEGIES = ("compound", "frozen", "auto")
# What an in-kernel allocation includes, by allocator_clears().
CLEARS_TEXT = {True: "cleared by the page allocator (1 CPU)",
               False: "not cleared",
               None: "clearing not recorded"}
PATH_ORDER = ("cmabuf-compound", "cmabuf-compound-4k", "cmabuf-frozen",
              "cmabuf-legacy", "cmabuf-auto", "cma-heap", "cma-debugfs",
              "cmabuf-limit", "cpu-ref",
              "cmabuf-compound-prepared", "cmabuf-frozen-prepared",
              "cmabuf-legacy-prepared", "cmabuf-auto-prepared")
PREPARED_SUFFIX = "-prepared"
# In an end-to-end workload, the parts of the limit timed beside the cycles.
LIMIT_PATH = "cmabuf-limit"
# The path that stands for "before" when a path did not exist before.
BASELINE = "cmabuf-legacy"
# Bar colours by path, the same in every panel; "before" bars are darker.
COLOURS = {"cmabuf-compound": ("#1b7837", "#5aae61"),
           "cmabuf-compound-4k": ("#00441b", "#a6dba0"),
           "cmabuf-frozen": ("#2166ac", "#4393c3"),
           "cmabuf-legacy": ("#b2182b", "#f4a582"),
           "cmabuf-auto": ("#542788", "#998ec3"),
           "cma-heap": ("#8c510a", "#dfc27d"),
           "cma-debugfs": ("#404040", "#bababa"),
           # Prepared ahead: lighter than the strategy's own.
           "cmabuf-compound-prepared": ("#7fbc41", "#d9f0d3"),
           "cmabuf-frozen-prepared": ("#6baed6", "#c6dbef"),
           "cmabuf-legacy-prepared": ("#f768a1", "#fcc5c0"),
           "cmabuf-auto-prepared": ("#9e9ac8", "#dadaeb")}


def rank(value, order):
    """Sort key: known names in their order, unknown ones after, by name."""
    return (order.index(value), "") if value in order else (len(order), value)


def is_prepared(path):
    """A path that times a prepared ALLOC (its buffer prepared ahead)."""
    return path.endswith(PREPARED_SUFFIX)


def path_label(path):
    """The path as a table shows it: a prepared one says it is no cold ALLOC."""
    if is_prepared(path):
        return f"**{path}** (prepared ahead, untimed; not a cold ALLOC)"
    return path


def allocator_clears(r):
    """Did the allocation of result @r clear its pages: True where the page
    allocator does (init_on_alloc, the pages not asked for uninitialised:
    LEGACY, the CMA debugfs files, and every strategy on a kernel without
    the noinit API), False where nothing in the call clears, None where the
    result does not say (runs before allocator_zeroes was recorded)."""
    if "allocator_zeroes" not in r:
        return None
    if not r["allocator_zeroes"]:
        return False
    return not (r.get("clears_frozen") and
                r.get("strategy") in NOINIT_STRATEGIES)


def setting(r):
    """The setting a result was measured in, "" when it does not say."""
    if "allocator_zeroes" not in r:
        return ""
    return (f"init_on_alloc={int(r['allocator_zeroes'])}, "
            f"{r.get('cpus', '?')} vCPU{'s' if r.get('cpus') != 1 else ''}")


def setting_rank(name):
    """As shipped (the allocator clears) first, then by vCPUs, most first."""
    if not name:
        return (0, 0, "")
    zeroes = "init_on_alloc=1" in name
    cpus = name.rsplit(", ", 1)[-1].split()[0]
    return (not zeroes, -int(cpus) if cpus.isdigit() else 0, name)


def workload_of(r):
    """The workload a result is filed under: concurrent's per number of
    processes (concurrent-2), and of areas when spread (concurrent-2x2)."""
    w = r["workload"]
    if "procs" in r:
        w += f"-{r['procs']}"
        if r.get("areas", 1) > 1:
            w += f"x{r['areas']}"
    return w


def expand(doc):
    """The results in one line of JSON.

    A `cmabufctl bench --json` document holds the run's settings once and a
    result per path and phase under "results"; each comes back with the
    settings merged in. Runs before that printed one flat result per line.
    """
    if isinstance(doc, dict) and isinstance(doc.get("results"), list):
        common = {k: v for k, v in doc.items() if k not in ("format", "results")}
        return [{**common, **r} if isinstance(r, dict) else r
                for r in doc["results"]]
    return [doc]


def load(path):
    """Results of one JSON-lines file: {(setting, workload, phase, path): result}.

    Lines that are not JSON (console noise, a truncated last line) and
    results without the required keys are skipped and counted.
    """
    results, kernels, skipped = {}, set(), 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                skipped += bool(line)
                continue
            try:
                doc = json.loads(line)
            except json.JSONDecodeError:
                skipped += 1
                continue
            for r in expand(doc):
                if not isinstance(r, dict) or any(k not in r for k in REQUIRED):
                    skipped += 1
                    continue
                results[(setting(r), workload_of(r), r["phase"], r["path"])] = r
                kernels.add(r["kernel"])
    if skipped:
        print(f"report: {path}: skipped {skipped} line(s) that are no result",
              file=sys.stderr)
    return results, sorted(kernels)


def summary(r):
    if r is None:
        return None
    return {k: r[k] for k in ("median_ns", "min_ns", "max_ns", "n",
                              "alloc_ns", "clear_ns", "clear") if k in r}


def clears(workload, phase, r):
    """What an in-kernel "alloc" result includes (CLEARS_TEXT), else None."""
    if r is None or workload not in KERNEL_WORKLOADS or phase != "alloc":
        return None
    return CLEARS_TEXT[allocator_clears(r)]


def merge(before, after):
    """One row per (setting, workload, phase, path) of either side."""
    rows = []
    keys = set(before) | set(after)
    for key in sorted(keys, key=lambda k: (setting_rank(k[0]),
                                           rank(k[1], WORKLOAD_ORDER),
                                           rank(k[2], PHASE_ORDER),
                                           rank(k[3], PATH_ORDER))):
        conf, workload, phase, path = key
        b_path = path
        b = before.get(key)
        # A prepared ALLOC is compared with nothing but itself.
        if b is None and key in after and not is_prepared(path):
            b_path = BASELINE
            b = before.get((conf, workload, phase, BASELINE))
        a = after.get(key)
        ratio = None
        why = unlike(workload, phase, a, b) if a and b else None
        if a and b and a["median_ns"] and not why:
            ratio = b["median_ns"] / a["median_ns"]
        row = {"setting": conf, "workload": workload, "phase": phase,
               "path": path, "prepared": is_prepared(path),
               "before_path": b_path if b else None,
               "before": summary(b), "after": summary(a), "ratio": ratio}
        # What each side's in-kernel allocation includes, and why two
        # sides have no ratio.
        if workload in KERNEL_WORKLOADS and phase == "alloc":
            row["before_clears"] = clears(workload, phase, b)
            row["after_clears"] = clears(workload, phase, a)
        if why:
            row["unlike"] = why
        rows.append(row)
    return rows


def fmt_ms(ns):
    ms = ns / 1e6
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 10:
        return f"{ms:.1f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.3g}"


def cell(s, includes=None):
    """A side of a row: median (min–max), n; what an in-kernel allocation
    includes; an alloc+clear's parts."""
    if s is None:
        return "—"
    text = (f"{fmt_ms(s['median_ns'])} ({fmt_ms(s['min_ns'])}–"
            f"{fmt_ms(s['max_ns'])}), n={s['n']}")
    if includes:
        text += f", {includes}"
    if "clear" in s:
        text += (", cleared in the alloc" if s["clear"] == "by the allocator"
                 else f": alloc {fmt_ms(s['alloc_ns'])} + clearing "
                 f"{fmt_ms(s['clear_ns'])} ({s['clear']})")
    return text


class Ambiguous(Exception):
    """A check names a result measured in more than one setting."""


def pick(results, workload, phase, path):
    """The one result of (workload, phase, path) in any setting; of the
    first alternative measured where PATH is "A|B"."""
    for alt in path.split("|"):
        found = [r for (conf, w, ph, p), r in results.items()
                 if (w, ph, p) == (workload, phase, alt)]
        if len(found) > 1:
            raise Ambiguous(f"{alt} measured in {len(found)} settings")
        if found:
            return found[0]
    return None


def parse_check(spec, min_n):
    """A line of tests/bench/speedup-checks: WORKLOAD PHASE SIDE:PATH
    SIDE:PATH RATIO [N] [by=PATH], as a dict (first, second and used, the
    sides' names; want_text, the ratio as written; by None without it).
    ValueError when malformed."""
    words = spec.split()
    if len(words) < 5:
        raise ValueError(spec)
    workload, phase, first, second, want = words[:5]
    by = [w[3:] for w in words[5:] if w.startswith("by=")]
    rest = [w for w in words[5:] if not w.startswith("by=")]
    if len(rest) > 1 or len(by) > 1 or "" in by:
        raise ValueError(spec)
    used = [w.split(":", 1)[0] for w in (first, second)]
    if any(":" not in w for w in (first, second)) or \
            any(side not in ("before", "after") for side in used):
        raise ValueError(spec)
    return {"workload": workload, "phase": phase, "first": first,
            "second": second, "want": float(want), "want_text": want,
            "need": int(rest[0]) if rest else min_n,
            "by": by[0] if by else None, "used": used}


def run_checks(specs, before, after, min_n, unavailable=None):
    """Each spec checked; a list of dicts with ok, a one-line message and,
    for a check that needs an unavailable side, the reason to skip it."""
    sides = {"before": before, "after": after}
    unavailable = unavailable or {}
    out = []
    for spec in specs:
        res = {"check": spec, "ok": False}
        out.append(res)
        try:
            c = parse_check(spec, min_n)
        except ValueError:
            res["message"] = f"malformed check '{spec}'"
            continue
        workload, phase, first, second = (c["workload"], c["phase"],
                                          c["first"], c["second"])
        want, need, by, used = c["want"], c["need"], c["by"], c["used"]
        gone = [unavailable[s] for s in dict.fromkeys(used + [first, second])
                if s in unavailable]
        if gone:
            res["ok"] = True
            res["skip"] = "; ".join(gone)
            res["message"] = (f"{workload} {phase}: {first} / {second} "
                              f"(want >= {want:g}x)")
            continue
        try:
            picked = [pick(sides[w.split(":", 1)[0]], workload, phase,
                           w.split(":", 1)[1]) for w in (first, second)]
        except Ambiguous as e:
            res["message"] = f"ambiguous check '{spec}': {e}"
            continue
        missing = [w for w, r in zip((first, second), picked) if r is None]
        if missing:
            res["message"] = (f"{workload} {phase}: no result for "
                              f"{', '.join(missing)}")
            continue
        few = [f"{w} n={r['n']}" for w, r in zip((first, second), picked)
               if r["n"] < need]
        # A zero median is no measurement, and no ratio can come of it.
        zero = [w for w, r in zip((first, second), picked)
                if r["median_ns"] <= 0]
        if zero:
            res["message"] = (f"{workload} {phase}: median 0 for "
                              f"{', '.join(zero)}: nothing was measured")
            continue
        why = unlike(workload, phase, picked[0], picked[1])
        if why:
            res["message"] = (
                f"{workload} {phase}: {first} "
                f"({CLEARS_TEXT[allocator_clears(picked[0])]}) / {second} "
                f"({CLEARS_TEXT[allocator_clears(picked[1])]}): {why}; "
                f"check {CLEARED}")
            continue
        ratio = picked[0]["median_ns"] / picked[1]["median_ns"]
        res["message"] = (
            f"{workload} {phase}: {first} {fmt_ms(picked[0]['median_ns'])} ms"
            f" / {second} {fmt_ms(picked[1]['median_ns'])} ms = {ratio:.2f}x")
        if by:
            # Each side's time over the same work on its own boot.
            refs = [pick(sides[side], workload, "ref", by) for side in used]
            gone = [f"{side}:{by}" for side, r in zip(used, refs)
                    if not r or r["median_ns"] <= 0]
            if gone:
                res["message"] += (f"; no {by} ref to take the boots' speed "
                                   f"out: {', '.join(dict.fromkeys(gone))}")
                continue
            few += [f"{side}:{by} n={r['n']}"
                    for side, r in zip(used, refs) if r["n"] < need]
            ratio *= refs[1]["median_ns"] / refs[0]["median_ns"]
            res["message"] += (
                f"; {by} {fmt_ms(refs[0]['median_ns'])} / "
                f"{fmt_ms(refs[1]['median_ns'])} ms: {ratio:.2f}x at one speed")
        res["ratio"] = ratio
        res["ok"] = ratio >= want and not few
        res["message"] += f" (want >= {want:g}x)"
        if few:
            res["message"] += f"; fewer than {need} samples: {', '.join(few)}"
    return out


def clearing_of(results, conf, workload, phase):
    """cmabuf's clearing of one buffer of end-to-end @workload's size in
    setting @conf (phase zero-all: on every CPU, as ALLOC clears; zero-1cpu:
    on one), or None: the one timed beside the cycles (cmabuf-limit,
    iteration by iteration) before the zero workload's, minutes away."""
    zero_wl = E2E_PARTS[workload][1]
    return (results.get((conf, workload, phase, LIMIT_PATH)) or
            results.get((conf, zero_wl, phase, "cmabuf-auto")))


def with_cleared(results):
    """@results and, for every cmabuf path of an in-kernel workload of one
    allocation that has none, its "alloc+clear": the allocation plus the
    clearing that ALLOC adds to it, i.e. the buffer as a user gets it.
    cmabufctl bench times it in the kernel beside each allocation (the
    bench file's clear=1) since issue 30; this derives it for results
    measured before. Where the page allocator cleared (allocator_clears())
    that is the allocation alone; else the allocation plus the clearing on
    every CPU of the same setting (clearing_of()), a sum of medians (and of
    minimums, of maximums). None where the result does not say what it
    cleared, or no clearing was timed."""
    out = dict(results)
    for (conf, workload, phase, path), r in results.items():
        if phase != "alloc" or workload not in KERNEL_E2E or \
                not path.startswith("cmabuf-") or path == LIMIT_PATH:
            continue
        # Timed in the kernel, iteration by iteration (clear=1): as is.
        if (conf, workload, CLEARED, path) in results:
            continue
        by_allocator = allocator_clears(r)
        if by_allocator is None:
            continue
        zero = {"median_ns": 0, "min_ns": 0, "max_ns": 0, "n": r["n"]}
        what = "by the allocator"
        if not by_allocator:
            zero = clearing_of(results, conf, KERNEL_E2E[workload], "zero-all")
            what = "all CPUs"
            if not zero:
                continue
        out[(conf, workload, CLEARED, path)] = {
            **r, "phase": CLEARED,
            "median_ns": r["median_ns"] + zero["median_ns"],
            "min_ns": r["min_ns"] + zero["min_ns"],
            "max_ns": r["max_ns"] + zero["max_ns"],
            "n": min(r["n"], zero["n"]), "alloc_ns": r["median_ns"],
            "clear_ns": zero["median_ns"], "clear": what}
    return out


def unlike(workload, phase, a, b):
    """Why results @a and @b of one phase are not the same work, or None:
    in-kernel allocations of which one clears its pages and the other not."""
    if workload not in KERNEL_WORKLOADS or phase != "alloc":
        return None
    ca, cb = allocator_clears(a), allocator_clears(b)
    if ca is None or cb is None or ca == cb:
        return None
    return "unlike work: one cleared by the page allocator, one not cleared"


def limit_of(results, conf, workload, path):
    """ALLOC's limit for one path: (alloc ns, in-kernel ns, clearing ns,
    what the clearing is), or None when a part was not measured.

    The in-kernel allocation is the BENCH ioctl's of the same size and
    strategy (the CMA heap allocates with cma_alloc(): LEGACY's). Where the
    allocator clears (init_on_alloc), that is in the in-kernel time already
    and cmabuf clears nothing more, except for FROZEN and COMPOUND on a
    kernel that hands them out uncleared (clears_frozen, patch 0004): there,
    as without init_on_alloc, the limit is the allocation without clearing
    plus clearing on every CPU. The CMA heap clears again on one CPU in both
    settings. A clearing timed beside the cycles (cmabuf-limit, iteration
    by iteration) is taken before the zero workload's, minutes away.
    """
    kernel_wl = E2E_PARTS[workload][0]

    def clearing(phase):
        return clearing_of(results, conf, workload, phase)

    alloc = results.get((conf, workload, "alloc", path))
    kpath = BASELINE if path == "cma-heap" else path
    kernel = results.get((conf, kernel_wl, "alloc", kpath))
    if not alloc or not kernel:
        return None
    if path == "cma-heap":
        zero, what = clearing("zero-1cpu"), "1 CPU"
    elif allocator_clears(alloc):
        zero, what = {"median_ns": 0}, "by the allocator"
    else:
        zero, what = clearing("zero-all"), "all CPUs"
    if not zero:
        return None
    return (alloc["median_ns"], kernel["median_ns"], zero["median_ns"], what)


def limits(sides):
    """Rows of the limit table, for every setting and end-to-end path."""
    out = []
    for side, results in sides:
        # A prepared ALLOC allocates and clears nothing: it has no limit;
        # nor has the limit's own path.
        keys = sorted({(k[0], k[1], k[3]) for k in results
                       if k[1] in E2E_PARTS and k[2] == "alloc" and
                       not is_prepared(k[3]) and k[3] != LIMIT_PATH},
                      key=lambda k: (setting_rank(k[0]), rank(k[1], WORKLOAD_ORDER),
                                     rank(k[2], PATH_ORDER)))
        for conf, workload, path in keys:
            lim = limit_of(results, conf, workload, path)
            if lim:
                out.append({"side": side, "setting": conf,
                            "workload": workload, "path": path,
                            "alloc_ns": lim[0], "kernel_ns": lim[1],
                            "zero_ns": lim[2], "zero": lim[3],
                            "ratio": lim[0] / (lim[1] + lim[2])
                            if lim[1] + lim[2] else None})
    return out


def limit_lines(rows, meta, conf):
    lines = ["", "ALLOC against its limit: the in-kernel allocation of the same "
             "size plus the clearing the path must do at best (ms, medians).", "",
             "| kernel | workload | path | ALLOC | in-kernel alloc | clearing | "
             "limit | ALLOC ÷ limit |", "|---|---|---|---|---|---|---|---|"]
    picked = [r for r in rows if r["setting"] == conf]
    for r in sorted(picked, key=lambda r: r["side"] != "after"):
        ratio = f"{r['ratio']:.2f}" if r["ratio"] else "—"
        lines.append(
            f"| {meta[r['side']]['label']} | {r['workload']} | {r['path']} | "
            f"{fmt_ms(r['alloc_ns'])} | {fmt_ms(r['kernel_ns'])} | "
            f"{fmt_ms(r['zero_ns'])} ({r['zero']}) | "
            f"{fmt_ms(r['kernel_ns'] + r['zero_ns'])} | {ratio} |")
    return lines if picked else []


# The end-to-end phases the report opens with.
HEADLINE_PHASES = ("cycle", "alloc")


def row_line(r, cleared=()):
    """One row of a table of rows (merge()); @cleared, the (setting,
    workload) that have alloc+clear rows, where an unlike row points."""
    before = cell(r["before"], r.get("before_clears"))
    if r["before"] and r["before_path"] != r["path"]:
        before += f" [{r['before_path']}]"
    ratio = f"{r['ratio']:.2f}×" if r["ratio"] is not None else "—"
    if r.get("unlike"):
        see = ((r["setting"], r["workload"]) in cleared and
               f": see {CLEARED}" or "")
        ratio += f" ({r['unlike']}{see})"
    return (f"| {r['workload']} | {r['phase']} | {path_label(r['path'])} | "
            f"{before} | {cell(r['after'], r.get('after_clears'))} | {ratio} |")


def headline_lines(rows, meta):
    """The end-to-end cycles and ALLOCs of the first setting (as shipped),
    before every table: what a user's buffer costs, each cleared."""
    if not rows:
        return []
    conf = rows[0]["setting"]
    picked = [r for r in rows if r["setting"] == conf and
              r["workload"] in E2E_PARTS and r["phase"] in HEADLINE_PHASES and
              r["after"] and r["path"].startswith("cmabuf-") and
              r["path"] != LIMIT_PATH and not r["prepared"]]
    if not picked:
        return []
    picked.sort(key=lambda r: (rank(r["workload"], WORKLOAD_ORDER),
                               HEADLINE_PHASES.index(r["phase"]),
                               rank(r["path"], PATH_ORDER)))
    return [f"End to end{', ' + conf if conf else ''}: a buffer allocated "
            f"(ALLOC), mapped, every page touched, unmapped and freed through "
            f"the uapi, handed out cleared on every path: the work a user's "
            f"buffer costs (cycle: all of it; alloc: the ALLOC).", "",
            f"| workload | phase | path | before ({meta['before']['label']}) | "
            f"after ({meta['after']['label']}) | ratio before/after |",
            "|---|---|---|---|---|---|"] + [row_line(r) for r in picked] + [""]


def json_text(report):
    """A report.json's text: JSON, one record a line. Each top-level field
    is a line of its own, and a list among them (rows, limits, checks,
    boots, charts) one element a line, each element compact; so json.load
    reads it as before, a changed row is one changed line in "git diff"
    (--word-diff shows the changed figure), and docs/bench/ keeps about a
    line a measurement instead of one a value (docs/benchmarks.md, "What
    docs/bench/ keeps")."""
    if not isinstance(report, dict):
        raise TypeError("a report is a JSON object")
    fields = []
    for key, value in report.items():
        head = json.dumps(key) + ": "
        if isinstance(value, list) and value:
            fields.append(head + "[\n" +
                          ",\n".join("  " + json.dumps(v) for v in value) +
                          "\n ]")
        else:
            fields.append(head + json.dumps(value))
    if not fields:
        return "{}\n"
    return "{\n " + ",\n ".join(fields) + "\n}\n"


def write_json(path, report):
    """Write @report to @path as json_text() gives it."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(json_text(report))


def write_markdown(path, rows, meta, checks, limit_rows=()):
    b_kernel, a_kernel = meta["before"]["label"], meta["after"]["label"]
    # What a user's buffer costs first, then how to read the rest.
    lines = headline_lines(rows, meta) + [
        f"Medians in ms, (min–max) and n samples; ratio = before / after "
        f"median (> 1: faster after). Before: {meta['before']['kernels']}; "
        f"after: {meta['after']['kernels']}. Where a path did not exist "
        f"before, its before column is {BASELINE} on the before kernel. "
        f"A prepared path's buffer was prepared ahead of every cycle "
        f"(CMABUF_IOC_PREPARE, untimed): it times a prepared ALLOC, not a "
        f"cold one, and is compared with itself only. The in-kernel "
        f"workloads' alloc is the allocator's call alone: each side says "
        f"what it cleared, and two that clear differently have no ratio; "
        f"{CLEARED} is the same allocation with the clearing ALLOC adds to "
        f"it, timed beside it in the kernel, or where a result predates that "
        f"the sum of the medians of the allocation and of the clearing on "
        f"every CPU (its parts shown): the buffer as a user gets it on both "
        f"sides.",
    ]
    cleared = {(r["setting"], r["workload"]) for r in rows
               if r["phase"] == CLEARED}
    conf = None
    for r in rows:
        if r["setting"] != conf:
            if conf is not None:
                lines += limit_lines(limit_rows, meta, conf)
            conf = r["setting"]
            lines += [""]
            if conf:
                lines += [f"### {conf}", ""]
            lines += [f"| workload | phase | path | before ({b_kernel}) | "
                      f"after ({a_kernel}) | ratio before/after |",
                      "|---|---|---|---|---|---|"]
        lines.append(row_line(r, cleared))
    if conf is not None:
        lines += limit_lines(limit_rows, meta, conf)
    if checks:
        lines += ["", "| check | result |", "|---|---|"]
        for c in checks:
            verdict = ("skip: " + c["skip"] if "skip" in c
                       else "pass" if c["ok"] else "FAIL")
            lines.append(f"| {c['message']} | {verdict} |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def chart_series(rows, workload, meta):
    """Series (side, path) of one workload, and its phases."""
    series, phases = [], []
    for r in rows:
        if r["workload"] != workload:
            continue
        if r["phase"] not in phases:
            phases.append(r["phase"])
        for side in ("before", "after"):
            if r[side] is None or (side == "before" and
                                   r["before_path"] != r["path"]):
                continue
            if (side, r["path"]) not in series:
                series.append((side, r["path"]))
    series.sort(key=lambda s: (s[0] != "before", rank(s[1], PATH_ORDER)))
    return series, phases


def write_chart(out_dir, rows, meta):
    """report.gp and its data; report.png if gnuplot runs. Returns the png.

    Only the first setting (the kernels as shipped) is drawn."""
    rows = [r for r in rows if rows and r["setting"] == rows[0]["setting"]]
    workloads = []
    for r in rows:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    by_key = {}
    for r in rows:
        by_key[(r["workload"], r["phase"], r["path"], "after")] = r["after"]
        if r["before_path"] == r["path"]:
            by_key[(r["workload"], r["phase"], r["path"], "before")] = r["before"]
    cols = 2 if len(workloads) > 1 else 1
    nrows = math.ceil(len(workloads) / cols) or 1
    png = os.path.join(out_dir, "report.png")
    gp = [
        f"set terminal pngcairo size {800 * cols},{420 * nrows} font ',9'"
        if shutil.which("gnuplot") and gnuplot_has("pngcairo")
        else f"set terminal png size {800 * cols},{420 * nrows}",
        f"set output '{png}'",
        "set style data histograms",
        "set style histogram errorbars gap 2 lw 1",
        "set style fill solid 0.8 border -1",
        "set datafile missing '?'",
        "set logscale y",
        "set ylabel 'ms (median, whiskers min-max)'",
        "set key outside right top vertical font ',8'",
        "set grid ytics",
        f"set multiplot layout {nrows},{cols} title "
        f"'cmabuf: before {meta['before']['label']}, "
        f"after {meta['after']['label']}'",
    ]
    for w in workloads:
        series, phases = chart_series(rows, w, meta)
        if not series:
            continue
        dat = os.path.join(out_dir, f"report-{w}.dat")
        with open(dat, "w", encoding="utf-8") as f:
            f.write("# phase " + " ".join(
                f"{side}:{path}(median,min,max)" for side, path in series) + "\n")
            for ph in phases:
                vals = []
                for side, path in series:
                    s = by_key.get((w, ph, path, side))
                    vals += ([f"{s[k] / 1e6:.6g}" for k in
                              ("median_ns", "min_ns", "max_ns")]
                             if s else ["?", "?", "?"])
                f.write(f"{ph} " + " ".join(vals) + "\n")
        plots = []
        for i, (side, path) in enumerate(series):
            c = 2 + 3 * i
            xtic = ":xtic(1)" if i == 0 else ""
            label = meta[side]["label"]
            colour = COLOURS.get(path, ("#000000", "#808080"))
            colour = colour[0] if side == "before" else colour[1]
            plots.append(f"'{dat}' using {c}:{c + 1}:{c + 2}{xtic} "
                         f"lc rgb '{colour}' title '{path} ({label})'")
        gp.append(f"set title '{w}'")
        gp.append("plot " + ", \\\n     ".join(plots))
    gp.append("unset multiplot")
    script = os.path.join(out_dir, "report.gp")
    with open(script, "w", encoding="utf-8") as f:
        f.write("\n".join(gp) + "\n")
    if not shutil.which("gnuplot"):
        print("report: gnuplot not found; wrote report.gp only",
              file=sys.stderr)
        return None
    subprocess.run(["gnuplot", script], check=True)
    return png


def gnuplot_has(terminal):
    try:
        out = subprocess.run(["gnuplot", "-e", "set terminal"],
                             capture_output=True, text=True, check=False)
    except OSError:
        return False
    return f" {terminal} " in (out.stdout + out.stderr)


def side_meta(path, kernels, label):
    return {"file": path, "kernels": ", ".join(kernels) or "none",
            "label": label or (kernels[0] if len(kernels) == 1 else "?")}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="JSON lines of 6.12")
    ap.add_argument("--after", required=True, help="JSON lines of 7.2")
    ap.add_argument("--before-label", default="6.12")
    ap.add_argument("--after-label", default="7.2")
    ap.add_argument("--out-dir", default="build/bench")
    ap.add_argument("--check", action="append", default=[],
                    help="'WORKLOAD PHASE SIDE:PATH SIDE:PATH RATIO'")
    ap.add_argument("--unavailable", action="append", default=[],
                    metavar="SIDE[:PATH]=REASON",
                    help="checks that need SIDE (or name SIDE:PATH) are "
                    "skipped with REASON")
    ap.add_argument("--min-n", type=int, default=20,
                    help="samples each side of a check needs (default 20)")
    ap.add_argument("--no-chart", action="store_true")
    args = ap.parse_args(argv)

    before, b_kernels = load(args.before)
    after, a_kernels = load(args.after)
    before, after = with_cleared(before), with_cleared(after)
    meta = {"before": side_meta(args.before, b_kernels, args.before_label),
            "after": side_meta(args.after, a_kernels, args.after_label)}
    rows = merge(before, after)
    limit_rows = limits((("after", after), ("before", before)))
    unavailable = {}
    for u in args.unavailable:
        side, _, reason = u.partition("=")
        if side.split(":", 1)[0] not in ("before", "after"):
            ap.error(f"--unavailable {u}: SIDE is before or after")
        unavailable[side] = reason or f"no {side} results"
    checks = run_checks(args.check, before, after, args.min_n, unavailable)

    os.makedirs(args.out_dir, exist_ok=True)
    report = {"generated": datetime.datetime.now(datetime.timezone.utc)
              .isoformat(timespec="seconds"),
              "before": meta["before"], "after": meta["after"],
              "baseline_path": BASELINE, "rows": rows, "limits": limit_rows,
              "checks": checks}
    write_json(os.path.join(args.out_dir, "report.json"), report)
    write_markdown(os.path.join(args.out_dir, "report.md"), rows, meta, checks,
                   limit_rows)
    if not args.no_chart:
        write_chart(args.out_dir, rows, meta)

    if checks:
        print("TAP version 13")
        print(f"1..{len(checks)}")
        for i, c in enumerate(checks, 1):
            skip = f" # SKIP {c['skip']}" if "skip" in c else ""
            print(f"{'ok' if c['ok'] else 'not ok'} {i} - {c['message']}{skip}")
    return 0 if all(c["ok"] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
