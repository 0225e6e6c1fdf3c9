#!/usr/bin/env python3
# Run the console examples of a Markdown page and check their output.
# In each ```console block, a line "$ gputally ARGS" is run (from the
# repository root, with BIN for gputally); every other line up to the next
# "$ " line must appear in its output, in order, as a substring ("..." lines
# stand for lines left out and are not checked).  A block whose expected line
# is missing fails with the page's line number.
#   check.py BIN PAGE.md
import shlex, subprocess, sys

bin_, page = sys.argv[1], sys.argv[2]
lines = open(page, encoding="utf-8").read().split("\n")
fails = runs = checked = 0
in_block = False
cmd = None
expect = []


def finish():
    global fails, runs, checked
    if cmd is None:
        return
    lineno, argv = cmd
    runs += 1
    p = subprocess.run([bin_] + argv[1:], capture_output=True, text=True, env={"LC_ALL": "C", "TZ": "UTC", "PATH": "/usr/bin:/bin"})
    out = (p.stdout + p.stderr).split("\n")
    at = 0
    for eln, want in expect:
        checked += 1
        while at < len(out) and want not in out[at]:
            at += 1
        if at == len(out):
            print("%s:%d: '%s' (run at line %d) did not print, in order:\n    %s" % (page, eln, " ".join(argv), lineno, want))
            fails += 1
            return
        at += 1


for i, l in enumerate(lines, 1):
    if not in_block:
        if l.strip() == "```console":
            in_block, cmd, expect = True, None, []
        continue
    if l.strip() == "```":
        finish()
        in_block, cmd = False, None
        continue
    if l.startswith("$ "):
        finish()
        argv = shlex.split(l[2:])
        if argv[0] != "gputally":
            print("%s:%d: only gputally commands are run here" % (page, i))
            fails += 1
            cmd = None
            continue
        cmd, expect = (i, argv), []
    elif l.strip() != "..." and cmd is not None:
        expect.append((i, l.rstrip()))
if runs == 0:
    print("%s: no console example found" % page)
    fails += 1
print("worked-examples: %d commands, %d lines checked, %d failed" % (runs, checked, fails))
sys.exit(1 if fails else 0)
