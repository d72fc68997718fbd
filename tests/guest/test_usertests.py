#!/usr/bin/env python3
"""test_usertests: run the guest's usertests program under every design preset, with 1 and 2 CPUs.

Every `PASS name` / `FAIL name: ...` line usertests prints becomes one check here, named
`usertests <name> [smp=N design=D]`, so a failure says which case broke in which guest.
The final `usertests: N passed, N failed` line and the exit status are checked too.
The presets are the kernel's table (wdrun.DESIGNS), so a new preset is tested too. The default
preset runs with 1 and 2 CPUs; each other preset with one of them, alternating (2, 1, 2, ...),
as test_vm_swap.py does: every preset and both CPU counts are covered, and a fifth preset costs
one run, not two. A whole usertests run takes about 12 s in the guest (bigdir and bigfile about
2 s each), so every configuration runs every case: about 80 s for the file's six (five presets)
on an idle host.
tests/run: timeout=600
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import wdrun  # noqa: E402  (wdtest put tools/ on the path)

T = TestSet("usertests")
OTHERS = [d for d in wdrun.DESIGNS if d != wdrun.DEFAULT_DESIGN]
CONFIGS = [(1, wdrun.DEFAULT_DESIGN), (2, wdrun.DEFAULT_DESIGN)] + [(2 - i % 2, d) for i, d in enumerate(OTHERS)]
CASE_RE = re.compile(r"^(PASS|FAIL) (\S+?)(?:: (.*))?$", re.M)
SUMMARY_RE = re.compile(r"^usertests: (\d+) passed, (\d+) failed$", re.M)

for smp, design in CONFIGS:
    tag = "[smp=%d design=%s]" % (smp, design)
    with Guest(mem=128, smp=smp, design=design) as g:
        out, st = g.sh("usertests", timeout=180)
        cases = CASE_RE.findall(out)
        for verdict, name, why in cases:
            T.check("usertests %s %s" % (name, tag), verdict == "PASS", expected="PASS", got=why or verdict)
        m = SUMMARY_RE.search(out)
        nfail = sum(1 for c in cases if c[0] == "FAIL")
        T.check("usertests summary line and exit status %s" % tag,
                m is not None and int(m.group(1)) == len(cases) - nfail and int(m.group(2)) == nfail
                and st == (1 if nfail else 0) and len(cases) > 30,
                expected="'usertests: N passed, N failed' matching the %d case lines, status %d"
                         % (len(cases), 1 if nfail else 0),
                got="status %d, %s" % (st, m.group(0) if m else out[-300:]))
        # it removed its scratch folder, and the file system still answers for it
        out, st = g.sh("ls /tmp/ut")
        T.check("usertests cleaned up after itself %s" % tag,
                st == 1 and out == "ls: /tmp/ut: No such file or directory\n",
                expected="ls: /tmp/ut: No such file or directory, status 1", got="status %d: %r" % (st, out))

T.done()
