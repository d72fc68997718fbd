#!/usr/bin/env python3
"""test_perdevice: the perdevice buf_daemon design in the guest (docs/bufcache.md "The perdevice
design"), as test_bufcache does the other two.

One boot of the perdevice preset, 32 MB, 2 CPUs, a ccd stripe of two 128 MB disks throttled to
THROTTLE MB/s each (slower than the writer, so queues build and budgets are reached; the seed's
64 KB interleave, so every 128 KB cluster is charged to both components), newfs'd on /data1:
- the preset: kern.design, vfs.bufdaemon_design and vm.pageout_design; every disk (da0, da1, da2,
  ccd0) has its vfs.perdevice.<disk>.* nodes;
- self-sized budgets: `pattern write` of a 64 MB file under `sampler` (vfs.runningbufspace and
  every disk's vfs.perdevice.<disk>.runningbufspace every 10 ms): both components were charged
  (about half each), their bandwidth was measured, each budget equals the formula
  clamp(bandwidth x target_ms / 1000, 128 KB, vfs.perdevice.maxspace) with lo half of it, and in
  every sample the global count is the disks' sum within two clusters (the sampler reads them one
  after another while writes complete);
- fixed budgets (vfs.perdevice.auto=0, each component 256 KB / 128 KB): the same write sampled,
  and no sample of a component above its budget plus two clusters (the writer's write-behind and
  one flusher can each issue one before waiting); the file reads back right;
- the run-time switch: with budgets below one cluster, a dd under perdevice moves wdrdev's
  sleep counter and not wdrain's; switched to runningbuf (hirunningspace below a cluster) the
  other way round; switched back, perdevice again;
- bad input is refused with an error, not a panic: a disk's budget while auto is 1 (EPERM: read
  only then), hi below lo, target_ms 0, auto 2 (EINVAL).
"""
# tests/run: timeout=600 about=60
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402

MEM = 32
SIZE = 64 << 20
THROTTLE = 8
CLUSTER = 128 * 1024
DISKS = ("da0", "da1", "da2")
COMPONENTS = ("da1", "da2")
PD = "vfs.perdevice."

T = TestSet("perdevice")



def sampled_write(g, path, seed):
    """pattern write of SIZE bytes under the sampler: (status, [sample dicts])."""
    cols = ["vfs.runningbufspace"] + [PD + d + ".runningbufspace" for d in DISKS]
    out, st = g.sh("sampler -i 10 -s %s -o /tmp/pd.csv pattern write %s %d %d && cat /tmp/pd.csv; rm -f /tmp/pd.csv"
                   % (",".join(cols), path, SIZE, seed), timeout=300)
    samples, header = [], None
    for line in out.splitlines():
        f = line.strip().split(",")
        if header is None and cols[0] in f:
            header = f
        elif header is not None and len(f) == len(header) and all(x.lstrip("-").isdigit() for x in f):
            samples.append(dict(zip(header, map(int, f))))
    return st, samples


def budget_formula(v, d):
    want = v[PD + d + ".bandwidth"] * v[PD + "target_ms"] // 1000
    return max(min(want, v[PD + "maxspace"]), CLUSTER)


def check_preset_and_nodes(g):
    out, st = g.sh("sysctl -n kern.design vfs.bufdaemon_design vm.pageout_design")
    T.check("the perdevice preset: kern.design, vfs.bufdaemon_design, vm.pageout_design",
            out.split() == ["perdevice", "perdevice", "onepass"], expected="perdevice perdevice onepass",
            got=out)
    out, st = g.sh("sysctl vfs.perdevice")
    names = {line.split(":")[0] for line in out.splitlines()}
    want = {PD + d + "." + f for d in DISKS + ("ccd0",) for f in
            ("runningbufspace", "hirunningspace", "lorunningspace", "bandwidth", "sleeps", "wait_ns")}
    want |= {PD + "auto", PD + "target_ms", PD + "maxspace"}
    T.check("every disk, the ccd too, has its vfs.perdevice.<disk>.* nodes, and the tunables exist",
            want <= names, expected="all of them", got=sorted(want - names) or "all")


def check_auto(g):
    names = [PD + x for x in ("auto", "target_ms", "maxspace")] + \
            [PD + d + "." + f for d in COMPONENTS for f in ("charged", "samples", "bandwidth", "hirunningspace",
                                                               "lorunningspace")]
    before = g.sysctl_ints(names)
    st, samples = sampled_write(g, "/data1/auto", 1)
    v = g.sysctl_ints(names)
    T.check("self-sized: a %d MB pattern write under the sampler" % (SIZE >> 20),
            st == 0 and len(samples) >= 20 and before is not None and v is not None,
            expected="status 0, 20+ samples", got="status %d, %d samples" % (st, len(samples)))
    if before is None or v is None:
        return
    charged = {d: v[PD + d + ".charged"] - before[PD + d + ".charged"] for d in COMPONENTS}
    T.check("a stripe's writes are charged to both components, about half each",
            all(c >= SIZE * 4 // 10 for c in charged.values()), expected=">= 40%% of %d each" % SIZE,
            got=charged)
    got = {d: (v[PD + d + ".samples"], v[PD + d + ".bandwidth"]) for d in COMPONENTS}
    T.check("each component's completion rate was measured (samples > 0, bandwidth > 0)",
            all(s > 0 and b > 0 for s, b in got.values()), expected="both > 0", got=got)
    got = {d: (v[PD + d + ".hirunningspace"], budget_formula(v, d), v[PD + d + ".lorunningspace"]) for d in COMPONENTS}
    T.check("each budget is clamp(bandwidth x target_ms / 1000, 128 KB, maxspace), lo half of it",
            v[PD + "auto"] == 1 and all(hi == want and lo == hi // 2 for hi, want, lo in got.values()),
            expected="hi == formula, lo == hi / 2", got=got)
    worst = max((abs(s["vfs.runningbufspace"] - sum(s[PD + d + ".runningbufspace"] for d in DISKS))
                 for s in samples), default=None)
    print("self-sized: %d samples, the largest gap between vfs.runningbufspace and the disks' sum %s"
          % (len(samples), worst))
    T.check("in every sample vfs.runningbufspace is the disks' sum (within two clusters read apart)",
            worst is not None and worst <= 2 * CLUSTER, expected="<= %d" % (2 * CLUSTER), got=worst)


def check_fixed(g):
    out, st = g.sh("sysctl vfs.perdevice.auto=0 && sysctl %s" % " ".join(
        "%s%s.lorunningspace=131072 %s%s.hirunningspace=262144" % (PD, d, PD, d) for d in COMPONENTS))
    T.check("vfs.perdevice.auto=0, then each component's budget set (256 KB / 128 KB)", st == 0,
            expected="status 0", got=out)
    st, samples = sampled_write(g, "/data1/fixed", 2)
    peak = {d: max((s[PD + d + ".runningbufspace"] for s in samples), default=-1) for d in COMPONENTS}
    bound = 262144 + 2 * CLUSTER
    print("fixed budgets: %d samples, the components' peaks %s" % (len(samples), peak))
    T.check("fixed budgets: every component reached its budget, and no sample is above it plus two clusters",
            st == 0 and len(samples) >= 20 and all(262144 <= p <= bound for p in peak.values()),
            expected="20+ samples, 262144 <= max <= %d" % bound, got="%d samples, max %s" % (len(samples), peak))
    out, st = g.sh("pattern verify /data1/fixed %d 2 && pattern verify /data1/auto %d 1 && echo VERIFIED"
                   % (SIZE, SIZE), timeout=300)
    T.check("both files read back right through the stripe", "VERIFIED" in out, expected="VERIFIED",
            got=out[-300:])


def moved(g, counters, setup):
    """Run a 4 MB dd after `setup`; how much each counter moved."""
    before = g.sysctl_ints(counters)
    out, st = g.sh("%s && dd if=/dev/zero of=/data1/switch bs=64k count=64 2>/dev/null && sleep 1; rm -f /data1/switch"
                   % setup)
    after = g.sysctl_ints(counters)
    if st != 0 or before is None or after is None:
        return None, out
    return {c: after[c] - before[c] for c in counters}, out


def check_switch(g):
    wdrdev, wdrain = "vfs.bufdaemon.sleeps_wdrdev", "vfs.bufdaemon.sleeps_wdrain"
    small = "sysctl %s > /dev/null" % " ".join("%s%s.lorunningspace=0 %s%s.hirunningspace=65536" % (PD, d, PD, d)
                                              for d in COMPONENTS)
    global_small = "sysctl vfs.lorunningspace=32768 vfs.hirunningspace=65536 > /dev/null"
    global_back = "sysctl vfs.hirunningspace=1048576 vfs.lorunningspace=524288 > /dev/null"
    steps = [("perdevice", small, wdrdev, wdrain),
             ("runningbuf", "sysctl vfs.bufdaemon_design=runningbuf > /dev/null && " + global_small, wdrain, wdrdev),
             ("perdevice", global_back + " && sysctl vfs.bufdaemon_design=perdevice > /dev/null", wdrdev, wdrain)]
    for design, setup, own, other in steps:
        d, out = moved(g, [own, other], setup)
        T.check("design %s at run time: a dd moves %s and not %s" % (design, own, other),
                d is not None and d[own] > 0 and d[other] == 0, expected="%s up, %s still" % (own, other),
                got=d if d is not None else out)


def check_bad_input(g):
    cases = [("sysctl vfs.perdevice.auto=1 && sysctl vfs.perdevice.da1.hirunningspace=1048576",
              "a disk's budget while vfs.perdevice.auto=1 (read-only then)", "read only"),
             ("sysctl vfs.perdevice.auto=0 && sysctl vfs.perdevice.da1.hirunningspace=1",
              "a budget below its lo", "Invalid"),
             ("sysctl vfs.perdevice.target_ms=0", "target_ms 0", "Invalid"),
             ("sysctl vfs.perdevice.auto=2", "auto 2", "Invalid")]
    for cmd, what, msg in cases:
        out, st = g.sh(cmd + " 2>&1")
        T.check("refused with a message: %s" % what, st != 0 and msg in out, expected="status != 0, '%s'" % msg,
                got="status %d, %s" % (st, out.strip()))
    out, st = g.sh("sysctl -n vfs.perdevice.target_ms vfs.perdevice.auto")
    T.check("after the refusals the tunables are unchanged (target_ms 50, auto 0)", out.split() == ["50", "0"],
            expected="50 0", got=out)


with Guest(mem=MEM, smp=2, design="perdevice", disks=2, disk_size="128m", throttle=THROTTLE, timeout=120) as g:
    out, st = g.sh(CCD_RELEASE + "ccdconfig ccd0 128 none /dev/da1 /dev/da2 && newfs /dev/ccd0 > /dev/null && "
                   "mount /dev/ccd0 /data1 && echo MOUNTED", timeout=120)
    T.check("ccdconfig, newfs and mount of the stripe", "MOUNTED" in out, expected="MOUNTED", got=out[-300:])
    check_preset_and_nodes(g)
    check_auto(g)
    check_fixed(g)
    check_switch(g)
    check_bad_input(g)
T.done()
