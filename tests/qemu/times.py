#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a "make check" run's time went, as a Markdown table.

  times.py LOGS/times

LOGS/times (tests/qemu/check.sh) has "KIND NAME START END" a line, in
seconds since the epoch: the run itself ("run check START 0" first, "run
end START END" last), each build step, host suite and guest. A guest's
suites are read from LOGS/NAME/results.log ("### cmabuf-suite-end SUITE
rc=N seconds=S"). Steps and guests overlap: guests run two at a time,
so the rows add up to more than the run.
"""
import os
import re
import sys


def suites(log_dir):
    """[(suite, seconds)] of a guest's results.log, in the order run."""
    path = os.path.join(log_dir, "results.log")
    out = []
    if os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"^### cmabuf-suite-end (\S+) rc=\d+ seconds=(\d+)", line)
                if m:
                    out.append((m.group(1), int(m.group(2))))
    return out


def main():
    times = sys.argv[1]
    logs = os.path.dirname(times)
    rows = []
    with open(times, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if len(words) == 4:
                rows.append((words[0], words[1], int(words[2]), int(words[3])))
    t0 = rows[0][2]
    end = [r for r in rows if r[:2] == ("run", "end")]
    print("| phase | started (min) | took (min:s) |")
    print("|---|---|---|")

    def span(seconds):
        return f"{seconds // 60}:{seconds % 60:02d}"

    for kind, name, start, stop in rows:
        if kind == "run":
            continue
        print(f"| {kind} {name} | {(start - t0) / 60:.1f} | {span(stop - start)} |")
        if kind == "guest":
            for suite, secs in suites(os.path.join(logs, name)):
                print(f"| &nbsp;&nbsp;{suite} | | {span(secs)} |")
    if end:
        print(f"| **the whole run** | 0.0 | {span(end[0][3] - t0)} |")


if __name__ == "__main__":
    main()
