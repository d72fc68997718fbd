#!/usr/bin/env python3
"""test_diskerr: disk errors (QEMU blkdebug) during file-system use: EIO, a message, no panic.

One boot with the root file system on da0 and a ccd stripe (da1, da2, interleave 128) holding a
wdfs, both made on the host so the test knows where each file's first block lies: the root
image is build/rootfs plus /errtest/, the stripe's file system is laid over the two components
with tools/destripe --from. Errors are injected (tools/run's --inject-read-error and
--inject-write-error, QEMU's blkdebug: docs/sources.md [@qemu-blkdebug]) at the first sector of chosen
files: on the root disk, on stripe member da1 and on stripe member da2, for reads and for
writes, persistent and one-shot. For each:
- persistent read error: `cat` of the file fails with "Input/output error", the console names
  the disk and an LBA range covering the sector;
- one-shot read error: the first read either fails the same way or is retried by the driver
  (the console says so); the next read returns the file's data;
- persistent write error: rewriting the first 512 bytes of the file (`dd conv=notrunc,fsync`,
  a delayed write that fsync issues) fails with "Input/output error", the console names the
  disk; so does rewriting a whole block;
- one-shot write error: the first rewrite fails or is retried; the second succeeds and the new
  data is read back;
- a write that failed before fsync was called, whoever issued it, reaches the file's next fsync
  (docs/bufcache.md, "Write errors"), once: a 128 KB rewrite written by write(2) itself as one
  async cluster, then sync(2), whose console report names the mount; a 512-byte rewrite left
  to the syncer (kern.syncdelay=1); pages stored through a shared mapping and written by
  msync(MS_ASYNC), the pageout daemon's async VOP_PUTPAGES; and metadata, an indirect block
  written by sync(2) after an append made it dirty;
and the other file systems keep working: after all of it a file is written and read back on
the root disk and on the stripe, and the guest powers off without a panic.
"""
# tests/run: timeout=600
import importlib.machinery
import importlib.util
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import reltest  # noqa: E402
import wdfs  # noqa: E402
import wdrun  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402

_loader = importlib.machinery.SourceFileLoader("destripe", str(wdrun.ROOT / "tools" / "destripe"))
destripe = importlib.util.module_from_spec(importlib.util.spec_from_loader("destripe", _loader))
_loader.exec_module(destripe)

COMPONENT = "16m"
BS = "512"                 # the rewrite: a part of a block, a delayed write that fsync issues
ILEAVE = 128
SECTOR = 512
MSG_RE = re.compile(r"(da\d+): (READ|WRITE)\(\d+\) at LBA (\d+), (\d+) blocks: ([^\n]*)")

T = TestSet("diskerr")
DIR = reltest.scratch("diskerr")
DISKS = DIR / "disks"
DISKS.mkdir()


def files_tree(root, names):
    os.makedirs(root, exist_ok=True)
    for n in names:
        with open(os.path.join(root, n), "wb") as f:
            f.write(("%s " % n).encode() * (16384 // (len(n) + 1)))


def first_sector(img, path, lbn=0):
    with wdfs.Image(img) as im:
        return im.inode(im.lookup(path)).db[lbn] * (im.bs // SECTOR)


def indirect_sector(img, path):
    with wdfs.Image(img) as im:
        return im.inode(im.lookup(path)).ib[0] * (im.bs // SECTOR)


def big_file(path, size):
    with open(path, "wb") as f:
        f.write(b"big " * (size // 4))


# The root image: the usual tree plus /errtest/{r1,r2,w1,w2}.
ROOTTREE = DIR / "rootfs"
shutil.copytree(wdrun.BUILD / "rootfs", ROOTTREE, symlinks=False)
files_tree(ROOTTREE / "errtest", ["r1", "r2", "w1", "w2", "w3", "d1"])
big_file(ROOTTREE / "errtest" / "c1", 256 << 10)     # 32 blocks: a cluster of 16 fits in it
big_file(ROOTTREE / "errtest" / "m1", 1 << 20)       # mapped in full by mapwrite -e
big_file(ROOTTREE / "errtest" / "ind", 13 * 8192)    # block 12 is the indirect block's first
ROOTIMG = DIR / "root.img"
reltest.mkfs(ROOTIMG, ROOTTREE, "48m", 8192)

# The stripe's file system: files s0..s15; pick which lie on which member.
STREE = DIR / "stripe"
files_tree(STREE, ["s%d" % i for i in range(16)])
SIMG = DIR / "stripe.img"
reltest.mkfs(SIMG, STREE, "28m", 8192)
for j in range(2):
    reltest.run(["qemu-img", "create", "-q", "-f", "raw", DISKS / ("d%d.img" % j), COMPONENT])
st, out = reltest.run([wdrun.ROOT / "tools" / "destripe", "-i", ILEAVE, DISKS / "d0.img", DISKS / "d1.img",
                       "--from", SIMG])
T.check("host: the stripe's file system laid over da1 and da2", st == 0, expected="status 0", got=out)
layout = destripe.Layout([os.path.getsize(DISKS / ("d%d.img" % j)) // SECTOR for j in range(2)], ILEAVE, False)
on_member = {0: [], 1: []}
for i in range(16):
    disk, csec, _ = next(layout.runs(first_sector(SIMG, "/s%d" % i), 1))
    on_member[disk].append(("s%d" % i, csec))

# (where, file in the guest, disk unit, sector, read or write, once)
CASES = [("root disk", "/errtest/r1", 0, first_sector(ROOTIMG, "/errtest/r1"), "read", False),
         ("root disk", "/errtest/r2", 0, first_sector(ROOTIMG, "/errtest/r2"), "read", True),
         ("root disk", "/errtest/w1", 0, first_sector(ROOTIMG, "/errtest/w1"), "write", False),
         ("root disk", "/errtest/w2", 0, first_sector(ROOTIMG, "/errtest/w2"), "write", True),
         ("root disk", "/errtest/w3", 0, first_sector(ROOTIMG, "/errtest/w3"), "write-block", False)]
for member in (0, 1):
    (ra, sa), (rb, sb), (wa, swa), (wb, swb), (wc, swc) = on_member[member][:5]
    unit = member + 1
    where = "stripe member da%d" % unit
    CASES += [(where, "/mnt/" + ra, unit, sa, "read", False), (where, "/mnt/" + rb, unit, sb, "read", True),
              (where, "/mnt/" + wa, unit, swa, "write", False), (where, "/mnt/" + wb, unit, swb, "write", True),
              (where, "/mnt/" + wc, unit, swc, "write-block", False)]
# Failed writes that fsync must report though someone else issued them (persistent errors on the
# root disk; run after CASES, the metadata one last: it makes every file's next fsync fail once).
EARLIER = [("a 128 KB rewrite, one async cluster, then sync(2)", "/errtest/c1",
            first_sector(ROOTIMG, "/errtest/c1", 3),
            "dd if=/dev/zero of=/errtest/c1 bs=128k count=1 conv=notrunc 2>&1 && sync"),
           ("a 512-byte rewrite the syncer writes", "/errtest/d1", first_sector(ROOTIMG, "/errtest/d1"),
            "sysctl kern.syncdelay=1 > /dev/null && dd if=/dev/zero of=/errtest/d1 bs=512 count=1 conv=notrunc "
            "2>&1 && sleep 3; sysctl kern.syncdelay=30 > /dev/null"),
           ("pages stored through a mapping, msync(MS_ASYNC) (the pageout daemon's putpages)", "/errtest/m1",
            first_sector(ROOTIMG, "/errtest/m1"), "mapwrite -e -a /errtest/m1 1 && sync"),
           ("an append that dirties the indirect block, which sync(2) writes", "/errtest/ind",
            indirect_sector(ROOTIMG, "/errtest/ind"),
            "dd if=/dev/zero of=/errtest/ind bs=8k seek=13 count=1 conv=notrunc 2>&1 && sync")]
inject = ["%d:%d%s" % (u, s, ":once" if once else "") for _, _, u, s, op, once in CASES if op != "read"]
inject += ["0:%d" % sector for _, _, sector, _ in EARLIER]
inject_read = ["%d:%d%s" % (u, s, ":once" if once else "") for _, _, u, s, op, once in CASES if op == "read"]


def named(console, disk, sector, op, final=False):
    """The console's line for an error on `disk` in an LBA range covering `sector` (with final,
    the driver's last word, "giving up"), or None."""
    for m in MSG_RE.finditer(console):
        if (m.group(1) == disk and m.group(2) == op.upper() and int(m.group(3)) <= sector < int(m.group(3)) +
                int(m.group(4)) and (not final or "giving up" in m.group(5))):
            return m.group(0)
    return None


def read_case(g, where, path, disk, sector, once):
    tag = "%s, %s read error at sector %d (%s)" % (where, "one-shot" if once else "persistent", sector, path)
    start = len(g.console)
    out, st = g.sh("cat %s > /dev/null" % path)
    msg = named(g.console[start:], disk, sector, "read", final=not once)
    if not once:
        T.check("%s: cat fails with EIO" % tag, st != 0 and "Input/output error" in out,
                expected="Input/output error", got="status %d: %s" % (st, out.strip()))
        T.check("%s: the console names %s and the block" % (tag, disk), msg is not None and "EIO" in msg,
                expected="%s: READ(..) at LBA <= %d ... giving up: EIO" % (disk, sector), got=g.console[start:][-300:])
        return
    T.check("%s: the first read fails with EIO or is retried, and the console says so" % tag,
            msg is not None and (st != 0 and "Input/output error" in out or st == 0 and "retrying" in msg),
            expected="EIO, or a retry on the console", got="status %d: %s; console: %s" % (st, out.strip(), msg))
    out, st = g.sh("dd if=%s bs=3 count=1 2>/dev/null" % path)
    want = (os.path.basename(path) + " ")[:3]
    T.check("%s: the next read returns the data" % tag, st == 0 and out.endswith(want),
            expected=want, got="status %d: %s" % (st, out))


def write_block_case(g, where, path, disk, sector, once):
    """A whole block: write(2) sends it at once as an async write; fsync must still report its failure."""
    tag = "%s, persistent write error at sector %d (%s), a whole block" % (where, sector, path)
    out, st = g.sh("dd if=/dev/zero of=%s bs=8k count=1 conv=notrunc,fsync 2>&1" % path)
    T.check("%s: fsync reports the failed write (EIO)" % tag, st != 0 and "Input/output error" in out,
            expected="dd: ...: Input/output error", got="status %d: %s" % (st, out.strip()[-300:]))


def earlier_case(g, what, path, sector, cmd):
    """cmd makes a write of `path` that fails (at `sector`) and waits for it; the file's next
    fsync (a dd that writes nothing) must say EIO, the one after it 0 (reported once)."""
    tag = "root disk, write error at sector %d: %s (%s)" % (sector, what, path)
    start = len(g.console)
    out, st = g.sh(cmd)
    console = g.console[start:]
    T.check("%s: the write is issued and fails before fsync is called" % tag,
            named(console, "da0", sector, "write", final=True) is not None and "vfs_bio: write error" in console,
            expected="da0: WRITE(..) ... giving up: EIO; vfs_bio: write error ...",
            got="status %d: %s; console: %s" % (st, out.strip()[-200:], console[-400:]))
    fsync = "dd if=/dev/null of=%s conv=notrunc,fsync 2>&1" % path
    out, st = g.sh(fsync)
    T.check("%s: the next fsync of the file reports it (EIO)" % tag, st != 0 and "Input/output error" in out,
            expected="dd: ...: Input/output error", got="status %d: %s" % (st, out.strip()[-300:]))
    out, st = g.sh(fsync)
    T.check("%s: the fsync after that returns 0 (each failure is reported once)" % tag, st == 0,
            expected="status 0", got="status %d: %s" % (st, out.strip()[-300:]))
    return console


def write_case(g, where, path, disk, sector, once):
    tag = "%s, %s write error at sector %d (%s)" % (where, "one-shot" if once else "persistent", sector, path)
    dd = "dd if=/dev/zero of=%s bs=%s count=1 conv=notrunc,fsync" % (path, BS)
    start = len(g.console)
    out, st = g.sh(dd + " 2>&1")
    msg = named(g.console[start:], disk, sector, "write", final=not once)
    if not once:
        T.check("%s: the rewrite fails with EIO (from fsync)" % tag, st != 0 and "Input/output error" in out,
                expected="dd: ...: Input/output error", got="status %d: %s" % (st, out.strip()))
        T.check("%s: the console names %s and the block" % (tag, disk), msg is not None and "EIO" in msg,
                expected="%s: WRITE(..) at LBA <= %d ... giving up: EIO" % (disk, sector), got=g.console[start:][-300:])
        return
    T.check("%s: the first rewrite fails with EIO or is retried, and the console says so" % tag,
            msg is not None and (st != 0 and "Input/output error" in out or st == 0 and "retrying" in msg),
            expected="EIO, or a retry on the console", got="status %d: %s; console: %s" % (st, out.strip(), msg))
    out, st = g.sh(dd + " 2>/dev/null && dd if=%s bs=%s count=1 2>/dev/null | grep -c %s"
                   % (path, BS, os.path.basename(path)))
    T.check("%s: the second rewrite succeeds; it reads back as zeros" % tag, out.strip().splitlines()[-1:] == ["0"],
            expected="0 lines with the old text in the rewritten part", got="status %d: %s" % (st, out.strip()[-200:]))


shutil.copyfile(ROOTIMG, DISKS / "root.img")
with Guest(disks=2, keep=True, disk_dir=DISKS, disk_size=COMPONENT, inject=inject, inject_read=inject_read,
           timeout=120) as g:
    out, st = g.sh(CCD_RELEASE + "ccdconfig ccd0 %d none /dev/da1 /dev/da2 && mkdir /mnt && mount /dev/ccd0 /mnt && ls /mnt | wc -l"
                   % ILEAVE)
    T.check("the stripe's file system mounts", st == 0 and out.split()[-1:] == ["17"],
            expected="17 names (with lost+found)", got="status %d: %s" % (st, out.strip()))
    for where, path, unit, sector, op, once in CASES:
        {"read": read_case, "write": write_case, "write-block": write_block_case}[op](g, where, path, "da%d" % unit,
                                                                                     sector, once)
    consoles = [earlier_case(g, *case) for case in EARLIER]
    T.check("sync(2) reports the failed write on the console, naming the mount",
            re.search(r"sync: \S+ on /: \d+ writes? failed since the last report; .* run fsck", consoles[0])
            is not None, expected="sync: da0 on /: N writes failed since the last report; ... run fsck",
            got=consoles[0][-400:])
    out, st = g.sh("echo root-ok > /tmp/after && cat /tmp/after && echo stripe-ok > /mnt/after && cat /mnt/after "
                   "&& dd if=/mnt/%s bs=3 count=1 2>/dev/null" % on_member[0][6][0])
    T.check("after the errors both file systems still read and write", st == 0 and
            out.startswith("root-ok\nstripe-ok\n") and out.endswith((on_member[0][6][0] + " ")[:3]),
            expected="root-ok, stripe-ok, the data of an untouched file", got="status %d: %s" % (st, out))
    out, st = g.sh("umount /mnt && ccdconfig -u ccd0")
    T.check("the stripe unmounts and unconfigures", st == 0, expected="status 0", got="status %d: %s" % (st, out))
T.done()
