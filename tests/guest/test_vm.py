"""test_vm: the virtual memory system in a running guest (docs/vm.md).

In a 32 MB guest (root on a disk) and a 128 MB guest with 2 CPUs:
- `sysctl vm.stats.vm` lists the counters and targets, and the targets are the ones
  design-notes §1.4 computes from the managed page count;
- the page-accounting check (vm.stats.vm.v_page_check) holds after boot, after processes
  forked, grew and exited, and after files were written, read and removed;
- user pages are given back when processes exit: the wired count (user memory) is the same
  before and after a run of usertests.
"""
# tests/run: timeout=600
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402

T = TestSet("vm")


def sysctl_int(g, name):
    out, st = g.sh("sysctl -n " + name)
    return int(out) if st == 0 and out.strip().isdigit() else None


def expected_targets(pages):
    """design-notes §1.4 (FreeBSD 4.x vm_pageout()), for `pages` managed pages."""
    count = 8 if pages < 2000 else 16
    free_min = 4 + (pages - 1024) // 200
    reserved = count + 34 + pages // 768 + 32
    severe = free_min // 2 + reserved
    free_min += reserved
    target = (3 if pages > 6144 else 2) * free_min + reserved
    return {"v_free_reserved": reserved, "v_free_min": free_min, "v_free_severe": severe,
            "v_free_target": target, "v_cache_min": target,
            "v_inactive_target": min(3 * target // 2, pages // 3)}


def check_page_accounting(g, tag, when):
    out, st = g.sh("sysctl -n vm.stats.vm.v_page_check")
    T.check("%s: page accounting holds %s" % (tag, when), st == 0 and out.startswith("ok: "),
            expected="ok: managed N = free ... + transient ...", got=out.strip())


for mem, smp, disks in ((32, 1, 1), (128, 2, 0)):
    tag = "%d MB smp=%d" % (mem, smp)
    with Guest(mem=mem, smp=smp, disks=disks) as g:
        out, st = g.sh("sysctl vm.stats.vm")
        names = [line.split(":")[0] for line in out.splitlines()]
        want = ["vm.stats.vm." + n for n in ("v_free_count", "v_cache_count", "v_inactive_count",
                                             "v_active_count", "v_wire_count", "v_free_min",
                                             "v_free_target", "v_inactive_target", "v_pdwakeups")]
        T.check("%s: sysctl vm.stats.vm lists the counters and targets" % tag,
                st == 0 and all(w in names for w in want), expected=want, got=out[-400:])
        pages = sysctl_int(g, "vm.stats.vm.v_page_count")
        exp = expected_targets(pages or 0)
        got = {k: sysctl_int(g, "vm.stats.vm." + k) for k in exp}
        T.check("%s: targets computed from %s managed pages as in design-notes 1.4" % (tag, pages),
                got == exp, expected=exp, got=got)
        check_page_accounting(g, tag, "after boot")

        wired0 = sysctl_int(g, "vm.stats.vm.v_wire_count")
        out, st = g.sh("usertests fork_wait sbrk pipe_data", timeout=120)
        T.check("%s: usertests fork_wait sbrk pipe_data pass" % tag, st == 0,
                expected="status 0", got="status %d: %s" % (st, out[-300:]))
        wired1 = sysctl_int(g, "vm.stats.vm.v_wire_count")
        T.check("%s: user pages are freed when processes exit (wired count back)" % tag,
                wired0 == wired1, expected=wired0, got=wired1)
        check_page_accounting(g, tag, "after fork, sbrk and exit")

        d = "/tmp" if disks == 0 else "/"
        out, st = g.sh("dd if=/dev/zero of=%s/vmf bs=8k count=64 && cat %s/vmf > /dev/null && "
                       "rm %s/vmf" % (d, d, d), timeout=120)
        T.check("%s: a file is written, read and removed" % tag, st == 0,
                expected="status 0", got="status %d: %s" % (st, out[-300:]))
        check_page_accounting(g, tag, "after a file's life (its vnode object)")

T.done()
