#!/usr/bin/env python3
"""test_crash: power loss at a random moment; fsck repairs; what fsync and sync promised is there.

Each crash point (10 here, 100 under make stress; seed N replays crash N): a fresh 128 MB wdfs
(8 KB blocks) as data disk da0 beside the md0 root; `crashload -m /dev/da0 -o /dev/ttyd1 /mnt N`
in the background (its promises go to the second serial port, a file on the host) (user/bin/crashload.c: churns small files with creates, writes, renames, unlinks,
mkdir and rmdir; writes files in keep/ that it fsyncs; appends to big with an fsync every fourth
append and an occasional sync), and after a random 0.3-2.0 s SIGKILL to QEMU, which keeps only
the writes it had completed (what this test relies on and checks: every promised byte must be
there; docs/reliability.md). Configurations alternate between 1 CPU
(patched) and 2 CPUs (stable42). Then on the host:
- `fsck -n` reports only damage that docs/fs.md says a crash may leave (bitmaps, link counts
  too high, unreferenced or unlinked inodes, blocks past the end of a file, stale block counts,
  the summary and the clean flag); anything else (a name for a free inode, a block used twice,
  a bad record, a link count too low) breaks the kernel's ordering rules and fails;
- `fsck -y` repairs (status 0 or 1) and a second `fsck -n` is clean;
- every `FSYNC keep/kN L` line that reached the host before the kill: keep/kN exists with exactly
  its L bytes of pattern; every `FSYNC big L` / `SYNC big L`: big holds at least L bytes and
  its first L are the pattern (crashload's fill(), computed again in tools/crashcheck.py, which
  holds these checks for this test and tools/powercut).
At the end, one line lists the kinds of damage fsck found across the crashes (docs/fs.md).
"""
# tests/run: timeout=900
import collections
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import reltest  # noqa: E402
import crashcheck  # noqa: E402
import wdfs  # noqa: E402

IMG_SIZE = "128m"

T = TestSet("crash")
DIR = reltest.scratch("crash")
BASE = DIR / "base.img"
(DIR / "empty").mkdir()
reltest.mkfs(BASE, DIR / "empty", IMG_SIZE, 8192)
kinds = collections.Counter()


def crash_point(seed):
    rng = random.Random(seed)
    smp, design = (1, "patched") if seed % 2 else (2, "stable42")
    delay = rng.uniform(0.3, 2.0)
    d = DIR / "disk"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    shutil.copyfile(BASE, d / "d0.img")
    tag = "crash %d (smp=%d %s, after %.2f s)" % (seed, smp, design, delay)
    console = ""
    log = d / "com2.log"
    with Guest(smp=smp, design=design, disks=1, root="md", keep=True, disk_dir=d, disk_size=IMG_SIZE,
               serial2=str(log), timeout=120) as g:
        g.sh("mkdir /mnt; crashload -m /dev/da0 -o /dev/ttyd1 /mnt %d &" % seed)
        for _ in range(100):
            g.wait(0.1)
            if log.exists() and "START" in log.read_text(errors="replace"):
                break
        g.wait(delay)
        g.crash()
    console = log.read_text(errors="replace") if log.exists() else ""
    if "START" not in console:
        T.check("%s: the workload started" % tag, False, expected="START", got=console[-300:])
        return
    promises = crashcheck.parse_promises(console)
    img = d / "d0.img"
    with wdfs.Image(img) as im:
        lostfound = im.lookup("/lost+found")
    a, aout = reltest.fsck(img, "-n")
    allowed, forbidden = crashcheck.damage_kinds(aout, lostfound, skip=(DIR.as_posix(),))
    kinds.update(set(allowed))
    T.check("%s: fsck -n finds only damage a crash may leave" % tag, a in (0, 4) and not forbidden,
            expected="status 0 or 4, allowed kinds only", got="status %s, not allowed: %s" % (a, sorted(set(forbidden))))
    b, bout = reltest.fsck(img, "-y")
    c, cout = reltest.fsck(img, "-n")
    T.check("%s: fsck -y repairs, a second fsck is clean" % tag, b in (0, 1) and c == 0,
            expected="0 or 1, then 0", got="%s, %s: %s" % (b, c, cout.strip()[-300:]))
    if c == 0:
        wrong = crashcheck.verify(img, seed, promises)
        T.check("%s: all %d fsync/sync promises kept, byte for byte" % (tag, len(promises)), not wrong,
                expected="every promised byte", got="; ".join(wrong)[:600])


for seed in reltest.seeds(reltest.size(10, 100)):
    crash_point(seed)
print("crash damage fsck found (kinds, in how many crash points): %s"
      % "; ".join("%s: %d" % (k, n) for k, n in kinds.most_common()))
T.done()
