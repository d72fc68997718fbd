#!/usr/bin/env python3
"""test_syncfirst: the syncfirst buf_daemon design in the guest (docs/bufcache.md "The syncfirst
design"), on the drives it was designed for.

One boot of the syncfirst preset, 128 MB, the seed's stripe (ccd0, which /etc/ccd.conf makes at
boot) over two modelled scsi10k disks, newfs'd on /data1:
- the preset: kern.design, vfs.bufdaemon_design and vm.pageout_design; the tunables
  vfs.syncfirst.{target_ms,maxdepth,mindepth} at their defaults; every disk (ccd0 too) has its
  vfs.syncfirst.<disk>.{depth,cuts,raises} and kern.devstat.<disk>.{syncs,sync_ns};
- the dd alone (64 MB under the sampler, the components' depth and queues every 20 ms): the
  depth stays at maxdepth in every sample and is never cut, though the dd waits for its own
  indirect blocks (synchronous requests are counted at both components), and the drive never
  holds more than the depth plus the synchronous requests (active <= maxdepth + 2);
- the same dd at maxdepth 4, which it surely exceeds: the writes beyond the depth wait in the
  host queue (waiting > 0) and the drive holds at most 4 + 2;
- a synchronous writer beside the dd (latprobe -w: create, write 512 bytes, fsync, every 50 ms)
  with a target of 2 ms, which every synchronous write misses: the depth is cut (the cuts
  counter moves). The file system's cache flushes are turned off for it (vfs.wdfs.ordered_flush
  and fsync_flush 0; these drives have no write cache, so nothing is lost): a flush is a
  synchronous request too, and on a drive without a write cache it is answered at once, beside
  the writes, so a window with one seldom looks bad (the design judges a window by its fastest
  synchronous request, docs/experiments.md "What `syncfirst` does"); with them on, the test saw
  no cut at all once a flush of the stripe stopped costing its process 80 ms of CPU
  (kernel/dev/ccd_map.c ccd_map_share) and the writer sent more of them. Once only writes are
  seen again (a second dd alone, 128 MB, up to three times on a slow host, the target back at
  20 ms), the depth comes back to maxdepth (the raises counter moves);
- the negative control: the same synchronous writer beside the dd under perdevice (switched at
  run time, vfs.bufdaemon_design=perdevice) cuts nothing; switched back, every disk starts again
  at maxdepth;
- bad input is refused with an error, not a panic: target_ms 0, maxdepth 300, mindepth 0, a
  mindepth above maxdepth, a disk's depth (read-only).
"""
# tests/run: timeout=600 about=70
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet, moved, sampled  # noqa: E402

COMPONENTS = ("da1", "da2")
SF = "vfs.syncfirst."
MAXDEPTH = 32                       # vfs.syncfirst.maxdepth's default
SHALLOW = 4                         # a depth the dd alone surely exceeds
DEV = "kern.devstat."
MB = 1 << 20

T = TestSet("syncfirst")


def counters(g, names):
    return g.sysctl_ints(names)


def check_preset(g):
    out, st = g.sh("sysctl -n kern.design vfs.bufdaemon_design vm.pageout_design")
    T.check("the syncfirst preset: kern.design, vfs.bufdaemon_design, vm.pageout_design",
            out.split() == ["syncfirst", "syncfirst", "onepass"], expected="syncfirst syncfirst onepass", got=out)
    v = counters(g, [SF + "target_ms", SF + "maxdepth", SF + "mindepth"])
    T.check("the tunables at their defaults: target_ms 20, maxdepth %d, mindepth 2" % MAXDEPTH,
            v is not None and [v[SF + n] for n in ("target_ms", "maxdepth", "mindepth")] == [20, MAXDEPTH, 2],
            expected="20 %d 2" % MAXDEPTH, got=v)
    out, st = g.sh("sysctl vfs.syncfirst kern.devstat")
    names = {line.split(":")[0] for line in out.splitlines()}
    want = {SF + d + "." + f for d in ("da0", "da1", "da2", "ccd0") for f in ("depth", "cuts", "raises")}
    want |= {DEV + d + "." + f for d in ("da0", "da1", "da2", "ccd0") for f in ("syncs", "sync_ns")}
    T.check("every disk has its vfs.syncfirst.<disk>.* and kern.devstat.<disk>.syncs, sync_ns",
            want <= names, expected="all of them", got=sorted(want - names) or "all")


def sampled_dd(g, path):
    """A 64 MB dd under the sampler (every 20 ms): (status, [sample dicts])."""
    cols = [SF + d + ".depth" for d in COMPONENTS] + [DEV + d + "." + f for d in COMPONENTS
                                                      for f in ("waiting", "active")]
    out, st = g.sh("sampler -i 20 -s %s -o /tmp/sf.csv dd if=/dev/zero of=%s bs=32k count=2048 && cat /tmp/sf.csv; "
                   "rm -f /tmp/sf.csv" % (",".join(cols), path), timeout=300)
    values = {c: sampled(out, c) for c in cols}
    return st, [{c: values[c][i] for c in cols} for i in range(min(len(v) for v in values.values()))]


def check_alone(g):
    names = [SF + d + "." + f for d in COMPONENTS for f in ("cuts", "raises")] + \
            [DEV + d + ".syncs" for d in COMPONENTS]
    before = counters(g, names)
    st, samples = sampled_dd(g, "/data1/alone")
    d = moved(before, counters(g, names))
    T.check("the dd alone: 64 MB under the sampler", st == 0 and len(samples) >= 10 and d is not None,
            expected="status 0, 10+ samples", got="status %d, %d samples" % (st, len(samples)))
    if d is None or not samples:
        return
    depths = {c: sorted({s[SF + c + ".depth"] for s in samples}) for c in COMPONENTS}
    T.check("the dd alone: the depth stays at maxdepth (%d) in every sample, and is never cut" % MAXDEPTH,
            all(v == [MAXDEPTH] for v in depths.values()) and all(d[SF + c + ".cuts"] == 0 for c in COMPONENTS),
            expected="[%d], 0 cuts" % MAXDEPTH, got="%s, cuts %s" % (depths, [d[SF + c + ".cuts"] for c in COMPONENTS]))
    T.check("the dd's own synchronous requests (indirect blocks) were counted at the components",
            sum(d[DEV + c + ".syncs"] for c in COMPONENTS) > 0, expected="> 0",
            got=[d[DEV + c + ".syncs"] for c in COMPONENTS])
    active = max(s[DEV + c + ".active"] for s in samples for c in COMPONENTS)
    T.check("the dd alone: the drive holds at most the depth and the synchronous requests",
            active <= MAXDEPTH + 2, expected="active <= %d" % (MAXDEPTH + 2), got="active %d" % active)


def check_shallow(g):
    """At the default depth the dd alone may never have more writes out than the drives take
    (CI's run: 31 at most, nothing waiting), so the host queue is shown at a depth of 4."""
    out, st = g.sh("sysctl vfs.syncfirst.maxdepth=%d > /dev/null" % SHALLOW)
    st, samples = sampled_dd(g, "/data1/shallow")
    g.sh("sysctl vfs.syncfirst.maxdepth=%d > /dev/null; rm -f /data1/shallow" % MAXDEPTH)
    if not samples:
        T.check("maxdepth %d: a dd under the sampler" % SHALLOW, False, expected="samples", got="status %d" % st)
        return
    waiting = max(s[DEV + c + ".waiting"] for s in samples for c in COMPONENTS)
    active = max(s[DEV + c + ".active"] for s in samples for c in COMPONENTS)
    print("maxdepth %d: %d samples, most waiting in the host queue %d, most at the drive %d" %
          (SHALLOW, len(samples), waiting, active))
    T.check("maxdepth %d: writes beyond the depth wait in the host queue, and the drive holds at most "
            "the depth and the synchronous requests" % SHALLOW, st == 0 and waiting > 0 and active <= SHALLOW + 2,
            expected="waiting > 0, active <= %d" % (SHALLOW + 2), got="waiting %d, active %d" % (waiting, active))


def beside_writer(g, path):
    """A 64 MB dd with latprobe's synchronous writer beside it; the status."""
    out, st = g.sh("dd if=/dev/zero of=%s bs=32k count=2048 2>/dev/null & S=$!; latprobe -w /data1 -p $S "
                   "-o /dev/null; wait $S" % path, timeout=300)
    return st, out


def check_cut_and_back(g):
    names = [SF + c + "." + f for c in COMPONENTS for f in ("cuts", "raises", "depth")]
    g.sh("sysctl vfs.wdfs.ordered_flush=0 vfs.wdfs.fsync_flush=0 > /dev/null")
    before = counters(g, names)
    st, out = beside_writer(g, "/data1/beside")
    after = counters(g, names)
    g.sh("sysctl vfs.wdfs.ordered_flush=1 vfs.wdfs.fsync_flush=1 > /dev/null")
    d = moved(before, after)
    T.check("a synchronous writer beside the dd (target 2 ms): the depth is cut",
            st == 0 and d is not None and sum(d[SF + c + ".cuts"] for c in COMPONENTS) > 0,
            expected="cuts > 0", got=d if d is not None else out)
    out, st = g.sh("sysctl vfs.syncfirst.target_ms=20 > /dev/null && rm -f /data1/beside")
    for _ in range(3):          # a depth rises by one a window: a slow host may need a second dd
        out, st = g.sh("rm -f /data1/after && dd if=/dev/zero of=/data1/after bs=32k count=4096 2>/dev/null")
        later = counters(g, names)
        if st != 0 or all(later[SF + c + ".depth"] == MAXDEPTH for c in COMPONENTS):
            break
    d = moved(after, later)
    T.check("then the dd alone (the target 20 ms again): the depth comes back to maxdepth",
            st == 0 and d is not None and sum(d[SF + c + ".raises"] for c in COMPONENTS) > 0 and
            all(later[SF + c + ".depth"] == MAXDEPTH for c in COMPONENTS),
            expected="raises > 0, depth %d" % MAXDEPTH, got=later)


def check_control(g):
    names = [SF + c + ".cuts" for c in COMPONENTS]
    out, st = g.sh("sysctl vfs.bufdaemon_design=perdevice > /dev/null && rm -f /data1/*")
    before = counters(g, names)
    st, out = beside_writer(g, "/data1/control")
    d = moved(before, counters(g, names))
    T.check("control: the same synchronous writer beside the dd under perdevice cuts nothing",
            st == 0 and d is not None and all(v == 0 for v in d.values()), expected="0 cuts",
            got=d if d is not None else out)
    out, st = g.sh("sysctl vfs.bufdaemon_design=syncfirst > /dev/null && sysctl -n %s" %
                   " ".join(SF + c + ".depth" for c in COMPONENTS))
    T.check("switched back to syncfirst at run time, every disk starts at maxdepth",
            st == 0 and out.split() == [str(MAXDEPTH)] * 2, expected="%d %d" % (MAXDEPTH, MAXDEPTH), got=out)


def check_bad_input(g):
    cases = [("sysctl vfs.syncfirst.target_ms=0", "target_ms 0"),
             ("sysctl vfs.syncfirst.maxdepth=300", "maxdepth 300"),
             ("sysctl vfs.syncfirst.mindepth=0", "mindepth 0"),
             ("sysctl vfs.syncfirst.mindepth=%d" % (MAXDEPTH + 1), "a mindepth above maxdepth")]
    for cmd, what in cases:
        out, st = g.sh(cmd + " 2>&1")
        T.check("refused with a message: %s" % what, st != 0 and "Invalid" in out, expected="status != 0, 'Invalid'",
                got="status %d, %s" % (st, out.strip()))
    out, st = g.sh("sysctl vfs.syncfirst.da1.depth=3 2>&1")
    T.check("refused: a disk's depth (the design sets it)", st != 0 and "read only" in out,
            expected="status != 0, 'read only'", got="status %d, %s" % (st, out.strip()))
    out, st = g.sh("sysctl -n vfs.syncfirst.target_ms vfs.syncfirst.maxdepth vfs.syncfirst.mindepth")
    T.check("after the refusals the tunables are as they were (20 %d 2)" % MAXDEPTH,
            out.split() == ["20", str(MAXDEPTH), "2"], expected="20 %d 2" % MAXDEPTH, got=out)


with Guest(mem=128, design="syncfirst", disks=2, disk_model="scsi10k", disk_size="1g", prealloc="falloc",
           timeout=120) as g:
    out, st = g.sh("newfs /dev/ccd0 > /dev/null && mount /dev/ccd0 /data1 && echo MOUNTED", timeout=120)
    T.check("newfs and mount of the stripe", "MOUNTED" in out, expected="MOUNTED", got=out[-300:])
    check_preset(g)
    check_alone(g)
    check_shallow(g)
    out, st = g.sh("rm -f /data1/alone && sysctl vfs.syncfirst.target_ms=2 > /dev/null")
    check_cut_and_back(g)
    check_control(g)
    check_bad_input(g)
T.done()
