#!/usr/bin/env python3
"""Guest tests of the AHCI driver (kernel/dev/ahci.c) on QEMU's ich9-ahci with two disks.

Boot 1: data integrity and queueing. The host fills disk 0 with a seeded pseudo-random
pattern; the guest copies parts of /dev/ada0 to /dev/ada1 with dd (so every byte goes
through the driver's reads and writes), and the host compares the images after power-off.
The disks are throttled (10 MB/s) so that requests wait in the HBA, and the devstat and
driver high-water marks show that many commands were in flight during a 1 MB dd.
Boot 2: fault injection. QEMU's blkdebug fails every write covering one sector of disk 1;
dd there must report an I/O error, the console must name the disk and LBA, nothing may
panic, and the rest of the disk must keep working.
Boot 3: the root file system on ada0 (root=ada0); a write and sync (FLUSH CACHE EXT), then
the host's fsck checks the image.

The disks are extra QEMU arguments; until the harness has --disks/--bus this file adds
them by wrapping wdrun.qemu_argv.
"""
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import wdrun  # noqa: E402

MB = 1 << 20
DISK_BYTES = 64 * MB
PATTERN_BYTES = 48 * MB
BAD_SECTOR = 20480                      # 10 MB into disk 1: blkdebug fails writes covering it
BAD_SECTOR2 = 30 * 2048 + 6 * 256       # the 7th 128 KB piece of ada1's 30th MB
IMGDIR = wdrun.ROOT / "build" / "ahci-test" / "guest"

T = TestSet("ahci")


def make_images():
    IMGDIR.mkdir(parents=True, exist_ok=True)
    pattern = random.Random(20001).randbytes(PATTERN_BYTES)
    paths = [IMGDIR / "d0.img", IMGDIR / "d1.img"]
    with open(paths[0], "wb") as f:
        f.write(pattern)
        f.truncate(DISK_BYTES)
    with open(paths[1], "wb") as f:
        f.truncate(DISK_BYTES)
    return paths


def ahci_args(paths, inject=False, throttle=0):
    """ich9-ahci with disk 0 on port 0 and disk 1 on port 1; blkdebug under disk 1 if inject;
    each disk limited to `throttle` bytes/s (read + write) if given. An unthrottled disk
    finishes a request about as fast as the guest issues the next, so queues stay short;
    a throttled one makes the guest's requests wait in the HBA, as on real disks."""
    args = ["-device", "ich9-ahci,id=ahci"]
    for i, p in enumerate(paths):
        args += ["-blockdev", "driver=file,node-name=f%d,filename=%s" % (i, p)]
        image = "f%d" % i
        if inject and i == 1:
            args += ["-blockdev", '{"driver":"blkdebug","node-name":"dbg1","image":"f1",'
                     '"inject-error":[{"event":"write_aio","errno":5,"sector":%d},'
                     '{"event":"write_aio","errno":5,"sector":%d}]}' % (BAD_SECTOR, BAD_SECTOR2)]
            image = "dbg1"
        node = "disk%d" % i
        args += ["-blockdev", "driver=raw,node-name=%s,file=%s" % ("r%d" % i if throttle else node, image)]
        if throttle:
            args += ["-object", "throttle-group,id=tg%d,x-bps-total=%d" % (i, throttle),
                     "-blockdev", "driver=throttle,node-name=%s,throttle-group=tg%d,file=r%d" % (node, i, i)]
        args += ["-device", "ide-hd,drive=%s,bus=ahci.%d,werror=report,rerror=report" % (node, i)]
    return args


def with_disks(extra):
    base = wdrun.qemu_argv
    wdrun.qemu_argv = lambda cfg, iso=None: base(cfg, iso) + extra
    return base


def sysctl_int(g, name):
    out, st = g.sh("sysctl -n " + name)
    try:
        return int(out.strip()) if st == 0 else None
    except ValueError:
        return None


def read_images(paths):
    return [p.read_bytes() for p in paths]


def integrity_boot(paths):
    base = with_disks(ahci_args(paths, throttle=10 * 1000 * 1000))
    try:
        with Guest(mem=128, smp=2, timeout=90) as g:
            out, st = g.sh("ls /dev")
            names = out.split()
            T.check("ahci disks appear as /dev/ada0 and /dev/ada1", "ada0" in names and "ada1" in names,
                    expected="ada0 ada1", got=" ".join(names))
            out, st = g.sh("sysctl -n hw.pci.devices")
            T.check("hw.pci.devices lists the AHCI function", "8086:2922 class 01.06" in out,
                    expected="a line with 8086:2922 class 01.06", got=out.strip())
            T.check("boot identifies the disk model and NCQ",
                    "ada1: <QEMU HARDDISK>" in g.console and "NCQ depth 32" in g.console,
                    expected="ada1: <QEMU HARDDISK> ... NCQ depth 32", got="not on the console")

            out, st = g.sh("dd if=/dev/ada0 of=/dev/ada1 bs=1m count=16")
            T.check("dd copies 16 MB ada0 -> ada1 in 1 MB records", st == 0 and "16+0 records out" in out,
                    expected="status 0, 16+0 records out", got="status %d: %s" % (st, out.strip()))

            # Sequential, so the throttle's burst credit runs out and requests wait in the HBA.
            counters = "kern.devstat.ada1.depth_ns kern.devstat.ada1.busy_ns"
            before = g.sh("sysctl -n " + counters)[0].split()
            out, st = g.sh("dd if=/dev/zero of=/dev/ada1 bs=1m count=8 seek=56")
            after = g.sh("sysctl -n " + counters)[0].split()
            depth = sysctl_int(g, "kern.devstat.ada1.max_queue_depth")
            T.check("many writes in flight on ada1 during a 1 MB dd", st == 0 and depth is not None and depth >= 4,
                    expected=">= 4 (1 MB / 128 KB d_maxio = 8 concurrent requests)", got=depth)
            try:
                avg = (int(after[0]) - int(before[0])) / (int(after[1]) - int(before[1]))
            except (ValueError, IndexError, ZeroDivisionError):
                avg = None
            T.check("depth_ns / busy_ns over the 1 MB dd: an average depth above 2, at most the maximum",
                    avg is not None and depth is not None and 2 < avg <= depth,
                    expected="2 < average <= %s" % depth, got="%s (before %s, after %s)" % (avg, before, after))
            active = sysctl_int(g, "kern.devstat.ada1.max_active")
            T.check("many NCQ commands in flight in the HBA at once on ada1", active is not None and active >= 4,
                    expected=">= 4", got=active)
            out, st = g.sh("dd if=/dev/ada0 of=/dev/null bs=1m count=8 skip=40")
            depth = sysctl_int(g, "kern.devstat.ada0.max_queue_depth")
            T.check("many reads in flight on ada0 during a 1 MB dd", st == 0 and depth is not None and depth >= 4,
                    expected=">= 4", got=depth)

            out, st = g.sh("dd if=/dev/ada0 of=/dev/ada1 bs=512 skip=3 seek=100001 count=5 conv=notrunc")
            T.check("dd of 5 single sectors at odd offsets", st == 0 and "5+0 records out" in out,
                    expected="status 0, 5+0 records out", got="status %d: %s" % (st, out.strip()))

            out, st = g.sh("sysctl dev.ada.1.openings=0")
            T.check("openings=0 is rejected", st != 0, expected="non-zero status", got=st)
            out, st = g.sh("sysctl dev.ada.1.openings=33")
            T.check("openings above the NCQ slots is rejected", st != 0, expected="non-zero status", got=st)
            out, st = g.sh("sysctl dev.ada.1.openings=1")
            T.check("openings=1 is accepted", st == 0 and sysctl_int(g, "dev.ada.1.openings") == 1,
                    expected="status 0 and the value 1", got="status %d: %s" % (st, out.strip()))
            out, st = g.sh("dd if=/dev/ada0 of=/dev/ada1 bs=1m skip=32 seek=40 count=8")
            T.check("dd with one command in flight", st == 0 and "8+0 records out" in out,
                    expected="status 0, 8+0 records out", got="status %d: %s" % (st, out.strip()))
            g.sh("sysctl dev.ada.1.openings=32")

            out, st = g.sh("dd if=/dev/ada1 of=/dev/null bs=1m count=8")
            T.check("dd reads 8 MB of ada1", st == 0 and "8+0 records in" in out,
                    expected="status 0, 8+0 records in", got="status %d: %s" % (st, out.strip()))
    finally:
        wdrun.qemu_argv = base

    d0, d1 = read_images(paths)
    T.check("host: ada1's first 16 MB equal ada0's", d1[:16 * MB] == d0[:16 * MB],
            expected="equal", got="different")
    T.check("host: the 5 sectors at LBA 100001 equal ada0's LBA 3-7",
            d1[100001 * 512:100006 * 512] == d0[3 * 512:8 * 512], expected="equal", got="different")
    T.check("host: the sectors around them were not touched",
            d1[100000 * 512:100001 * 512] == bytes(512) and d1[100006 * 512:100007 * 512] == bytes(512),
            expected="zeros", got="data")
    T.check("host: the openings=1 copy (ada0 32-40 MB -> ada1 40-48 MB)",
            d1[40 * MB:48 * MB] == d0[32 * MB:40 * MB], expected="equal", got="different")
    T.check("host: ada1 16-40 MB (not written) still zero", d1[16 * MB:40 * MB] == bytes(24 * MB),
            expected="zeros", got="data")


def fault_boot(paths):
    base = with_disks(ahci_args(paths, inject=True, throttle=5 * 1000 * 1000))
    try:
        with Guest(mem=128, smp=1, timeout=90) as g:
            seek = BAD_SECTOR * 512 // (64 * 1024)
            out, st = g.sh("dd if=/dev/zero of=/dev/ada1 bs=64k count=4 seek=%d" % seek)
            T.check("dd over the injected bad sector fails", st != 0,
                    expected="non-zero status", got="status %d: %s" % (st, out.strip()))
            T.check("dd reports an I/O error", "Input/output error" in out,
                    expected="Input/output error", got=out.strip())
            want = "ada1: WRITE FPDMA QUEUED at LBA %d" % BAD_SECTOR
            T.check("console names the disk and LBA", want in g.console and "giving up: EIO" in g.console,
                    expected=want + " ... giving up: EIO",
                    got=[l for l in g.console.splitlines() if l.startswith("ada1:")][-3:])
            errors = sysctl_int(g, "kern.devstat.ada1.errors")
            T.check("devstat counts the failed request", errors is not None and errors >= 1,
                    expected=">= 1", got=errors)
            out, st = g.sh("dd if=/dev/ada0 of=/dev/ada1 bs=64k count=16")
            T.check("ada1 keeps working after the error", st == 0 and "16+0 records out" in out,
                    expected="status 0, 16+0 records out", got="status %d: %s" % (st, out.strip()))

            # A 1 MB write is 8 requests; the 7th fails while others are still in flight (the
            # throttle holds them), so the driver cannot tell which failed and re-issues them
            # one at a time: the 7 good ones must land, the bad one must give EIO.
            out, st = g.sh("dd if=/dev/ada0 of=/dev/ada1 bs=1m count=1 skip=30 seek=30")
            T.check("1 MB dd with a bad 128 KB piece fails with EIO", st != 0 and "Input/output error" in out,
                    expected="non-zero status, Input/output error", got="status %d: %s" % (st, out.strip()))
            T.check("the commands in flight with it were re-issued one at a time",
                    "re-issuing them one at a time" in g.console, expected="a console line saying so",
                    got=[l for l in g.console.splitlines() if l.startswith("ada1:")][-6:])
            want = "ada1: WRITE FPDMA QUEUED at LBA %d (256 sectors)" % BAD_SECTOR2
            T.check("console names the bad piece's LBA", want in g.console, expected=want,
                    got=[l for l in g.console.splitlines() if l.startswith("ada1:")][-3:])
    finally:
        wdrun.qemu_argv = base
    d0, d1 = read_images(paths)
    T.check("host: the write after the error is on disk", d1[:MB] == d0[:MB],
            expected="equal", got="different")
    bad = (BAD_SECTOR2 - 30 * 2048) * 512
    T.check("host: the 7 good pieces of the failed 1 MB write are on disk",
            d1[30 * MB:30 * MB + bad] == d0[30 * MB:30 * MB + bad] and
            d1[30 * MB + bad + 128 * 1024:31 * MB] == d0[30 * MB + bad + 128 * 1024:31 * MB],
            expected="equal to ada0's", got="different")


def root_boot():
    """The root file system on ada0 (the harness copies build/root.img there): boot, write, sync
    (FLUSH CACHE EXT), power off; the host's fsck must find the image clean."""
    with Guest(mem=128, smp=2, timeout=90, disks=0, bus="ahci", root="disk") as g:
        T.check("root mounted from ada0", "mounted /dev/ada0 on /" in g.console,
                expected="mounted /dev/ada0 on /", got=[l for l in g.console.splitlines() if "mount" in l])
        out, st = g.sh("echo on-ahci > /ahci_file; sync; cat /ahci_file")
        T.check("write and sync on an AHCI root", st == 0 and out == "on-ahci\n",
                expected="on-ahci", got="status %d: %r" % (st, out))
        T.check("no AHCI errors on the console", "ada0: " not in g.console.split("mounted /dev/ada0")[-1],
                expected="none", got=[l for l in g.console.splitlines() if l.startswith("ada0: ")])
        g.close()
        root = g.root_image
        fsck = wdrun.ROOT / "build" / "host" / "fsck"
        r = subprocess.run([str(fsck), str(root)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        T.check("host: fsck finds the AHCI root clean after sync and poweroff", r.returncode == 0,
                expected="exit 0", got="exit %d: %s" % (r.returncode, r.stdout.strip()[-300:]))


paths = make_images()
integrity_boot(paths)
fault_boot(make_images())
root_boot()
T.done()
