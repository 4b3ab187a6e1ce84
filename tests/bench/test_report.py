#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side test of report.py on the fixtures beside it, and of
load_report.py, load_runs.py and ctl_report.py on results made up here;
prints TAP.

Run: python3 tests/bench/test_report.py (also part of make -C userspace test).
"""

import contextlib
import importlib.util
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "report.py")
BEFORE = os.path.join(HERE, "fixtures", "before.jsonl")
AFTER = os.path.join(HERE, "fixtures", "after.jsonl")
LOAD_PREPARED = os.path.join(HERE, "fixtures", "load-prepared.jsonl")

results = []


def ok(cond, what):
    results.append((bool(cond), what))


def skip(what, why):
    results.append((None, f"{what} # SKIP {why}"))


def script(name, *args):
    """tests/bench/NAME with @args: the finished process, output as text."""
    return subprocess.run([sys.executable, os.path.join(HERE, name), *args],
                          capture_output=True, text=True, check=False)


def run(out_dir, *extra):
    return subprocess.run([sys.executable, REPORT, "--before", BEFORE,
                           "--after", AFTER, "--out-dir", out_dir, *extra],
                          capture_output=True, text=True, check=False)


def row(report, workload, phase, path):
    for r in report["rows"]:
        if (r["workload"], r["phase"], r["path"]) == (workload, phase, path):
            return r
    return None


def test_merge(tmp):
    out = os.path.join(tmp, "merge")
    p = run(out, "--check",
            "contig-64m free before:cmabuf-legacy after:cmabuf-frozen 2",
            "--check",
            "contig-64m free after:cmabuf-frozen after:cmabuf-compound 1.3")
    ok(p.returncode == 0, f"passing checks exit 0 (got {p.returncode})")
    ok("skipped 2 line(s)" in p.stderr,
       "console noise and a truncated line are skipped and counted")
    rep = report_json(out)
    ok(len(rep["rows"]) == 13, f"13 merged rows (got {len(rep['rows'])})")
    r = row(rep, "contig-64m", "free", "cmabuf-frozen")
    ok(r and r["before_path"] == "cmabuf-legacy" and
       abs(r["ratio"] - 16000000 / 2000000) < 1e-9,
       "frozen without a 6.12 result is compared with 6.12 legacy: 8x")
    r = row(rep, "contig-64m", "free", "cma-debugfs")
    ok(r and r["before_path"] == "cma-debugfs" and
       abs(r["ratio"] - 17 / 16) < 1e-9,
       "a path on both kernels is compared with itself")
    r = row(rep, "contig-64m", "alloc", "cmabuf-legacy")
    ok(r and r["after"] is None and r["ratio"] is None,
       "a result only before has no after and no ratio")
    ok(rep["before"]["kernels"] == "6.12.57-cmabuf" and
       rep["after"]["kernels"] == "7.2.0-cmabuf",
       "kernel releases taken from the results")
    ok([c["ok"] for c in rep["checks"]] == [True, True],
       "both checks recorded as passed in report.json")
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        md = f.read()
    ok("| workload | phase | path | before (6.12) | after (7.2) | "
       "ratio before/after |" in md, "Markdown table header")
    ok("| contig-64m | free | cmabuf-frozen | 16.0 (13.0–20.0), n=20 "
       "[cmabuf-legacy] | 2.00 (1.60–2.90), n=20 | 8.00× |" in md,
       "Markdown row: median (min–max), n, baseline path and ratio")
    ok("ok 1 - contig-64m free" in p.stdout and "1..2" in p.stdout,
       "checks printed as TAP")
    with open(os.path.join(out, "report.gp"), encoding="utf-8") as f:
        gp = f.read()
    ok("histogram errorbars" in gp and "report-gigantic-1g.dat" in gp,
       "gnuplot script: bars with min-max whiskers, one panel per workload")
    png = os.path.join(out, "report.png")
    if shutil.which("gnuplot"):
        with open(png, "rb") as f:
            ok(f.read(8) == b"\x89PNG\r\n\x1a\n", "report.png is a PNG")
    else:
        skip("report.png is a PNG", "gnuplot not installed")


def test_failing_checks(tmp):
    out = os.path.join(tmp, "fail")
    p = run(out, "--no-chart", "--check",
            "contig-64m free before:cmabuf-legacy after:cmabuf-frozen 10")
    ok(p.returncode == 1 and "not ok 1" in p.stdout and "8.00x" in p.stdout,
       "a ratio below its bound fails the check and exits 1")
    p = run(out, "--no-chart", "--check",
            "gigantic-1g free before:cmabuf-legacy after:cmabuf-compound 5")
    ok(p.returncode == 1 and "fewer than 20 samples" in p.stdout,
       "a check on fewer than --min-n samples fails")
    p = run(out, "--no-chart", "--min-n", "10", "--check",
            "gigantic-1g free before:cmabuf-legacy after:cmabuf-compound 5")
    ok(p.returncode == 0 and "20.00x" in p.stdout,
       "the same check passes with --min-n 10 (20x)")
    p = run(out, "--no-chart", "--check",
            "gigantic-1g free before:cmabuf-legacy after:cmabuf-compound 5 10")
    ok(p.returncode == 0 and "20.00x" in p.stdout,
       "a check's own sample count (10) overrides --min-n")
    p = run(out, "--no-chart", "--check",
            "contig-64m free before:cmabuf-frozen after:cmabuf-frozen 2")
    ok(p.returncode == 1 and "no result for before:cmabuf-frozen" in p.stdout,
       "a check on a missing result fails and names it")
    p = run(out, "--no-chart", "--check", "contig-64m free frozen 2")
    ok(p.returncode == 1 and "malformed check" in p.stdout,
       "a malformed check fails")
    ok(not os.path.exists(os.path.join(out, "report.png")),
       "--no-chart writes no chart")


def result(kernel, workload, phase, path, ms, zeroes, cpus=2):
    ns = int(ms * 1e6)
    return json.dumps({"kernel": kernel, "path": path, "workload": workload,
                       "phase": phase, "median_ns": ns, "min_ns": ns,
                       "max_ns": ns, "n": 20, "allocator_zeroes": zeroes,
                       "cpus": cpus})


def report_json(out):
    """The report.json that report.py wrote into @out."""
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        return json.load(f)


def run_lines(tmp, name, before, after, *extra):
    """report.py on the results @before and @after (JSON lines), into
    tmp/NAME; the process and that directory."""
    files = {}
    for side, lines in (("before", before), ("after", after)):
        files[side] = os.path.join(tmp, f"{name}-{side}.jsonl")
        with open(files[side], "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    out = os.path.join(tmp, name)
    p = subprocess.run([sys.executable, REPORT, "--before", files["before"],
                        "--after", files["after"], "--out-dir", out,
                        "--no-chart", *extra],
                       capture_output=True, text=True, check=False)
    return p, out


def test_settings(tmp):
    """Two settings: a table each, limits per path, ambiguous checks. The
    after side says allocator_zeroes as true/false (cmabuf_testctl), the
    before side as 1/0 (older runs): the same settings."""
    after, before = [], []
    for zeroes, k_ms, zero_all, e2e in ((1, 1.0, 10.0, 30.0),
                                        (0, 0.5, 10.0, 12.0)):
        old = zeroes
        zeroes = bool(zeroes)
        after += [result("7.2", "contig-64m", "alloc", "cmabuf-frozen", k_ms, zeroes),
                  result("7.2", "contig-64m", "alloc", "cmabuf-legacy", 0.6, zeroes),
                  result("7.2", "zero-64m", "zero-all", "cmabuf-auto", zero_all, zeroes),
                  result("7.2", "zero-64m", "zero-1cpu", "cmabuf-auto", 20.0, zeroes),
                  result("7.2", "e2e-64m", "alloc", "cmabuf-frozen", e2e, zeroes),
                  result("7.2", "e2e-64m", "alloc", "cma-heap", 25.0, zeroes)]
        before += [result("6.12", "e2e-64m", "alloc", "cmabuf-legacy", 40.0, old)]
    p, out = run_lines(tmp, "settings", before, after, "--check",
                       "e2e-64m alloc after:cma-heap after:cmabuf-frozen 1")
    ok(p.returncode == 1 and "ambiguous check" in p.stdout,
       "a check on a result of two settings fails as ambiguous")
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        md = f.read()
    first = md.find("### init_on_alloc=1, 2 vCPUs")
    second = md.find("### init_on_alloc=0, 2 vCPUs")
    ok(0 <= first < second, "a table per setting, as shipped first")
    rep = report_json(out)
    lim = {(r["side"], r["setting"][:15], r["path"]): r for r in rep["limits"]}
    r = lim.get(("after", "init_on_alloc=0", "cmabuf-frozen"))
    ok(r and r["zero"] == "all CPUs" and abs(r["ratio"] - 12 / 10.5) < 1e-9,
       "cmabuf's limit without init_on_alloc: in-kernel alloc + all-CPU clearing")
    r = lim.get(("after", "init_on_alloc=1", "cmabuf-frozen"))
    ok(r and r["zero_ns"] == 0 and abs(r["ratio"] - 30) < 1e-9,
       "with init_on_alloc the in-kernel alloc already clears: no more")
    r = lim.get(("after", "init_on_alloc=1", "cma-heap"))
    ok(r and r["zero"] == "1 CPU" and abs(r["ratio"] - 25 / 20.6) < 1e-9,
       "the CMA heap's limit: cma_alloc (LEGACY) + clearing on one CPU")
    ok(("before", "init_on_alloc=0", "cmabuf-legacy") not in lim,
       "no limit where its in-kernel allocation was not measured")


def test_limit_clears_frozen(tmp):
    """With init_on_alloc and patch 0004, FROZEN's limit is its allocation
    without clearing plus clearing on every CPU; LEGACY's stays the
    allocator's."""
    lines = []
    for path, strategy, k_ms, e2e in (("cmabuf-frozen", "frozen", 1.0, 16.0),
                                      ("cmabuf-legacy", "legacy", 30.0, 35.0)):
        for wl, ms in (("contig-64m", k_ms), ("e2e-64m", e2e)):
            r = json.loads(result("7.2", wl, "alloc", path, ms, 1))
            r.update(strategy=strategy, clears_frozen=1)
            lines.append(json.dumps(r))
    lines.append(result("7.2", "zero-64m", "zero-all", "cmabuf-auto", 10.0, 1))
    after = os.path.join(tmp, "clears-after.jsonl")
    with open(after, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    out = os.path.join(tmp, "clears")
    subprocess.run([sys.executable, REPORT, "--before", after, "--after", after,
                    "--out-dir", out, "--no-chart"], capture_output=True,
                   text=True, check=False)
    rep = report_json(out)
    lim = {(r["side"], r["path"]): r for r in rep["limits"]}
    r = lim.get(("after", "cmabuf-frozen"))
    ok(r and r["zero"] == "all CPUs" and abs(r["ratio"] - 16 / 11) < 1e-9,
       "clears_frozen: FROZEN's limit is the uncleared allocation + all-CPU clearing")
    r = lim.get(("after", "cmabuf-legacy"))
    ok(r and r["zero"] == "by the allocator" and abs(r["ratio"] - 35 / 30) < 1e-9,
       "clears_frozen: LEGACY is still cleared by the allocator")


def test_limit_beside(tmp):
    """The clearing timed beside the cycles (cmabuf-limit) is the limit's,
    not zero-64m's; the limit's own path has no limit row."""
    r = json.loads(result("7.2", "contig-64m", "alloc", "cmabuf-frozen", 1.0, 1))
    r.update(strategy="frozen", clears_frozen=1)
    e2e = json.loads(result("7.2", "e2e-64m", "alloc", "cmabuf-frozen", 16.0, 1))
    e2e.update(strategy="frozen", clears_frozen=1)
    lines = [json.dumps(r), json.dumps(e2e),
             result("7.2", "zero-64m", "zero-all", "cmabuf-auto", 10.0, 1),
             result("7.2", "e2e-64m", "zero-all", "cmabuf-limit", 7.0, 1),
             result("7.2", "e2e-64m", "alloc", "cmabuf-limit", 1.0, 1)]
    p, out = run_lines(tmp, "beside", lines, lines)
    rep = report_json(out)
    lim = {(r["side"], r["path"]): r for r in rep["limits"]}
    r = lim.get(("after", "cmabuf-frozen"))
    ok(p.returncode == 0 and r and abs(r["ratio"] - 16 / 8) < 1e-9,
       "the limit takes the clearing timed beside the cycles")
    ok(("after", "cmabuf-limit") not in lim,
       "the limit's own path has no limit row")


def test_zero_and_unavailable(tmp):
    out = os.path.join(tmp, "zero")
    zero = os.path.join(tmp, "zero.jsonl")
    with open(AFTER, encoding="utf-8") as f, \
            open(zero, "w", encoding="utf-8") as z:
        for line in f:
            if '"cmabuf-frozen"' in line and '"free"' in line:
                line = line.replace('"median_ns": 2000000', '"median_ns": 0')
            z.write(line)
    p = subprocess.run([sys.executable, REPORT, "--before", BEFORE,
                        "--after", zero, "--out-dir", out, "--no-chart",
                        "--check", "contig-64m free before:cmabuf-legacy "
                        "after:cmabuf-frozen 2"],
                       capture_output=True, text=True, check=False)
    ok(p.returncode == 1 and "not ok 1" in p.stdout and
       "median 0 for after:cmabuf-frozen" in p.stdout,
       "a zero median fails the check instead of an infinite ratio")
    p = run(out, "--no-chart", "--unavailable", "before=6.12 is not in KERNELS",
            "--check", "contig-64m free before:cmabuf-legacy after:cmabuf-frozen 2",
            "--check", "contig-64m free after:cmabuf-frozen after:cmabuf-compound 1.3")
    ok(p.returncode == 0 and
       "ok 1 - contig-64m free: before:cmabuf-legacy / after:cmabuf-frozen "
       "(want >= 2x) # SKIP 6.12 is not in KERNELS" in p.stdout and
       "ok 2 - contig-64m free: after:cmabuf-frozen" in p.stdout and
       "# SKIP" not in p.stdout.split("ok 2")[1],
       "a check needing an unavailable side is a skip with its reason; "
       "the others still run")


def test_before_alternatives(tmp):
    """The "before" kernel's path, LEGACY or the DMA API's: the first the
    side measured; a check naming exactly a path given unavailable is a
    skip with the reason."""
    before = [result("6.12.118", "contig-64m", "free", "cmabuf-dma", 10, 1),
              result("6.12.118", "e2e-64m", "cycle", "cmabuf-dma", 60, 1)]
    after = [result("7.2.13", "contig-64m", "free", "cmabuf-frozen", 2, 1),
             result("7.2.13", "e2e-64m", "cycle", "cmabuf-compound", 40, 1)]
    p, _ = run_lines(tmp, "alt", before, after,
                     "--unavailable", "before:cmabuf-legacy=needs LEGACY",
                     "--check", "contig-64m free before:cmabuf-legacy|cmabuf-dma "
                     "after:cmabuf-frozen 2",
                     "--check", "e2e-64m cycle before:cmabuf-legacy "
                     "after:cmabuf-compound 1.0")
    ok(p.returncode == 0 and "= 5.00x (want >= 2x)" in p.stdout and
       "# SKIP needs LEGACY" in p.stdout.split("ok 2")[1],
       "before:legacy|dma takes the DMA path where LEGACY is not measured; "
       "a check of before:cmabuf-legacy alone is a skip with its reason")
    p, _ = run_lines(tmp, "alt-none", before, after, "--check",
                     "e2e-64m cycle before:cmabuf-legacy after:cmabuf-compound 1.0")
    ok(p.returncode == 1 and "no result for before:cmabuf-legacy" in p.stdout,
       "without --unavailable, a path the side did not measure fails")


def test_by_ref(tmp):
    """by=cpu-ref: each side over its own boot's reference work."""
    before = [result("6.12.58", "e2e-64m", "cycle", "cmabuf-legacy", 80, 1),
              result("6.12.58", "e2e-64m", "ref", "cpu-ref", 10, 1)]
    # The same cycle on a boot that ran the reference work 1.5x slower.
    after = [result("7.2.13", "e2e-64m", "cycle", "cmabuf-compound", 82, 1),
             result("7.2.13", "e2e-64m", "ref", "cpu-ref", 15, 1)]
    check = "e2e-64m cycle before:cmabuf-legacy after:cmabuf-compound 1.2"
    # (name, after's results, words after the check, exit status, output, what)
    cases = (
        ("ref-raw", after, "", 1, "= 0.98x (want >= 1.2x)",
         "by=: without it, a slower second boot fails the check (0.98x)"),
        ("ref", after, " by=cpu-ref", 0,
         "cpu-ref 10.0 / 15.0 ms: 1.46x at one speed (want >= 1.2x)",
         "by=cpu-ref: the boots' speed taken out, 0.98x becomes 1.46x"),
        ("ref-n", after, " 30 by=cpu-ref", 1, "after:cpu-ref n=20",
         "by=: the reference needs the check's samples too"),
        ("ref-gone", after[:1], " by=cpu-ref", 1,
         "no cpu-ref ref to take the boots' speed out: after:cpu-ref",
         "by=: a side without the reference fails and names it"),
        ("ref-bad", after, " by= by=cpu-ref", 1, "malformed check",
         "by=: an empty or second reference is a malformed check"),
    )
    for name, after_lines, words, rc, want, what in cases:
        p, _ = run_lines(tmp, name, before, after_lines, "--check",
                         check + words)
        ok(p.returncode == rc and want in p.stdout, what)

def test_runs(tmp):
    """runs.py: ratios within each run, then median [lowest-highest]."""
    reports = []
    for i, (heap, comp) in enumerate(((60.0, 30.0), (80.0, 20.0),
                                      (50.0, 50.0))):
        lines = [result("7.2", "e2e-64m", "alloc", "cma-heap", heap, 1),
                 result("7.2", "e2e-64m", "alloc", "cmabuf-compound", comp, 1),
                 result("7.2", "e2e-64m", "touch", "cmabuf-compound", 8.0, 1),
                 result("7.2", "e2e-64m", "touch", "cmabuf-compound-4k",
                        8.0 * (i + 5), 1)]
        after = os.path.join(tmp, f"runs-{i}.jsonl")
        with open(after, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        out = os.path.join(tmp, f"runs-{i}")
        subprocess.run([sys.executable, REPORT, "--before", after, "--after",
                        after, "--out-dir", out, "--no-chart"],
                       capture_output=True, check=False)
        reports.append(os.path.join(out, "report.json"))
    p = script("runs.py", *reports)
    line = [x for x in p.stdout.splitlines()
            if x.startswith("| init_on_alloc=1, 2 vCPUs | e2e-64m | alloc |")]
    ok(p.returncode == 0 and line and
       "| 2.00× [1.00–4.00] | 2 of 3 runs |" in line[0],
       "runs.py: the alloc target from three runs, ratio per run")
    line = [x for x in p.stdout.splitlines() if x.startswith("| alloc |")]
    ok(line and "| 60.0 [50.0–80.0] | 30.0 [20.0–50.0] |" in line[0],
       "runs.py: medians of the runs' medians, with their range")
    line = [x for x in p.stdout.splitlines() if x.startswith("| touch |")]
    ok(len(line) == 2 and
       line[1] == "| touch | 48.0 [40.0–56.0] | 8.00 [8.00–8.00] | "
       "6.00× [5.00–7.00] |",
       "runs.py: 4 KiB against 2 MiB entries, per run, as its own table")
    limited = []
    for i, ratio in enumerate((1.10, 1.30, 0.95)):
        rep = {"rows": [], "limits": [
            {"side": "after", "setting": "init_on_alloc=1, 2 vCPUs",
             "workload": "e2e-64m", "path": "cmabuf-compound",
             "alloc_ns": ratio * 1e6, "kernel_ns": 1e5, "zero_ns": 9e5,
             "zero": "all CPUs", "ratio": ratio}]}
        limited.append(os.path.join(tmp, f"limit-{i}.json"))
        with open(limited[-1], "w", encoding="utf-8") as f:
            json.dump(rep, f)
    p = script("runs.py", *limited)
    line = [x for x in p.stdout.splitlines()
            if "| ALLOC ÷ limit | cmabuf-compound |" in x]
    ok(p.returncode == 0 and len(line) == 1 and
       line[0].endswith("| ≤ 1.15× | 1.10× [0.95–1.30] | 2 of 3 runs |"),
       "runs.py: ALLOC within 1.15x of its limit, counted per run")


def as_documents(flat_path, doc_path):
    """The flat results of @flat_path as `bench --json` prints them now: one
    document per run (kernel, workload, setting), a result per path and
    phase. Returns how many documents."""
    common_keys = ("kernel", "workload", "size_bytes", "blocks", "device",
                   "area", "cpus", "allocator_zeroes", "clears_frozen")
    docs = {}
    with open(flat_path, encoding="utf-8") as f:
        for line in f:
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(r, dict):
                continue
            common = {k: r[k] for k in common_keys if k in r}
            key = json.dumps(common, sort_keys=True)
            doc = docs.setdefault(key, {"format": 1, **common, "results": []})
            doc["results"].append({k: v for k, v in r.items()
                                   if k not in common_keys})
    with open(doc_path, "w", encoding="utf-8") as f:
        for doc in docs.values():
            f.write(json.dumps(doc) + "\n")
    return len(docs)


def test_documents(tmp):
    """One document per bench run reads as the flat lines it replaced."""
    flat_out = os.path.join(tmp, "flat")
    run(flat_out, "--no-chart")
    docs = os.path.join(tmp, "after-docs.jsonl")
    n = as_documents(AFTER, docs)
    doc_out = os.path.join(tmp, "docs")
    p = subprocess.run([sys.executable, REPORT, "--before", BEFORE, "--after",
                        docs, "--out-dir", doc_out, "--no-chart"],
                       capture_output=True, text=True, check=False)
    with open(os.path.join(flat_out, "report.json"), encoding="utf-8") as f:
        flat = json.load(f)
    with open(os.path.join(doc_out, "report.json"), encoding="utf-8") as f:
        doc = json.load(f)
    ok(p.returncode == 0 and n > 1 and doc["rows"] == flat["rows"] and
       len(doc["rows"]) == 13,
       f"{n} documents of results: the same 13 rows as one result a line")
    bad = os.path.join(tmp, "bad-docs.jsonl")
    with open(bad, "w", encoding="utf-8") as f:
        f.write(json.dumps({"format": 1, "kernel": "7.2", "workload": "w",
                            "results": [{"path": "p", "phase": "alloc"},
                                        "noise"]}) + "\n")
    p = subprocess.run([sys.executable, REPORT, "--before", BEFORE, "--after",
                        bad, "--out-dir", os.path.join(tmp, "bad"),
                        "--no-chart"],
                       capture_output=True, text=True, check=False)
    ok("skipped 2 line(s)" in p.stderr,
       "results of a document without the required keys are skipped, counted")


def loaded(path, ms, errno, start=1000):
    """A result of a load-64m document, one attempt per entry of @ms."""
    n = len(ms)
    return {"path": path, "phase": "alloc", "strategy": "frozen",
            "target": None,
            "samples_ns": [int(t * 1e6) for t in ms], "errno": errno,
            "errors": {"ENOMEM": sum(1 for e in errno if e)},
            "start_ns": [int((start + 10 * i) * 1e9) for i in range(n)],
            "turn": [0] * n,
            "counters": {"pgmigrate_success": [16384] * n,
                         "cmabuf_busy_retries": None}}


def bench_doc(results, load="fill", kernel="7.2.13"):
    """`cmabufctl bench load-64m --json` as bench-lib.sh tags it: one
    document, the load it ran under among the run's settings."""
    return json.dumps({"format": 1, "load": load, "kernel": kernel,
                       "workload": "load-64m", "size_bytes": 64 << 20,
                       "blocks": 1, "iterations": 4, "device": "/dev/cmabuf-large",
                       "area": "large-pool", "cpus": 2, "allocator_zeroes": 1,
                       "results": results})


def load_run(tmp, name, heap_ms, frozen_fail):
    """One boot's JSON lines, and its report.json."""
    lines = [json.dumps({"format": 1, "record": "copy", "pages_per_s": 400000}),
             bench_doc([loaded("cma-heap", heap_ms, [0] * len(heap_ms)),
                        loaded("cmabuf-frozen", [100, 200, 300, 400],
                               [12 if frozen_fail else 0, 0, 0, 0])]),
             json.dumps({"format": 1, "record": "trace", "load": "fill",
                         "ts": "1010.100000", "event": "cma_alloc_busy_retry"}),
             json.dumps({"format": 1, "load": "fill", "record": "load",
                         "event": "refill", "bench_path": "cmabuf-frozen",
                         "target": {"area": "general-pool", "area_bytes": 208 << 20},
                         "fill": {"met": True, "area_free": 8 << 20}}),
             json.dumps({"format": 1, "record": "kill", "path": "cmabuf-frozen",
                         "size_bytes": 1 << 30, "after_ms": 1000,
                         "call": "in the call", "exit_ns": 150000000,
                         "before": {"cma_used_pages": 5, "interrupted": 0},
                         "after": {"cma_used_pages": 5, "interrupted": 1}})]
    out = os.path.join(tmp, name)
    os.makedirs(out)
    path = os.path.join(out, "7.2-shipped.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    p = script("load_report.py", "--in", path, "--out-dir", out,
               "--no-chart")
    return p, os.path.join(out, "report.json"), os.path.join(out, "report.md")


def test_load_report(tmp):
    """load_report.py: percentiles of the attempts that succeeded."""
    p, rep_path, md = load_run(tmp, "load-a", [50, 60, 70, 80], True)
    ok(p.returncode == 0, f"load_report.py exits 0 ({p.stderr.strip()})")
    with open(rep_path, encoding="utf-8") as f:
        rep = json.load(f)
    ok(sorted((x["path"], x["load"], x["kernel"]) for x in rep["rows"]) ==
       [("cma-heap", "fill", "7.2.13"), ("cmabuf-frozen", "fill", "7.2.13")],
       "a bench document's results, each with its load and kernel")
    r = [x for x in rep["rows"] if x["path"] == "cmabuf-frozen"][0]
    ok(r["ok"] == 3 and r["attempts"] == 4 and r["p50_ns"] == 300e6 and
       r["p99_ns"] == 400e6 and r["fail_max_ns"] == 100e6,
       "a failed attempt counts against success and stays out of p50/p99")
    ok(r["busy_retries_median"] == 0 and r["busy_retries_max"] == 1,
       "a busy-retry event is counted to the sample it falls in")
    ok(abs(r["migration_pages_s"] - 16384 / 0.3) < 1,
       "migration rate: moved pages over the allocation's time")
    ok("cmabuf_busy_retries" not in r,
       "a counter the kernel lacks (null) is left out of the row")
    ok(r["area_movable"] == 200 << 20 and r["refills_met"] == 1,
       "the area's movable pages before the samples, from the load's records")
    with open(md, encoding="utf-8") as f:
        text = f.read()
    ok("| 7.2-shipped | cmabuf-frozen | 1024 MiB | 1000 ms | 1 of 1 | 150, 150 ms | 0 | 1 / — |"
       in text, "the kill table: time to go, pages left, counters")


def test_load_runs(tmp):
    """load_runs.py: success over all runs, medians of the runs' values."""
    reports = [load_run(tmp, f"runs-load-{i}", heap, fail)[1]
               for i, (heap, fail) in enumerate((([100, 200, 300, 400], False),
                                                 ([400, 500, 600, 700], True)))]
    p = script("load_runs.py", *reports)
    out = p.stdout.splitlines()
    ok(p.returncode == 0 and "| load-64m, fill, 7.2 cmabuf-frozen: 100% of ≥ 50 | "
       "7 / 8 | no |" in out, "load_runs.py: a failure anywhere misses the target")
    line = [x for x in out if x.startswith("| fill | 7.2-shipped | cma-heap |")]
    ok(line and "| 2 | 8 / 8 | 400 [250–550] |" in line[0],
       "load_runs.py: p50 as the median of the runs' p50s, with their range")
    line = [x for x in out if "heap p99 ÷ 7.2 cmabuf-frozen p99" in x]
    ok(line and "1.38× [1.00–1.75] | 2 of 2 runs ≥ 1 |" in line[0],
       "load_runs.py: p99 against the heap's, within each run")


def test_report_prepared(tmp):
    """report.py: a prepared path is its own row, after the cold ones,
    labelled, compared with nothing but itself, without a limit."""
    before = [result("6.12", "e2e-64m", "alloc", "cmabuf-legacy", 40.0, 1)]
    after = [result("7.2", "e2e-64m", "alloc", "cmabuf-auto-prepared", 0.05, 1),
             result("7.2", "e2e-64m", "alloc", "cmabuf-auto", 30.0, 1),
             result("7.2", "e2e-64m", "alloc", "cma-heap", 60.0, 1),
             result("7.2", "contig-64m", "alloc", "cmabuf-auto", 1.0, 1),
             result("7.2", "zero-64m", "zero-all", "cmabuf-auto", 10.0, 1)]
    p, out = run_lines(tmp, "prepared", before, after)
    rep = report_json(out)
    paths = [r["path"] for r in rep["rows"] if r["workload"] == "e2e-64m"]
    ok(p.returncode == 0 and
       paths == ["cmabuf-legacy", "cmabuf-auto", "cma-heap", "cmabuf-auto-prepared"],
       f"a prepared path's row comes after the cold paths' (got {paths})")
    r = row(rep, "e2e-64m", "alloc", "cmabuf-auto-prepared")
    ok(r and r["prepared"] and r["before_path"] is None and r["ratio"] is None,
       "a prepared ALLOC is not compared with the baseline's cold ALLOC")
    r = row(rep, "e2e-64m", "alloc", "cmabuf-auto")
    ok(r and not r["prepared"] and r["before_path"] == "cmabuf-legacy",
       "the cold path still is")
    ok([x["path"] for x in rep["limits"]] == ["cmabuf-auto"],
       "no limit row for a prepared ALLOC")
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        md = f.read()
    ok("| e2e-64m | alloc | **cmabuf-auto-prepared** (prepared ahead, untimed; "
       "not a cold ALLOC) | — | 0.05 (0.05–0.05), n=20 | — |" in md,
       "its Markdown row says it is no cold ALLOC")


def test_load_prepared(tmp):
    """load_report.py and load_runs.py on fixtures/load-prepared.jsonl: a
    prepared path is its own row after the cold ones, labelled, its PREPARE
    failures apart; judged by issue 18's targets, not issue 17's."""
    out = os.path.join(tmp, "load-prepared")
    p = script("load_report.py", "--in", LOAD_PREPARED, "--out-dir", out,
               "--no-chart")
    rep = report_json(out)
    cam = [(x["path"], x["prepared"]) for x in rep["rows"]
           if x["workload"] == "camera"]
    ok(p.returncode == 0 and
       cam == [("cmabuf-auto", False), ("cma-heap", False),
               ("cmabuf-auto-prepared", True)],
       f"load_report.py: the prepared path after the cold ones and the heap ({cam})")
    r = [x for x in rep["rows"] if x["workload"] == "camera" and x["prepared"]][0]
    ok(r["ok"] == 2 and r["attempts"] == 3 and r["p50_ns"] == 120000 and
       r["prepare_errors"] == {"ENOSPC": 1} and r["cmabuf_prepare_hits"] == 16,
       "a failed PREPARE fails its sample, counted apart; allocations served ready")
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        md = f.read()
    ok("| load-prepared | fill | **cmabuf-auto-prepared**: prepared ahead, untimed; "
       "not a cold ALLOC (16 allocations took a ready buffer) | 2 / 3 | 0.12 |" in md and
       "ENOSPC 1 (in the PREPARE before: ENOSPC 1)" in md,
       "load_report.py: the prepared row is labelled, its PREPARE's errno shown")
    ok("| load-prepared | fill | cmabuf-auto (1 allocation took a ready buffer: "
       "not all cold) | 3 / 3 |" in md,
       "load_report.py: a cold row whose allocation took a ready buffer says so")
    p = script("load_runs.py", os.path.join(out, "report.json"))
    issue17 = p.stdout.split("### Targets (issue 18)")[0]
    ok(p.returncode == 0 and "cmabuf-auto-prepared" not in issue17,
       "load_runs.py: a prepared path is not judged by issue 17's cold targets")
    ok("| load-64m, fill, 7.2 cmabuf-auto-prepared: p50 ≤ 100 µs, p99 ≤ 1 ms, "
       "none failed | p50 0.05 [0.05–0.05], p99 0.06 [0.06–0.06]; 3 / 3 | "
       "1 of 1 runs |" in p.stdout,
       "load_runs.py: issue 18's prepared ALLOC target, median and p99")
    ok("| camera, fill: heap p50 ÷ 7.2 cmabuf-auto-prepared p50 | "
       "21666.67× [21666.67–21666.67] | 1 of 1 runs ≥ 100 |" in p.stdout,
       "load_runs.py: issue 18's camera target against the heap, same boot")
    ok("| fill | load-prepared | cmabuf-auto-prepared (prepared ahead) | 1 | 2 / 3 |"
       in p.stdout, "load_runs.py: the prepared row is labelled in every table")


def shrink_record(by, t0_s, first_ms, all_ms):
    """cmabuf_shrinktime's record: reclaim at @t0_s, buffers back @first_ms
    and @all_ms after it (None: not within the time-out)."""
    def look(at_ns, cma_mib, prepared):
        return {"at_ns": int(at_ns), "prepared_bytes": prepared,
                "mem_free_bytes": (cma_mib + 40) << 20,
                "cma_free_bytes": cma_mib << 20, "touched_bytes": 0,
                "slabs_scanned": 0}
    t0 = t0_s * 1e9
    rec = {"format": 1, "record": "shrink", "device": "/dev/cmabuf-large",
           "by": by, "size_bytes": 64 << 20, "count": 4, "timeout_ms": 10000,
           "start": look(0, 1100, 256 << 20), "held": look(t0, 60, 256 << 20),
           "reclaim": look(t0, 60, 256 << 20),
           "first_back": None if first_ms is None else
           look(t0 + first_ms * 1e6, 124, 192 << 20),
           "all_back": None if all_ms is None else
           look(t0 + all_ms * 1e6, 316, 0),
           "back_after_reclaim_ns": None if all_ms is None else
           int(all_ms * 1e6)}
    return json.dumps(rec)


def test_shrink(tmp):
    """load_report.py and load_runs.py: ready buffers under pressure."""
    files = []
    for name, rec in (("7.2-shrink-large-prepare",
                       shrink_record("prepare", 8.0, 10, 20)),
                      ("7.2-shrink-large-reserve",
                       shrink_record("reserve", 7.0, None, None))):
        files.append(os.path.join(tmp, name + ".jsonl"))
        with open(files[-1], "w", encoding="utf-8") as f:
            f.write(rec + "\n")
    out = os.path.join(tmp, "shrink")
    p = script("load_report.py", "--in", files[0], "--in", files[1],
               "--out-dir", out, "--no-chart")
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        text = f.read()
    ok(p.returncode == 0 and
       "| 7.2-shrink-large-prepare | /dev/cmabuf-large | prepare | 4 × 64 MiB | "
       "8.0 | 10.0 | 20.0 | 60 → 316 | — | — | — |" in text,
       "the shrink table: reclaim, first and last buffer back, CmaFree")
    ok("| 7.2-shrink-large-reserve | /dev/cmabuf-large | reserve | 4 × 64 MiB | "
       "7.0 | — | not within 10000 ms | — | — | — | — |" in text,
       "the shrink table: buffers that did not come back say so")
    rep = os.path.join(out, "report.json")
    p = script("load_runs.py", rep, rep)
    lines = p.stdout.splitlines()
    ok(p.returncode == 0 and
       "| ready buffers (prepare) back within 1 s of the first reclaim | "
       "20.0 [20.0–20.0] ms, 2 of 2 came back | 2 of 2 |" in lines,
       "load_runs.py: issue 18's pressure target, every measurement")
    ok("| ready buffers (reserve) back within 1 s of the first reclaim | "
       "none of 2 came back | 0 of 2 |" in lines,
       "load_runs.py: buffers that never came back miss the target")
    # Issue 30: the reserve is kept through reclaim; the record says so,
    # with the shrinker's counts.
    rec = json.loads(shrink_record("reserve", 7.0, None, None))
    rec.update({"min_prepared_bytes": 256 << 20, "kept": True,
                "counts": {"reclaimed_buffers": 3, "reclaimed_bytes": 3 << 26,
                           "refilled_buffers": 1, "refilled_bytes": 1 << 26},
                "alloc_after": {"ns": [250000, 400000, 300000, 350000],
                                "hits": 4, "errno": 0}})
    files[1] = os.path.join(tmp, "7.2-shrink-large-reserve-kept.jsonl")
    with open(files[1], "w", encoding="utf-8") as f:
        f.write(json.dumps(rec) + "\n")
    out = os.path.join(tmp, "shrink-kept")
    p = script("load_report.py", "--in", files[0], "--in", files[1],
               "--out-dir", out, "--no-chart")
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        text = f.read()
    ok(p.returncode == 0 and
       "| 7.2-shrink-large-reserve-kept | /dev/cmabuf-large | reserve | 4 × 64 MiB | "
       "7.0 | — | not within 10000 ms | — | 256 | 3 / 1 | 0.4, 4 of 4 ready |" in text,
       "the shrink table: what the reserve kept, reclaimed and refilled buffers, "
       "the ALLOCs under the pressure")
    rep = os.path.join(out, "report.json")
    p = script("load_runs.py", rep, rep)
    lines = p.stdout.splitlines()
    ok(p.returncode == 0 and
       "| the reserve kept through reclaim | 2 of 2 kept | 2 of 2 |" in lines and
       not any(line.startswith("| ready buffers (reserve)") for line in lines),
       "load_runs.py: a kept reserve is judged as kept, not by the 1 s")


def conc_result(procs, path, ms, areas=1):
    r = json.loads(result("7.2", "concurrent", "round", path, ms, 1))
    r.update({"procs": procs, "areas": areas, "n": 9})
    return json.dumps(r)


def test_concurrent(tmp):
    """concurrent's rounds per number of callers; runs.py's issue 18 targets."""
    reports = []
    # Per run: LEGACY's and COMPOUND's round of 2 and of 4 callers, and the
    # clearing of 64 MiB on all CPUs.
    for i, (legacy, comp, zero) in enumerate(((100.0, 50.0, 20.0),
                                              (90.0, 60.0, 20.0),
                                              (120.0, 55.0, 25.0))):
        lines = [conc_result(2, "cmabuf-legacy", legacy),
                 conc_result(2, "cmabuf-compound", comp),
                 conc_result(4, "cmabuf-legacy", 2 * legacy),
                 conc_result(4, "cmabuf-compound", 2 * comp),
                 conc_result(2, "cmabuf-compound", 999.0, areas=2),
                 result("7.2", "zero-64m", "zero-all", "cmabuf-auto", zero, 1)]
        # The clearing timed between the rounds, where there is one, wins.
        if i == 2:
            lines += [result("7.2", "zero-64m", "zero-all", "cmabuf-auto",
                             1.0, 1),
                      result("7.2", "concurrent", "zero-all", "cmabuf-auto",
                             zero, 1)]
        p, out = run_lines(tmp, f"conc-{i}", lines, lines, "--check",
                           "concurrent-2 round after:cmabuf-legacy "
                           "after:cmabuf-compound 1.0 9")
        reports.append(os.path.join(out, "report.json"))
        if i == 0:
            with open(reports[-1], encoding="utf-8") as f:
                rep = json.load(f)
            two, four = (row(rep, f"concurrent-{n}", "round", "cmabuf-compound")
                         for n in (2, 4))
            spread = row(rep, "concurrent-2x2", "round", "cmabuf-compound")
            ok(two and four and spread and
               two["after"]["median_ns"] == 50e6 and
               four["after"]["median_ns"] == 100e6 and
               spread["after"]["median_ns"] == 999e6,
               "report.py: concurrent's rounds filed per callers and areas")
            ok(p.returncode == 0 and "ok 1 - concurrent-2 round: " in p.stdout,
               "report.py: a check names the rounds of two callers")
    p = script("runs.py", *reports)
    for want, what in (
            ("| init_on_alloc=1, 2 vCPUs | concurrent-2 | round | 7.2 "
             "cmabuf-legacy, cmabuf-compound | ≥ 1.6× | 2.00× [1.50–2.18] | "
             "2 of 3 runs |", "callers at once against LEGACY's, per run"),
            ("| init_on_alloc=1, 2 vCPUs | concurrent-4 | round ÷ limit | "
             "cmabuf-compound | ≤ 1.25× | 1.25× [1.10–1.50] | 2 of 3 runs |",
             "callers at once against their bytes' clearing, per run"),
            ("| 4 | cmabuf-compound | 110 [100–120] | 80.0 [80.0–100] | "
             "1.25× [1.10–1.50] | 2.00× [1.50–2.18] |",
             "the table of callers at once, the limit once per caller")):
        ok(p.returncode == 0 and want in p.stdout.splitlines(),
           f"runs.py: {what}")


def kresult(kernel, workload, phase, path, ms, zeroes, strategy, frozen,
            cpus=2):
    """A result with what its allocation cleared: the run's flags and the
    path's strategy, as bench --json prints them."""
    r = json.loads(result(kernel, workload, phase, path, ms, zeroes, cpus))
    r.update(strategy=strategy, clears_frozen=frozen)
    return json.dumps(r)


def demo_results(zeroes=1):
    """The demo's runs, as shipped by default: 6.12 LEGACY (the allocator
    clears it) against 7.2 COMPOUND and FROZEN through the noinit API
    (patch 0004: cmabuf clears them after the call) and LEGACY. The
    gigantic-1g alloc figures are those of the review's fresh make demo
    (502 and 23.5 ms); the clearings (zero-all) and the rest are made up."""
    before = [kresult("6.12", "gigantic-1g", "alloc", "cmabuf-legacy", 502,
                      zeroes, "legacy", 0),
              kresult("6.12", "contig-64m", "alloc", "cmabuf-legacy", 40,
                      zeroes, "legacy", 0),
              kresult("6.12", "zero-1g", "zero-all", "cmabuf-auto", 300,
                      zeroes, "auto", 0),
              kresult("6.12", "zero-1g", "alloc", "cmabuf-auto", 500,
                      zeroes, "auto", 0),
              kresult("6.12", "e2e-64m", "cycle", "cmabuf-legacy", 80,
                      zeroes, "legacy", 0),
              kresult("6.12", "e2e-64m", "alloc", "cmabuf-legacy", 42,
                      zeroes, "legacy", 0)]
    after = [kresult("7.2", "gigantic-1g", "alloc", "cmabuf-compound", 23.5,
                     zeroes, "compound", 1),
             kresult("7.2", "gigantic-1g", "alloc", "cmabuf-legacy", 600,
                     zeroes, "legacy", 1),
             kresult("7.2", "gigantic-1g", "free", "cmabuf-compound", 20,
                     zeroes, "compound", 1),
             kresult("7.2", "contig-64m", "alloc", "cmabuf-frozen", 3,
                     zeroes, "frozen", 1),
             kresult("7.2", "zero-1g", "zero-all", "cmabuf-auto", 280,
                     zeroes, "auto", 1),
             kresult("7.2", "zero-1g", "alloc", "cmabuf-auto", 20,
                     zeroes, "auto", 1),
             kresult("7.2", "e2e-64m", "cycle", "cmabuf-compound", 40,
                     zeroes, "compound", 1),
             kresult("7.2", "e2e-64m", "alloc", "cmabuf-compound", 25,
                     zeroes, "compound", 1)]
    return before, after


def md_rows(out, workload, phase, path):
    """The lines of report.md in tmp/@out that start as this row."""
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        return [x for x in f.read().splitlines()
                if x.startswith(f"| {workload} | {phase} | {path} |")]


def test_unlike_alloc(tmp):
    """Issue 30 item 6: an in-kernel allocation that clears nothing
    (COMPOUND, FROZEN through the noinit API) is not compared with one the
    page allocator clears (LEGACY with init_on_alloc=1); alloc+clear
    compares the buffer as ALLOC hands it out on both sides."""
    before, after = demo_results()
    p, out = run_lines(tmp, "unlike", before, after, "--min-n", "5",
                       "--check", "gigantic-1g alloc before:cmabuf-legacy "
                       "after:cmabuf-compound 5",
                       "--check", "gigantic-1g alloc+clear before:cmabuf-legacy "
                       "after:cmabuf-compound 1.5")
    rep = report_json(out)
    r = row(rep, "gigantic-1g", "alloc", "cmabuf-compound")
    ok(r and r["ratio"] is None and "unlike work" in r.get("unlike", "") and
       r.get("before_clears") == "cleared by the page allocator (1 CPU)" and
       r.get("after_clears") == "not cleared",
       "1 GiB alloc, 6.12 LEGACY cleared against 7.2 COMPOUND uncleared: "
       "no ratio (was 21.36x), each side says what it includes")
    line = md_rows(out, "gigantic-1g", "alloc", "cmabuf-compound")
    ok(len(line) == 1 and "21.36" not in line[0] and
       "502 (502–502), n=20, cleared by the page allocator (1 CPU) "
       "[cmabuf-legacy]" in line[0] and
       "23.5 (23.5–23.5), n=20, not cleared" in line[0] and
       "| — (unlike work" in line[0],
       "report.md: the alloc row says what each side cleared, no ratio")
    r = row(rep, "gigantic-1g", "alloc+clear", "cmabuf-compound")
    ok(r and r["before_path"] == "cmabuf-legacy" and
       r["after"]["median_ns"] == int(23.5e6) + int(280e6) and
       r["before"]["median_ns"] == int(502e6) and
       abs(r["ratio"] - 502 / 303.5) < 1e-6,
       "alloc+clear: COMPOUND's 23.5 ms + its clearing on every CPU "
       "(280 ms) against LEGACY's 502 ms: 1.65x, not 21.36x")
    r = row(rep, "gigantic-1g", "alloc+clear", "cmabuf-legacy")
    ok(r and r["after"]["median_ns"] == int(600e6) and
       r["after"]["clear"] == "by the allocator",
       "alloc+clear of LEGACY as shipped: its allocation, cleared in it")
    line = md_rows(out, "gigantic-1g", "alloc+clear", "cmabuf-compound")
    ok(len(line) == 1 and "n=20: alloc 23.5 + clearing 280 (all CPUs)" in line[0]
       and "cleared in the alloc [cmabuf-legacy]" in line[0] and
       line[0].endswith("| 1.65× |"),
       "report.md: alloc+clear shows both parts and the like ratio")
    r = row(rep, "zero-1g", "alloc", "cmabuf-auto")
    ok(r and r["ratio"] is None and r.get("unlike") and
       r.get("after_clears") == "not cleared",
       "zero-1g's allocation (AUTO: COMPOUND on 7.2) is no more compared "
       "with 6.12's cleared one")
    ok(row(rep, "contig-64m", "alloc+clear", "cmabuf-frozen") is None,
       "no alloc+clear where the clearing of that size was not timed")
    ok(p.returncode == 1 and
       "not ok 1 - gigantic-1g alloc: before:cmabuf-legacy (cleared by the "
       "page allocator (1 CPU)) / after:cmabuf-compound (not cleared): "
       "unlike work" in p.stdout and
       "ok 2 - gigantic-1g alloc+clear: before:cmabuf-legacy 502 ms / "
       "after:cmabuf-compound 304 ms = 1.65x" in p.stdout,
       "a check of an alloc that clears against one that does not fails; "
       "on alloc+clear it compares")
    # Measured in the kernel beside each allocation (clear=1): kept as is,
    # not replaced by the sum of medians; blocks-2m has it too.
    measured = after + [
        kresult("7.2", "gigantic-1g", "alloc+clear", "cmabuf-compound", 290,
                1, "compound", 1),
        kresult("7.2", "blocks-2m", "alloc+clear", "cmabuf-compound", 700,
                1, "compound", 1),
        kresult("6.12", "blocks-2m", "alloc+clear", "cmabuf-legacy", 1400,
                1, "legacy", 0)]
    _, out = run_lines(tmp, "measured", before + measured[-1:], measured[:-1])
    rep = report_json(out)
    r = row(rep, "gigantic-1g", "alloc+clear", "cmabuf-compound")
    ok(r and r["after"]["median_ns"] == int(290e6) and "clear" not in r["after"]
       and abs(r["ratio"] - 502 / 290) < 1e-6,
       "a measured alloc+clear is the one compared, not the sum of medians")
    r = row(rep, "blocks-2m", "alloc+clear", "cmabuf-compound")
    ok(r and abs(r["ratio"] - 2) < 1e-6,
       "blocks-2m's measured alloc+clear compares 6.12 with 7.2")
    # With init_on_alloc=0 nothing clears in the call: like work.
    before, after = demo_results(zeroes=0)
    p, out = run_lines(tmp, "unlike-0", before, after)
    rep = report_json(out)
    r = row(rep, "gigantic-1g", "alloc", "cmabuf-compound")
    ok(r and abs(r["ratio"] - 502 / 23.5) < 1e-6 and "unlike" not in r and
       r.get("before_clears") == r.get("after_clears") == "not cleared",
       "init_on_alloc=0: neither allocation clears, the ratio stands, "
       "both say so")
    r = row(rep, "gigantic-1g", "alloc+clear", "cmabuf-compound")
    ok(r and abs(r["ratio"] - (502 + 300) / (23.5 + 280)) < 1e-6,
       "init_on_alloc=0: alloc+clear adds each boot's clearing to each side")


def test_headline(tmp):
    """The report opens with the end-to-end figures, before any table of
    in-kernel allocations."""
    before, after = demo_results()
    _, out = run_lines(tmp, "headline", before, after)
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    rows = [x for x in lines if x.startswith("| ") and
            not x.startswith("| workload")]
    ok(rows and rows[0].startswith("| e2e-64m | cycle | cmabuf-compound | "
                                   "80.0") and
       rows[0].endswith("| 2.00× |") and
       rows[1].startswith("| e2e-64m | alloc | cmabuf-compound |"),
       "report.md's first rows: the 64 MiB cycle and ALLOC end to end")
    start = [i for i, x in enumerate(lines) if x.startswith("End to end")]
    kernel = [i for i, x in enumerate(lines) if x.startswith("| gigantic-1g")]
    ok(start and kernel and start[0] == 0 and
       "handed out cleared on every path" in lines[0],
       "report.md's first line introduces the end-to-end figures, and says "
       "the buffers are cleared")
    # make demo's guest runs (tests/suites/demo.sh): end to end first; the
    # in-kernel workloads time their alloc+clear themselves.
    with open(os.path.join(HERE, "..", "suites", "demo.sh"),
              encoding="utf-8") as f:
        demo = [shlex.split(x)[2] for x in f.read().splitlines()
                if x.split()[:1] == ["bench"]]
    ok(demo[:2] == ["e2e-64m", "e2e-1g"] and
       set(demo[2:]) == {"contig-64m", "gigantic-1g"},
       f"demo.sh: e2e-64m and e2e-1g first, then contig-64m and gigantic-1g "
       f"(got {demo})")
    table = [x for x in lines if x.startswith("| ")]
    first = [x.split(" | ")[0] for x in table
             if not x.startswith(("| workload", "|---"))]
    ok("| gigantic-1g" in first and "| e2e-64m" in first[3:] and
       first.index("| gigantic-1g") > first.index("| e2e-64m", 3),
       "in the table of the setting too, end to end comes first")


def test_runs_unlike(tmp):
    """runs.py's in-kernel table: no ratio between an allocation that
    clears and one that does not, and alloc+clear, from report.py's rows
    and, for the committed runs older than them, from their limit rows."""
    setting = "init_on_alloc=1, 2 vCPUs"

    def side(ms):
        return {"median_ns": ms * 1e6, "min_ns": ms * 1e6,
                "max_ns": ms * 1e6, "n": 20}

    old = {"rows": [
        {"setting": setting, "workload": "contig-64m", "phase": "alloc",
         "path": "cmabuf-compound", "before_path": "cmabuf-legacy",
         "before": side(40.0), "after": side(3.0), "ratio": 40 / 3},
        {"setting": setting, "workload": "contig-64m", "phase": "alloc",
         "path": "cmabuf-legacy", "before_path": "cmabuf-legacy",
         "before": side(40.0), "after": side(50.0), "ratio": 0.8}],
        "limits": [
            {"side": "after", "setting": setting, "workload": "e2e-64m",
             "path": "cmabuf-compound", "alloc_ns": 25e6, "kernel_ns": 3e6,
             "zero_ns": 18e6, "zero": "all CPUs", "ratio": 25 / 21},
            {"side": "after", "setting": setting, "workload": "e2e-64m",
             "path": "cmabuf-legacy", "alloc_ns": 52e6, "kernel_ns": 50e6,
             "zero_ns": 0, "zero": "by the allocator", "ratio": 52 / 50},
            {"side": "before", "setting": setting, "workload": "e2e-64m",
             "path": "cmabuf-legacy", "alloc_ns": 42e6, "kernel_ns": 40e6,
             "zero_ns": 0, "zero": "by the allocator", "ratio": 42 / 40}]}
    path = os.path.join(tmp, "runs-old.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(old, f)
    p = script("runs.py", path)
    lines = p.stdout.splitlines()
    ok(p.returncode == 0 and
       "| contig-64m | alloc | 40.0 [40.0–40.0], cleared | "
       "3.00 [3.00–3.00], not cleared | – | 50.0 [50.0–50.0], cleared | "
       "unlike work: see alloc+clear |" in lines,
       "runs.py, a run of before alloc+clear: the alloc row says what each "
       "cleared, no 13.33x")
    ok("| contig-64m | alloc+clear | 40.0 [40.0–40.0] | 21.0 [21.0–21.0] | "
       "– | 50.0 [50.0–50.0] | 1.90× [1.90–1.90] |" in lines,
       "runs.py: alloc+clear from the limit rows, 40 / (3 + 18) = 1.90x")
    before, after = demo_results()
    _, out = run_lines(tmp, "runs-unlike", before, after)
    p = script("runs.py", os.path.join(out, "report.json"))
    lines = p.stdout.splitlines()
    ok([x for x in lines if x.startswith("| gigantic-1g | alloc | 502 [502–502]"
                                         ", cleared | 23.5 [23.5–23.5], not "
                                         "cleared |")
        and x.endswith("| unlike work: see alloc+clear |")] and
       [x for x in lines if x.startswith("| gigantic-1g | alloc+clear | "
                                         "502 [502–502] | 304 [304–304] |")
        and x.endswith("| 1.65× [1.65–1.65] |")],
       "runs.py on report.py's rows: 1 GiB alloc unlike, alloc+clear 1.65x")


def form_ok(path):
    """Is the report.json at @path one record a line (report.json_text()):
    a line per top-level field, one per element of a list among them?"""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rep = json.loads(text)
    lines = text.splitlines()
    want = 2 + sum(len(v) + 2 if isinstance(v, list) and v else 1
                   for v in rep.values())
    listed = [v for v in rep.values() if isinstance(v, list) and v]
    each = {ln.rstrip(",") for ln in lines}
    return (len(lines) == want and listed and text.endswith("}\n") and
            all("  " + json.dumps(x) in each for v in listed for x in v))


def test_json_form(tmp):
    """report.json, as report.py and load_report.py write it and as
    docs/bench/ keeps it: JSON, one record a line; gen-benchmarks.py
    --check fails on a run file in another form and make docs rewrites it,
    its data unchanged."""
    out = os.path.join(tmp, "form")
    run(out, "--no-chart")
    path = os.path.join(out, "report.json")
    ok(form_ok(path) and len(report_json(out)["rows"]) == 13,
       "report.py: report.json one record a line, a row a line")
    _, load_path, _ = load_run(tmp, "form-load", [50, 60, 70, 80], True)
    ok(form_ok(load_path),
       "load_report.py: report.json one record a line, a row a line")

    spec = importlib.util.spec_from_file_location(
        "gen_benchmarks", os.path.join(HERE, "..", "..", "docs",
                                       "gen-benchmarks.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    if not hasattr(gen, "run_forms"):
        ok(False, "gen-benchmarks.py checks the form of the run files")
        return
    gen.TOP = os.path.join(tmp, "gen")
    gen.BENCH = os.path.join(gen.TOP, "bench")
    runs = os.path.join(gen.BENCH, "day", "head")
    os.makedirs(runs)
    with open(path, encoding="utf-8") as f:
        rep = json.load(f)
    old = os.path.join(runs, "run1.json")
    with open(old, "w", encoding="utf-8") as f:
        json.dump(rep, f, indent=1)
        f.write("\n")
    with open(old, encoding="utf-8") as f:
        indented = f.read()
    shutil.copy(path, os.path.join(runs, "run2.json"))
    said = io.StringIO()
    with contextlib.redirect_stderr(said), contextlib.redirect_stdout(said):
        checked = gen.run_forms(True)
        with open(old, encoding="utf-8") as f:
            kept = f.read() == indented
        written = gen.run_forms(False)
        again = gen.run_forms(True)
    ok(checked == 1 and kept and
       "day/head/run1.json: not one record a line" in said.getvalue() and
       "run2.json" not in said.getvalue(),
       "gen-benchmarks.py --check: an indented run file fails, unchanged")
    with open(old, encoding="utf-8") as f:
        back = json.load(f)
    ok(written == 0 and again == 0 and form_ok(old) and back == rep,
       "make docs: the run file written one record a line, same data")


CTL_PHASES = ("alloc", "mmap", "sync", "touch", "munmap", "close", "cycle")
GIB = 1 << 30


def ctl_ref(ms):
    return "# bench-json " + json.dumps({
        "format": 1, "workload": "e2e-64m", "results": [
            {"path": "cpu-ref", "phase": "ref", "median_ns": int(ms * 1e6),
             "min_ns": 1, "max_ns": 2, "n": 10}]})


def ctl_size(label, size, release, timed, offered, refs, area=GIB,
             max_order=18, skipped=False, extra=""):
    """The bench-ctl suite's lines for one size: cpu-ref, info, bench (or
    its skip), cpu-ref; a phase's median is the cycle's ms (10 x its index
    in timed) scaled, its min and max 0.5 and 1.5 times it."""
    dev = f"/dev/cmabuf-{label}"
    info = {"format": 1, "kernel": release, "instances": [{
        "device": dev, "area": f"{label}-pool", "total_bytes": area,
        "page_size": 4096, "min_compound_order": 1,
        "max_compound_order": max_order,
        "strategies": ["auto"] + list(offered)}]}
    if skipped:
        doc = {"device": label, "size_bytes": size,
               "skipped": f"its area holds {area} bytes"}
    else:
        res = []
        for i, st in enumerate(timed):
            for j, ph in enumerate(CTL_PHASES):
                ms = 10 * (i + 1) * (j + 1)
                res.append({"strategy": st, "phase": ph, "n": 20,
                            "median_ns": ms * 1000000,
                            "p90_ns": ms * 1200000, "p99_ns": ms * 1400000,
                            "min_ns": ms * 500000, "max_ns": ms * 1500000,
                            "mean_ns": ms * 1000000})
        doc = {"format": 1, "kernel": release, "device": dev,
               "area": f"{label}-pool", "size_bytes": size, "iterations": 20,
               "page_size": 4096, "results": res}
    return [ctl_ref(refs[0]), "ok 1 cpu-ref",
            "# ctl-info-json " + json.dumps(info),
            "# ctl-bench-json " + json.dumps(doc) + extra, "ok 2 bench",
            ctl_ref(refs[1]), "ok 3 cpu-ref"]


def ctl_write(tmp, name, lines):
    path = os.path.join(tmp, name + ".tap")
    with open(path, "w", encoding="utf-8") as f:
        f.write("TAP version 13\n1..6\n" + "\n".join(lines) + "\n")
    return path


def ctl_run(out, *boots):
    return script("ctl_report.py", "--out-dir", out,
                  *[f"{n}={p}" for n, p in boots])


def test_ctl_report(tmp):
    """ctl_report.py on two boots' bench-ctl TAP: the stock image's DMA
    strategy at 64 MiB and 1 GiB, 7.2's four at 64 MiB and three at 1 GiB
    (COMPOUND offered, left out: too large for its orders); each bench with
    the cpu-ref runs beside it; one record a line; ctl_table.py's table."""
    d = os.path.join(tmp, "ctl")
    os.makedirs(d)
    stock = ctl_write(d, "stock", ctl_size(
        "general", 64 << 20, "6.12.1", ["dma"], ["dma"], (30, 32)) +
        ctl_size("large", GIB, "6.12.1", ["dma"], ["dma"], (40, 44)))
    all4 = ["compound", "frozen", "legacy", "dma"]
    patched = ctl_write(d, "patched", ctl_size(
        "general", 64 << 20, "7.2.0", all4, all4, (20, 20)) +
        ctl_size("large", GIB, "7.2.0", all4[1:], all4, (25, 27),
                 max_order=10))
    out = os.path.join(d, "out")
    p = ctl_run(out, ("stock-6.12", stock), ("7.2", patched))
    ok(p.returncode == 0, f"ctl_report.py exits 0 (got {p.returncode}: "
       f"{p.stderr.strip()})")
    path = os.path.join(out, "stock.json")
    if not os.path.exists(path):
        ok(False, "ctl_report.py writes stock.json")
        return
    with open(path, encoding="utf-8") as f:
        rep = json.load(f)
    ok(form_ok(path), "stock.json: one record a line, a row a line")
    ok([k["name"] for k in rep["kernels"]] == ["stock-6.12", "7.2"] and
       rep["kernels"][0]["release"] == "6.12.1" and
       rep["kernels"][1]["strategies"] == all4,
       "kernels in the order given, release and strategies offered")
    refs = {(b["kernel"], b["size_bytes"]): b["cpu_ref_ns"]
            for b in rep["benches"]}
    ok(refs == {("stock-6.12", 64 << 20): [30e6, 32e6],
                ("stock-6.12", GIB): [40e6, 44e6],
                ("7.2", 64 << 20): [20e6, 20e6],
                ("7.2", GIB): [25e6, 27e6]},
       f"each bench has the cpu-ref runs before and after it (got {refs})")
    ok(len(rep["rows"]) == 7 * (1 + 1 + 4 + 3),
       f"a row per kernel, size, strategy and phase (got {len(rep['rows'])})")
    ok([(m["kernel"], m["size_bytes"], m["strategy"]) for m in
        rep["missing"]] == [("7.2", GIB, "compound")] and
       "not a COMPOUND size" in rep["missing"][0]["why"],
       "a strategy offered but not timed is missing, and why")
    with open(os.path.join(out, "stock.md"), encoding="utf-8") as f:
        md = f.read()
    # stock-6.12's dma at 64 MiB: alloc 10 ms, touch 40, close 60, cycle
    # 70; cpu-ref 30 and 32 (31), cycle / 31 = 2.26.
    ok("| stock-6.12 (6.12.1) | dma | 20 | 10.0 [5.00–15.0] | 40.0 [20.0–60.0] "
       "| 60.0 [30.0–90.0] | 70.0 [35.0–105] | 31.0 [30.0–32.0] | 2.26 |" in md,
       "stock.md: p50 [min-max] of alloc, touch, free, cycle, the cpu-ref "
       "beside the bench and the cycle over it")
    ok("| 7.2 (7.2.0) | compound | — | not a COMPOUND size here" in md and
       "**cmabufctl bench, 1 GiB**" in md and
       md.index("**cmabufctl bench, 64 MiB**") <
       md.index("**cmabufctl bench, 1 GiB**"),
       "stock.md: a table per size, the missing strategy said")

    # Two runs: a cell is the median of the runs' medians [their range].
    rep2 = json.loads(json.dumps(rep))
    for r in rep2["rows"]:
        r["median_ns"] *= 3
    for b in rep2["benches"]:
        b["cpu_ref_ns"] = [x * 3 for x in b["cpu_ref_ns"]]
    two = [os.path.join(d, "run1.json"), os.path.join(d, "run2.json")]
    for f_, r_ in zip(two, (rep, rep2)):
        with open(f_, "w", encoding="utf-8") as f:
            json.dump(r_, f)
    p = script("ctl_table.py", *two)
    ok(p.returncode == 0 and
       "| stock-6.12 (6.12.1) | dma | 20+20 | 20.0 [10.0–30.0] |" in p.stdout
       and "| 62.0 [31.0–93.0] | 2.26 [2.26–2.26] |" in p.stdout,
       "ctl_table.py on two runs: median of the medians [lowest–highest]")

    # A size the area cannot hold: said, not measured.
    small = ctl_write(d, "small", ctl_size(
        "general", 64 << 20, "6.1.0", ["dma"], ["dma"], (30, 30),
        area=256 << 20) + ctl_size("large", GIB, "6.1.0", [], ["dma"],
                                   (30, 30), area=256 << 20, skipped=True))
    p = ctl_run(os.path.join(d, "small-out"), ("stock-6.1", small))
    with open(os.path.join(d, "small-out", "stock.md"), encoding="utf-8") as f:
        md = f.read()
    ok(p.returncode == 0 and "| stock-6.1 (6.1.0) | — | — | not run: its area "
       "(large-pool, 256 MiB) holds less |" in md,
       "a 1 GiB its area cannot hold is a row that says so")

    # What the report refuses: no bench result, no cpu-ref beside a bench,
    # a line that is not JSON.
    lines = ctl_size("general", 64 << 20, "6.1.0", ["dma"], ["dma"], (30, 30))
    cases = (
        ("nothing", [x for x in lines if "ctl-bench-json" not in x],
         "no cmabufctl bench result"),
        ("no-ref", [x for x in lines if "bench-json {" not in x or
                    "ctl-" in x], "no cpu-ref beside the bench"),
        ("torn", ctl_size("general", 64 << 20, "6.1.0", ["dma"], ["dma"],
                          (30, 30), extra=', "x'), "not JSON"))
    for name, tap, why in cases:
        p = ctl_run(os.path.join(d, name + "-out"),
                    ("stock-6.1", ctl_write(d, name, tap)))
        ok(p.returncode == 1 and why in p.stderr and
           not os.path.exists(os.path.join(d, name + "-out", "stock.json")),
           f"ctl_report.py fails on a TAP with {name}: '{why}'")

    # docs/gen-benchmarks.py fills a table of a stock run from ctl_table.py.
    spec = importlib.util.spec_from_file_location(
        "gen_benchmarks_ctl", os.path.join(HERE, "..", "..", "docs",
                                           "gen-benchmarks.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    gen.BENCH = os.path.join(d, "gen")
    os.makedirs(os.path.join(gen.BENCH, "day", "stock"))
    shutil.copy(path, os.path.join(gen.BENCH, "day", "stock", "run1.json"))
    try:
        cell = gen.cell("day/stock", "**cmabufctl bench, 64 MiB**",
                        "stock-6.12 (6.12.1); dma", "cycle ÷ cpu-ref")
    except gen.GenError as e:
        cell = str(e)
    ok(cell == "2.26", f"gen-benchmarks.py: a stock run's cell (got {cell})")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_merge(tmp)
        test_failing_checks(tmp)
        test_settings(tmp)
        test_limit_clears_frozen(tmp)
        test_limit_beside(tmp)
        test_zero_and_unavailable(tmp)
        test_before_alternatives(tmp)
        test_by_ref(tmp)
        test_runs(tmp)
        test_documents(tmp)
        test_load_report(tmp)
        test_load_runs(tmp)
        test_report_prepared(tmp)
        test_load_prepared(tmp)
        test_shrink(tmp)
        test_concurrent(tmp)
        test_unlike_alloc(tmp)
        test_headline(tmp)
        test_runs_unlike(tmp)
        test_json_form(tmp)
        test_ctl_report(tmp)
    print("TAP version 13")
    print(f"1..{len(results)}")
    failed = 0
    for i, (status, what) in enumerate(results, 1):
        if status is False:
            failed += 1
        print(f"{'not ok' if status is False else 'ok'} {i} - {what}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
