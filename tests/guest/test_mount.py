#!/usr/bin/env python3
"""test_mount: mounts, the file-system tools (newfs, fsck, mount, umount, df), /etc/fstab at
boot and the syncer, on data disks (docs/vfs.md, docs/fs.md).

Boot 1 (virtio-SCSI, two 256 MB data disks, kept for boot 2; the stripe /etc/ccd.conf made over
them at boot unconfigured first): the mount listing; newfs, mount,
write, umount and fsck on da1; df's numbers against what was written; a read-only mount;
".." across mount points both ways, with a file system mounted inside another; unmounting a
busy file system (a mount inside it, a current directory, an open file); bad arguments to
every tool; the syncer writing an aged delayed write once kern.syncdelay is small (and not
before, with the default 30 s); /etc/fstab written for boot 2, and an /etc/ccd.conf without
the stripe (its components are mounted raw).
Between the boots the host marks da1 not clean and breaks da2's superblock checksum.
Boot 2: /etc/rc's fsck -p repairs da1 and mount -a mounts it, a missing device (da9) is
reported and skipped, da2 is refused at mount with the console naming the problem (no panic);
mount -a again changes nothing; mount by mount point; umount -a.
Boot 3 (fresh disks): the stripe /etc/ccd.conf configured at boot, ccd0 over da1 da2 (ccdconfig
-g says so): newfs, mount, a component refused as busy,
a pattern written and read back after a remount; after the boot the host de-stripes the
images, its fsck finds the file system clean, and df's numbers equal its superblock's.
Boot 4 (AHCI): newfs, mount, write, umount, fsck on ada1.
Boot 5 (disks throttled to 1 MB/s, the boot's stripe unconfigured): while sync(2) waits for one disk, the other is mounted and
the first is listed and df'd (the mount list has no lock held across I/O).
tests/run: timeout=400 about=50
"""
import os
import re
import struct
import subprocess
import sys
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import wdrun  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402

DIR = wdrun.BUILD / "run" / "disks" / ("test_mount-p%d" % os.getpid())
HOST_FSCK = str(wdrun.BUILD / "host" / "fsck")
DESTRIPE = str(wdrun.ROOT / "tools" / "destripe")
KB = 1024
SYNC_BOUND = 12              # seconds: kern.syncdelay 2 plus a generous bound (TCG, a busy host)

T = TestSet("mount")


def run(g, name, cmd, status=0, contains=(), absent=(), regex=None, timeout=60):
    """Run cmd in the guest; check $? and what the output contains."""
    out, st = g.sh(cmd, timeout=timeout)
    ok = st == status and all(c in out for c in contains) and not any(a in out for a in absent)
    if regex is not None:
        ok = ok and re.search(regex, out, re.M) is not None
    want = "status %d%s%s%s" % (status, "".join(", containing %r" % c for c in contains),
                                "".join(", without %r" % a for a in absent),
                                ", /%s/" % regex if regex else "")
    T.check(name, ok, expected=want, got="status %d: %r" % (st, out))
    return out


def fails(g, name, cmd, *contains, status=None):
    """cmd must fail (with `status` if given) and say each of contains."""
    out, st = g.sh(cmd)
    ok = st != 0 and (status is None or st == status) and all(c in out for c in contains)
    T.check(name, ok, expected="failure%s, saying %s" % ("" if status is None else " %d" % status,
                                                         " and ".join(repr(c) for c in contains)),
            got="status %d: %r" % (st, out))


def df_row(g, path):
    """df -k -i's numbers for the file system holding path: (total, used, avail, iused, ifree)."""
    out, st = g.sh("df -k -i " + path)
    lines = out.splitlines()
    if st != 0 or len(lines) != 2:
        return None
    f = lines[1].split()
    return int(f[1]), int(f[2]), int(f[3]), int(f[5]), int(f[6])


def superblock(image, offset=0):
    """The wdfs superblock fields df depends on, read by the host from an image."""
    with open(image, "rb") as f:
        f.seek(offset)
        raw = f.read(256)
    w = struct.unpack("<18I", raw[:72])
    return {"magic": w[0], "bsize": w[2], "nblocks": w[4], "ninodes": w[5], "data_start": w[14],
            "free_blocks": w[15], "free_inodes": w[16], "clean": w[17], "raw": bytearray(raw)}


def write_superblock(image, raw, reseal=True):
    """Put a (modified) superblock back; reseal recomputes the CRC-32 of its first 252 bytes."""
    if reseal:
        raw[252:256] = struct.pack("<I", zlib.crc32(bytes(raw[:252])) & 0xffffffff)
    with open(image, "r+b") as f:
        f.write(raw)


def host(*argv):
    r = subprocess.run([str(a) for a in argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def check_listing(g):
    out = run(g, "mount lists / and /dev, oldest first", "mount",
              regex=r"\A/dev/da0 on / \(wdfs, local\)\ndevfs on /dev \(devfs, local\)\n\Z")
    return out


def disk_basics(g):
    run(g, "newfs -N prints the layout and writes nothing", "newfs -N da1 && mount /dev/da1 /data1",
        status=1, contains=["32768 blocks of 8192 bytes", "nothing written (-N)", "newfs makes one"])
    run(g, "newfs /dev/da1", "newfs /dev/da1", contains=["/dev/da1: 32768 blocks of 8192 bytes"])
    run(g, "mount /dev/da1 /data1 and the listing shows it", "mount /dev/da1 /data1 && mount",
        contains=["/dev/da1 on /data1 (wdfs, local)\n"])
    before = df_row(g, "/data1")
    run(g, "dd writes a 4 MB file to /data1", "dd if=/dev/zero of=/data1/f bs=64k count=64",
        contains=["4194304 bytes transferred"])
    after = df_row(g, "/data1")
    # 512 data blocks of 8 KB: 12 direct, 500 through one single-indirect block -> 513 blocks.
    T.check("df: a 4 MB file uses 4104 KB more (512 data blocks + 1 indirect) and one inode",
            before and after and after[1] - before[1] == 4104 and after[2] == before[2] - 4104 and
            after[0] == before[0] and after[3] == before[3] + 1 and after[4] == before[4] - 1,
            expected="used +4104, avail -4104, iused +1", got="%s -> %s" % (before, after))
    out = run(g, "df (512-byte blocks) and df -h agree with df -k", "df /data1; df -h /data1")
    lines = out.splitlines()
    T.check("df's header and 512-byte blocks are twice the 1K-blocks",
            len(lines) == 4 and lines[0].split()[:5] == ["Filesystem", "512-blocks", "Used", "Avail", "Capacity"]
            and after and int(lines[1].split()[1]) == 2 * after[0] and lines[3].split()[5] == "/data1"
            and lines[3].split()[1].endswith("M"),
            expected="Filesystem 512-blocks Used Avail Capacity Mounted on; 2 x %s" % (after and after[0]),
            got=out)
    run(g, "ls lists the file on /data1", "ls /data1", contains=["f\n", "lost+found\n"])
    run(g, "umount /data1, then fsck finds da1 clean", "umount /data1 && fsck /dev/da1 && mount",
        contains=["/dev/da1: clean: 3 files"], absent=["/data1"])
    run(g, "fsck -p skips a clean file system", "fsck -p da1", contains=["/dev/da1: clean, skipping checks"])
    run(g, "mount -r mounts read-only", "mount -r /dev/da1 /data1 && mount && cat /data1/f > /dev/null",
        contains=["/dev/da1 on /data1 (wdfs, local, read-only)"])
    fails(g, "a read-only mount refuses writes", "echo x > /data1/new", "Read-only file system")
    fails(g, "a read-only mount refuses new times (utimes: EROFS)", "touch /data1/f", "Read-only file system")
    run(g, "umount by special name", "umount da1 && mount", absent=["/data1"])
    return after


def crossing(g):
    run(g, "newfs da2, mount da1 on /data1 and da2 on /data1/inner",
        "newfs da2 > /dev/null && mount da1 /data1 && mkdir -p /data1/sub /data1/inner && "
        "mount /dev/da2 /data1/inner && echo inner > /data1/inner/marker")
    run(g, "getcwd inside a mount: /data1/sub", "cd /data1/sub && pwd", contains=["/data1/sub\n"])
    run(g, "getcwd in a mount inside a mount: /data1/inner", "cd /data1/inner && pwd", contains=["/data1/inner\n"])
    run(g, ".. from a mount's root reaches the directory above the mount point",
        "ls /data1/inner/.. && ls /data1/..", contains=["inner\n", "sub\n", "f\n", "bin\n", "etc\n"])
    run(g, "cd up through two mount points", "cd /data1/inner/../.. && pwd && cd /data1/inner && cd ../.. && pwd",
        regex=r"^/\n/\n\Z")
    run(g, "down again through the mount points", "cat /data1/sub/../inner/marker", contains=["inner\n"])
    run(g, "df lists all four mounts", "df", contains=["/dev/da1", "/dev/da2"],
        regex=r"/data1/inner\n\Z")
    fails(g, "umount of a file system with another mounted inside it: EBUSY", "umount /data1",
          "unmount of /data1 failed: Device busy", "something is mounted inside it")
    fails(g, "umount while a process's current directory is in it: EBUSY",
          "(cd /data1/inner && sleep 3) & sleep 1; umount /data1/inner", "Device busy",
          "current directory")
    run(g, "and it unmounts once that process is gone", "sleep 3; umount /data1/inner && mount",
        absent=["/data1/inner"])
    fails(g, "umount while a file in it is open: EBUSY", "sleep 3 < /data1/f & sleep 1; umount /data1",
          "Device busy")
    run(g, "umount -v once the file is closed", "sleep 3; umount -v /data1",
        contains=["/dev/da1: unmount from /data1"])


# (name, command, exit status or None for any failure, what the message must say)
BAD_ARGUMENTS = [
    ("mount: a bad option is a usage error", "mount -x", 2, "usage: mount"),
    ("mount: three operands is a usage error", "mount a b c", 2, "usage: mount"),
    ("mount: an unknown -o option", "mount -o sync /dev/da1 /data1", 2, "'sync' is not known"),
    ("mount: no such file-system type (ENODEV)", "mount -t nofs /dev/da1 /data1", 1, "no such file-system type"),
    ("mount: the mount point does not exist (ENOENT)", "mount /dev/da1 /nonexistent", 1,
     "/nonexistent: No such file or directory"),
    ("mount: the mount point is a file (ENOTDIR)", "mount /dev/da1 /etc/motd", 1, "Not a directory"),
    ("mount: the special is not a disk (ENOTBLK)", "mount /dev/null /data1", 1, "not a disk"),
    ("mount: no such disk (ENOENT)", "mount /dev/da9 /data1", 1, "/dev/da9 on /data1: No such file"),
    ("mount: the root's disk (EBUSY)", "mount /dev/da0 /data1", 1, "Device busy"),
    ("mount: a name that is not in fstab", "mount /data7", 1, "not in /etc/fstab"),
    ("umount: no operand is a usage error", "umount", 2, "usage: umount"),
    ("umount: not a mount point (EINVAL)", "umount /tmp", 1, "not a mount point"),
    ("umount: / (EBUSY)", "umount /", 1, "Device busy"),
    ("umount: /dev is busy: devices are open", "umount -f /dev", 1, "Device busy"),
    ("umount: no such file (ENOENT)", "umount /nonexistent", 1, "No such file or directory"),
    ("newfs: no operand is a usage error", "newfs", 2, "usage: newfs"),
    ("newfs: a bad block size", "newfs -b 3000 da2", 1, "not a power of two"),
    ("newfs: a bad -i", "newfs -i 0 da2", 1, "-i '0': expected a positive number"),
    ("newfs: -s larger than the disk", "newfs -s 1g da2", 1, "does not fit"),
    ("newfs: no such disk", "newfs da9", 1, "/dev/da9: No such file or directory"),
    ("newfs: a mounted disk is refused", "mount da1 /data1 && newfs da1", 1, "mounted on /data1"),
    ("fsck -y: a mounted disk is refused", "fsck -y da1", 8, "mounted on /data1"),
    ("fsck -p: a mounted disk is skipped", "fsck -p da1", 0, "mounted on /data1: skipped"),
    ("fsck: -n and -y together are a usage error", "fsck -n -y da1", 2, "exclude each other"),
    ("fsck: no such disk", "umount /data1; fsck da9", 8, "/dev/da9: No such file or directory"),
    ("fsck: a disk with no file system", "dd if=/dev/zero of=/dev/da2 bs=64k count=1 2>/dev/null; fsck da2", 8,
     "bad superblock"),
    ("fstab: a line without a type is reported and skipped",
     "echo '/dev/da1 /data1' > /tmp/fstab; echo '/dev/da1 /data1 wdfs rw x 2' >> /tmp/fstab; "
     "PATH_FSTAB=/tmp/fstab mount -a", 0,
     "fstab: /tmp/fstab:1: give at least the device, the mount point and the type; line ignored"),
    ("fstab: a dump field that is not a number is reported and skipped", "PATH_FSTAB=/tmp/fstab fsck -p", 0,
     "fstab: /tmp/fstab:2: the dump and pass fields must be numbers; line ignored"),
    ("df: a bad option is a usage error", "df -x", 2, "usage: df"),
    ("df: no such file", "df /nonexistent", 1, "df: /nonexistent: No such file or directory"),
    ("df: a disk that is not mounted", "df /dev/da2", 1, "/dev/da2: not mounted"),
]


def bad_arguments(g):
    """Every BAD_ARGUMENTS command in one shell line (each in a subshell, its status after it),
    to spare a prompt round trip per command."""
    line = "; ".join("(%s) 2>&1; echo \"##%d:$?##\"" % (cmd, i) for i, (_, cmd, _, _) in enumerate(BAD_ARGUMENTS))
    out, _ = g.sh(line, timeout=120)
    parts = re.split(r"##(\d+):(\d+)##\n", out)
    results = {int(parts[i + 1]): (parts[i], int(parts[i + 2])) for i in range(0, len(parts) - 2, 3)}
    for i, (name, cmd, status, says) in enumerate(BAD_ARGUMENTS):
        got, st = results.get(i, ("(no output: the line stopped before it)", None))
        T.check(name, st == status and says in got, expected="status %d, containing %r" % (status, says),
                got="status %s: %r" % (st, got))


def stripe(g):
    run(g, "/etc/ccd.conf configured ccd0 over da1 da2 at boot; newfs and mount it",
        "ccdconfig -g && newfs /dev/ccd0 && mount /dev/ccd0 /data1 && mount",
        contains=["ccd0 128 none /dev/da1 /dev/da2\n", "/dev/ccd0 on /data1 (wdfs, local)"])
    fails(g, "a ccd component cannot be mounted (EBUSY)", "mount /dev/da1 /tmp", "Device busy")
    run(g, "a 24 MB pattern written through the file system on the stripe",
        ": > /data1/p && pattern write /data1/p 24m 7 && sync", timeout=120)
    row = df_row(g, "/data1")
    run(g, "umount, fsck clean, remount: the pattern reads back",
        "umount /data1 && fsck /dev/ccd0 && mount ccd0 /data1 && pattern verify /data1/p 24m 7",
        contains=["/dev/ccd0: clean", "verified"], timeout=120)
    run(g, "umount /data1 and unconfigure ccd0", "umount /data1 && ccdconfig -u ccd0")
    return row


def dirty(g):
    out, st = g.sh("sysctl -n vfs.numdirtybuffers")
    return int(out) if st == 0 and out.strip().isdigit() else None


def syncer(g):
    run(g, "mount da1 again for the syncer", "mount da1 /data1")
    run(g, "a small write leaves delayed writes (bdwrite)", "sync; sleep 1; echo x > /data1/aged")
    n0 = dirty(g)
    g.sh("sleep 3")
    n1 = dirty(g)
    T.check("kern.syncdelay 30 (the default): the delayed write is still dirty 3 s later",
            n0 and n1 and n0 > 0 and n1 > 0, expected="> 0 dirty buffers right after and 3 s later",
            got="%s, then %s" % (n0, n1))
    run(g, "kern.syncdelay is writable", "sysctl kern.syncdelay=2", contains=["kern.syncdelay: 30 -> 2"])
    run(g, "another delayed write", "sync; sleep 1; echo y > /data1/aged2")
    start, n = time.monotonic(), dirty(g)
    first = n
    while n and time.monotonic() - start < SYNC_BOUND:
        time.sleep(0.5)
        n = dirty(g)
    waited = time.monotonic() - start
    T.check("kern.syncdelay 2: the syncer writes it: vfs.numdirtybuffers falls to 0 within 2 + %d s"
            % (SYNC_BOUND - 2), first and first > 0 and n == 0,
            expected="> 0, then 0 within %d s" % SYNC_BOUND,
            got="%s, then %s after %.1f s" % (first, n, waited))
    run(g, "kern.syncdelay back to 30", "sysctl kern.syncdelay=30")


def boot1():
    with Guest(disks=2, bus="scsi", disk_size="256m", disk_dir=DIR, keep=True, timeout=120) as g:
        run(g, "the stripe of /etc/ccd.conf unconfigured (its components are used raw here)",
            "ccdconfig -u ccd0")
        check_listing(g)
        disk_basics(g)
        crossing(g)
        bad_arguments(g)
        syncer(g)
        run(g, "write /etc/fstab for the next boot (da1, a missing da9, a broken da2)",
            "umount /data1; mkdir -p /data2 /data9 && "
            "echo '/dev/da1 /data1 wdfs rw 2 2' > /etc/fstab && "
            "echo '/dev/da9 /data9 wdfs rw 2 2' >> /etc/fstab && "
            "echo '/dev/da2 /data2 wdfs rw 0 0' >> /etc/fstab && "
            "echo '/dev/da3 none swap sw 0 0' >> /etc/fstab && echo '# no stripe' > /etc/ccd.conf && "
            "newfs da2 > /dev/null")
    return g.disk_images


def between_boots(images):
    d1, d2 = images
    sb = superblock(d1)
    T.check("host: da1 was unmounted cleanly", sb["clean"] == 1, expected="s_clean 1", got=sb["clean"])
    sb["raw"][68:72] = struct.pack("<I", 0)          # s_clean = 0, as after a crash
    write_superblock(d1, sb["raw"])
    sb = superblock(d2)
    sb["raw"][16] ^= 0x40                            # s_nblocks changed, checksum left stale
    write_superblock(d2, sb["raw"], reseal=False)


def boot2():
    with Guest(disks=2, bus="scsi", disk_size="256m", disk_dir=DIR, keep=True, timeout=120) as g:
        con = g.console
        T.check("boot: fsck -p repaired da1's clean flag",
                "clean flag not set (the file system was not unmounted cleanly) - fixed" in con and
                "/dev/da1 (/data1): 1 problem found, 1 fixed" in con,
                expected="clean flag not set ... - fixed; /dev/da1 (/data1): 1 problem found, 1 fixed",
                got=con[-1500:])
        T.check("boot: the missing da9 is reported by fsck -p and mount -a, and skipped",
                "fsck: /dev/da9 (/data9): No such file or directory; skipped" in con and
                "mount: /dev/da9 on /data9: No such file or directory" in con,
                expected="both messages", got=con[-1500:])
        T.check("boot: da2's bad superblock is refused with the reason on the console",
                "wdfs: da2: bad superblock: checksum mismatch" in con and "panic:" not in con,
                expected="wdfs: da2: bad superblock: checksum mismatch", got=con[-1500:])
        out = run(g, "boot: /etc/fstab's da1 is mounted on /data1, with its file", "mount && ls /data1",
                  contains=["/dev/da1 on /data1 (wdfs, local)", "f\n", "aged\n"], absent=["/data2", "/data9"])
        run(g, "mount -a again mounts nothing twice", "mount -a 2>/dev/null; mount | grep -c da1", status=0,
            contains=["1\n"])
        run(g, "mount by mount point from fstab after umount", "umount /data1 && mount /data1 && mount",
            contains=["/dev/da1 on /data1"])
        run(g, "umount -a unmounts the fstab file systems", "umount -a -v; mount",
            contains=["/dev/da1: unmount from /data1"], absent=["/data1 ("])
        fails(g, "a broken superblock at mount: EINVAL and a message", "mount /dev/da2 /data2", "bad superblock")
        run(g, "fsck -y cannot repair a bad superblock checksum, exit 8", "fsck -y da2; echo status $?",
            contains=["checksum mismatch", "status 8"])


def boot3():
    with Guest(disks=2, bus="scsi", disk_size="256m", timeout=120) as g:
        row = stripe(g)
    d1, d2 = g.disk_images
    out_img = g.disk_dir / "ccd0.img"
    st, out = host(DESTRIPE, "-i", 128, d1, d2, "-o", out_img)
    T.check("host: de-stripe the two images into ccd0.img", st == 0, expected="status 0", got=out)
    st, out = host(HOST_FSCK, out_img)
    T.check("host: fsck of the de-striped stripe finds it clean", st == 0 and "clean" in out,
            expected="status 0, clean", got="status %d: %s" % (st, out))
    sb = superblock(out_img)
    bk = sb["bsize"] // KB
    total = (sb["nblocks"] - sb["data_start"]) * bk
    want = (total, total - sb["free_blocks"] * bk, sb["free_blocks"] * bk,
            sb["ninodes"] - 2 - sb["free_inodes"], sb["free_inodes"])
    T.check("df -k -i's numbers for the stripe equal its superblock's (read by the host)", row == want,
            expected=want, got=row)
    os.unlink(out_img)


def boot4():
    with Guest(disks=1, bus="ahci", disk_size="64m", timeout=120) as g:
        run(g, "ahci: newfs, mount, write, umount, fsck on ada1",
            "newfs ada1 > /dev/null && mount /dev/ada1 /data1 && mount | grep ada1 && : > /data1/p && "
            "pattern write /data1/p 4m 3 && umount /data1 && fsck ada1 && mount ada1 /data1 && "
            "pattern verify /data1/p 4m 3 && umount /data1",
            contains=["/dev/ada1 on /data1 (wdfs, local)", "/dev/ada1: clean", "verified"])


def boot5():
    """sync(2) waiting for a slow disk holds up nothing elsewhere (no global lock across I/O)."""
    with Guest(disks=2, bus="scsi", disk_size="64m", throttle=1, timeout=120) as g:
        run(g, "throttled disks (1 MB/s): newfs da1 and da2, mount da1, 4 MB written to it",
            CCD_RELEASE + "newfs da1 > /dev/null && newfs da2 > /dev/null && mount da1 /data1 && mkdir -p /data2 && "
            "dd if=/dev/zero of=/data1/f bs=64k count=64 2>/dev/null", timeout=120)
        out, st = g.sh("sync & S=$!; sleep 0.5; mount da2 /data2 && ls /data1 && df /data1 > /dev/null && "
                       "echo mounted; ps | grep -c ' sync$'; wait $S; echo synced", timeout=120)
        T.check("while sync waits for da1, da2 mounts and /data1 is listed and df'd; sync is still running",
                st == 0 and "f\nlost+found\nmounted\n1\nsynced\n" in out,
                expected="f, lost+found, mounted, 1 (sync still running), synced", got=out)
        run(g, "and both unmount afterwards", "umount /data2 && umount /data1 && fsck da1 && fsck da2",
            contains=["/dev/da1: clean", "/dev/da2: clean"], timeout=120)


images = boot1()
if images:
    between_boots(images)
    boot2()
boot3()
boot4()
boot5()
T.done()
