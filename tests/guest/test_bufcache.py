#!/usr/bin/env python3
"""test_bufcache: the buffer cache end to end on a ccd stripe (docs/bufcache.md).

Four configurations, both presets on 1 and on 2 CPUs, each a 32 MB guest with a ccd
stripe of two 128 MB disks (interleave 1024 sectors, 512 KB: wide enough that a 128 KB cluster
is seldom cut in two, so the components' request sizes show the clusters; the seed's 64 KB
interleave cuts every cluster, docs/bufcache.md "Measurements"), each disk throttled to 30 MB/s
(so that a write is still in flight when its writer looks at runningbufspace: unthrottled, QEMU
completes a 128 KB write within microseconds, and on a slow host the completion can beat the
check every time), newfs'd and mounted on /data1
in the guest. Boot 1:
- `pattern write` of a file of 4x RAM (128 MB), under `sampler` taking vfs.runningbufspace every
  10 ms: in the patched design no sample exceeds hirunningspace + one 128 KB cluster;
- it went through delayed writes and clusters: vfs.bio.bdwrites and vfs.cluster.writes moved, and
  the average write request on each component (kern.devstat) is at least 64 KB;
- the design switch at run time takes effect: after `sysctl vfs.bufdaemon_design=<the other>`,
  with hirunningspace below one cluster and hidirtybuffers at 20 (so that each design's own
  work is sure to happen in a 16 MB dd), the dd moves the counters only the chosen design's work
  moves and not the old one's: runningbuf's wdrain sleeps (only its async writes and its daemon
  call waitrunningbufspace), speedup's bd_flushto adjustments (speedup_faster/slower: a round
  that ends, woken at the dirty midpoint or after its interval);
- two writers and one reader at once (two 16 MB pattern files written while the 128 MB file is
  read back and verified), then both files verified;
- sync; a file written and fsync'd (`dd conv=fsync`), and QEMU killed with SIGKILL at once.
On the host: the components are de-striped (tools/destripe), fsck repairs what the kill left
(status 0 or 1, then a second fsck is clean), and the 128 MB file, the two others and the fsync'd
file are byte for byte the pattern. Boot 2 (a reboot on the same disks): the stripe is mounted
again and the 128 MB file read back and verified in the guest; then a 64 MB write is killed in
the middle (SIGKILL), and on the host fsck repairs it to a consistent state with the earlier
files intact. (The kill after boot 1 is also repaired by the guest's own fsck -y at boot 2.)
"""
# tests/run: timeout=900 about=150
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet, pattern, sampled  # noqa: E402
import reltest  # noqa: E402
import wdfs  # noqa: E402
import wdrun  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402

DESTRIPE = wdrun.ROOT / "tools" / "destripe"

MEM = 32
BIG = 4 * MEM << 20                 # the 4x RAM file
SMALL = 16 << 20                    # the two concurrent writers' files
FSYNCD = 4 << 20                    # the file fsync'd before the kill
ILEAVE = 1024                       # sectors
COMPONENT = "128m"
THROTTLE = 30                       # MB/s per component; QEMU lets a burst of 3 MB through first
CLUSTER = 128 * 1024
CONFIGS = [("patched", 1), ("stable42", 2), ("stable42", 1), ("patched", 2)]
# The counters only each design's own work moves (a loop counter moves as soon as a loop starts).
DISTINCT = {"runningbuf": ["vfs.bufdaemon.sleeps_wdrain"],
            "speedup": ["vfs.bufdaemon.speedup_faster", "vfs.bufdaemon.speedup_slower"]}
# For the switch's 16 MB dd (past the throttle's 3 MB burst on each disk): an async 128 KB cluster is above hirunningspace, so under runningbuf every
# one waits in wdrain; one 16-block run dirties more than the lo/hi midpoint (12), so under
# speedup the daemon is woken early and lowers bd_flushto. The order keeps lo < hi at each step.
SWITCH_TUNABLES = [("vfs.lodirtybuffers", 4), ("vfs.hidirtybuffers", 20),
                   ("vfs.lorunningspace", 32768), ("vfs.hirunningspace", 65536)]
OTHER = {"runningbuf": "speedup", "speedup": "runningbuf"}
PRESET = {"patched": "runningbuf", "stable42": "speedup"}
FILES = {"/big": (BIG, 1), "/w1": (SMALL, 2), "/w2": (SMALL, 3), "/synced": (FSYNCD, 7)}

T = TestSet("bufcache")


def expected(size, seed):
    """pattern(1)'s bytes for a file of `size` bytes: the same function of offset and seed as on a disk."""
    return pattern(seed, 0, size)



def host_check(tag, disks, files, when):
    """De-stripe, fsck -y then -n, and check the files byte for byte: what the guest left."""
    img = disks / "stripe.img"
    st, out = reltest.run([DESTRIPE, "-i", str(ILEAVE), disks / "d0.img", disks / "d1.img", "-o", img])
    T.check("%s: host: the components de-striped (%s)" % (tag, when), st == 0, expected="status 0", got=out)
    a, aout = reltest.fsck(img, "-y")
    b, bout = reltest.fsck(img, "-n")
    T.check("%s: host: fsck -y repairs what %s left, a second fsck -n is clean" % (tag, when),
            a in (0, 1) and b == 0, expected="0 or 1, then 0", got="%s, %s: %s" % (a, b, (aout + bout)[-400:]))
    if b == 0:
        wrong = []
        with wdfs.Image(img) as im:
            for name in files:
                size, seed = FILES[name]
                ino = im.lookup(name)
                data = im.read(ino, limit=size + 1) if ino else None
                if data != expected(size, seed):
                    wrong.append("%s: %s" % (name, "missing" if data is None else "%d bytes, not the pattern" % len(data)))
        T.check("%s: host: %s hold their pattern byte for byte (%s)" % (tag, ", ".join(files), when), not wrong,
                expected="every byte", got="; ".join(wrong))
    img.unlink()


def boot1(g, tag, design):
    prefix = "%s: boot 1" % tag
    out, st = g.sh(CCD_RELEASE + "ccdconfig ccd0 %d none /dev/da1 /dev/da2 && newfs /dev/ccd0 > /dev/null && "
                   "mount /dev/ccd0 /data1 && sysctl -n vfs.bufdaemon_design" % ILEAVE, timeout=120)
    T.check("%s: ccdconfig, newfs and mount of the stripe; the preset's design" % prefix,
            st == 0 and out.split()[-1:] == [PRESET[design]], expected="status 0, %s" % PRESET[design], got=out)
    names = ["vfs.bio.bdwrites", "vfs.cluster.writes", "vfs.hirunningspace",
             "kern.devstat.da1.writes", "kern.devstat.da1.bytes_written",
             "kern.devstat.da2.writes", "kern.devstat.da2.bytes_written"]
    before = g.sysctl_ints(names)
    out, st = g.sh("sampler -i 10 -s vfs.runningbufspace -o /tmp/rb.csv pattern write /data1/big %d 1 && "
                   "cat /tmp/rb.csv" % BIG, timeout=300)
    after = g.sysctl_ints(names)
    T.check("%s: pattern write of a 4x RAM file (%d MB) through the file system" % (prefix, BIG >> 20),
            st == 0 and before is not None and after is not None, expected="status 0", got=out[-300:])
    if before is None or after is None:
        return
    d = {k: after[k] - before[k] for k in names}
    T.check("%s: the write went through delayed writes and clusters (bdwrites, cluster writes moved)" % prefix,
            d["vfs.bio.bdwrites"] > 0 and d["vfs.cluster.writes"] > 0, expected="both > 0",
            got="bdwrites +%d, cluster writes +%d" % (d["vfs.bio.bdwrites"], d["vfs.cluster.writes"]))
    for c in ("da1", "da2"):
        n, b = d["kern.devstat.%s.writes" % c], d["kern.devstat.%s.bytes_written" % c]
        T.check("%s: average write request on component %s >= 64 KB" % (prefix, c), n > 0 and b / n >= 65536,
                expected=">= 65536 bytes", got="%d writes, %d bytes: %.0f" % (n, b, b / n if n else 0))
    samples = sampled(out, "vfs.runningbufspace")
    peak = max(samples or [0])
    limit = after["vfs.hirunningspace"] + CLUSTER
    if design == "patched":
        T.check("%s: runningbuf design: no sample of vfs.runningbufspace above hirunningspace + one cluster"
                % prefix, len(samples) >= 20 and 0 < peak <= limit,
                expected="20+ samples, 0 < max <= %d" % limit, got="%d samples, max %d" % (len(samples), peak))
    else:
        print("%s: vfs.runningbufspace in the speedup design: %d samples, max %d (hirunningspace + one cluster: %d)"
              % (prefix, len(samples), peak, limit))

    # The switch takes effect at the daemon's next loop: the old design may still work until
    # then (the second before `mid`), never after.
    chosen, old = OTHER[PRESET[design]], PRESET[design]
    counters = DISTINCT[chosen] + DISTINCT[old]
    saved = g.sysctl_ints([name for name, _ in SWITCH_TUNABLES])
    out, st = g.sh("sysctl vfs.bufdaemon_design=%s; sleep 1" % chosen)
    mid = g.sysctl_ints(counters)
    tout, tst = g.sh("sysctl %s > /dev/null && dd if=/dev/zero of=/data1/switch bs=64k count=256 2>/dev/null "
                     "&& sleep 2" % " ".join("%s=%d" % t for t in SWITCH_TUNABLES))
    end = g.sysctl_ints(counters)
    ok = st == 0 and tst == 0 and None not in (saved, mid, end)
    moved = {name: end[name] - mid[name] for name in counters} if ok else None
    T.check("%s: vfs.bufdaemon_design=%s at run time: a dd moves %s and not %s"
            % (prefix, chosen, "/".join(DISTINCT[chosen]), "/".join(DISTINCT[old])),
            ok and sum(moved[n] for n in DISTINCT[chosen]) > 0 and sum(moved[n] for n in DISTINCT[old]) == 0,
            expected="%s up, %s still after the switch" % (chosen, old),
            got="%s; tunables and dd: status %s %s; moved after the switch %s (at the switch %s)"
            % (out.strip(), tst, tout.strip(), moved, mid))
    if saved is not None:
        g.sh("sysctl %s > /dev/null" % " ".join("%s=%d" % (n, saved[n]) for n, _ in reversed(SWITCH_TUNABLES)))
    g.sh("sysctl vfs.bufdaemon_design=%s; rm /data1/switch" % PRESET[design])

    out, st = g.sh("pattern write /data1/w1 %d 2 & a=$!; pattern write /data1/w2 %d 3 & b=$!; "
                   "pattern verify /data1/big %d 1; r=$?; wait $a; x=$?; wait $b; y=$?; "
                   "echo reader=$r writers=$x,$y" % (SMALL, SMALL, BIG), timeout=300)
    T.check("%s: two writers and one reader at once (the reader verifies the 4x RAM file)" % prefix,
            "reader=0 writers=0,0" in out, expected="reader=0 writers=0,0", got=out[-300:])
    out, st = g.sh("pattern verify /data1/w1 %d 2 && pattern verify /data1/w2 %d 3" % (SMALL, SMALL), timeout=120)
    T.check("%s: both writers' files read back right" % prefix, st == 0, expected="status 0", got=out[-300:])
    out, st = g.sh("sync; pattern write /tmp/p %d 7 && dd if=/tmp/p of=/data1/synced bs=64k conv=fsync "
                   "2>/dev/null && echo FSYNCED" % FSYNCD, timeout=120)
    T.check("%s: a file written and fsync'd (dd conv=fsync)" % prefix, "FSYNCED" in out,
            expected="FSYNCED", got=out[-300:])
    g.crash()


def boot2(g, tag):
    prefix = "%s: boot 2" % tag
    out, st = g.sh(CCD_RELEASE + "ccdconfig ccd0 %d none /dev/da1 /dev/da2 && fsck -y /dev/ccd0 > /tmp/fsck.log; "
                   "echo fsck=$?" % ILEAVE, timeout=120)
    T.check("%s: the guest's fsck -y repairs what the kill left on the stripe" % prefix,
            re.search(r"fsck=[01]\b", out) is not None, expected="fsck=0 or 1", got=out[-300:])
    out, st = g.sh("mount /dev/ccd0 /data1 && pattern verify /data1/big %d 1 && echo VERIFIED" % BIG, timeout=300)
    T.check("%s: after the reboot the 4x RAM file reads back right" % prefix, "VERIFIED" in out,
            expected="VERIFIED", got=out[-300:])
    names = ["vfs.cluster.writes", "vfs.bio.bawrites"]
    out, st = g.sh("umount /data1 && mount -o noclusterw /dev/ccd0 /data1 && mount | grep ccd0")
    before = g.sysctl_ints(names)
    g.sh("dd if=/dev/zero of=/data1/nocl bs=64k count=32 2>/dev/null; rm /data1/nocl")
    after = g.sysctl_ints(names)
    d = {k: after[k] - before[k] for k in names} if before and after else {}
    T.check("%s: on a noclusterw mount each full block is bawrite'n alone (no cluster)" % prefix,
            "noclusterw" in out and d and d["vfs.cluster.writes"] == 0 and d["vfs.bio.bawrites"] >= 256,
            expected="listed noclusterw; clusters +0, bawrites +256 or more", got="%s %s" % (out.strip(), d))
    g.sh("pattern write /data1/huge 64m 9 &")
    g.wait(1.5)
    g.crash()


for design, smp in CONFIGS:
    tag = "%s smp=%d" % (design, smp)
    disks = reltest.scratch("bufcache-%s" % design)
    for j in range(2):
        st, out = reltest.run(["qemu-img", "create", "-q", "-f", "raw", disks / ("d%d.img" % j), COMPONENT])
        if st != 0:
            raise RuntimeError(out)
    with Guest(mem=MEM, smp=smp, design=design, disks=2, keep=True, disk_dir=disks, disk_size=COMPONENT,
               throttle=THROTTLE, timeout=120) as g:
        boot1(g, tag, design)
    host_check(tag, disks, list(FILES), "the kill after fsync")
    with Guest(mem=MEM, smp=smp, design=design, disks=2, keep=True, disk_dir=disks, disk_size=COMPONENT,
               throttle=THROTTLE, timeout=120) as g:
        boot2(g, tag)
    host_check(tag, disks, list(FILES), "the kill in the middle of a 64 MB write")
T.done()
