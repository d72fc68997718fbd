#!/usr/bin/env python3
"""test_sysfuzz: random system calls (user/sysfuzz/) never panic or hang the kernel.

For each configuration (1 CPU with the patched preset, 2 CPUs with stable42) and each seed:
`sysfuzz -v SEED N` makes N calls (20,000 here; 100,000 per CPU count under make stress, in
five seeds) in forked batches of 100, with its watchdog. Then: no child was unkillable (each
stuck one died on SIGKILL), sysfuzz printed its summary, and the system is usable: ls, ps (no
fuzzer process left), a file written and read back, and the VM's page-accounting check
(`vm.stats.vm.v_page_check`) still `ok:` with the same number of wired pages as before, not
counting the file pages VMIO buffers hold (`vfs.vmio_pages`: their number follows the cache).
A panic or hang fails the boot with the console tail, which shows the batches running (their
`batch N: pid P` lines); `sysfuzz --replay SEED N B B` replays batch B call by call.
"""
# tests/run: timeout=600 about=55
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import reltest  # noqa: E402

CALLS = reltest.size(20000, 20000)
CONFIGS = [(1, "patched"), (2, "stable42")]
SEEDS = reltest.seeds(reltest.size(1, 5))
SUMMARY_RE = re.compile(r"sysfuzz: seed (\d+): (\d+) calls in \d+ batches: (\d+) exited, (\d+) signalled, "
                        r"(\d+) timed out, (\d+) unkillable")
WIRED_RE = re.compile(r"wired (\d+)")

T = TestSet("sysfuzz")


def page_check(g):
    """The page-accounting line and its wired pages less the buffer cache's (one sysctl run)."""
    out, _ = g.sh("sysctl -n vm.stats.vm.v_page_check vfs.vmio_pages")
    lines = out.strip().splitlines()
    m = WIRED_RE.search(out)
    if not m or len(lines) != 2 or not lines[1].isdigit():
        return out.strip(), None
    return lines[0], int(m.group(1)) - int(lines[1])


def usable(g, tag):
    out, st = g.sh("ls /")
    T.check("%s: ls / works afterwards" % tag, st == 0 and "bin" in out.split(), expected="bin ...", got=out)
    out, st = g.sh("ps")
    left = [ln for ln in out.splitlines() if "sysfuzz" in ln]
    T.check("%s: ps works and no fuzzer process is left" % tag, st == 0 and "init" in out and not left,
            expected="ps without sysfuzz", got=out)
    out, st = g.sh("echo after-the-fuzz > /tmp/after; cat /tmp/after; rm /tmp/after")
    T.check("%s: a file written and read back" % tag, st == 0 and out == "after-the-fuzz\n",
            expected="after-the-fuzz", got=out)


for smp, design in CONFIGS:
    with Guest(smp=smp, design=design, timeout=120) as g:
        before, wired0 = page_check(g)
        T.check("smp=%d %s: the page-accounting check is ok before" % (smp, design), before.startswith("ok: "),
                expected="ok: ...", got=before)
        for seed in SEEDS:
            tag = "smp=%d %s seed %d" % (smp, design, seed)
            out, st = g.sh("sysfuzz -v -t 5 %d %d > /tmp/fuzz.log; echo status=$?; grep -v '^batch .*: pid' "
                           "/tmp/fuzz.log" % (seed, CALLS), timeout=reltest.size(300, 900))
            m = SUMMARY_RE.search(out)
            print("%s: %s" % (tag, m.group(0) if m else "no summary"))
            T.check("%s: %d calls, no unkillable child, sysfuzz exits 0" % (tag, CALLS),
                    m is not None and int(m.group(6)) == 0 and "status=0" in out,
                    expected="0 unkillable, status 0 (replay: sysfuzz --replay %d %d B B)" % (seed, CALLS),
                    got=out.strip()[-1500:])
        after, wired1 = page_check(g)
        T.check("smp=%d %s: the page-accounting check is ok after, wired pages less vfs.vmio_pages back to %s"
                % (smp, design, wired0), after.startswith("ok: ") and wired0 is not None and wired1 == wired0,
                expected="ok: ... wired %s + vfs.vmio_pages" % wired0, got="%s (less vfs.vmio_pages: %s)" % (after, wired1))
        usable(g, "smp=%d %s" % (smp, design))
T.done()
