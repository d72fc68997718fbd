#!/usr/bin/env python3
"""Guest tests of the virtio-SCSI driver (kernel/dev/virtio.c, virtio_scsi.c) on QEMU's
virtio-scsi-pci with several scsi-hd targets.

Boot 1: data integrity and queueing with indirect descriptors. The host fills disk 0 with a
seeded pseudo-random pattern; the guest copies parts of /dev/da0 to /dev/da1 with dd, and the
host compares the images after power-off. The devstat high-water mark and dev.da.1.max_active
show many commands in flight during a 1 MB dd; dev.da.1.openings is range-checked and
obeyed. A 3 TB sparse disk on target 5 needs READ CAPACITY(16) and READ/WRITE(16): a write past
LBA 2^32 is checked from the host.
Boot 2: chained descriptors (indirect_desc=off) and request splitting (max_sectors=16, so a
128 KB request becomes sixteen 8 KB commands, all in flight at once).
Boot 3: fault injection and the watchdog. blkdebug fails every write covering one sector of
disk 1: dd must report an I/O error, the console must show the decoded sense data and EIO,
nothing may panic, and the disk must keep working. Disk 0 is throttled so that a command stays
out longer than hw.vtscsi.timeout=1, and the watchdog must say so.
Boot 4: the root file system on da0 (root=da0); a write and sync (SYNCHRONIZE CACHE), then
the host's fsck checks the image.

The disks are extra QEMU arguments; until wdtest.Guest takes disk options this file adds them by
wrapping wdrun.qemu_argv (as tests/guest/test_ahci.py does), and root=da0 the same way.
"""
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import wdrun  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402

MB = 1 << 20
DISK_BYTES = 64 * MB
PATTERN_BYTES = 40 * MB
BAD_SECTOR = 20480                      # 10 MB into disk 1, for blkdebug
BIG_BYTES = 3 << 40                     # 3 TiB, sparse: 6442450944 sectors
BIG_SEEK_64K = 50000000                 # 64 KB records: byte 3.2768e12, LBA 6400000000 > 2^32
IMGDIR = wdrun.ROOT / "build" / "vtscsi-test" / "guest"

T = TestSet("virtio_scsi")


def make_images():
    IMGDIR.mkdir(parents=True, exist_ok=True)
    pattern = random.Random(30003).randbytes(PATTERN_BYTES)
    paths = [IMGDIR / "d0.img", IMGDIR / "d1.img"]
    with open(paths[0], "wb") as f:
        f.write(pattern)
        f.truncate(DISK_BYTES)
    with open(paths[1], "wb") as f:
        f.truncate(DISK_BYTES)
    return paths


def make_big():
    big = IMGDIR / "big.img"
    with open(big, "wb") as f:
        f.truncate(BIG_BYTES)
    return big


def drive(i, path, target, extra=""):
    return ["-drive", "file=%s,format=raw,if=none,id=d%d,werror=report,rerror=report%s" % (path, i, extra),
            "-device", "scsi-hd,drive=d%d,bus=scsi0.0,scsi-id=%d,lun=0" % (i, target)]


def hba(props=""):
    return ["-device", "virtio-scsi-pci,id=scsi0" + props]


def with_disks(extra, append=""):
    """Add QEMU arguments, and words to the kernel command line (the harness refuses a root=
    word in Guest(args=...) now that it wants --root; Guest has no root option yet)."""
    base = wdrun.qemu_argv

    def argv(cfg, iso=None):
        a = base(cfg, iso) + extra
        if append:
            i = a.index("-append")
            a[i + 1] += " " + append
        return a
    wdrun.qemu_argv = argv
    return base


def sysctl_int(g, name):
    out, st = g.sh("sysctl -n " + name)
    try:
        return int(out.strip()) if st == 0 else None
    except ValueError:
        return None


def dd_ok(g, name, cmd, records):
    out, st = g.sh(cmd)
    want = "%d+0 records out" % records
    return T.check(name, st == 0 and want in out, expected="status 0, " + want,
                   got="status %d: %s" % (st, out.strip()))


def console_lines(g, prefix):
    return [l for l in g.console.splitlines() if l.startswith(prefix)][-4:]


def integrity_boot(paths, big):
    base = with_disks(hba() + drive(0, paths[0], 0) + drive(1, paths[1], 1) + drive(2, big, 5))
    try:
        with Guest(mem=128, smp=2, timeout=90) as g:
            out, st = g.sh(CCD_RELEASE + "ls /dev")     # /etc/ccd.conf striped da1 da2 at boot
            names = out.split()
            T.check("targets 0, 1, 5 appear as /dev/da0, da1, da2",
                    all(n in names for n in ("da0", "da1", "da2")), expected="da0 da1 da2",
                    got=" ".join(names))
            T.check("legacy virtio with indirect descriptors: 256 commands in flight",
                    "indirect descriptors: 256 commands in flight" in g.console,
                    expected="... indirect descriptors: 256 commands in flight",
                    got=console_lines(g, "vtscsi0:"))
            T.check("INQUIRY identifies the disk", "da1: <QEMU QEMU HARDDISK" in g.console,
                    expected="da1: <QEMU QEMU HARDDISK ...>", got=console_lines(g, "da1:"))
            T.check("READ CAPACITY(16) sizes the 3 TB disk", "6442450944 blocks of 512 bytes" in g.console,
                    expected="da2: ... 6442450944 blocks of 512 bytes", got=console_lines(g, "da2:"))

            dd_ok(g, "dd copies 32 MB da0 -> da1 in 1 MB records", "dd if=/dev/da0 of=/dev/da1 bs=1m count=32", 32)
            depth = sysctl_int(g, "kern.devstat.da1.max_queue_depth")
            T.check("many writes in flight on da1 during the 1 MB dd", depth is not None and depth >= 4,
                    expected=">= 4 (1 MB / 128 KB d_maxio = 8 concurrent requests)", got=depth)
            depth = sysctl_int(g, "kern.devstat.da0.max_queue_depth")
            T.check("many reads in flight on da0 during the 1 MB dd", depth is not None and depth >= 4,
                    expected=">= 4", got=depth)
            active = sysctl_int(g, "dev.da.1.max_active")
            T.check("many commands in the virtqueue at once for da1", active is not None and active >= 4,
                    expected=">= 4", got=active)

            dd_ok(g, "dd of 5 single sectors at odd offsets",
                  "dd if=/dev/da0 of=/dev/da1 bs=512 skip=3 seek=100001 count=5 conv=notrunc", 5)

            out, st = g.sh("sysctl dev.da.1.openings=0")
            T.check("openings=0 is rejected", st != 0, expected="non-zero status", got=st)
            out, st = g.sh("sysctl dev.da.1.openings=257")
            T.check("openings above the queue is rejected", st != 0, expected="non-zero status", got=st)
            out, st = g.sh("sysctl dev.da.1.openings=1")
            T.check("openings=1 is accepted", st == 0 and sysctl_int(g, "dev.da.1.openings") == 1,
                    expected="status 0 and the value 1", got="status %d: %s" % (st, out.strip()))
            dd_ok(g, "dd with one command in flight", "dd if=/dev/da0 of=/dev/da1 bs=1m skip=32 seek=40 count=8", 8)
            g.sh("sysctl dev.da.1.openings=128")

            dd_ok(g, "WRITE(16) past LBA 2^32 on the 3 TB disk",
                  "dd if=/dev/da0 of=/dev/da2 bs=64k count=4 seek=%d" % BIG_SEEK_64K, 4)
            dd_ok(g, "READ(16) past LBA 2^32 back onto da1",
                  "dd if=/dev/da2 of=/dev/da1 bs=64k count=4 skip=%d seek=800" % BIG_SEEK_64K, 4)
            out, st = g.sh("dd if=/dev/da1 of=/dev/null bs=1m")
            T.check("dd reads all of da1", st == 0 and "64+0 records in" in out,
                    expected="status 0, 64+0 records in", got="status %d: %s" % (st, out.strip()))
    finally:
        wdrun.qemu_argv = base

    d0, d1 = paths[0].read_bytes(), paths[1].read_bytes()
    with open(big, "rb") as f:
        f.seek(BIG_SEEK_64K * 65536)
        far = f.read(256 * 1024)
    T.check("host: da1's first 32 MB equal da0's", d1[:32 * MB] == d0[:32 * MB], expected="equal", got="different")
    T.check("host: the 5 sectors at LBA 100001 equal da0's LBA 3-7",
            d1[100001 * 512:100006 * 512] == d0[3 * 512:8 * 512], expected="equal", got="different")
    T.check("host: the sectors around them were not touched",
            d1[100000 * 512:100001 * 512] == bytes(512) and d1[100006 * 512:100007 * 512] == bytes(512),
            expected="zeros", got="data")
    T.check("host: the openings=1 copy (da0 32-40 MB -> da1 40-48 MB)",
            d1[40 * MB:48 * MB] == d0[32 * MB:40 * MB], expected="equal", got="different")
    T.check("host: the 3 TB disk holds da0's first 256 KB past LBA 2^32", far == d0[:256 * 1024],
            expected="equal", got="different")
    T.check("host: the READ(16) data landed on da1 at 50 MB", d1[800 * 65536:800 * 65536 + 256 * 1024] == d0[:256 * 1024],
            expected="equal", got="different")


def chained_boot(paths):
    base = with_disks(hba(",indirect_desc=off,max_sectors=16") + drive(0, paths[0], 0) + drive(1, paths[1], 1))
    try:
        with Guest(mem=128, smp=2, timeout=90) as g:
            T.check("without INDIRECT_DESC: chained descriptors, 85 commands",
                    "chained descriptors: 85 commands in flight" in g.console,
                    expected="... chained descriptors: 85 commands in flight", got=console_lines(g, "vtscsi0:"))
            T.check("max_sectors=16 gives 8 KB commands", "da1: 85 tagged openings, 8 KB per command"
                    in g.console, expected="da1: 85 tagged openings, 8 KB per command",
                    got=console_lines(g, "da1:"))
            dd_ok(g, "dd copies 8 MB through split, chained commands",
                  "dd if=/dev/da0 of=/dev/da1 bs=1m skip=8 seek=16 count=8", 8)
            active = sysctl_int(g, "dev.da.1.max_active")
            T.check("the pieces of split requests are in flight together", active is not None and active > 16,
                    expected="> 16 (1 MB = 8 requests of 16 pieces)", got=active)
    finally:
        wdrun.qemu_argv = base
    d0, d1 = paths[0].read_bytes(), paths[1].read_bytes()
    T.check("host: the split copy (da0 8-16 MB -> da1 16-24 MB)", d1[16 * MB:24 * MB] == d0[8 * MB:16 * MB],
            expected="equal", got="different")
    T.check("host: da1 outside the copy still zero", d1[:16 * MB] == bytes(16 * MB) and
            d1[24 * MB:25 * MB] == bytes(MB), expected="zeros", got="data")


def fault_boot(paths):
    bd = ('{"driver":"blkdebug","node-name":"dbg1","image":"f1",'
          '"inject-error":[{"event":"write_aio","errno":5,"sector":%d}]}' % BAD_SECTOR)
    args = (hba() + drive(0, paths[0], 0, ",throttling.bps-write=100000") +
            ["-blockdev", "driver=file,node-name=f1,filename=%s" % paths[1], "-blockdev", bd,
             "-blockdev", "driver=raw,node-name=disk1,file=dbg1",
             "-device", "scsi-hd,drive=disk1,bus=scsi0.0,scsi-id=1,lun=0,werror=report,rerror=report"])
    base = with_disks(args)
    try:
        with Guest(mem=128, smp=1, timeout=90) as g:
            seek = BAD_SECTOR * 512 // (64 * 1024)
            out, st = g.sh("dd if=/dev/zero of=/dev/da1 bs=64k count=4 seek=%d" % seek)
            T.check("dd over the injected bad sector fails", st != 0, expected="non-zero status",
                    got="status %d: %s" % (st, out.strip()))
            T.check("dd reports an I/O error", "Input/output error" in out, expected="Input/output error",
                    got=out.strip())
            want = ("da1: WRITE(10) at LBA %d, 128 blocks: CHECK CONDITION, sense key ABORTED COMMAND, "
                    "ASC/ASCQ 00/06 (I/O PROCESS TERMINATED); giving up: EIO" % BAD_SECTOR)
            T.check("console decodes the sense data and says EIO", want in g.console, expected=want,
                    got=console_lines(g, "da1:"))
            errors = sysctl_int(g, "kern.devstat.da1.errors")
            T.check("devstat counts the failed request", errors is not None and errors >= 1, expected=">= 1",
                    got=errors)
            dd_ok(g, "da1 keeps working after the error", "dd if=/dev/da0 of=/dev/da1 bs=64k count=16", 16)

            g.sh("sysctl hw.vtscsi.timeout=1")
            out, st = g.sh("dd if=/dev/da1 of=/dev/da0 bs=128k count=3 seek=300", timeout=60)
            T.check("a slow write still completes", st == 0 and "3+0 records out" in out,
                    expected="status 0, 3+0 records out", got="status %d: %s" % (st, out.strip()))
            T.check("the watchdog reports the command the device sits on",
                    "no answer from the device after" in g.console,
                    expected="da0: WRITE(10) at LBA ...: no answer from the device after 1 s ...",
                    got=console_lines(g, "da0:"))
            # Each 128 KB write takes over a second at 100 KB/s, so the watchdog saw seconds with
            # no answer and rang the doorbell again: harmless (the writes completed, and the
            # host compares the data below), and counted.
            kicks = sysctl_int(g, "hw.vtscsi.rekicks")
            T.check("the watchdog rang the doorbell again while the device sat on the writes",
                    kicks is not None and kicks >= 1, expected=">= 1", got=kicks)
    finally:
        wdrun.qemu_argv = base
    d0, d1 = paths[0].read_bytes(), paths[1].read_bytes()
    T.check("host: the write after the error is on disk", d1[:MB] == d0[:MB], expected="equal", got="different")
    slow = 300 * 128 * 1024
    T.check("host: the slow writes the watchdog rang for are on disk",
            d0[slow:slow + 3 * 128 * 1024] == d1[:3 * 128 * 1024], expected="equal", got="different")


def root_boot():
    """The root file system on da0 (a copy of build/root.img): boot, write, sync (SYNCHRONIZE
    CACHE), power off; the host's fsck must find the image clean."""
    root = IMGDIR / "root0.img"
    data = (wdrun.ROOT / "build" / "root.img").read_bytes()
    with open(root, "wb") as f:
        f.write(data)
        f.truncate(max(DISK_BYTES, len(data)))
    base = with_disks(hba() + drive(0, root, 0), append="root=da0")
    try:
        with Guest(mem=128, smp=2, timeout=90) as g:
            T.check("root mounted from da0", "mounted /dev/da0 on /" in g.console,
                    expected="mounted /dev/da0 on /", got=[l for l in g.console.splitlines() if "mount" in l])
            out, st = g.sh("echo on-scsi > /scsi_file; sync; cat /scsi_file")
            T.check("write and sync on a virtio-SCSI root", st == 0 and out == "on-scsi\n",
                    expected="on-scsi", got="status %d: %r" % (st, out))
            T.check("no driver errors on the console", "giving up" not in g.console,
                    expected="none", got=[l for l in g.console.splitlines() if "giving up" in l])
    finally:
        wdrun.qemu_argv = base
    fsck = wdrun.ROOT / "build" / "host" / "fsck"
    r = subprocess.run([str(fsck), str(root)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    T.check("host: fsck finds the virtio-SCSI root clean after sync and poweroff", r.returncode == 0,
            expected="exit 0", got="exit %d: %s" % (r.returncode, r.stdout.strip()[-300:]))


paths = make_images()
integrity_boot(paths, make_big())
chained_boot(make_images())
fault_boot(make_images())
root_boot()
(IMGDIR / "big.img").unlink()
T.done()
