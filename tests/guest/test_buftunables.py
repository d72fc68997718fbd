#!/usr/bin/env python3
"""test_buftunables: the buffer cache's tunables on the kernel command line and at run time
(kernel/vfs/vfs_bufstat.c; docs/bufcache.md "Tunables and counters").

Boot 1, `vfs.hidirtybuffers=200 vfs.hirunningspace=2097152`: the values derived from them are
recomputed (lodirtybuffers 100, lorunningspace 1048576: half). Then at run time every writable
vfs tunable takes a new value and reads it back; vfs.nbuf refuses a write as read-only; and
nonsense values (negative, lo >= hi, below a minimum, above nbuf, not a number, an unknown
design) are refused with an error message and a non-zero status, the value unchanged.
Boot 2, `vfs.nbuf=600 vfs.hidirtybuffers=200 vfs.lodirtybuffers=30 vfs.hirunningspace=2097152
vfs.lorunningspace=4194304 vfs.maxbdrun=0 vfs.maxbufspace=abc`: nbuf and what is derived from it
follow, the explicit lodirtybuffers wins over the derived 100, and the three bad words are
reported on the console with the derived or default value kept.
"""
# tests/run: timeout=300 about=15
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402

TUNABLES = ["vfs.nbuf", "vfs.maxbufspace", "vfs.hidirtybuffers", "vfs.lodirtybuffers",
            "vfs.hirunningspace", "vfs.lorunningspace", "vfs.maxbdrun", "vfs.bufdaemon_design"]
BKVASIZE = 16 * 1024

T = TestSet("buftunables")


def values(g):
    """Every tunable's value as sysctl prints it (strings), or None if sysctl failed."""
    out, st = g.sh("sysctl -n " + " ".join(TUNABLES))
    vals = out.split()
    return dict(zip(TUNABLES, vals)) if st == 0 and len(vals) == len(TUNABLES) else None


def boot_values(g, tag, want):
    got = values(g)
    T.check("%s: sysctl shows %s" % (tag, ", ".join("%s %s" % kv for kv in want.items())),
            got is not None and all(got[k] == str(v) for k, v in want.items()),
            expected=want, got=got)


def write(g, name, value):
    """sysctl name=value in the guest, then the value read back: (output, status, value now)."""
    out, st = g.sh('sysctl %s=%s; echo "st=$?"; sysctl -n %s' % (name, value, name))
    lines = out.splitlines()
    i = next((i for i, ln in enumerate(lines) if ln.startswith("st=")), None)
    if i is None or i + 1 >= len(lines):
        return out, None, None
    return "\n".join(lines[:i]), int(lines[i][3:]), lines[i + 1].strip()


def refused(g, tag, name, value, why, message):
    before = values(g)
    out, st, now = write(g, name, value)
    after = values(g)
    T.check("%s: sysctl %s=%s (%s) is refused with '%s', status 1, and changes nothing"
            % (tag, name, value, why, message),
            st == 1 and message in out and before is not None and after == before,
            expected="status 1, '%s', the tunables unchanged" % message,
            got="status %s, %r; before %s, after %s" % (st, out, before, after))


# ---- boot 1: derived values follow the command line; run-time writes ----
tag = "boot 1 (vfs.hidirtybuffers=200 vfs.hirunningspace=2097152)"
with Guest(args="vfs.hidirtybuffers=200 vfs.hirunningspace=2097152") as g:
    boot_values(g, tag + ": derived lo values are half the hi ones set at boot",
                {"vfs.hidirtybuffers": 200, "vfs.lodirtybuffers": 100,
                 "vfs.hirunningspace": 2097152, "vfs.lorunningspace": 1048576})
    T.check("%s: bufinit's console line shows the same" % tag,
            "hidirtybuffers 200, lodirtybuffers 100" in g.console,
            expected="bufinit: ... hidirtybuffers 200, lodirtybuffers 100",
            got=[ln for ln in g.console.splitlines() if ln.startswith("bufinit")])
    start = values(g)
    nbuf = int(start["vfs.nbuf"]) if start else 0

    # Each writable tunable in an order that keeps lo < hi at every step.
    tag = "boot 1: run time"
    for name, value in [("vfs.maxbufspace", 16 << 20), ("vfs.hidirtybuffers", 300),
                        ("vfs.lodirtybuffers", 150), ("vfs.lorunningspace", 262144),
                        ("vfs.hirunningspace", 524288), ("vfs.maxbdrun", 8),
                        ("vfs.bufdaemon_design", "speedup"), ("vfs.bufdaemon_design", "runningbuf")]:
        old = values(g)
        out, st, now = write(g, name, value)
        T.check("%s: sysctl %s=%s takes effect and reads back" % (tag, name, value),
                st == 0 and now == str(value) and old is not None
                and out.strip() == "%s: %s -> %s" % (name, old[name], value),
                expected="status 0, '%s: %s -> %s', then %s" % (name, old and old[name], value, value),
                got="status %s, %r, then %s" % (st, out, now))

    refused(g, tag, "vfs.nbuf", 600, "read-only at run time", "oid 'vfs.nbuf' is read only")
    # Now hidirtybuffers 300, lodirtybuffers 150, hirunningspace 524288, lorunningspace 262144.
    for name, value, why in [("vfs.lodirtybuffers", -5, "negative"),
                             ("vfs.hirunningspace", -1, "negative"),
                             ("vfs.maxbdrun", 0, "below 1"),
                             ("vfs.maxbufspace", 1000, "below 1 MB"),
                             ("vfs.lodirtybuffers", 300, "lo = hi"),
                             ("vfs.hidirtybuffers", 100, "hi < lo"),
                             ("vfs.hidirtybuffers", nbuf + 1, "above nbuf"),
                             ("vfs.lorunningspace", 524289, "lo > hi"),
                             ("vfs.hirunningspace", 262143, "hi < lo")]:
        refused(g, tag, name, value, why, "%s=%s: Invalid argument" % (name, value))
    for name, value in [("vfs.hidirtybuffers", "abc"), ("vfs.maxbdrun", "12x")]:
        refused(g, tag, name, value, "not a number", "invalid integer '%s'" % value)
    refused(g, tag, "vfs.bufdaemon_design", "fastest", "no such design",
            "vfs.bufdaemon_design=fastest: Invalid argument")

# ---- boot 2: nbuf and an explicit lo on the command line; bad words ----
tag = "boot 2 (vfs.nbuf=600 ... vfs.lodirtybuffers=30 ...)"
with Guest(args="vfs.nbuf=600 vfs.hidirtybuffers=200 vfs.lodirtybuffers=30 vfs.hirunningspace=2097152 "
                "vfs.lorunningspace=4194304 vfs.maxbdrun=0 vfs.maxbufspace=abc") as g:
    boot_values(g, tag + ": nbuf set, maxbufspace derived from it, the explicit lodirtybuffers wins; "
                "the bad lorunningspace, maxbdrun and maxbufspace left derived or default",
                {"vfs.nbuf": 600, "vfs.maxbufspace": 600 * BKVASIZE, "vfs.hidirtybuffers": 200,
                 "vfs.lodirtybuffers": 30, "vfs.hirunningspace": 2097152,
                 "vfs.lorunningspace": 1048576, "vfs.maxbdrun": 16})
    for line in ["boot: vfs.lorunningspace=4194304 is out of range; using 1048576",
                 "boot: vfs.maxbdrun=0 is out of range; using 16",
                 'boot: bad value for vfs.maxbufspace: "abc"']:
        T.check("%s: the console says '%s'" % (tag, line), line in g.console, expected=line,
                got=[ln for ln in g.console.splitlines() if ln.startswith("boot:")])
T.done()
