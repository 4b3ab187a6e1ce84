#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""runs.py REPORT.json... : several "make bench" runs summed up as markdown.

Each REPORT.json is one run's build/bench/report.json (tests/bench/report.py).
A cell is the median over the runs of each run's median, in ms, and in
brackets the lowest and highest of them. A ratio is taken within each run
(both medians from the same boot, iterations interleaved) and then
summed up the same way: median [lowest–highest] over the runs.

Prints, per setting: cmabuf against the upstream CMA heap on 7.2 and
against 6.12 LEGACY, phase by phase, for the end-to-end workloads; the
same COMPOUND buffers mapped with 4 KiB entries against 2 MiB ones; the
in-kernel workloads per strategy; callers at once in one area; ALLOC
against its limit; and the targets
of the end-to-end and prepared-buffer issues with what was measured.
"""

import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import CLEARED, CLEARS_TEXT, E2E_PARTS, fmt_ms  # noqa: E402

E2E_PHASES = ("alloc", "mmap", "sync", "touch", "munmap", "close", "cycle")
KERNEL_WORKLOADS = ("contig-64m", "gigantic-1g", "blocks-2m", "zero-64m", "zero-1g")
STRATEGIES = ("cmabuf-compound", "cmabuf-frozen", "cmabuf-legacy")

# (setting prefix, workload, phases, slow path, fast path, side of the slow
# one, wanted ratio): the targets, each a ratio of medians of one run.
TARGETS = (
    ("init_on_alloc=0, 2", "e2e-64m", ("alloc",), "cma-heap", "after", 1.5),
    ("init_on_alloc=0, 2", "e2e-1g", ("alloc",), "cma-heap", "after", 1.5),
    ("init_on_alloc=1, 2", "e2e-64m", ("alloc",), "cma-heap", "after", 1.8),
    ("init_on_alloc=1, 2", "e2e-1g", ("alloc",), "cma-heap", "after", 1.8),
    ("init_on_alloc=1, 2", "e2e-1g", ("mmap", "touch", "munmap"), "cma-heap",
     "after", 3),
    ("init_on_alloc=1, 2", "e2e-1g", ("mmap",), "cma-heap", "after", 0.5),
    ("init_on_alloc=1, 2", "e2e-64m", ("cycle",), "cma-heap", "after", 3),
    ("init_on_alloc=1, 2", "e2e-64m", ("cycle",), "cmabuf-legacy", "before", 2),
)

# (setting prefix, workload, path, most ALLOC ÷ limit): a cold ALLOC, as
# shipped, against the in-kernel allocation plus the clearing on all CPUs.
LIMIT_TARGETS = tuple((pre, w, p, 1.15) for pre in ("init_on_alloc=1, 2",)
                      for w in ("e2e-64m", "e2e-1g")
                      for p in ("cmabuf-compound", "cmabuf-frozen"))

# (setting prefix, processes, path, least ÷ LEGACY, most ÷ limit): callers
# allocating 64 MiB at once in one area, as shipped. A round is every
# caller's ALLOC, first call to last return; LEGACY's round is what the
# same callers get without cmabuf's clearing (the allocator clears inside
# the area's lock), the limit is the clearing of the bytes of the round on
# all CPUs: once per caller the clearing of one buffer that the workload
# times between its iterations (zero-64m's, of runs before it did).
CONC_PROCS = (2, 4)
CONC_TARGETS = tuple(("init_on_alloc=1, 2", n, p, 1.6, 1.25)
                     for n in CONC_PROCS
                     for p in ("cmabuf-compound", "cmabuf-frozen"))


def fmt(ms):
    return fmt_ms(ms * 1e6)


def spread(values, unit=""):
    """median [lowest–highest] of values, or a dash when there are none."""
    if not values:
        return "–"
    mid = statistics.median(values)
    if unit == "x":
        return f"{mid:.2f}× [{min(values):.2f}–{max(values):.2f}]"
    return f"{fmt(mid)} [{fmt(min(values))}–{fmt(max(values))}]"


CLEARS_BY_TEXT = {v: k for k, v in CLEARS_TEXT.items()}


def cleared_from_limits(rep, res, clears):
    """A run whose report.json predates alloc+clear: what each in-kernel
    allocation cleared, and its alloc+clear, from the limit rows, which
    hold both (the in-kernel allocation of the end-to-end ALLOC's path and
    size, and the clearing that path adds to it: none "by the allocator")."""
    for row in rep.get("limits", []):
        if not row["path"].startswith("cmabuf-") or row["workload"] not in E2E_PARTS:
            continue
        kwl = E2E_PARTS[row["workload"]][0]
        key = (row["setting"], row["side"], kwl, row["path"])
        clears.setdefault(key, row["zero"] == "by the allocator")
        res.setdefault(key[:3] + (CLEARED, key[3]),
                       (row["kernel_ns"] + row["zero_ns"]) / 1e6)


def spread_clears(clears):
    """What an in-kernel allocation clears depends on the boot (its
    init_on_alloc, whether the kernel has the noinit API) and the strategy,
    not on the workload: every in-kernel workload of a path clears as
    another of the same run, setting and path does, where the run did not
    say. cmabuf-auto takes the strategy it tries first (COMPOUND, else
    FROZEN, else LEGACY)."""
    known = {}
    for (setting, side, _, path), c in clears.items():
        known.setdefault((setting, side, path), c)
    for (setting, side, path), c in list(known.items()):
        for w in KERNEL_WORKLOADS:
            clears.setdefault((setting, side, w, path), c)
    for setting, side in {(k[0], k[1]) for k in known}:
        for p in ("cmabuf-compound", "cmabuf-frozen", "cmabuf-legacy"):
            if (setting, side, p) in known:
                for w in KERNEL_WORKLOADS:
                    clears.setdefault((setting, side, w, "cmabuf-auto"),
                                      known[(setting, side, p)])
                break


def load(paths):
    """Per run, (report.json, {(setting, side, workload, phase, path):
    median in ms}); report.json's "_clears" is {(setting, side, workload,
    path): whether its in-kernel allocation cleared} (report.py's
    allocator_clears(); from the limit rows for runs older than that)."""
    runs = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            rep = json.load(f)
        res, clears = {}, {}
        for row in rep["rows"]:
            for side in ("before", "after"):
                got = row.get(side)
                if not got:
                    continue
                p = row["path"] if side == "after" else row["before_path"]
                key = (row["setting"], side, row["workload"], row["phase"], p)
                res[key] = got["median_ns"] / 1e6
                said = CLEARS_BY_TEXT.get(row.get(f"{side}_clears"))
                if said is not None:
                    clears[(row["setting"], side, row["workload"], p)] = said
        cleared_from_limits(rep, res, clears)
        spread_clears(clears)
        rep["_clears"] = clears
        runs.append((rep, res))
    return runs


def settings(runs):
    seen = []
    for _, res in runs:
        for key in res:
            if key[0] not in seen:
                seen.append(key[0])
    return seen


def values(runs, key):
    return [res[key] for _, res in runs if key in res]


def ratios(runs, slow, fast, phases=None):
    """Per run, the sum over phases of slow over the sum of fast."""
    out = []
    for _, res in runs:
        s_keys = [slow[:3] + (ph,) + slow[4:] for ph in phases] if phases else [slow]
        f_keys = [fast[:3] + (ph,) + fast[4:] for ph in phases] if phases else [fast]
        if all(k in res for k in s_keys + f_keys):
            f = sum(res[k] for k in f_keys)
            if f > 0:
                out.append(sum(res[k] for k in s_keys) / f)
    return out


def e2e_table(runs, setting, workload):
    print(f"\n**{workload}**, {setting}\n")
    print("| phase | 6.12 LEGACY | 7.2 CMA heap | 7.2 cmabuf COMPOUND | "
          "heap ÷ cmabuf | 6.12 ÷ cmabuf |")
    print("|---|---|---|---|---|---|")
    for ph in E2E_PHASES:
        legacy = (setting, "before", workload, ph, "cmabuf-legacy")
        heap = (setting, "after", workload, ph, "cma-heap")
        comp = (setting, "after", workload, ph, "cmabuf-compound")
        if not values(runs, comp):
            continue
        print(f"| {ph} | {spread(values(runs, legacy))} | "
              f"{spread(values(runs, heap))} | {spread(values(runs, comp))} | "
              f"{spread(ratios(runs, heap, comp), 'x')} | "
              f"{spread(ratios(runs, legacy, comp), 'x')} |")


def mapping_table(runs, setting, workload):
    """COMPOUND mapped with 4 KiB entries (cmabuf-compound-4k) and 2 MiB."""
    rows = []
    for ph in ("mmap", "touch", "munmap", "cycle"):
        small = (setting, "after", workload, ph, "cmabuf-compound-4k")
        big = (setting, "after", workload, ph, "cmabuf-compound")
        if values(runs, small) and values(runs, big):
            rows.append(f"| {ph} | {spread(values(runs, small))} | "
                        f"{spread(values(runs, big))} | "
                        f"{spread(ratios(runs, small, big), 'x')} |")
    if not rows:
        return
    print(f"\n**{workload}**, {setting}: 7.2 COMPOUND mapped with 4 KiB "
          "entries and with 2 MiB entries\n")
    print("| phase | 4 KiB | 2 MiB | 4 KiB ÷ 2 MiB |")
    print("|---|---|---|---|")
    print("\n".join(rows))


def cleared_word(runs, setting, side, w, path):
    """", cleared" or ", not cleared": what the runs' in-kernel allocations
    of @path cleared in the call, where they all say the same; else ""."""
    got = {rep["_clears"].get((setting, side, w, path)) for rep, _ in runs}
    got.discard(None)
    if len(got) != 1:
        return ""
    return ", cleared" if got.pop() else ", not cleared"


def unlike_runs(runs, setting, w, slow, fast):
    """Does any run's before @slow clear otherwise than its after @fast?"""
    for rep, _ in runs:
        a = rep["_clears"].get((setting, "before", w, slow))
        b = rep["_clears"].get((setting, "after", w, fast))
        if a is not None and b is not None and a != b:
            return True
    return False


def kernel_table(runs, setting):
    rows = []
    for w in KERNEL_WORKLOADS:
        for ph in ("alloc", CLEARED, "free", "zero-1cpu", "zero-all"):
            legacy = (setting, "before", w, ph, "cmabuf-legacy")
            cells = []
            for p in STRATEGIES:
                cells.append(values(runs, (setting, "after", w, ph, p)))
            auto = values(runs, (setting, "after", w, ph, "cmabuf-auto"))
            before = values(runs, legacy) or values(
                runs, (setting, "before", w, ph, "cmabuf-auto"))
            if not any(cells) and not auto:
                continue
            rows.append((w, ph, before, cells, auto))
    if not rows:
        return
    print(f"\nIn the kernel, {setting} (`zero-*`: cmabuf's clearing alone, "
          "one CPU and all; `alloc`: the allocator's call, each cell saying "
          "whether the page allocator cleared the pages in it, and no ratio "
          "between one that was cleared and one that was not; "
          f"`{CLEARED}`: the buffer as ALLOC hands it out, the allocation "
          "plus the clearing ALLOC adds to it, timed beside it in the kernel "
          "(in runs before that, the sum of the medians of the allocation "
          "and of the clearing on every CPU))\n")
    print("| workload | phase | 6.12 LEGACY | 7.2 COMPOUND | 7.2 FROZEN | "
          "7.2 LEGACY | 6.12 ÷ 7.2 COMPOUND (or the one path) |")
    print("|---|---|---|---|---|---|---|")
    for w, ph, before, cells, auto in rows:
        if auto:
            fast_key = "cmabuf-auto"
            slow_key = "cmabuf-auto"
            cells = [auto, [], []]
            columns = (("before", "cmabuf-auto"), ("after", "cmabuf-auto"),
                       None, None)
        else:
            fast_key = "cmabuf-compound"
            slow_key = "cmabuf-legacy"
            columns = (("before", "cmabuf-legacy"),
                       ("after", "cmabuf-compound"),
                       ("after", "cmabuf-frozen"), ("after", "cmabuf-legacy"))
        r = ratios(runs, (setting, "before", w, ph, slow_key),
                   (setting, "after", w, ph, fast_key))
        ratio = spread(r, "x")
        texts = [spread(c) for c in [before] + cells]
        if ph == "alloc":
            texts = [t + (cleared_word(runs, setting, col[0], w, col[1])
                          if col and t != "–" else "")
                     for t, col in zip(texts, columns)]
            if unlike_runs(runs, setting, w, slow_key, fast_key):
                ratio = "unlike work" + (f": see {CLEARED}" if any(
                    (setting, col[0], w, CLEARED, col[1]) in res
                    for _, res in runs for col in columns if col)
                    else "")
        print(f"| {w} | {ph} | " + " | ".join(texts) + f" | {ratio} |")


def limits_table(runs):
    lim = {}
    for rep, _ in runs:
        for row in rep.get("limits", []):
            key = (row["setting"], row["side"], row["workload"], row["path"])
            lim.setdefault(key, {"alloc": [], "limit": [], "ratio": [],
                                 "zero": row["zero"]})
            d = lim[key]
            d["alloc"].append(row["alloc_ns"] / 1e6)
            d["limit"].append((row["kernel_ns"] + row["zero_ns"]) / 1e6)
            d["ratio"].append(row["ratio"])
    if not lim:
        return
    print("\nALLOC against its limit (the in-kernel allocation plus the "
          "clearing the path must do at best, measured on the same boot)\n")
    print("| setting | kernel | workload | path | ALLOC | limit | clearing | "
          "ALLOC ÷ limit |")
    print("|---|---|---|---|---|---|---|---|")
    for (setting, side, w, p), d in lim.items():
        kernel = "7.2" if side == "after" else "6.12"
        print(f"| {setting} | {kernel} | {w} | {p} | {spread(d['alloc'])} | "
              f"{spread(d['limit'])} | {d['zero']} | {spread(d['ratio'], 'x')} |")


def conc_zero(res, setting):
    """One buffer cleared on all CPUs: timed between concurrent's rounds,
    or else by zero-64m, minutes apart from them."""
    for w in ("concurrent", "zero-64m"):
        got = res.get((setting, "after", w, "zero-all", "cmabuf-auto"))
        if got:
            return got
    return None


def conc_ratios(runs, setting, procs, path):
    """Per run: (LEGACY's round ÷ @path's, @path's round ÷ its limit)."""
    w = f"concurrent-{procs}"
    gain, limit = [], []
    for _, res in runs:
        got = res.get((setting, "after", w, "round", path))
        legacy = res.get((setting, "after", w, "round", "cmabuf-legacy"))
        zero = conc_zero(res, setting)
        if got and legacy:
            gain.append(legacy / got)
        if got and zero:
            limit.append(got / (procs * zero))
    return gain, limit


def concurrent_table(runs, setting):
    """Callers at once in one area: the round, against LEGACY and the limit."""
    rows = []
    zero = [z for z in (conc_zero(res, setting) for _, res in runs) if z]
    for procs in (1,) + CONC_PROCS:
        w = f"concurrent-{procs}"
        for path in STRATEGIES + ("cma-heap",):
            got = values(runs, (setting, "after", w, "round", path))
            if not got:
                continue
            gain, limit = conc_ratios(runs, setting, procs, path)
            lim = [procs * z for z in zero]
            rows.append(f"| {procs} | {path} | {spread(got)} | {spread(lim)} | "
                        f"{spread(limit, 'x')} | {spread(gain, 'x')} |")
    if not rows:
        return
    print(f"\nCallers at once, 64 MiB each from one area, {setting} (a round: "
          "every call, first start to last return; the limit: their bytes "
          "cleared on all CPUs)\n")
    print("| callers | path | round | limit | round ÷ limit | "
          "LEGACY's round ÷ this one |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


def targets_table(runs):
    sets = settings(runs)
    print("\nTargets (ratio of medians within each run; median "
          "[lowest–highest] over the runs)\n")
    print("| setting | workload | phases | against | want | measured | met in |")
    print("|---|---|---|---|---|---|---|")
    for prefix, w, phases, slow, side, want in TARGETS:
        setting = next((s for s in sets if s.startswith(prefix)), None)
        if setting is None:
            continue
        kernel = "7.2" if side == "after" else "6.12"
        r = ratios(runs, (setting, side, w, phases[0], slow),
                   (setting, "after", w, phases[0], "cmabuf-compound"), phases)
        met = sum(x >= want for x in r)
        what = f"{kernel} {slow}"
        want_s = (f"≥ {want:g}×" if want >= 1 else
                  f"mmap ≤ {1 / want:g}× the heap's")
        print(f"| {setting} | {w} | {' + '.join(phases)} | {what} | {want_s} | "
              f"{spread(r, 'x')} | {met} of {len(r)} runs |")
    for prefix, w, path, most in LIMIT_TARGETS:
        r = [row["ratio"] for rep, _ in runs for row in rep.get("limits", [])
             if row["setting"].startswith(prefix) and row["side"] == "after"
             and row["workload"] == w and row["path"] == path]
        if not r:
            continue
        setting = next(row["setting"] for rep, _ in runs
                       for row in rep["limits"]
                       if row["setting"].startswith(prefix))
        met = sum(x <= most for x in r)
        print(f"| {setting} | {w} | ALLOC ÷ limit | {path} | "
              f"≤ {most:g}× | {spread(r, 'x')} | {met} of {len(r)} runs |")
    for prefix, procs, path, least, most in CONC_TARGETS:
        setting = next((s for s in sets if s.startswith(prefix)), None)
        if setting is None:
            continue
        gain, limit = conc_ratios(runs, setting, procs, path)
        w = f"concurrent-{procs}"
        if gain:
            met = sum(x >= least for x in gain)
            print(f"| {setting} | {w} | round | 7.2 cmabuf-legacy, {path} | "
                  f"≥ {least:g}× | {spread(gain, 'x')} | {met} of {len(gain)} runs |")
        if limit:
            met = sum(x <= most for x in limit)
            print(f"| {setting} | {w} | round ÷ limit | {path} | "
                  f"≤ {most:g}× | {spread(limit, 'x')} | {met} of {len(limit)} runs |")


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    runs = load(argv[1:])
    print(f"{len(runs)} runs.")
    targets_table(runs)
    for s in settings(runs):
        print(f"\n### {s}")
        for w in ("e2e-64m", "e2e-1g"):
            e2e_table(runs, s, w)
        for w in ("e2e-64m", "e2e-1g"):
            mapping_table(runs, s, w)
        kernel_table(runs, s)
        concurrent_table(runs, s)
    limits_table(runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
