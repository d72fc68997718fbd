#!/usr/bin/env python3
"""test_fsimages: damaged wdfs images never crash the kernel or fsck, and fsck -y repairs them.

A base image (4 KB blocks, so 4.5 MB reach the double indirect block; reltest.make_tree) is
copied and damaged by tools/wdfs-mutate, one image per seed (1..50 here, 1..1000 under
make stress; WDREL_SEEDS=17 replays one). For each, on the host: `fsck -n` ends (no crash, no
hang) with 0, 4 or 8, and not 0 when the damage is of a kind fsck must see. In the guest
(up to 16 images at a time, as data disks da0.. beside the md0 root): `fswalk -m /dev/daN /mntN`
mounts the image, lists and reads everything (ls -R, cat), writes, appends, renames, unlinks
and unmounts; the kernel must refuse the mount or answer every call, and an EIO must come with
a `wdfs: daN: ...` console line. Then on the host `fsck -y` repairs (0 or 1; 8 only if the
image could not be checked at all, and then the kernel must have refused the mount) and a
second `fsck -n` finds nothing.

Regression cases for bugs found (docs/reliability.md): a '..' that names its own directory
(rename used to spin forever, unkillable, then panic at poweroff); a crash inside rmdir (fsck
-y used to reconnect an empty directory and loop on "cannot fix"); a file whose mode became a
directory's; ls on a directory that cannot be read (exited 0).
"""
# tests/run: timeout=900 about=39
import importlib.machinery
import importlib.util
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, GuestError, TestSet  # noqa: E402
import reltest  # noqa: E402
import wdrun  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402
import wdfs  # noqa: E402

_loader = importlib.machinery.SourceFileLoader("wdfs_mutate", str(wdrun.ROOT / "tools" / "wdfs-mutate"))
mutator = importlib.util.module_from_spec(importlib.util.spec_from_loader("wdfs_mutate", _loader))
_loader.exec_module(mutator)

PER_BOOT = 16                        # virtio-scsi targets: da0..da15 with the root on md0
IMG_SIZE = "12m"
WALK_TIMEOUT = 90

T = TestSet("fsimages")
DIR = reltest.scratch("fsimages")
TREE = DIR / "tree"
FILES = reltest.make_tree(TREE)
BASE = DIR / "base.img"
reltest.mkfs(BASE, TREE, IMG_SIZE)


def new_image(name, kinds=None, seed=0, count=1):
    """A copy of the base image, damaged by `count` mutations of `kinds` (None: undamaged)."""
    path = DIR / ("%s.img" % name)
    shutil.copyfile(BASE, path)
    desc = mutator.mutate(path, seed, kinds, count) if kinds else []
    return path, desc


def boot_dir(images):
    """A folder with the images as d0.img, d1.img, ... (the harness's names for data disks)."""
    d = DIR / "boot"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    for j, img in enumerate(images):
        os.replace(img, d / ("d%d.img" % j))
    return d


def take_back(d, images):
    for j, img in enumerate(images):
        os.replace(d / ("d%d.img" % j), img)


def walk_all(images, extra=None):
    """fswalk each image in the guest, up to PER_BOOT per boot; after a guest failure the
    rest go to a new boot. Returns {image: (output, status or why the guest failed, what the
    console printed meanwhile, the disk's name)}.
    Image j is mounted on /mnt<j>; extra(g, j, img, out): more commands for it while it is
    still mounted (fswalk -k; the guest unmounts it at poweroff)."""
    results = {}
    todo = list(images)
    while todo:
        batch, todo = todo[:PER_BOOT], todo[PER_BOOT:]
        d = boot_dir(batch)
        done = 0
        try:
            with Guest(disks=len(batch), root="md", keep=True, disk_dir=d, disk_size=IMG_SIZE,
                       timeout=120) as g:
                g.sh(CCD_RELEASE + "true")
                for j, img in enumerate(batch):
                    start = len(g.console)
                    keep = "-k " if extra else ""
                    out, st = g.sh("mkdir /mnt%d; fswalk -m /dev/da%d %s/mnt%d 2>&1" % (j, j, keep, j),
                                   timeout=WALK_TIMEOUT)
                    if extra:
                        extra(g, j, img, out)
                    results[img] = (out, st, g.console[start:], "da%d" % j)
                    done = j + 1
        except GuestError as e:          # raised only without a TestSet; kept for clarity
            results[batch[done]] = ("", e, "", "")
        if done < len(batch) and batch[done] not in results:
            results[batch[done]] = ("", "the guest failed (see the FAIL guest line above)", "", "")
        take_back(d, batch)
        todo = batch[done + 1:] + todo
    return results


def eio_explained(out, console, disk):
    """Every EIO fswalk met comes with the kernel's 'wdfs: daN: ... run fsck' line."""
    return "Input/output error" not in out or ("wdfs: %s:" % disk) in console


def repair(img):
    """fsck -y, then fsck -n: (first status, second status, outputs)."""
    b, ob = reltest.fsck(img, "-y")
    c, oc = reltest.fsck(img, "-n")
    return b, c, ob + oc


# ---- regression cases -----------------------------------------------------------------------

def dotdot_self_image():
    path, _ = new_image("dotdot")
    with wdfs.Image(path, writable=True) as img:
        deep = img.lookup("/sub/deep")
        e = [x for x in img.entries(deep) if x.name == b".."][0]
        mutator.patch_record(img, e, "<I", 0, deep)
    return path


def regressions():
    loop = dotdot_self_image()
    st, out = reltest.fsck(loop, "-n")
    T.check("a '..' naming its own directory: fsck -n reports it", st == 4 and "'..' is inode" in out,
            expected="status 4, '..' is inode", got="%s: %s" % (st, out.strip()[-200:]))

    crash, _ = new_image("crash-rmdir", ["crash-rmdir"], seed=150)
    st, out = reltest.fsck(crash, "-n")
    T.check("crash inside rmdir: fsck -n would clear the directory with no blocks",
            st == 4 and "no '.' or '..': cleared" in out, expected="status 4, cleared",
            got="%s: %s" % (st, out.strip()[-300:]))
    b, c, out = repair(crash)
    with wdfs.Image(crash) as img:
        clean = img.sb["s_clean"]
    T.check("crash inside rmdir: fsck -y repairs it, a second fsck is clean, the clean flag is set",
            b == 1 and c == 0 and clean == 1 and "cannot fix" not in out,
            expected="1, then 0, s_clean 1", got="%s, %s, s_clean %s: %s" % (b, c, clean, out.strip()[-300:]))

    asdir, desc = new_image("file-as-dir", ["file-as-dir"], seed=228)
    victim = desc[0].split()[1]
    b, c, out = repair(asdir)
    with wdfs.Image(asdir) as img:
        ino = img.lookup(victim)
        data = img.read(ino) if ino else None
    T.check("a file whose mode became a directory's: fsck -y makes it a file again, data intact",
            b == 1 and c == 0 and data == FILES[victim.lstrip("/")],
            expected="1, then 0, %s unchanged" % victim, got="%s, %s: %s" % (b, c, out.strip()[-300:]))

    badrec, _ = new_image("badrec")
    with wdfs.Image(badrec, writable=True) as img:
        d1 = img.lookup("/d1")
        e = [x for x in img.entries(d1) if x.name == b"f7"][0]
        mutator.patch_record(img, e, "<H", 4, 0)

    def after_walk(g, j, img, walk_out):
        if img == loop:
            out, st = g.sh("mv /mnt%d/a /mnt%d/sub/deep/m; echo status=$?; ls /mnt%d/sub" % (j, j, j), timeout=60)
            T.check("'..' loop: mv into the looping directory fails with EIO at once",
                    "Input/output error" in out and "status=1" in out and "deep" in out,
                    expected="mv: ...: Input/output error, status=1", got=out)
            T.check("'..' loop: the console says which inode and to run fsck",
                    "'..' chain does not reach the root; run fsck" in g.console,
                    expected="wdfs: da%d: directory inode ...: '..' chain does not reach the root; run fsck" % j,
                    got=[ln for ln in g.console.splitlines() if ln.startswith("wdfs:")][-3:])
        if img == badrec:
            out, st = g.sh("ls /mnt%d/d1 2>&1 > /dev/null" % j, timeout=60)
            want = "ls: /mnt%d/d1: Input/output error" % j
            T.check("ls of a directory with a bad record exits 1 and says why", st == 1 and want in out,
                    expected="status 1, " + want, got="status %d: %s" % (st, out.strip()))

    res = walk_all([loop, badrec], extra=after_walk)
    for img, name in ((loop, "'..' loop"), (badrec, "bad record")):
        b, c, out = repair(img)
        T.check("%s: the guest powered off without a panic; fsck -y repairs, a second fsck is clean" % name,
                img in res and not isinstance(res[img][1], (str, Exception)) and b in (0, 1) and c == 0,
                expected="walked, then 0/1 and 0", got="%s; %s, %s: %s" % (res.get(img, ("", "missing"))[1], b, c,
                                                                          out.strip()[-200:]))


# ---- random damage --------------------------------------------------------------------------

def random_images(seeds):
    kinds = list(mutator.KINDS)
    cases = []
    for seed in seeds:
        count = 1 + seed % 3
        try:
            path, desc = new_image("seed%d" % seed, kinds, seed, count)
        except (wdfs.WdfsError, mutator.NotApplicable) as e:
            T.check("seed %d: the mutator applies its damage" % seed, False, expected="applied", got=str(e))
            continue
        detectable = mutator.UNDETECTABLE.isdisjoint(d.split(":")[0] for d in desc)
        a, out = reltest.fsck(path, "-n")
        cases.append((seed, path, desc, detectable, a, out))
    control, _ = new_image("control")
    res = walk_all([control] + [c[1] for c in cases])
    out, st, _, _ = res[control]
    T.check("an undamaged image: fswalk reads and changes everything without an error",
            st == 0 and " 0 errors" in out, expected="status 0, 0 errors", got="%s: %s" % (st, out.strip()[-300:]))
    for seed, path, desc, detectable, a, aout in cases:
        wout, wst, console, disk = res[path]
        b, c, rout = repair(path)
        refused = "fswalk: mount /dev/" in wout
        problems = []
        if a not in (0, 4, 8):
            problems.append("fsck -n exited %s" % a)
        if detectable and a == 0:
            problems.append("fsck -n found nothing")
        if isinstance(wst, (str, Exception)):
            problems.append("guest: %s" % wst)
        elif not eio_explained(wout, console, disk):
            problems.append("EIO without a wdfs console line")
        if a == 8 and "bad superblock" in aout and not refused:
            problems.append("the kernel mounted an image with a bad superblock")
        if a == 8 or b == 8:
            if not (a == 8 and b == 8 and c == 8):
                problems.append("uncheckable only sometimes: %s, %s, %s" % (a, b, c))
        elif b not in (0, 1) or c != 0:
            problems.append("fsck -y %s then fsck -n %s" % (b, c))
        summary = wout.strip().splitlines()[-1] if wout.strip() else "-"
        T.check("seed %d (%s): fsck -n %s, fswalk, fsck -y %s, fsck -n %s" % (seed, "; ".join(desc)[:120], a, b, c),
                not problems, expected="no crash, no hang, repaired",
                got="%s [%s] (replay: WDREL_SEEDS=%d python3 tests/guest/test_fsimages.py)\n%s"
                    % ("; ".join(problems), summary, seed, re.sub(r"\s+", " ", rout[-400:])))


regressions()
random_images(reltest.seeds(reltest.size(50, 1000)))
T.done()
