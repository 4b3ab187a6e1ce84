#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gen-benchmarks.py [--check] [FILE...]: fill in the measured figures.

Every figure the documents quote from a "make bench" run sits between two
HTML comments that say where it comes from, and this script writes it
again from the committed runs, so that a figure never outlives the code
that computes it:

  <!-- bench: RUNS | CAPTION -->             a whole table, on lines of
  ...                                        its own
  <!-- /bench -->

  <!-- bench: RUNS | CAPTION | ROW | COLUMN [| median] -->...<!-- /bench -->
                                             one cell, inline

RUNS is a directory under docs/bench/ holding run*.json, the report.json
of each run: of "make bench", which tests/bench/runs.py sums up, of "make
bench-load" (with "boots"), which tests/bench/load_runs.py does, or the
stock.json of "make bench-stock" (with "ctl_bench"), tests/bench/ctl_table.py.
CAPTION is the start of the line above one of its tables. ROW is "A; B; ...": the row that has a
cell equal to each; COLUMN a heading of that table. "median" keeps the
median and drops the [lowest–highest] after it.

  <!-- bench: checks -->...<!-- /bench -->  the speedup checks of
                                             "make check", as a table,
                                             from tests/bench/speedup-checks

Without FILE: README.md, docs/benchmarks.md and docs/benchmarks-load.md,
and every run*.json under docs/bench/, which is kept as report.py writes
it, one record a line (report.json_text()): one that is not, such as a
report.json written by an older report.py, is written again so, its data
unchanged. --check writes nothing and exits 1, with a diff (for a run file:
its name), when a file is not what the runs give.
"""

import difflib
import glob
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The speedup checks' format is report.py's: one parser for both.
sys.path.insert(0, os.path.join(TOP, "tests", "bench"))
import report  # noqa: E402
BENCH = os.path.join(TOP, "docs", "bench")
FILES = ("README.md", os.path.join("docs", "benchmarks.md"),
         os.path.join("docs", "benchmarks-load.md"))
MARK = re.compile(r"<!-- bench: (.*?) -->(.*?)<!-- /bench -->", re.S)
SIDES = {"before": "6.12", "after": "7.2"}


class GenError(Exception):
    pass


_summaries = {}


def summary(runs):
    """runs.py's markdown for the runs in docs/bench/RUNS, as lines."""
    if runs not in _summaries:
        files = sorted(glob.glob(os.path.join(BENCH, runs, "run*.json")))
        if not files:
            raise GenError(f"no run*.json in docs/bench/{runs}")
        with open(files[0], encoding="utf-8") as f:
            first = json.load(f)
        tool = ("load_runs.py" if "boots" in first else
                "ctl_table.py" if "ctl_bench" in first else "runs.py")
        out = subprocess.run(
            [sys.executable, os.path.join(TOP, "tests", "bench", tool)] +
            files, check=True, capture_output=True, text=True).stdout
        _summaries[runs] = out.splitlines()
    return _summaries[runs]


def table(runs, caption):
    """The lines of the one table whose caption is, or else starts with,
    CAPTION."""
    lines = summary(runs)
    exact = [i for i, line in enumerate(lines) if line == caption]
    starts = [i for i, line in enumerate(lines) if line.startswith(caption)]
    found = []
    for i in exact or starts:
        j = i + 1
        while j < len(lines) and not lines[j].startswith("|"):
            if lines[j].strip():
                break
            j += 1
        k = j
        while k < len(lines) and lines[k].startswith("|"):
            k += 1
        if k > j:
            found.append(lines[j:k])
    if len(found) != 1:
        raise GenError(f"{runs}: {len(found)} tables under '{caption}'")
    return found[0]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def cell(runs, caption, row, column, median=False):
    rows = table(runs, caption)
    head = cells(rows[0])
    if column not in head:
        raise GenError(f"{runs}: '{caption}' has no column '{column}'")
    want = [w.strip() for w in row.split(";")]
    hits = [cells(r) for r in rows[2:] if all(w in cells(r) for w in want)]
    if len(hits) != 1:
        raise GenError(f"{runs}: '{caption}': {len(hits)} rows with {want}")
    value = hits[0][head.index(column)]
    return value.split(" [")[0] if median else value


def checks():
    """tests/bench/speedup-checks as a table."""
    out = ["| workload | phase | slower | faster | at least |",
           "|---|---|---|---|---|"]
    with open(os.path.join(TOP, "tests", "bench", "speedup-checks"),
              encoding="utf-8") as f:
        for line in f:
            spec = line.split("#")[0].strip()
            if not spec:
                continue
            try:
                c = report.parse_check(spec, 0)
            except ValueError:
                raise GenError(f"speedup-checks: malformed check '{spec}'")
            side = [f"{SIDES[s.split(':')[0]]} "
                    + " or ".join(s.split(":", 1)[1].split("|"))
                    for s in (c["first"], c["second"])]
            at = f"{c['want_text']}×" + (f", each over its boot's {c['by']}"
                                      if c["by"] else "")
            out.append(f"| {c['workload']} | {c['phase']} | {side[0]} | "
                       f"{side[1]} | {at} |")
    return out


def fill(match):
    spec, old = match.group(1), match.group(2)
    fields = [f.strip() for f in spec.split("|")]
    # Blank lines around a table keep it a block of its own in Markdown.
    if fields == ["checks"]:
        new = "\n\n" + "\n".join(checks()) + "\n\n"
    elif len(fields) == 2:
        new = "\n\n" + "\n".join(table(*fields)) + "\n\n"
    elif len(fields) in (4, 5):
        if len(fields) == 5 and fields[4] != "median":
            raise GenError(f"unknown modifier '{fields[4]}'")
        new = cell(*fields[:4], median=len(fields) == 5)
    else:
        raise GenError(f"cannot read '{spec}'")
    if "\n" in old and "\n" not in new:
        raise GenError(f"'{spec}' is a cell: keep it on one line")
    return f"<!-- bench: {spec} -->{new}<!-- /bench -->"


def inline_at_line_start(text):
    """A cell whose mark starts a line would be an HTML block of its own,
    which cuts the paragraph around it in two."""
    for n, line in enumerate(text.splitlines(), 1):
        s = line.lstrip()
        if s.startswith("<!-- bench:") and s.endswith("<!-- /bench -->"):
            return n
    return 0


def run_forms(check):
    """Every run*.json under docs/bench/ in json_text()'s form: with
    @check, 1 when one is not; without, each one that is not written again
    (json.load reads the same data from it)."""
    status = 0
    for path in sorted(glob.glob(os.path.join(BENCH, "**", "run*.json"),
                                 recursive=True)):
        name = os.path.relpath(path, TOP)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            data = json.loads(text)
            new = report.json_text(data)
        except (ValueError, TypeError) as e:
            print(f"{name}: not a report: {e}", file=sys.stderr)
            return 1
        if new == text:
            continue
        if check:
            print(f"{name}: not one record a line (make docs writes it so)",
                  file=sys.stderr)
            status = 1
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"{name}: written again, one record a line")
    return status


def main(argv):
    check = "--check" in argv
    args = [a for a in argv[1:] if a != "--check"]
    files = args or list(FILES)
    status = 0 if args else run_forms(check)
    for name in files:
        path = os.path.join(TOP, name) if not os.path.isabs(name) else name
        with open(path, encoding="utf-8") as f:
            text = f.read()
        n = inline_at_line_start(text)
        if n:
            print(f"{name}:{n}: a figure's mark starts the line: put a word "
                  "before it", file=sys.stderr)
            return 1
        try:
            new = MARK.sub(fill, text)
        except (GenError, subprocess.CalledProcessError) as e:
            print(f"{name}: {e}", file=sys.stderr)
            return 1
        if new == text:
            continue
        if check:
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), new.splitlines(True), name, name))
            status = 1
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"{name}: figures written again from docs/bench/")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
