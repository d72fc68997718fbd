#!/usr/bin/env python3
"""Guest tests of FreeBSD 4's write path as e965501 made it faithful (docs/bufcache.md
"Clustering", docs/storage.md "The disk queue"), on disks served by the disk model.

Boot 1 (stable42, kern.nswbuf=4: a pool of 2 cluster headers, two scsi10k disks striped as
ccd0): a 32 MB file written with dd makes the writer sleep in wswbuf0 for a header, and no
block goes out alone for want of one: every data block is written in a cluster (the old
fallback wrote thousands of single blocks). maxbdrun follows nswbuf (4 / 4 -> at least 4).
Boot 2 (patched, one scsi10k disk with the model's trace on): with `camcontrol tags da1 -N 2`
a 1 MB raw dd (8 concurrent 128 KB requests) never puts more than 2 commands at the model
(its max_qdepth), while the guest shows the rest waiting in the disk queue; then with one
opening, eight writers at eight places on the disk at once reach the model in elevator order:
ascending offsets within a sweep, a descent only when a sweep ends (measured: 73 descents in
384 writes; with 128 openings, where the requests reach the model in the order they were
issued, 203).
tests/run: about=60
"""
import csv

from wdtest import Guest, TestSet

T = TestSet("diskqueue")
MB = 1 << 20


def sysctl_int(g, name):
    out, st = g.sh("sysctl -n %s" % name)
    try:
        return int(out.strip()) if st == 0 else None
    except ValueError:
        return None


def small_pool_boot():
    with Guest(design="stable42", args="kern.nswbuf=4", disks=2, disk_model="scsi10k", disk_size="1g",
               timeout=120) as g:
        T.check("kern.nswbuf=4 gives a pool of 2 cluster headers", sysctl_int(g, "vfs.cluster.pbufs") == 2,
                expected=2, got=sysctl_int(g, "vfs.cluster.pbufs"))
        T.check("maxbdrun follows nswbuf: max(4 / 4, 4)", sysctl_int(g, "vfs.maxbdrun") == 4,
                expected=4, got=sysctl_int(g, "vfs.maxbdrun"))
        out, st = g.sh("newfs /dev/ccd0 > /dev/null && mount /dev/ccd0 /data1", timeout=120)
        T.check("newfs and mount the stripe", st == 0, expected="status 0", got="status %d: %s" % (st, out))
        before = {n: sysctl_int(g, n) for n in ("vfs.bio.bawrites", "vfs.cluster.writes",
                                                 "vfs.cluster.write_bytes")}
        out, st = g.sh("dd if=/dev/zero of=/data1/f bs=32k count=1024 && sync", timeout=300)
        T.check("dd writes 32 MB to the stripe", st == 0 and "33554432 bytes" in out,
                expected="33554432 bytes transferred", got=out.strip())
        sleeps = sysctl_int(g, "vfs.cluster.sleeps_wswbuf0")
        T.check("the writer slept in wswbuf0 for a cluster header", sleeps is not None and sleeps > 0,
                expected="> 0", got=sleeps)
        waited = sysctl_int(g, "vfs.cluster.wswbuf0_ns")
        T.check("the time asleep in wswbuf0 is counted", waited is not None and waited > 0,
                expected="> 0 ns", got=waited)
        after = {n: sysctl_int(g, n) for n in before}
        clustered = after["vfs.cluster.write_bytes"] - before["vfs.cluster.write_bytes"]
        T.check("every data block went out in a cluster", clustered >= 32 * MB,
                expected=">= 33554432 bytes in clustered writes", got=clustered)
        alone = ((after["vfs.bio.bawrites"] - before["vfs.bio.bawrites"]) -
                 (after["vfs.cluster.writes"] - before["vfs.cluster.writes"]))
        T.check("no block written alone for want of a header (a few metadata blocks at most)",
                alone < 32, expected="< 32 single async writes (the fallback made ~4096)", got=alone)


def trace_rows(path):
    """The model's trace, in order of arrival at the model: (t_arrive, op, offset, length)."""
    with open(path, newline="") as f:
        rows = [(float(r["time_s"]), r["op"], int(r["offset"]), int(r["length"])) for r in csv.DictReader(f)]
    return sorted(rows)


def openings_boot():
    seeks = [70000, 10000, 50000, 30000, 60000, 20000, 40000, 0]
    with Guest(disks=1, disk_model="scsi10k,trace=on", disk_size="1g", timeout=120) as g:
        out, st = g.sh("camcontrol tags da1")
        T.check("camcontrol tags: the default openings are CAM's min(255, cmd_per_lun) = 128",
                st == 0 and out.strip() == "(da1): device openings: 128",
                expected="(da1): device openings: 128", got=out.strip())
        out, st = g.sh("camcontrol tags da1 -N 2")
        T.check("camcontrol tags da1 -N 2", st == 0 and "tagged openings now 2" in out,
                expected="(da1): tagged openings now 2", got=out.strip())
        out, st = g.sh("dd if=/dev/zero of=/dev/da1 bs=1m count=1 2>/dev/null && "
                       "sysctl -n kern.devstat.da1.max_queue_depth kern.devstat.da1.max_active", timeout=120)
        T.check("the guest held all 8 requests, at most 2 of them at the device",
                st == 0 and out.split() == ["8", "2"], expected="max_queue_depth 8, max_active 2",
                got=out.strip())
        out, st = g.sh("camcontrol tags da1 -q -N 1 && " +
                       " & ".join("dd if=/dev/zero of=/dev/da1 bs=4k count=48 seek=%d 2>/dev/null" % s
                                  for s in seeks) + " & wait", timeout=300)
        T.check("eight concurrent writers with one opening", st == 0, expected="status 0",
                got="status %d: %s" % (st, out.strip()))
    stats = g.disk_stats()[0]
    T.check("the model never saw more than 2 commands from da1", 0 < stats.get("max_qdepth", 99) <= 2,
            expected="max_qdepth <= 2", got=stats.get("max_qdepth"))
    writes = [off for _, op, off, length in trace_rows(g.disk_dir / "d0.trace.csv")
              if op == "W" and length == 4096]
    descents = sum(1 for a, b in zip(writes, writes[1:]) if b < a)
    T.check("the eight writers' 384 writes reached the model", len(writes) == 8 * 48,
            expected=8 * 48, got=len(writes))
    T.check("they arrived in elevator order: ascending within a sweep, a descent only per sweep",
            len(writes) > 0 and descents * 3 <= len(writes),
            expected="descents <= 1/3 of %d (measured: 73 of 384; with 128 openings, the model's own "
                     "order, 203)" % len(writes), got=descents)


small_pool_boot()
openings_boot()
T.done()
