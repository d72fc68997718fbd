#!/usr/bin/env python3
"""test_load: load and limits on 2 CPUs (user/bin/loadgen.c): no deadlock, the limits answer.

- 64 worker processes writing and reading back files, forking, and piping 64 KB to children,
  for 20 s here (10 minutes under make stress), in the background; meanwhile `ps` is run
  every few seconds and must answer, listing the workers. At the end loadgen reports no wrong
  data, no unexpected error and no worker that died. The kernel watchdog (10 s) would panic
  the guest if a CPU stopped scheduling, and the harness's time limit catches a guest that
  stops answering.
- A fork bomb (every process forks until fork fails, its children too): bounded by the process
  table, fork(2) fails with EAGAIN (never another error), the number of processes reaches the
  table's size, and afterwards the system is as before (ps works, no bomb process left).
- 32 processes each opening /dev/null until open(2) fails and then making pipes until pipe(2)
  fails: every one stops with EMFILE (its own 64 descriptors) or ENFILE (the system's 1024
  files), ENFILE is met since 32 x 64 > 1024, and afterwards files open again.
"""
# tests/run: timeout=1200
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import reltest  # noqa: E402

SECS = reltest.size(20, 600)
NPROC = 256                               # kernel/kern/proc.h
DONE_RE = re.compile(r"loadgen: done: (\d+) workers, (\d+) operations, (\d+) errors, (\d+) died")
BOMB_RE = re.compile(r"fork bomb: (\d+) processes at most, fork failed (\d+) times \(EAGAIN (\d+), ENOMEM (\d+), "
                     r"other (\d+)\)")
LIMITS_RE = re.compile(r"limits: (\d+) processes: open EMFILE (\d+), ENFILE (\d+); pipe EMFILE (\d+), ENFILE (\d+)")

T = TestSet("load")

with Guest(smp=2, timeout=120) as g:
    out, _ = g.sh("loadgen -p 64 -t %d > /tmp/load.log 2>&1 & echo pid=$!" % SECS)
    pid = out.strip().split("pid=")[-1]
    answered, polls, seen = 0, 0, 0
    for _ in range(max(3, SECS // 5)):
        g.wait(min(5, SECS / 4))
        out, st = g.sh("ps", timeout=60)
        polls += 1
        answered += st == 0 and "init" in out
        seen = max(seen, out.count("loadgen"))
    T.check("ps answers throughout the load (%d times)" % polls, answered == polls, expected=polls, got=answered)
    T.check("ps lists the 64 workers while they run", seen >= 64, expected=">= 65 loadgen lines", got=seen)
    out, st = g.sh("wait %s; grep -v ' s, ' /tmp/load.log" % pid, timeout=SECS + 120)
    m = DONE_RE.search(out)
    print(m.group(0) if m else "loadgen: no summary")
    T.check("64 workers for %d s: no wrong data, no unexpected error, none died" % SECS,
            m is not None and int(m.group(1)) == 64 and int(m.group(2)) > 0 and m.group(3) == "0" and m.group(4) == "0",
            expected="done: 64 workers, N operations, 0 errors, 0 died", got=out.strip()[-800:])

    out, st = g.sh("loadgen -b -t 3", timeout=120)
    m = BOMB_RE.search(out)
    T.check("fork bomb: fork fails with EAGAIN only, once the process table is full",
            st == 0 and m is not None and int(m.group(3)) > 0 and m.group(5) == "0" and int(m.group(1)) >= NPROC - 8,
            expected="EAGAIN > 0, other 0, about %d processes at most" % NPROC, got=out.strip())
    out, st = g.sh("ps")
    T.check("after the bomb: ps works and no bomb process is left", st == 0 and "loadgen" not in out,
            expected="ps without loadgen", got=out)

    out, st = g.sh("loadgen -f -p 32", timeout=120)
    m = LIMITS_RE.search(out)
    T.check("32 processes meet the descriptor limits: EMFILE or ENFILE, and ENFILE at least once",
            st == 0 and m is not None and int(m.group(2)) + int(m.group(3)) == 32 and int(m.group(3)) > 0 and
            int(m.group(4)) + int(m.group(5)) == 32, expected="open EMFILE+ENFILE = 32 with ENFILE > 0; pipe the same",
            got=out.strip())
    out, st = g.sh("echo after > /tmp/after && cat /tmp/after")
    T.check("after the limits: files open again", st == 0 and out == "after\n", expected="after", got=out)
T.done()
