#!/usr/bin/env python3
"""test_wanted: the wanted buf_daemon design in the guest (docs/bufcache.md "The wanted design"),
checked at the drives.

One boot of the wanted preset, 128 MB, the seed's stripe (ccd0) over two modelled scsi10k disks,
newfs'd on /data1:
- the preset: kern.design, vfs.bufdaemon_design and vm.pageout_design; vfs.wanted.depth,
  linger_ms and budget at their defaults; every disk has
  vfs.wanted.<disk>.{waiters,waits,wanted_ns,cut,cuts};
- the dd alone (32 MB under the sampler, every 20 ms): no writer waits for a disk's budget
  (vfs.perdevice.<disk>.sleeps stays), the disks are not cut in most samples
  (vfs.wanted.<disk>.cut) and the drives get more writes than the small depth (every opening
  while no one waits), and the dd's own waits (its indirect blocks) are counted at the
  components, with no process left waiting after it;
- a synchronous writer beside the dd (latprobe -w: create, write 512 bytes, fsync, every 20 ms),
  with the linger at 1 s so the disks stay cut between its waits: after the first 200 ms both
  disks are cut in every sample, and the drive holds at most the small depth and the synchronous
  requests;
- the negative control: the same writer beside the dd under syncfirst (switched at run time)
  leaves the drives deeper than that;
- bad input is refused with an error, not a panic: depth 0 and 300, linger_ms -1, budget 2, a
  disk's waiters (read-only).
"""
# tests/run: timeout=400 about=15
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet, moved, sampled  # noqa: E402

COMPONENTS = ("da1", "da2")
W = "vfs.wanted."
DEV = "kern.devstat."
DEPTH = 8                           # vfs.wanted.depth's default
SYNC_AT_DRIVE = 4                   # the probe's fsync and the dd's own waits: at most this many
                                    # synchronous requests at a drive at once
SETTLE = 10                         # samples (200 ms) for the writes at the drive when the cut
                                    # came to drain

T = TestSet("wanted")


def check_preset(g):
    out, st = g.sh("sysctl -n kern.design vfs.bufdaemon_design vm.pageout_design")
    T.check("the wanted preset: kern.design, vfs.bufdaemon_design, vm.pageout_design",
            out.split() == ["wanted", "wanted", "onepass"], expected="wanted wanted onepass", got=out)
    v = g.sysctl_ints([W + "depth", W + "linger_ms", W + "budget"])
    T.check("the tunables at their defaults: depth %d, linger_ms 100, budget 0" % DEPTH,
            v == {W + "depth": DEPTH, W + "linger_ms": 100, W + "budget": 0}, expected="%d 100 0" % DEPTH, got=v)
    out, st = g.sh("sysctl vfs.wanted")
    names = {line.split(":")[0] for line in out.splitlines()}
    want = {W + d + "." + f for d in ("da0", "da1", "da2", "ccd0")
            for f in ("waiters", "waits", "wanted_ns", "cut", "cuts")}
    T.check("every disk has its vfs.wanted.<disk>.{waiters,waits,wanted_ns,cut,cuts}",
            want <= names, expected="all of them", got=sorted(want - names) or "all")


def sampled_dd(g, path, beside=""):
    """A 32 MB dd under the sampler (every 20 ms), `beside` started before it and killed after:
    (status, [sample dicts])."""
    cols = [DEV + d + "." + f for d in COMPONENTS for f in ("waiting", "active")] + \
           [W + d + "." + f for d in COMPONENTS for f in ("waiters", "cut")]
    pre = "%s & P=$!; " % beside if beside else ""
    post = "; kill $P; wait $P" if beside else ""
    out, st = g.sh("%ssampler -i 20 -s %s -o /tmp/w.csv dd if=/dev/zero of=%s bs=32k count=1024%s; "
                   "cat /tmp/w.csv; rm -f /tmp/w.csv %s" % (pre, ",".join(cols), path, post, path), timeout=300)
    values = {c: sampled(out, c) for c in cols}
    n = min(len(v) for v in values.values())
    return st, [{c: values[c][i] for c in cols} for i in range(n)]


def check_alone(g):
    names = ["vfs.perdevice.%s.sleeps" % c for c in COMPONENTS] + [W + c + ".waits" for c in COMPONENTS]
    before = g.sysctl_ints(names)
    st, samples = sampled_dd(g, "/data1/alone")
    after = g.sysctl_ints(names + [W + c + ".waiters" for c in COMPONENTS])
    d = moved(before, after and {k: after[k] for k in names})
    T.check("the dd alone: 32 MB under the sampler", d is not None and len(samples) >= 5,
            expected="10+ samples", got="status %d, %d samples" % (st, len(samples)))
    if d is None or not samples:
        return
    T.check("the dd alone: no writer waits for a disk's budget (vfs.perdevice.<disk>.sleeps)",
            all(d["vfs.perdevice.%s.sleeps" % c] == 0 for c in COMPONENTS), expected="0 0", got=d)
    active = max(s[DEV + c + ".active"] for s in samples for c in COMPONENTS)
    uncut = sum(1 for s in samples if not any(s[W + c + ".cut"] for c in COMPONENTS))
    T.check("the dd alone: the disks are not cut in most samples, and the drives get more than the "
            "small depth (every opening while no one waits)",
            2 * uncut > len(samples) and active > DEPTH + SYNC_AT_DRIVE,
            expected="uncut in most, active > %d" % (DEPTH + SYNC_AT_DRIVE),
            got="uncut in %d of %d, active %d" % (uncut, len(samples), active))
    T.check("the dd's own waits are counted at the components, and no one waits after it",
            sum(d[W + c + ".waits"] for c in COMPONENTS) > 0 and
            all(after[W + c + ".waiters"] == 0 for c in COMPONENTS), expected="waits > 0, 0 waiters", got=after)


def beside_writer(g, path):
    return sampled_dd(g, path, "latprobe -i 20 -w /data1 -o /dev/null")


def check_beside(g):
    g.sh("sysctl vfs.wanted.linger_ms=1000 > /dev/null")
    st, samples = beside_writer(g, "/data1/beside")
    cut = [all(s[W + c + ".cut"] for c in COMPONENTS) for s in samples[SETTLE:]]
    T.check("a synchronous writer beside the dd: both disks are cut in every sample after the first",
            st == 0 and cut and all(cut), expected="cut in %d samples" % len(cut),
            got="status %d, cut in %d of %d" % (st, sum(cut), len(cut)))
    if len(samples) <= SETTLE:
        return
    active = max(s[DEV + c + ".active"] for s in samples[SETTLE:] for c in COMPONENTS)
    T.check("... and the drive holds at most the small depth and the synchronous requests",
            active <= DEPTH + SYNC_AT_DRIVE, expected="active <= %d" % (DEPTH + SYNC_AT_DRIVE),
            got="active %d" % active)
    g.sh("sysctl vfs.bufdaemon_design=syncfirst > /dev/null")
    st, samples = beside_writer(g, "/data1/control")
    active = max((s[DEV + c + ".active"] for s in samples[SETTLE:] for c in COMPONENTS), default=0)
    T.check("control: the same writer beside the dd under syncfirst leaves the drives deeper",
            active > DEPTH + SYNC_AT_DRIVE, expected="active > %d" % (DEPTH + SYNC_AT_DRIVE),
            got="active %d" % active)
    g.sh("sysctl vfs.bufdaemon_design=wanted vfs.wanted.linger_ms=100 > /dev/null")


def check_bad_input(g):
    cases = [("sysctl vfs.wanted.depth=0", "depth 0"), ("sysctl vfs.wanted.depth=300", "depth 300"),
             ("sysctl vfs.wanted.linger_ms=-1", "linger_ms -1"), ("sysctl vfs.wanted.budget=2", "budget 2")]
    for cmd, what in cases:
        out, st = g.sh(cmd + " 2>&1")
        T.check("refused with a message: %s" % what, st != 0 and "Invalid" in out,
                expected="status != 0, 'Invalid'", got="status %d, %s" % (st, out.strip()))
    out, st = g.sh("sysctl vfs.wanted.da1.waiters=3 2>&1")
    T.check("refused: a disk's waiters (the kernel counts them)", st != 0 and "read only" in out,
            expected="status != 0, 'read only'", got="status %d, %s" % (st, out.strip()))
    v = g.sysctl_ints([W + "depth", W + "linger_ms", W + "budget"])
    T.check("after the refusals the tunables are as they were (%d 100 0)" % DEPTH,
            v == {W + "depth": DEPTH, W + "linger_ms": 100, W + "budget": 0}, expected="%d 100 0" % DEPTH, got=v)


with Guest(mem=128, design="wanted", disks=2, disk_model="scsi10k", disk_size="1g", prealloc="falloc",
           timeout=120) as g:
    out, st = g.sh("newfs /dev/ccd0 > /dev/null && mount /dev/ccd0 /data1 && echo MOUNTED", timeout=120)
    T.check("newfs and mount of the stripe", "MOUNTED" in out, expected="MOUNTED", got=out[-300:])
    check_preset(g)
    check_alone(g)
    check_beside(g)
    check_bad_input(g)
T.done()
