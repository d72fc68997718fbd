#!/usr/bin/env python3
"""test_powercut: every state a power cut could leave, built from the disk model's write log.

Each run: a fresh 32 MB wdfs (8 KB blocks) as data disk da0 (scsi10k model, wcache on or off,
wlog=on: docs/diskmodel.md "Write log"), `crashload -n OPS` on it to the end (its promises go
to the second serial port, a file that a thread here reads every millisecond, stamping each
line with the CLOCK_MONOTONIC second it arrived: the clock of the log's events), a clean
poweroff; then tools/powercut builds the crash states from the log (docs/reliability.md "Power
cuts") and checks each: fsck -n finds only crash damage, fsck -y repairs, and every promise
that reached the host before the cut reads back exactly. Checked here:
- with the cache off and on, under 1 CPU (patched) and 2 CPUs (stable42): powercut explored
  its states, checked promises and found no violation;
- the negative control: with the cache on and fsync's flush and the ordering flushes removed
  (vfs.wdfs.fsync_flush=0, vfs.wdfs.ordered_flush=0), powercut finds a broken promise.
Small here (about 300 states); make stress (WDREL_STRESS=1) runs more operations, more seeds
and more states.
"""
# tests/run: timeout=900
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

POWERCUT = wdrun.ROOT / "tools" / "powercut"
IMG_SIZE = "32m"
OPS = reltest.size(150, 1500)
STATES = reltest.size(100, 2000)          # per run at most
SUMMARY_RE = re.compile(r"(\d+) states explored, (\d+) promises checked, (\d+) violations")

T = TestSet("powercut")
DIR = reltest.scratch("powercut")
(DIR / "empty").mkdir()
BASE = DIR / "base.img"
reltest.mkfs(BASE, DIR / "empty", IMG_SIZE, 8192)
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


def workload(tag, seed, wcache, smp, design, sysctls=""):
    """crashload on a logged disk; -> (the run's folder) or None after a failed check."""
    d = DIR / tag.replace(" ", "-")
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    shutil.copyfile(BASE, d / "d0.img")
    log, stamped = d / "com2.log", d / "promises"
    reader = SerialStamper(log, stamped)
    reader.start()
    try:
        with Guest(smp=smp, design=design, disks=1, root="md", keep=True, disk_dir=d, disk_size=IMG_SIZE,
                   disk_model="scsi10k,wcache=%s,wlog=on" % wcache, serial2=str(log), timeout=120) as g:
            if sysctls:
                g.sh("sysctl " + sysctls)
            out, status = g.sh("mkdir /mnt; crashload -m /dev/da0 -n %d -o /dev/ttyd1 /mnt %d" % (OPS, seed),
                               timeout=300)
    finally:
        time.sleep(0.05)
        reader.stop.set()
        reader.join()
    text = stamped.read_text()
    ok = status == 0 and " DONE" in text
    T.check("%s: crashload ran to the end" % tag, ok, expected="status 0 and DONE",
            got="status %s: %s %s" % (status, out[-200:], text[-200:]))
    return d if ok else None


def powercut(d, seed, wcache):
    r = subprocess.run([str(POWERCUT), "--wcache", wcache, "--max-states", str(STATES), "--seed", str(seed),
                        "--promises", str(d / "promises"), "--crashload-seed", str(seed),
                        str(BASE), str(d / "d0.wlog")],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600)
    m = SUMMARY_RE.search(r.stdout)
    return r.returncode, r.stdout, [int(x) for x in m.groups()] if m else None


def clean_run(seed, wcache, smp, design):
    tag = "seed %d wcache=%s smp=%d %s" % (seed, wcache, smp, design)
    d = workload(tag, seed, wcache, smp, design)
    if d is None:
        return
    rc, out, counts = powercut(d, seed, wcache)
    print(out.strip())
    ok = rc == 0 and counts is not None and counts[0] >= STATES // 2 and counts[1] > 0 and counts[2] == 0
    T.check("%s: every crash state passes (fsck, promises)" % tag, ok,
            expected="exit 0, >= %d states, promises checked, no violation" % (STATES // 2),
            got="exit %s: %s" % (rc, out.strip()[-600:]))
    if counts:
        totals["states"] += counts[0]
        totals["promises"] += counts[1]


def negative_control(seed):
    tag = "negative control seed %d (no fsync or ordering flush, wcache=on)" % seed
    d = workload(tag, seed, "on", 1, "patched", "vfs.wdfs.fsync_flush=0 vfs.wdfs.ordered_flush=0")
    if d is None:
        return
    rc, out, counts = powercut(d, seed, "on")
    print(out.strip())
    T.check("%s: powercut finds a broken promise" % tag, rc == 1 and "VIOLATION promise broken" in out,
            expected="exit 1 and a 'promise broken' violation", got="exit %s: %s" % (rc, out.strip()[-600:]))


for seed in reltest.seeds(reltest.size(1, 6)):
    for wcache in ("off", "on"):
        smp, design = (1, "patched") if (seed + (wcache == "on")) % 2 else (2, "stable42")
        clean_run(seed, wcache, smp, design)
negative_control(reltest.seeds(1)[0])
print("powercut: %d crash states explored, %d promises checked in the clean runs" % (totals["states"], totals["promises"]))
T.done()
