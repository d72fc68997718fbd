#!/usr/bin/env python3
"""test_fsx: the file-system exerciser (user/bin/fsx.c) on the root disk and on a ccd stripe.

One boot with 2 CPUs: the root file system on da0, and a 28 MB wdfs made on the host (mkfs) and
laid over two 16 MB disks as ccd(4) would (tools/destripe --from), configured in the guest as
`ccd0 128 none /dev/da1 /dev/da2`. For each seed (1 here, 1..5 under make stress), two fsx
runs at the same time, one on /tmp (the root disk) and one on the stripe (fsx -m mounts it):
random reads, writes past the end, truncations, fsyncs, reopens and whole-file checks, 10,000
operations each here (20,000 per seed under make stress, 100,000 in
all), each read checked against fsx's copy in memory. Every run must end with "all reads
matched"; on a mismatch fsx prints the operations that led there (replay: fsx -S SEED). Then,
after power-off, the stripe is de-striped on the host and fsck finds it clean.

fsx's mmap reads and writes are on (MMAP below is empty; "-M" would turn them off): mmap(2)
and read/write(2) see one copy of a file's pages (VMIO, docs/bufcache.md), and fsx checks it.
"""
# tests/run: timeout=900 about=46
import importlib.machinery
import importlib.util
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import reltest  # noqa: E402
import wdrun  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402

OPS = reltest.size(10000, 20000)
SEEDS = reltest.seeds(reltest.size(1, 5))
COMPONENT = "16m"
DESTRIPE = wdrun.ROOT / "tools" / "destripe"

MMAP = ""                         # fsx's -M would turn its mmap operations off

T = TestSet("fsx")
DIR = reltest.scratch("fsx")
DISKS = DIR / "disks"
DISKS.mkdir()
(DIR / "empty").mkdir()
FS = DIR / "stripe-fs.img"
reltest.mkfs(FS, DIR / "empty", "28m", 8192)
for j in range(2):
    st, out = reltest.run(["qemu-img", "create", "-q", "-f", "raw", DISKS / ("d%d.img" % j), COMPONENT])
    if st != 0:
        raise RuntimeError(out)
st, out = reltest.run([DESTRIPE, "-i", "128", DISKS / "d0.img", DISKS / "d1.img", "--from", FS])
T.check("host: a wdfs image striped over the two components", st == 0, expected="status 0", got=out)

with Guest(smp=2, disks=2, keep=True, disk_dir=DISKS, disk_size=COMPONENT, timeout=120) as g:
    out, st = g.sh(CCD_RELEASE + "ccdconfig ccd0 128 none /dev/da1 /dev/da2 && mkdir /mnt")
    T.check("ccdconfig ccd0 128 none /dev/da1 /dev/da2", st == 0, expected="status 0", got=out)
    for seed in SEEDS:
        cmd = ("fsx %s -N %d -S %d /tmp/fsx.root > /tmp/fsx.root.log & p=$!; fsx %s -N %d -S %d -m /dev/ccd0 "
               "/mnt/fsx.stripe > /tmp/fsx.stripe.log; echo stripe=$?; wait $p; echo root=$?; "
               "cat /tmp/fsx.root.log /tmp/fsx.stripe.log" % (MMAP, OPS, seed, MMAP, OPS, seed + 1000))
        out, st = g.sh(cmd, timeout=reltest.size(600, 1800))
        for line in out.splitlines():
            if "all reads matched" in line:
                print("seed %d: %s" % (seed, line))
        for where, status in (("root disk", "root=0"), ("ccd stripe", "stripe=0")):
            T.check("seed %d: fsx, %d operations on the %s: all reads matched" % (seed, OPS, where),
                    status in out and out.count("all reads matched") == 2,
                    expected="%s and 'all reads matched' twice" % status, got=out.strip()[-1500:])
    out, st = g.sh("ccdconfig -u ccd0")
    T.check("ccdconfig -u ccd0 after the runs", st == 0, expected="status 0", got=out)

st, out = reltest.run([DESTRIPE, "-i", "128", DISKS / "d0.img", DISKS / "d1.img", "-o", DIR / "after.img"])
st, out = reltest.fsck(DIR / "after.img", "-n")
T.check("host: the de-striped file system is clean after the runs", st == 0, expected="fsck status 0", got=out)
T.done()
