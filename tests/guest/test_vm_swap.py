"""test_vm_swap: paging to swap and the pageout daemon, in every design preset, with 1 and 2 CPUs.

Each guest has 32 MB of RAM, its root on da0 and a 128 MB swap disk da1 added with swapon:
- the preset chose the pageout design it names in the kernel's table (vm.pageout_design,
  vm.max_launder; wdrun.presets.SETTINGS);
- memhog at 3x RAM (96 MB) writes and checks a per-page pattern: every page went out to swap
  and came back intact, and the counters show it (pageouts, pageins, pagedaemon wakeups, and
  v_pdpauses: the scans let go of the VM lock between batches; on 2 CPUs a scan that held it
  for seconds once fired the watchdog);
- swapinfo shows the device; a second swapon of it is EBUSY ("Device busy"); the
  page-accounting check holds afterwards;
- vmstat prints FreeBSD 4's two header lines and one line of 17 numbers; vmstat -s lists the
  counters, "pages paged out" (v_pgpgout) being the swap and vnode pagers' pages together;
  a bad option gives the usage message and status 2;
- in the first guest of each pageout design: memhog larger than RAM and swap together is killed
  with the console line "pid N (memhog), uid 0, was killed: out of swap space", and the next
  command works (no deadlock, no panic); the accounting still holds.
The first guest also switches `sysctl vm.pageout_design` at run time, to twopass and back to
onepass, and under memhog 32 only the chosen design's scan counter (v_pdscans_twopass,
v_pdscans_onepass) moves; and it writes the swap line `/dev/da1 none swap sw 0 0` to
/etc/fstab: the later guests boot from its disks, and /etc/rc's `swapon -a` must have added
da1 before the shell's prompt (their swapon is that, not a command of this test).
By default one guest per preset of the kernel's table (wdrun.DESIGNS: the default preset first,
then the others in the table's order, on 1, 2, 1... CPUs) covers every preset and both CPU
counts, to keep `make test` within CI's time; WDTEST_VM_FULL=1 runs every preset on both.
"""
# tests/run: timeout=900 about=180
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402
import wdrun  # noqa: E402

T = TestSet("vm_swap")
DIR = wdrun.BUILD / "run" / "disks" / ("test_vm_swap-p%d" % os.getpid())
VMSTAT_HEADER = [["procs", "memory", "page", "faults", "cpu"],
                 ["r", "b", "w", "avm", "fre", "flt", "re", "pi", "po", "fr", "sr", "in", "sy", "cs",
                  "us", "sy", "id"]]
PAGEOUT = ("vm.pageout_design", "vm.max_launder")      # what each preset sets (kernel/kern/main.c)


def sysctl_int(g, name):
    out, st = g.sh("sysctl -n " + name)
    return int(out) if st == 0 and out.strip().isdigit() else None


def check_page_accounting(g, tag, when):
    out, st = g.sh("sysctl -n vm.stats.vm.v_page_check")
    T.check("%s: page accounting holds %s" % (tag, when), st == 0 and out.startswith("ok: "),
            expected="ok: managed N = ...", got=out.strip())


def combos(full):
    """(preset, CPUs, run the out-of-swap kill) for each guest: every preset, the default first,
    on 1, 2, 1... CPUs (full: on both), the kill in the first guest of each pageout design."""
    order = [wdrun.DEFAULT_DESIGN] + [d for d in wdrun.DESIGNS if d != wdrun.DEFAULT_DESIGN]
    out, seen = [], set()
    for i, design in enumerate(order):
        for smp in (1, 2) if full else (1 + i % 2,):
            pageout = wdrun.presets.SETTINGS[design].get("vm.pageout_design")
            out.append((design, smp, pageout not in seen))
            seen.add(pageout)
    return out


COMBOS = combos(os.environ.get("WDTEST_VM_FULL") == "1")


def design_switch(g, tag):
    """sysctl vm.pageout_design=D takes effect: under memhog 32 only D's scan counter moves."""
    for chosen, other in (("twopass", "onepass"), ("onepass", "twopass")):
        out, st = g.sh("sysctl vm.pageout_design=%s && sysctl -n vm.pageout_design" % chosen)
        T.check("%s: sysctl vm.pageout_design=%s is accepted" % (tag, chosen),
                st == 0 and out.endswith(chosen + "\n"), expected=chosen, got=out.strip())
        names = ["vm.stats.vm.v_pdscans_" + d for d in (chosen, other)]
        before = [sysctl_int(g, n) for n in names]
        out, st = g.sh("memhog 32", timeout=300)
        after = [sysctl_int(g, n) for n in names]
        T.check("%s: after the switch to %s, memhog 32 runs %s's scans and no %s scan" % (tag, chosen, chosen, other),
                st == 0 and None not in before + after and after[0] > before[0] and after[1] == before[1],
                expected="%s grows, %s unchanged, memhog status 0" % tuple(names),
                got="%s -> %s, memhog status %d" % (before, after, st))


def vmstat_output(g, tag):
    """vmstat's FreeBSD 4 layout, vmstat -s with v_pgpgout, and the usage message."""
    out, st = g.sh("vmstat")
    lines = [ln.split() for ln in out.splitlines()]
    T.check("%s: vmstat prints FreeBSD 4's header and one line of 17 numbers" % tag,
            st == 0 and len(lines) == 3 and lines[:2] == VMSTAT_HEADER and len(lines[2]) == 17 and
            all(w.isdigit() for w in lines[2]),
            expected="procs memory page faults cpu / r b w avm fre flt re pi po fr sr in sy cs us sy id / 17 numbers",
            got=out)
    out, st = g.sh("vmstat -s")
    counts = {m.group(2): int(m.group(1)) for m in re.finditer(r"^ *(\d+) (.+)$", out, re.M)}
    pgpgout = counts.get("pages paged out")
    pagers = [counts.get("swap pager pages paged out"), counts.get("vnode pager pages paged out")]
    T.check("%s: vmstat -s lists 'pages paged out' (v_pgpgout) = swap + vnode pager pages paged out" % tag,
            st == 0 and pgpgout is not None and None not in pagers and pgpgout == sum(pagers) and
            pgpgout > 8192 and "page daemon wakeups" in counts and "bytes per page" in counts,
            expected="N pages paged out, N = swap + vnode pages paged out > 8192, page daemon wakeups, ...",
            got="status %d: %s" % (st, out[-600:]))
    out, st = g.sh("vmstat -x")
    T.check("%s: vmstat -x prints the usage message and exits 2" % tag,
            st == 2 and "usage: vmstat [-w wait] [-c count] [wait [count]]\n       vmstat -s" in out,
            expected="usage: vmstat ..., status 2", got="status %d: %s" % (st, out))


for i, (design, smp, oom) in enumerate(COMBOS):
    tag = "%s smp=%d" % (design, smp)
    with Guest(mem=32, smp=smp, design=design, disks=2, disk_size="128m", disk_dir=DIR, keep=True) as g:
        out, st = g.sh("sysctl -n " + " ".join(PAGEOUT))
        want = "".join("%s\n" % wdrun.presets.SETTINGS[design][k] for k in PAGEOUT)
        T.check("%s: the preset set vm.pageout_design and vm.max_launder" % tag, out == want,
                expected=want, got=out)
        if i == 0:
            out, st = g.sh(CCD_RELEASE + "swapon /dev/da1")
            T.check("%s: swapon /dev/da1" % tag, st == 0 and "adding /dev/da1 as swap device" in out,
                    expected="swapon: adding /dev/da1 as swap device", got=out.strip())
        else:
            T.check("%s: /etc/fstab's swap line was added at boot (swapon -a in /etc/rc)" % tag,
                    "swapon: adding /dev/da1 as swap device" in g.console,
                    expected="swapon: adding /dev/da1 as swap device on the console", got=g.console[-600:])
        out, st = g.sh("swapinfo")
        T.check("%s: swapinfo lists /dev/da1 with 131072 1K-blocks" % tag,
                st == 0 and re.search(r"^/dev/da1\s+131072\s", out, re.M) is not None,
                expected="/dev/da1 131072 ...", got=out.strip())
        out, st = g.sh("swapon /dev/da1")
        T.check("%s: a second swapon of /dev/da1 fails with EBUSY" % tag,
                st == 1 and out.strip() == "swapon: /dev/da1: Device busy",
                expected="swapon: /dev/da1: Device busy, status 1", got="status %d: %s" % (st, out.strip()))
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
        if i == 0:
            vmstat_output(g, tag)
            design_switch(g, tag)
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
        if i == 0:
            out, st = g.sh("echo '/dev/da1 none swap sw 0 0' > /etc/fstab && echo '# no stripe' > /etc/ccd.conf")
            T.check("%s: /etc/fstab with da1's swap line written for the next guests" % tag, st == 0,
                    expected="status 0", got="status %d: %s" % (st, out))

shutil.rmtree(DIR, ignore_errors=True)
T.done()
