#!/usr/bin/env python3
"""test_seedrun: the seed's command, as a user types it, at a small size.

    tools/run --mem 128 --bus scsi --disks 2 --disk-model scsi10k --design stable42 -- \\
      'newfs /dev/ccd0 && mount /dev/ccd0 /data1 && dd if=/dev/zero of=/data1/test bs=32k count=256'

(the seed's count is 49152: 1.5 GB; docs/experiments.md measures that). The ccd0 it writes is
the one /etc/ccd.conf configured at boot, over da1 da2 or ada1 ada2. Run through tools/run
itself, for: every preset of the kernel's table (wdrun.DESIGNS) on modelled scsi10k disks,
--throttle 30 (the first preset), and --bus ahci (the default preset). Each must print FreeBSD's
three dd lines for 256 records of 32 KB, and the buf_daemon design the preset names in the table
(`sysctl vfs.bufdaemon_design`; wdrun.presets.SETTINGS). Then the machines without the seed's
disks: with none, and with one data disk, `ccdconfig -Cv` says which /etc/ccd.conf lines it
passed over and why, exits 0, and the boot console has no complaint from ccdconfig.
tests/run: timeout=300
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
import wdrun  # noqa: E402  (wdtest put tools/ on the path)

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RUN = os.path.join(ROOT, "tools", "run")
COUNT = 256
SEED = ("newfs /dev/ccd0 && mount /dev/ccd0 /data1 && dd if=/dev/zero of=/data1/test bs=32k count=%d" % COUNT)
DD_LINES = re.compile(r"^%d\+0 records in\n%d\+0 records out\n%d bytes transferred in [0-9.]+ secs "
                      r"\(([0-9]+) bytes/sec\)\n" % (COUNT, COUNT, COUNT * 32768), re.M)
MOTD = "wdrain: an xv6-style teaching kernel"   # /etc/motd, which /etc/rc prints last
DESIGN = {p: wdrun.presets.SETTINGS[p]["vfs.bufdaemon_design"] for p in wdrun.DESIGNS}
CELLS = ([("scsi", ["--disk-model", "scsi10k"], p) for p in wdrun.DESIGNS] +     # (bus, disk options, preset)
         [("scsi", ["--throttle", "30"], wdrun.DESIGNS[0]), ("ahci", ["--disk-model", "scsi10k"], wdrun.DEFAULT_DESIGN)])

T = TestSet("seedrun")


def tools_run(opts, cmd, verbose=False):
    """(status, stdout, stderr) of tools/run OPTS -- CMD (no build: make test built it)."""
    argv = [RUN] + opts + (["-v"] if verbose else []) + ["--timeout", "120", "--", cmd]
    env = dict(os.environ, WDRAIN_NO_BUILD="1")
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=400, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


for bus, disk, preset in CELLS:
    tag = "--bus %s %s --design %s" % (bus, " ".join(disk), preset)
    opts = ["--mem", "128", "--bus", bus, "--disks", "2"] + disk + ["--design", preset]
    st, out, err = tools_run(opts, SEED + " && sysctl -n vfs.bufdaemon_design")
    m = DD_LINES.search(out)
    T.check("%s: the seed's command prints dd's three lines" % tag, st == 0 and m is not None and int(m.group(1)) > 0,
            expected="status 0; %d+0 records in, out, %d bytes transferred ... bytes/sec" % (COUNT, COUNT * 32768),
            got="status %d: %s %s" % (st, out[-400:], err[-400:]))
    T.check("%s: the preset's buf_daemon design ran it" % tag, out.split()[-1:] == [DESIGN[preset]],
            expected=DESIGN[preset], got=out.split()[-1:])

for disks, skipped in ((0, ["component /dev/da1 does not exist", "component /dev/ada1 does not exist"]),
                       (1, ["component /dev/da2 does not exist", "component /dev/ada1 does not exist"])):
    tag = "--disks %d" % disks
    st, out, err = tools_run(["--disks", str(disks)], "ccdconfig -Cv; echo status=$?; ccdconfig -g", verbose=True)
    T.check("%s: ccdconfig -Cv passes over both ccd.conf lines, saying why, and exits 0" % tag,
            st == 0 and all(s in out for s in skipped) and out.count("skipped") == 2 and "status=0\n" in out and
            out.rstrip().endswith("status=0"),
            expected="%s; status=0; nothing configured" % "; ".join(skipped), got="status %d: %s" % (st, out))
    boot = err.split("ccdconfig -Cv")[0]
    T.check("%s: /etc/rc ran (its motd is on the console) and its ccdconfig -C said nothing" % tag,
            st == 0 and MOTD in boot and "ccd0" not in boot and "ccdconfig" not in boot,
            expected="the motd, no ccd0/ccdconfig line before the command",
            got=[l for l in boot.splitlines() if "ccd" in l or MOTD in l])
T.done()
