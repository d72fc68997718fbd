"""test_vm: the virtual memory system in a running guest (docs/vm.md).

In a 32 MB guest (root on a disk) and a 128 MB guest with 2 CPUs:
- `sysctl vm.stats.vm` lists the counters and targets, and the targets are the ones
  FreeBSD's vm_pageout() computes from the managed page count (docs/vm.md "The targets");
- the page-accounting check (vm.stats.vm.v_page_check) holds after boot, after processes
  forked, grew and exited, and after files were written, read and removed;
- memory comes back: after a warm-up run (which leaves the programs' text cached), running
  the same commands again leaves exactly as many free pages as before;
- copy-on-write fork of a large process (memhog -f): parent and child each see only their
  own writes, and the free page count is the same before and after;
- a shared file mapping (mapwrite) reaches the file: with msync, read back at once; without
  it, read back after the machine was powered off and booted again (sync at shutdown writes
  the dirty mapped pages); ps -l shows fault counts;
- page-ins cluster: the file, cold after the new boot, read through a mapping comes in by the
  vnode pager several pages a read (a fault's read-behind and read-ahead).
"""
# tests/run: timeout=600
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402

T = TestSet("vm")


def sysctl_int(g, name):
    out, st = g.sh("sysctl -n " + name)
    return int(out) if st == 0 and out.strip().isdigit() else None


def expected_targets(pages):
    """FreeBSD's vm_pageout() of 2000 (docs/sources.md [@fbsd-vm_pageout-2000]), for `pages`
    managed pages."""
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
        T.check("%s: targets computed from %s managed pages as FreeBSD's vm_pageout()" % (tag, pages),
                got == exp, expected=exp, got=got)
        check_page_accounting(g, tag, "after boot")

        work = "usertests fork_wait sbrk pipe_data cow_fork mmap_file > /dev/null"
        out, st = g.sh(work, timeout=120)
        T.check("%s: usertests fork_wait sbrk pipe_data cow_fork mmap_file pass" % tag, st == 0,
                expected="status 0", got="status %d" % st)
        free0 = sysctl_int(g, "vm.stats.vm.v_free_count")
        g.sh(work, timeout=120)
        free1 = sysctl_int(g, "vm.stats.vm.v_free_count")
        T.check("%s: running the same processes again leaves as many free pages" % tag,
                free0 == free1, expected=free0, got=free1)
        check_page_accounting(g, tag, "after fork, sbrk, mmap and exit")

        mb = 4 if mem == 32 else 16
        g.sh("memhog -f %d > /dev/null" % mb, timeout=120)
        free0 = sysctl_int(g, "vm.stats.vm.v_free_count")
        out, st = g.sh("memhog -f %d" % mb, timeout=120)
        free1 = sysctl_int(g, "vm.stats.vm.v_free_count")
        T.check("%s: memhog -f %d: parent and child see only their own writes" % (tag, mb),
                st == 0 and "each saw only their own writes" in out, expected="status 0",
                got="status %d: %s" % (st, out[-300:]))
        T.check("%s: copy-on-write fork of %d MB: free pages before and after match" % (tag, mb),
                free0 == free1, expected=free0, got=free1)
        check_page_accounting(g, tag, "after a copy-on-write fork")

        out, st = g.sh("mapwrite /tmp/mw %d && rm /tmp/mw" % (mb // 2), timeout=120)
        T.check("%s: mapwrite: a shared mapping's writes are read back after msync" % tag,
                st == 0 and "bytes checked" in out, expected="status 0", got="status %d: %s" % (st, out[-300:]))
        out, st = g.sh("ps -l")
        T.check("%s: ps -l shows RSS MINFLT MAJFLT" % tag,
                st == 0 and "MINFLT MAJFLT" in out.splitlines()[0], expected="a header with MINFLT MAJFLT",
                got=out[:200])
        d = "/tmp" if disks == 0 else "/"
        out, st = g.sh("dd if=/dev/zero of=%s/vmf bs=8k count=64 && cat %s/vmf > /dev/null && "
                       "rm %s/vmf" % (d, d, d), timeout=120)
        T.check("%s: a file is written, read and removed" % tag, st == 0,
                expected="status 0", got="status %d: %s" % (st, out[-300:]))
        check_page_accounting(g, tag, "after a file's life (its vnode object)")

# A shared mapping written without msync survives a power-off and a new boot.
DIR = tempfile.mkdtemp(prefix="wdtest-vm-")
with Guest(mem=64, disks=1, disk_dir=DIR, disk_size="256m") as g:
    out, st = g.sh("mapwrite -n /mapped 4", timeout=120)
    T.check("mapwrite -n: 4 MB written through a shared mapping, no msync", st == 0,
            expected="status 0", got="status %d: %s" % (st, out[-300:]))
with Guest(mem=64, disks=1, disk_dir=DIR, disk_size="256m", keep=True) as g:
    # The file is cold after the boot: read through a mapping, its pages come in by the vnode
    # pager, a fault's neighbours with it (read-behind 7, read-ahead 8). Read in order, each
    # fault brings itself and 8 ahead: 1038 pages in 116 reads were seen; one page a read
    # without clustering.
    names = "vm.stats.vm.v_vnodein vm.stats.vm.v_vnodepgsin"
    g.sh("sysctl -n " + names)                      # sysctl's own text is paged in now
    before, _ = g.sh("sysctl -n " + names)
    out, st = g.sh("mapwrite -m /mapped 4", timeout=120)
    after, _ = g.sh("sysctl -n " + names)
    T.check("after power-off and boot: the file read through a mapping holds what was written",
            st == 0 and "checked through a mapping" in out, expected="status 0",
            got="status %d: %s" % (st, out[-300:]))
    try:
        reads, pages = [int(a) - int(b) for a, b in zip(after.split(), before.split())]
    except ValueError:
        reads, pages = 0, 0
    T.check("page-ins cluster: a cold 4 MB mapping read in order takes at least 4 pages a read",
            reads > 0 and pages >= 1024 and pages >= 4 * reads,
            expected=">= 1024 pages in <= 256 reads", got="%d pages in %d reads" % (pages, reads))
    out, st = g.sh("mapwrite -c /mapped 4 && rm /mapped", timeout=120)
    T.check("after power-off and boot: the file holds what the mapping wrote", st == 0,
            expected="status 0", got="status %d: %s" % (st, out[-300:]))
    check_page_accounting(g, "64 MB after reboot", "after reading the file back")
shutil.rmtree(DIR, ignore_errors=True)

T.done()
