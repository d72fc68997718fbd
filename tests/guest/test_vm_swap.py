"""test_vm_swap: paging to swap and the pageout daemon, in both designs, with 1 and 2 CPUs.

Each guest has 32 MB of RAM, its root on da0 and a 128 MB swap disk da1 added with swapon:
- the preset chose the pageout design (vm.pageout_design, vm.max_launder);
- memhog at 3x RAM (96 MB) writes and checks a per-page pattern: every page went out to swap
  and came back intact, and the counters show it (pageouts, pageins, pagedaemon wakeups, and
  v_pdpauses: the scans let go of the VM lock between batches; on 2 CPUs a scan that held it
  for seconds once fired the watchdog);
- swapinfo shows the device; the page-accounting check holds afterwards;
- in each guest: memhog larger than RAM and swap together is killed with the console line
  "pid N (memhog), uid 0, was killed: out of swap space", and the next command works (no
  deadlock, no panic); the accounting still holds.
By default two guests cover both designs and both CPU counts (patched on 1 CPU, stable42 on
2), to keep `make test` within CI's time; WDTEST_VM_FULL=1 runs all four combinations.
"""
# tests/run: timeout=900 about=110
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402

T = TestSet("vm_swap")
DESIGNS = {"patched": ("onepass", "0"), "stable42": ("twopass", "32")}


def sysctl_int(g, name):
    out, st = g.sh("sysctl -n " + name)
    return int(out) if st == 0 and out.strip().isdigit() else None


def check_page_accounting(g, tag, when):
    out, st = g.sh("sysctl -n vm.stats.vm.v_page_check")
    T.check("%s: page accounting holds %s" % (tag, when), st == 0 and out.startswith("ok: "),
            expected="ok: managed N = ...", got=out.strip())


COMBOS = [("patched", 1, True), ("stable42", 2, True)]
if os.environ.get("WDTEST_VM_FULL") == "1":
    COMBOS += [("stable42", 1, False), ("patched", 2, False)]

for design, smp, oom in COMBOS:
    tag = "%s smp=%d" % (design, smp)
    with Guest(mem=32, smp=smp, design=design, disks=2, disk_size="128m") as g:
        out, st = g.sh("sysctl -n vm.pageout_design vm.max_launder")
        want = "%s\n%s\n" % DESIGNS[design]
        T.check("%s: the preset set vm.pageout_design and vm.max_launder" % tag, out == want,
                expected=want, got=out)
        out, st = g.sh(CCD_RELEASE + "swapon /dev/da1")
        T.check("%s: swapon /dev/da1" % tag, st == 0 and "adding /dev/da1 as swap device" in out,
                expected="swapon: adding /dev/da1 as swap device", got=out.strip())
        out, st = g.sh("swapinfo")
        T.check("%s: swapinfo lists /dev/da1 with 131072 1K-blocks" % tag,
                st == 0 and re.search(r"^/dev/da1\s+131072\s", out, re.M) is not None,
                expected="/dev/da1 131072 ...", got=out.strip())
        before = {k: sysctl_int(g, "vm.stats.vm." + k)
                  for k in ("v_swappgsout", "v_swappgsin", "v_pdwakeups", "v_pdpauses")}
        out, st = g.sh("memhog 96", timeout=400)
        T.check("%s: memhog 96 (3x RAM) writes and checks every page" % tag,
                st == 0 and "96 MB written and checked" in out, expected="status 0",
                got="status %d: %s" % (st, out[-300:]))
        after = {k: sysctl_int(g, "vm.stats.vm." + k) for k in before}
        T.check("%s: pages went out to swap and came back, the pagedaemon ran" % tag,
                all(after[k] is not None and before[k] is not None for k in before) and
                after["v_swappgsout"] - before["v_swappgsout"] > 8192 and
                after["v_swappgsin"] - before["v_swappgsin"] > 4096 and
                after["v_pdwakeups"] > before["v_pdwakeups"] and after["v_pdpauses"] > before["v_pdpauses"],
                expected="> 8192 pages out, > 4096 in, wakeups, scans that let go of the VM lock",
                got="%s -> %s" % (before, after))
        check_page_accounting(g, tag, "after memhog 96")
        if oom:
            out, st = g.sh("memhog 200", timeout=400)
            T.check("%s: memhog 200 (more than RAM and swap) is killed" % tag, st == 137,
                    expected="status 137 (SIGKILL)", got="status %d: %s" % (st, out[-200:]))
            T.check("%s: the console says who was killed and why" % tag,
                    re.search(r"pid \d+ \(memhog\), uid 0, was killed: out of swap space", g.console) is not None,
                    expected="pid N (memhog), uid 0, was killed: out of swap space",
                    got=g.console[-300:])
            out, st = g.sh("echo still here; ls / > /dev/null")
            T.check("%s: the next command works" % tag, (out, st) == ("still here\n", 0),
                    expected="still here, status 0", got="%r, status %d" % (out, st))
            check_page_accounting(g, tag, "after the out-of-swap kill")

T.done()
