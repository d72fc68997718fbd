#!/usr/bin/env python3
"""test_powercut: every state a power cut could leave, built from the disk model's write log.

Each run: a fresh 32 MB wdfs (8 KB blocks) as data disk da0, or a 28 MB one on a ccd stripe of
da0 and da1 (16 MB each, interleave 128) (scsi10k model, wcache on or off, wlog=on on every disk:
docs/diskmodel.md "Write log"), a workload on it to the end: `crashload -n OPS` (its promises go
to the second serial port, a file that a thread here reads every millisecond, stamping each
line with the CLOCK_MONOTONIC second it arrived: the clock of the log's events), crashload's
rename/unlink storm alone (-s), the seed's dd of 12.5 MB with latprobe's create+write+fsync
beside it, or crashload while memhog pushes pages out to a swap disk; a clean poweroff; then tools/powercut builds the crash states from the logs
(docs/reliability.md "Power cuts") and checks each: fsck -n finds only crash damage, fsck -y
repairs, and every promise that reached the host before the cut reads back exactly. Checked:
- every run, under the buf_daemon designs with 1 and 2 CPUs: powercut explored its states
  (checked promises, for crashload) and found no violation;
- FreeBSD 4's assumption: crashload with the cache on and the ordering flushes off
  (vfs.wdfs.ordered_flush=0): powercut finds damage a crash may not leave;
- the negative control: the same with fsync's flush removed too (vfs.wdfs.fsync_flush=0):
  powercut finds a broken promise.
Small here (8 runs of up to 60 states); make stress (WDREL_STRESS=1) runs every workload under
every design, on one disk and on the stripe, with both cache settings (64 runs of up to 160
states, crashload -n 1000: about 80 minutes on a shared 2-core host, estimated from a sample).
"""
# tests/run: timeout=900 about=90
import os
import re
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import reltest  # noqa: E402
import wdrun  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402

POWERCUT = wdrun.ROOT / "tools" / "powercut"
IMG_SIZE = "32m"
MEMBER_SIZE, STRIPE_FS, ILEAVE = "16m", "28m", 128
OPS = reltest.size(150, 1000)
STATES = reltest.size(60, 160)            # per run at most
DESIGNS = [p.name for p in wdrun.presets.PRESETS]
# name: (a command to run first, the workload, does it print crashload's promises and DONE).
# dd+probe is the seed's dd with the probe's create+write+fsync beside it (docs/harness.md);
# storm is crashload's churn alone (-s); memhog is crashload while memhog, at about twice the
# free memory of a 64 MB guest, pushes pages out to a swap disk (the disk after the file
# system's, not checked: swap does not outlive a power cut).
WORKLOADS = {
    "crashload": ("", "crashload -m {dev} -n {ops} -o /dev/ttyd1 /mnt {seed}", True),
    "storm": ("", "crashload -s -m {dev} -n {storm} -o /dev/ttyd1 /mnt {seed}", False),
    "dd+probe": ("mount {dev} /mnt", "dd if=/dev/zero of=/mnt/dd bs=32k count=400 & p=$!; "
                 "latprobe -i 50 -w /mnt -p $p -o /dev/null; wait $p", False),
    "memhog": ("swapon {swap}", "memhog -p 2 20 > /dev/null & p=$!; "
               "crashload -m {dev} -n {ops} -o /dev/ttyd1 /mnt {seed}; wait $p", True),
}
SUMMARY_RE = re.compile(r"(\d+) states explored, (\d+) promises checked, (\d+) violations")

T = TestSet("powercut")
DIR = reltest.scratch("powercut")
(DIR / "empty").mkdir()
BASE = DIR / "base.img"
reltest.mkfs(BASE, DIR / "empty", IMG_SIZE, 8192)
MEMBERS = [DIR / ("member%d.img" % j) for j in range(2)]
reltest.mkfs(DIR / "stripe-fs.img", DIR / "empty", STRIPE_FS, 8192)
for m in MEMBERS:
    reltest.run(["truncate", "-s", MEMBER_SIZE, m])
st, out = reltest.run([wdrun.ROOT / "tools" / "destripe", "-i", ILEAVE] + MEMBERS + ["--from", DIR / "stripe-fs.img"])
if st != 0:
    raise RuntimeError("destripe --from: %s" % out)
totals = {"states": 0, "promises": 0}


class SerialStamper(threading.Thread):
    """Reads the growing serial log and writes each complete line, prefixed with the monotonic
    second it was first seen, to `out`. Seen a little after the guest printed it, never before,
    so a promise is only ever counted for later cuts than it deserves."""

    def __init__(self, log, out):
        super().__init__(daemon=True)
        self.log, self.out, self.stop = log, out, threading.Event()

    def run(self):
        pending, pos = b"", 0
        with open(self.out, "w") as out:
            while True:
                last = self.stop.is_set()
                if self.log.exists():
                    with open(self.log, "rb") as f:
                        f.seek(pos)
                        data = f.read()
                    pos += len(data)
                    now = time.monotonic()
                    pending += data
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        out.write("%.6f %s\n" % (now, line.decode(errors="replace").strip()))
                if last:
                    return
                time.sleep(0.001)


def workload(tag, name, seed, wcache, smp, design, stripe=False, sysctls=""):
    """A workload on logged disks; -> (the run's folder) or None after a failed check."""
    d = DIR / re.sub(r"[^\w=.-]+", "-", tag)
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    for j, base in enumerate(MEMBERS if stripe else [BASE]):
        shutil.copyfile(base, d / ("d%d.img" % j))
    dev = "/dev/ccd0" if stripe else "/dev/da0"
    setup = CCD_RELEASE + "ccdconfig ccd0 %d none /dev/da0 /dev/da1 && " % ILEAVE if stripe else ""
    first, command, promises = WORKLOADS[name]
    ndisks = (2 if stripe else 1) + (name == "memhog")
    fields = dict(dev=dev, ops=OPS, storm=4 * OPS, seed=seed, swap="/dev/da%d" % (ndisks - 1))
    log, stamped = d / "com2.log", d / "promises"
    reader = SerialStamper(log, stamped)
    reader.start()
    try:
        with Guest(mem=64 if name == "memhog" else 128, smp=smp, design=design, disks=ndisks, root="md",
                   keep=True, disk_dir=d,
                   disk_size=MEMBER_SIZE if stripe else IMG_SIZE,
                   disk_model="scsi10k,wcache=%s,wlog=on" % wcache, serial2=str(log), timeout=120) as g:
            out, status = g.sh(setup + "mkdir /mnt" + (" && sysctl " + sysctls if sysctls else "") +
                               (" && " + first.format(**fields) if first else ""))
            if status == 0:
                out, status = g.sh(command.format(**fields), timeout=300)
    finally:
        time.sleep(0.05)
        reader.stop.set()
        reader.join()
    text = stamped.read_text()
    ok = status == 0 and (" DONE" in text or name == "dd+probe")
    T.check("%s: the workload ran to the end" % tag, ok, expected="status 0 (and crashload's DONE)",
            got="status %s: %s %s" % (status, out[-200:], text[-200:]))
    return d if ok else None


def powercut(d, seed, wcache, stripe=False):
    pairs = [str(x) for j, m in enumerate(MEMBERS) for x in (m, d / ("d%d.wlog" % j))] if stripe else \
        [str(BASE), str(d / "d0.wlog")]
    r = subprocess.run([str(POWERCUT), "--wcache", wcache, "--max-states", str(STATES), "--seed", str(seed),
                        "--promises", str(d / "promises"), "--crashload-seed", str(seed)] +
                       (["--ileave", str(ILEAVE)] if stripe else []) + pairs,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600)
    m = SUMMARY_RE.search(r.stdout)
    return r.returncode, r.stdout, [int(x) for x in m.groups()] if m else None


def clean_run(seed, name, wcache, smp, design, stripe):
    tag = "%s seed %d %s wcache=%s smp=%d %s" % (name, seed, "stripe" if stripe else "one disk", wcache, smp,
                                                 design)
    d = workload(tag, name, seed, wcache, smp, design, stripe)
    if d is None:
        return
    rc, out, counts = powercut(d, seed, wcache, stripe)
    print(out.strip())
    promised = WORKLOADS[name][2]
    ok = rc == 0 and counts is not None and counts[0] >= STATES // 2 and (counts[1] > 0 or not promised) \
        and counts[2] == 0
    T.check("%s: every crash state passes (fsck%s)" % (tag, ", promises" if promised else ""), ok,
            expected="exit 0, >= %d states,%s no violation" % (STATES // 2, " promises checked," if promised else ""),
            got="exit %s: %s" % (rc, out.strip()[-600:]))
    if counts:
        totals["states"] += counts[0]
        totals["promises"] += counts[1]


def control(seed, what, sysctls, violation):
    """A run with the cache on and flushes switched off: powercut must find `violation`."""
    tag = "%s seed %d (%s, wcache=on)" % (what, seed, sysctls)
    d = workload(tag, "crashload", seed, "on", 1, "patched", sysctls=sysctls)
    if d is None:
        return
    rc, out, counts = powercut(d, seed, "on")
    print(out.strip())
    T.check("%s: powercut finds %s" % (tag, violation), rc == 1 and "VIOLATION " + violation in out,
            expected="exit 1 and a '%s' violation" % violation, got="exit %s: %s" % (rc, out.strip()[-600:]))


# Runs (seed, workload, cache, CPUs, design, stripe): make test a few, every workload, design,
# layout and cache setting among them; make stress every combination, CPUs alternating.
runs = [(1, "crashload", "off", 1, "patched", False), (1, "crashload", "on", 2, "stable42", False),
        (1, "crashload", "on", 1, "perdevice", True), (1, "storm", "on", 2, "syncfirst", False),
        (1, "dd+probe", "on", 1, "patched", True), (1, "memhog", "on", 2, "stable42", True)]
if reltest.STRESS:
    runs = [(1 + i, name, wcache, 1 + i % 2, design, stripe) for i, (name, design, stripe, wcache) in
            enumerate((n, d, s, w) for n in WORKLOADS for d in DESIGNS for s in (False, True) for w in ("off", "on"))]
wanted = reltest.seeds(max(run[0] for run in runs))
for run in runs:
    if run[0] in wanted:
        clean_run(*run)
control(1, "FreeBSD 4's ordering", "vfs.wdfs.ordered_flush=0", "fsck -n: damage a crash may not leave")
control(1, "negative control", "vfs.wdfs.fsync_flush=0 vfs.wdfs.ordered_flush=0", "promise broken")
print("powercut: %d crash states explored, %d promises checked in the clean runs" % (totals["states"], totals["promises"]))
T.done()
