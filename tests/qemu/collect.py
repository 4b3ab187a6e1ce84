#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Collect and judge the test-bed's results.

  collect.py guest RESULTS_DIR LOG_DIR [RUN_ID BOOT_RC]
      Split LOG_DIR/results.log (what the guest wrote to /dev/hvc0) into
      RESULTS_DIR/<suite>.tap with the suite's exit status beside it in
      <suite>.rc, and write RESULTS_DIR/guest.tap: did the guest finish, and
      is the console log (LOG_DIR/console.log) free of kernel splats. With
      RUN_ID (what boot.sh was given as CMABUF_RUN_ID) the guest must have
      said it was booted for that run, and BOOT_RC is boot.sh's exit status,
      which must be 0: logs left by an earlier run, or by a boot.sh that
      failed before the guest started, fail it.

  collect.py host RESULTS_DIR SUITE RC FILE
      Record the TAP output FILE of a host-side suite that exited with RC.

  collect.py join RESULTS_DIR APART_DIR NAME
      Move what "guest" collected into APART_DIR, from a guest booted apart
      for the suite NAME, into RESULTS_DIR, its guest.tap as
      guest-NAME.tap. When APART_DIR has no guest.tap (the guest was never
      booted, or never collected), guest-NAME.tap says so and fails.

  collect.py expect RESULTS_DIR KERNEL EXPECTED [REASON]
      Write RESULTS_DIR/expected.tap: one test per suite EXPECTED (the
      pinned lists, tests/suites/EXPECTED) pins for KERNEL, passed when
      RESULTS_DIR has its results, and one that fails for each suite with
      results that is not pinned; a kernel EXPECTED does not pin fails.
      REASON, when given, is added to each suite that did not run (why
      the run left it out, e.g. the module did not build).

  collect.py summary RESULTS_ROOT
      Judge every RESULTS_ROOT/<target>/<suite>.tap, print one table and a
      last line "N passed, N failed, N skipped"; exit 1 on any failure.

A suite fails when its TAP has no plan, plans no test without saying why
("1..0", where "1..0 # SKIP reason" counts one skipped test), runs a
different number of tests than planned, says "not ok" or "Bail out!", or
when its program exited non-zero, was killed or never finished.
"""

import os
import re
import sys

# Kernel messages that fail a run even when every test said ok.
SPLATS = [
    r"Internal error: Oops",
    r"\bOops\b",
    r"Kernel panic",
    r"Unable to handle kernel",
    r"WARNING:",
    r"\bBUG:",
    r"BUG kmalloc",
    r"KASAN:",
    r"KFENCE:",
    r"UBSAN:",
    r"kmemleak: \d+ new suspected memory leaks",
    r"unreferenced object 0x",
    r"possible circular locking dependency",
    r"inconsistent lock state",
    r"possible recursive locking",
    r"lockdep: ",
    r"DMA-API: .*device driver",
    r"rcu: INFO: .* detected stalls",
    r"blocked for more than \d+ seconds",
    r"list_(add|del) corruption",
    r"invoked oom-killer",
    r"Out of memory",
    r"Call trace:",
]
SPLAT_RE = re.compile("|".join("(?:%s)" % p for p in SPLATS))

# Reports of kernel bugs outside cmabuf that a suite cannot avoid, each
# excused only as a whole: its first line, then nothing but the stack
# dump's own lines, one of which names the culprit. Anything else in or
# around it is still a splat. docs/importers.md tells each one.
KNOWN_REPORTS = [
    # vivid's capture thread waits "deadline - jiffies" after checking that
    # the deadline is ahead; a tick in between makes it negative.
    ("vivid's negative capture time-out",
     re.compile(r"\] schedule_timeout: wrong timeout value "),
     re.compile(r"\] \s*vivid_thread_vid_cap\+0x")),
    # vkms hands a writeback job to its composer (vkms_writeback.c:150-152)
    # before it sets the job's pixel_write (:154): a vblank's composer run
    # in between fails check_format_funcs(), line 561 of 7.2's
    # vkms_composer.c. Line 558, a plane with no mapping, is not excused.
    ("vkms's writeback job composed before its pixel_write was set",
     re.compile(r"\] WARNING: \S*drivers/gpu/drm/vkms/vkms_composer\.c:561 "
                r"at compose_active_planes\+0x"),
     re.compile(r"\] \s*vkms_composer_worker\+0x")),
]
# The lines of a stack dump (dump_stack()): the CPU, the taint flags spelt
# out (on their own line once the kernel is tainted, as a loaded cmabuf
# always taints it), the machine, the frames; a WARNING's also the
# modules, the workqueue, the registers, the last IRQ state changes and
# its end.
STACK_LINE_RE = re.compile(r"^\[[ 0-9.]+\] (CPU: \d+ |Tainted: \[|Hardware name: |"
                           r"Call trace:|\s*\S+\+0x[0-9a-f]+/0x[0-9a-f]+|"
                           r"Modules linked in: |Workqueue: |pstate: |"
                           r"(pc|lr|sp) : |x\d+ *: [0-9a-f]{16}|irq event stamp: |"
                           r"(hard|soft)irqs last +(en|dis)abled at |"
                           r"---\[ end trace [0-9a-f]+ \]---)")

TEST_RE = re.compile(r"^(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$")
PLAN_RE = re.compile(r"^1\.\.(\d+)\s*(?:#\s*(.*))?$")


class Tap:
    """The outcome of one TAP stream: counts of leaf tests and problems."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.problems = []

    def problem(self, text):
        self.problems.append(text)


def directive(text):
    text = (text or "").strip().upper()
    if text.startswith("SKIP"):
        return "skip"
    if text.startswith("TODO"):
        return "todo"
    return None


def parse_level(lines, tap, where, depth=0):
    """Parse one nesting level of TAP 13 / KTAP. lines are (indent, text,
    why) triples, why the diagnostics printed before the line; the
    shallowest indent is this level, deeper lines are subtests, which KTAP
    prints before the result line of their parent."""
    base = min(line[0] for line in lines)
    plan = None
    count = 0
    children = []
    for indent, text, why in lines:
        if indent > base:
            children.append((indent, text, why))
            continue
        if text.startswith("Bail out!"):
            tap.problem("%s: %s" % (where, text))
            continue
        m = PLAN_RE.match(text)
        if m:
            if plan is not None:
                tap.problem("%s: second plan" % where)
            plan = int(m.group(1))
            # A suite with nothing to run must say why, and then it is
            # one skip in the summary rather than nothing at all.
            if plan == 0 and directive(m.group(2)) == "skip":
                tap.skipped += 1
            elif plan == 0:
                tap.problem("%s: plans no test (1..0 without a SKIP reason)" % where)
            continue
        verdict, _num, name, direc = TEST_RE.match(text).groups()
        count += 1
        kind = directive(direc)
        if children:
            failed_before = tap.failed
            parse_level(children, tap, "%s/%s" % (where, name or count), depth + 1)
            children = []
            # A parent's line only counts when it fails on its own.
            if verdict == "not ok" and kind is None and tap.failed == failed_before:
                tap.failed += 1
                tap.problem("%s: not ok %s" % (where, name))
            continue
        if kind == "skip":
            tap.skipped += 1
        elif verdict == "ok" or kind == "todo":
            tap.passed += 1
        else:
            tap.failed += 1
            tap.problem("%s: not ok %s%s" % (where, name, " # " + direc if direc else "")
                        + "".join("\n  | " + w for w in why))
    if children:
        parse_level(children, tap, where + "/(unfinished)", depth + 1)
        tap.problem("%s: subtests without their result line" % where)
    if plan is None:
        # KTAP lets the cases of a parameterised test (depth 2: document,
        # suite, test) go without a plan, their number being known only at
        # the end; the document and every suite must have one.
        if depth < 2 or count == 0:
            tap.problem("%s: no plan" % where)
    elif plan != count:
        tap.problem("%s: planned %d tests, ran %d" % (where, plan, count))


# What a failed test said before its "not ok", shown with it in the summary
# (a CI log keeps only the summary): the last lines, without the harness's
# own RUN / FAIL markers.
WHY_LINES = 6
HARNESS_MARK_RE = re.compile(r"^#\s+(RUN|FAIL|OK|SKIP)\s")


def parse_tap(text, where):
    tap = Tap()
    lines = []
    why = []
    for raw in text.splitlines():
        stripped = raw.rstrip()
        body = stripped.lstrip(" \t")
        if PLAN_RE.match(body) or TEST_RE.match(body) or body.startswith("Bail out!"):
            lines.append((len(stripped) - len(body), body, tuple(why[-WHY_LINES:])))
            why = []
        elif body.startswith("#") and not HARNESS_MARK_RE.match(body) and body != "#":
            why.append(body)
    if lines:
        parse_level(lines, tap, where)
    else:
        tap.problem("%s: no TAP output" % where)
    return tap


def judge(tap_path):
    """Judge a suite file and its .rc sidecar."""
    name = os.path.basename(tap_path)[:-4]
    with open(tap_path, errors="replace") as f:
        text = f.read()
    tap = parse_tap(text, name)
    # What the guest saw of a suite it killed for time: where it was.
    for line in text.splitlines():
        if line.startswith("# cmabuf-timeout: "):
            tap.problem("%s: %s" % (name, line[len("# cmabuf-timeout: "):].rstrip()))
    rc_path = tap_path[:-4] + ".rc"
    rc = None
    if os.path.exists(rc_path):
        with open(rc_path) as f:
            rc = f.read().strip()
    if rc is None:
        tap.problem("%s: exit status unknown" % name)
    elif rc != "0":
        tap.problem("%s: exit status %s" % (name, rc))
    return tap


def seconds(tap_path):
    """How long a guest suite ran, when the guest said so."""
    path = tap_path[:-4] + ".seconds"
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read().strip()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def split_results(results_log):
    """Yield (suite, lines, rc or None, seconds or None) from the guest's
    results channel."""
    current = None
    lines = []
    with open(results_log, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            m = re.match(r"^### cmabuf-suite-begin (\S+)", line)
            if m:
                if current:
                    yield current, lines, None, None
                current, lines = m.group(1), []
                continue
            m = re.match(r"^### cmabuf-suite-end (\S+) rc=(\d+)(?: seconds=(\d+))?"
                         r"(?: timeout=(\d+))?", line)
            if m and current == m.group(1):
                rc = m.group(2)
                if m.group(4):
                    rc += " (killed at the guest's time-out per suite, %s s)" % m.group(4)
                yield current, lines, rc, m.group(3)
                current, lines = None, []
                continue
            if line.startswith("### cmabuf-"):
                continue
            if current:
                lines.append(line)
    if current:
        yield current, lines, None, None


def guest_run_id(results_log):
    """The run the guest said it was booted for, or None."""
    with open(results_log, errors="replace") as f:
        for line in f:
            m = re.match(r"^### cmabuf-guest-start .*\brun=(\S+)", line)
            if m:
                return m.group(1)
    return None


def collect_guest(results_dir, log_dir, run_id=None, boot_rc=None):
    os.makedirs(results_dir, exist_ok=True)
    for old in os.listdir(results_dir):
        if old.endswith((".tap", ".rc", ".seconds")):
            os.unlink(os.path.join(results_dir, old))
    results_log = os.path.join(log_dir, "results.log")
    console_log = os.path.join(log_dir, "console.log")
    done = False
    if os.path.exists(results_log):
        for suite, lines, rc, seconds in split_results(results_log):
            write(os.path.join(results_dir, suite + ".tap"), "\n".join(lines) + "\n")
            write(os.path.join(results_dir, suite + ".rc"),
                  (rc if rc is not None else "unfinished") + "\n")
            if seconds is not None:
                write(os.path.join(results_dir, suite + ".seconds"), seconds + "\n")
        with open(results_log, errors="replace") as f:
            done = any(l.startswith("### cmabuf-guest-done") for l in f)

    status = "no status"
    status_path = os.path.join(log_dir, "status")
    if os.path.exists(status_path):
        with open(status_path) as f:
            status = f.read().strip()

    splats = []
    known = []
    if os.path.exists(console_log):
        with open(console_log, errors="replace") as f:
            lines = f.read().splitlines()
        excused, known = known_reports(lines)
        splats = [l for i, l in enumerate(lines) if i not in excused and SPLAT_RE.search(l)]
    else:
        splats.append("no console log")

    why = []
    if not (done and status.startswith("finished")):
        why.append(status)
    if run_id is not None:
        seen = guest_run_id(results_log) if os.path.exists(results_log) else None
        if seen != run_id:
            why.append("results are not from this run (guest said run %s, this is %s)"
                       % (seen, run_id))
    if boot_rc is not None and boot_rc != "0":
        why.append("boot.sh exit status %s" % boot_rc)

    out = ["TAP version 13", "1..2"]
    if not why:
        out.append("ok 1 guest ran every suite and powered off")
    else:
        out.append("not ok 1 guest ran every suite and powered off # %s" % "; ".join(why))
    if splats:
        # The summary prints this line: name the report, not its stack.
        first = next((s for s in splats if "Call trace:" not in s), splats[0])
        out.append("not ok 2 console log has no kernel splat # %d lines, the first: %s"
                   % (len(splats), first.strip()))
        out += ["# " + s for s in splats[:40]]
    else:
        out.append("ok 2 console log has no kernel splat")
    if known:
        out[-1] += " # %d known report(s) outside cmabuf: %s" % (len(known), ", ".join(known))
        # make check's record prints these with the kernel's name.
        out += ["# record: known report outside cmabuf: %s" % name for name in known]
    write(os.path.join(results_dir, "guest.tap"), "\n".join(out) + "\n")
    write(os.path.join(results_dir, "guest.rc"), "0\n")


def known_reports(lines):
    """The indices of the console lines that make up KNOWN_REPORTS entries,
    and the name of each entry found."""
    excused = set()
    known = []
    for i, line in enumerate(lines):
        for name, first, culprit in KNOWN_REPORTS:
            if not first.search(line):
                continue
            end = i + 1
            while end < len(lines) and STACK_LINE_RE.search(lines[end]):
                end += 1
            if any(culprit.search(l) for l in lines[i + 1:end]):
                excused.update(range(i, end))
                known.append(name)
    return excused, known


def collect_host(results_dir, suite, rc, tap_file):
    os.makedirs(results_dir, exist_ok=True)
    with open(tap_file, errors="replace") as f:
        write(os.path.join(results_dir, suite + ".tap"), f.read())
    write(os.path.join(results_dir, suite + ".rc"), rc + "\n")


def join_apart(results_dir, apart_dir, name):
    os.makedirs(results_dir, exist_ok=True)
    guest = os.path.join(results_dir, "guest-%s" % name)
    if not os.path.exists(os.path.join(apart_dir, "guest.tap")):
        write(guest + ".tap", "TAP version 13\n1..1\nnot ok 1 guest of %s was booted "
              "and collected\n" % name)
        write(guest + ".rc", "0\n")
        return
    for fname in os.listdir(apart_dir):
        base, ext = os.path.splitext(fname)
        target = guest + ext if base == "guest" else os.path.join(results_dir, fname)
        if os.path.exists(target):
            # A suite both guests ran keeps the results of each.
            target = os.path.join(results_dir, "%s-%s%s" % (base, name, ext))
        os.replace(os.path.join(apart_dir, fname), target)
    os.rmdir(apart_dir)


def expect(results_dir, kernel, expected_file, reason=""):
    pinned = full = None
    with open(expected_file) as f:
        for line in f:
            words = line.split()
            if words and not line.startswith("#") and words[0] == kernel + ":":
                pinned = words[1:]
            elif words[:2] == [kernel, "full:"] and not line.startswith("#"):
                full = words[2:]
    # make check-full (CMABUF_FULL=1) runs "KERNEL full:" where it is pinned.
    if os.environ.get("CMABUF_FULL") == "1" and full is not None:
        pinned = full
    os.makedirs(results_dir, exist_ok=True)
    ran = set()
    for fname in os.listdir(results_dir):
        base, ext = os.path.splitext(fname)
        if ext == ".tap" and base != "expected" and not base.startswith("guest"):
            ran.add(base[:-len("-second")] if base.endswith("-second") else base)
    out = ["TAP version 13"]
    if pinned is None:
        out += ["1..1", "not ok 1 %s is pinned in %s" % (kernel, os.path.basename(expected_file))]
    else:
        extra = sorted(ran - set(pinned))
        out.append("1..%d" % (len(pinned) + len(extra)))
        n = 0
        for suite in pinned:
            n += 1
            if suite in ran:
                out.append("ok %d suite %s ran on %s" % (n, suite, kernel))
            else:
                out.append("not ok %d suite %s ran on %s%s" % (n, suite, kernel,
                           " # not run: " + reason if reason else ""))
        for suite in extra:
            n += 1
            out.append("not ok %d suite %s that ran on %s is pinned" % (n, suite, kernel))
    write(os.path.join(results_dir, "expected.tap"), "\n".join(out) + "\n")
    write(os.path.join(results_dir, "expected.rc"), "0\n")


def summary(root):
    rows = []
    for target in sorted(os.listdir(root)):
        tdir = os.path.join(root, target)
        if not os.path.isdir(tdir):
            continue
        for fname in sorted(os.listdir(tdir)):
            if fname.endswith(".tap"):
                path = os.path.join(tdir, fname)
                rows.append((target, fname[:-4], judge(path), seconds(path)))
    total = Tap()
    width = max([len(r[0]) for r in rows] + [6])
    swidth = max([len(r[1]) for r in rows] + [5])
    print("%-*s  %-*s  %6s  %6s  %7s  %7s  %s" % (width, "target", swidth, "suite", "passed",
                                                  "failed", "skipped", "seconds", "verdict"))
    for target, suite, tap, secs in rows:
        bad = tap.failed or tap.problems
        verdict = "FAIL" if bad else "ok"
        print("%-*s  %-*s  %6d  %6d  %7d  %7s  %s" % (width, target, swidth, suite, tap.passed,
                                                      tap.failed, tap.skipped, secs, verdict))
        total.passed += tap.passed
        total.skipped += tap.skipped
        # A broken stream (no plan, crash, exit status) counts as a failure
        # even when none of its lines said "not ok".
        total.failed += tap.failed or (1 if tap.problems else 0)
        for p in tap.problems:
            total.problem("%s: %s" % (target, p))
    if not rows:
        total.failed += 1
        total.problem("no results at all")
    for p in total.problems:
        print("problem: " + p)
    print("%d passed, %d failed, %d skipped" % (total.passed, total.failed, total.skipped))
    return 1 if total.failed else 0


def main(argv):
    if len(argv) in (4, 6) and argv[1] == "guest":
        collect_guest(*argv[2:])
        return 0
    if len(argv) == 6 and argv[1] == "host":
        collect_host(argv[2], argv[3], argv[4], argv[5])
        return 0
    if len(argv) == 5 and argv[1] == "join":
        join_apart(argv[2], argv[3], argv[4])
        return 0
    if len(argv) in (5, 6) and argv[1] == "expect":
        expect(*argv[2:])
        return 0
    if len(argv) == 3 and argv[1] == "summary":
        return summary(argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
