#!/usr/bin/env python3
"""Guest tests of ccd(4) striping (kernel/dev/ccd.c), ccdconfig, iostat and pattern.

The components are AHCI disks (ada0, ada1, ...) next to the memory-disk root. Until the
harness has --disks/--bus, this file adds them by wrapping wdrun.qemu_argv, as test_ahci.py
does.

Boot 1: two equal 64 MB disks, `ccdconfig ccd0 128 none /dev/ada0 /dev/ada1`. Bad arguments,
ccdconfig -g, the size, dd writes and reads, a 48 MB pattern written by the guest and
verified in the guest and, after power-off, on the host by de-striping the images
(tools/destripe); requests in flight on both components; iostat; -u refused while open.
Boot 2: three unequal disks (16, 24, 8 MB) with the interleave table (ileave 32), configured
from a ccd.conf with -C: the host stripes a pattern into the images before boot and the
guest verifies all of it, then the guest writes another pattern that the host verifies.
Boot 3: QEMU's blkdebug fails writes to one sector of disk 1: dd to /dev/ccd0 over it reports
an I/O error, nothing panics, and the rest of the stripe keeps working.
Boot 4: interleave 1 sector, so a 64 KB request is 128 pieces and the unit's pool of child bios
holds two requests; the disks are held to 8 MB/s (QEMU's throttle filter) so that requests pile
up (27 waited for the pool in one run). The others wait in the ccd's queue (dev.ccd.0.pool_short
counts it) and none fails; a 16 MB pattern written that way is verified in the guest and on the
host. The pattern's fsync flushes ccd0, and the flush reaches both components; a component of a
configured ccd cannot be opened.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import wdrun  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402

MB = 1 << 20
IMGDIR = wdrun.ROOT / "build" / "ccd-test" / "guest"
DESTRIPE = str(wdrun.ROOT / "tools" / "destripe")
BAD_SECTOR = 16 + 40 * 128 + 5        # disk 1, in its 41st stripe unit (ileave 128)

T = TestSet("ccd")
# The pool boot's disks are slowed to this (8 MB/s each), so that requests pile up at the stripe
# however fast the host is: unthrottled, a loaded host's guest sometimes issued them no faster
# than the disks took them, and the pool never ran short.
POOL_BPS = 8 << 20


def make_images(sizes_mb, prefix):
    IMGDIR.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, size in enumerate(sizes_mb):
        p = IMGDIR / ("%s%d.img" % (prefix, i))
        p.unlink(missing_ok=True)
        subprocess.run(["qemu-img", "create", "-q", "-f", "raw", str(p), "%dM" % size], check=True)
        paths.append(p)
    return paths


def ahci_args(paths, bad_sector=None, bps=None):
    """ich9-ahci with disk i on port i; blkdebug under disk 1 failing writes at bad_sector; with
    bps, each disk limited to that many bytes a second (QEMU's throttle filter)."""
    args = ["-device", "ich9-ahci,id=ahci"]
    for i, p in enumerate(paths):
        args += ["-blockdev", "driver=file,node-name=f%d,filename=%s" % (i, p)]
        image = "f%d" % i
        if bps is not None:
            args += ["-object", "throttle-group,id=tg%d,x-bps-total=%d" % (i, bps),
                     "-blockdev", "driver=throttle,node-name=t%d,throttle-group=tg%d,file=%s" % (i, i, image)]
            image = "t%d" % i
        if bad_sector is not None and i == 1:
            args += ["-blockdev", '{"driver":"blkdebug","node-name":"dbg1","image":"f1",'
                     '"inject-error":[{"event":"write_aio","errno":5,"sector":%d}]}' % bad_sector]
            image = "dbg1"
        args += ["-blockdev", "driver=raw,node-name=disk%d,file=%s" % (i, image),
                 "-device", "ide-hd,drive=disk%d,bus=ahci.%d,werror=report,rerror=report" % (i, i)]
    return args


def with_disks(extra):
    base = wdrun.qemu_argv
    wdrun.qemu_argv = lambda cfg, iso=None: base(cfg, iso) + extra
    return base


def destripe(*args):
    r = subprocess.run([DESTRIPE] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout.strip()


def sysctl_int(g, name):
    out, st = g.sh("sysctl -n " + name)
    try:
        return int(out.strip()) if st == 0 else None
    except ValueError:
        return None


def check_fails(g, cmd, name, want):
    out, st = g.sh(cmd)
    T.check(name, st != 0 and want in out, expected="non-zero status and '%s'" % want,
            got="status %d: %s" % (st, out.strip()))


def bad_arguments(g):
    check_fails(g, "ccdconfig ccd0 128 none /dev/ada0 /dev/nosuch", "ccdconfig: unknown component",
                "/dev/nosuch")
    check_fails(g, "ccdconfig ccd0 128 none /dev/ada0 /dev/ada0", "ccdconfig: duplicate component",
                "given twice")
    check_fails(g, "ccdconfig ccd0 128 CCDF_MIRROR /dev/ada0 /dev/ada1", "ccdconfig: mirroring refused",
                "not supported")
    check_fails(g, "ccdconfig ccd0 abc none /dev/ada0 /dev/ada1", "ccdconfig: bad interleave",
                "invalid interleave")
    check_fails(g, "ccdconfig ccd7 128 none /dev/ada0 /dev/ada1", "ccdconfig: no such unit", "not a ccd")
    check_fails(g, "ccdconfig ccd0 128 none " + " ".join(["/dev/ada0"] * 9), "ccdconfig: nine components",
                "at most 8")
    check_fails(g, "ccdconfig ccd0 128 none /dev/md0", "ccdconfig: the mounted root is in use", "in use")
    check_fails(g, "ccdconfig -u ccd0", "ccdconfig -u of an unconfigured ccd", "not configured")
    out, st = g.sh("ccdconfig")
    T.check("ccdconfig without arguments prints usage", st != 0 and "usage: ccdconfig" in out,
            expected="usage", got="status %d: %s" % (st, out.strip()))


def equal_boot():
    """False (after a FAIL) if this kernel cannot run the ccd tests (no /dev/ccd or no AHCI disks)."""
    paths = make_images([64, 64], "eq")
    base = with_disks(ahci_args(paths))
    try:
        with Guest(mem=128, smp=2, timeout=120) as g:
            out, st = g.sh("ls /dev")
            names = out.split()
            # A kernel without ccd (or without the disks) fails here: the rest cannot run.
            if not T.check("the kernel has /dev/ccd and the AHCI disks ada0, ada1",
                           {"ccd", "ada0", "ada1"} <= set(names), expected="ccd ada0 ada1 in /dev",
                           got=" ".join(names)):
                return False
            bad_arguments(g)

            out, st = g.sh("ccdconfig ccd0 128 none /dev/ada0 /dev/ada1")
            T.check("ccdconfig ccd0 128 none /dev/ada0 /dev/ada1", st == 0, expected="status 0",
                    got="status %d: %s" % (st, out.strip()))
            out, st = g.sh("ccdconfig -g")
            T.check("ccdconfig -g prints the ccd.conf line", out == "ccd0 128 none /dev/ada0 /dev/ada1\n",
                    expected="ccd0 128 none /dev/ada0 /dev/ada1", got=out)
            # 64 MB = 131072 sectors, minus CCD_OFFSET 16, down to a multiple of 128: 130944 each.
            out, st = g.sh("stat -f %z /dev/ccd0")
            size = 2 * 130944 * 512
            T.check("ccd0 size = 2 x (64 MB - 16 sectors, rounded down to 128)", str(size) in out,
                    expected=size, got=out.strip())
            check_fails(g, "ccdconfig ccd0 64 none /dev/ada0 /dev/ada1", "configuring ccd0 twice",
                        "already configured")
            check_fails(g, "ccdconfig ccd1 64 none /dev/ada0", "a component of ccd0 is in use", "in use")

            out, st = g.sh("dd if=/dev/zero of=/dev/ccd0 bs=32k count=256")
            T.check("dd writes 8 MB to ccd0 in 32k records", st == 0 and "8388608 bytes transferred" in out,
                    expected="8388608 bytes transferred", got="status %d: %s" % (st, out.strip()))
            out, st = g.sh("dd if=/dev/ccd0 of=/dev/null bs=1m count=16")
            T.check("dd reads ccd0 in 1m records", st == 0 and "16+0 records in" in out,
                    expected="16+0 records in", got="status %d: %s" % (st, out.strip()))

            out, st = g.sh("pattern write /dev/ccd0 48m 11", timeout=120)
            T.check("guest writes a 48 MB pattern to ccd0", st == 0, expected="status 0",
                    got="status %d: %s" % (st, out.strip()))
            out, st = g.sh("pattern verify /dev/ccd0 48m 11", timeout=120)
            T.check("guest reads the pattern back from ccd0", st == 0 and "verified" in out,
                    expected="verified", got="status %d: %s" % (st, out.strip()))
            for d in ("ada0", "ada1", "ccd0"):
                depth = sysctl_int(g, "kern.devstat.%s.max_queue_depth" % d)
                T.check("many requests in flight on %s during 1 MB transfers" % d,
                        depth is not None and depth >= 4, expected=">= 4", got=depth)
            w0 = sysctl_int(g, "kern.devstat.ada0.bytes_written")
            w1 = sysctl_int(g, "kern.devstat.ada1.bytes_written")
            T.check("the writes were split evenly over both components", w0 == w1 and w0 >= 28 * MB,
                    expected="equal, >= 28 MB each", got="%s and %s" % (w0, w1))

            out, st = g.sh("iostat ccd0 ada0 ada1")
            lines = out.splitlines()
            T.check("iostat prints drive names, then KB/t tps MB/s per drive",
                    st == 0 and len(lines) == 3 and lines[0].split() == ["ccd0", "ada0", "ada1"] and
                    lines[1].split() == ["KB/t", "tps", "MB/s"] * 3 and len(lines[2].split()) == 9,
                    expected="3 lines: names, 3 x KB/t tps MB/s, 9 numbers", got=out)
            out, st = g.sh("iostat -x -w 1 -c 2 ccd0")
            rows = [l.split() for l in out.splitlines() if l.startswith("ccd0")]
            T.check("iostat -x -w 1 -c 2 prints two extended reports",
                    st == 0 and "r/s w/s kr/s kw/s wait actv qlen %b" in " ".join(out.split()) and
                    len(rows) == 2 and all(len(r) == 9 for r in rows), expected="2 rows of 9 columns", got=out)
            check_fails(g, "iostat nosuch", "iostat of an unknown drive", "no such drive")

            out, st = g.sh("sleep 4 < /dev/ccd0 & sleep 1; ccdconfig -u ccd0")
            T.check("ccdconfig -u refuses while /dev/ccd0 is open", st != 0 and "busy" in out,
                    expected="busy", got="status %d: %s" % (st, out.strip()))
            out, st = g.sh("sleep 4; ccdconfig -u ccd0 && ccdconfig -g")
            T.check("ccdconfig -u ccd0 once it is closed", st == 0 and out.strip() in ("", "ccd0: unconfigured"),
                    expected="status 0, no configuration left", got="status %d: %s" % (st, out.strip()))
            out, st = g.sh("dd if=/dev/zero of=/dev/ccd0 bs=32k count=1")
            T.check("an unconfigured ccd refuses writes", st != 0, expected="non-zero status",
                    got="status %d: %s" % (st, out.strip()))
            out, st = g.sh("ccdconfig ccd0 128 none /dev/ada0 /dev/ada1 && pattern verify /dev/ccd0 48m 11"
                           " && ccdconfig -U", timeout=120)
            T.check("reconfigured, the data is still there; -U unconfigures all", st == 0 and "verified" in out,
                    expected="verified", got="status %d: %s" % (st, out.strip()))
    finally:
        wdrun.qemu_argv = base
    st, out = destripe("-i", 128, paths[0], paths[1], "--verify", "48m", "--seed", 11)
    T.check("host: de-striped images hold the guest's 48 MB pattern", st == 0, expected="verified", got=out)
    return True


def unequal_boot():
    paths = make_images([16, 24, 8], "uneq")
    total = sum((s * 2048 - 16) // 32 * 32 for s in (16, 24, 8)) * 512
    st, out = destripe("-i", 32, *paths, "--stripe", total, "--seed", 5)
    T.check("host: stripe a pattern over three unequal images", st == 0, expected="status 0", got=out)
    base = with_disks(ahci_args(paths))
    try:
        with Guest(mem=128, smp=1, timeout=120) as g:
            out, st = g.sh(CCD_RELEASE + "echo 'ccd1 32 none /dev/ada0 /dev/ada1 /dev/ada2  # three unequal' > /tmp/ccd.conf;"
                           " ccdconfig -C -f /tmp/ccd.conf && ccdconfig -g ccd1")
            T.check("ccdconfig -C -f applies a ccd.conf", st == 0 and
                    "ccd1 32 none /dev/ada0 /dev/ada1 /dev/ada2" in out,
                    expected="ccd1 32 none /dev/ada0 /dev/ada1 /dev/ada2", got="status %d: %s" % (st, out.strip()))
            out, st = g.sh("stat -f %z /dev/ccd1")
            T.check("the interleave table uses all of every component", str(total) in out,
                    expected=total, got=out.strip())
            out, st = g.sh("pattern verify /dev/ccd1 %d 5" % total, timeout=120)
            T.check("guest verifies the host-striped pattern on all of ccd1", st == 0 and "verified" in out,
                    expected="verified", got="status %d: %s" % (st, out.strip()))
            out, st = g.sh("pattern write /dev/ccd1 %d 9" % total, timeout=120)
            T.check("guest writes a new pattern over all of ccd1", st == 0, expected="status 0",
                    got="status %d: %s" % (st, out.strip()))
    finally:
        wdrun.qemu_argv = base
    st, out = destripe("-i", 32, *paths, "--verify", total, "--seed", 9)
    T.check("host: de-striped unequal images hold the guest's pattern", st == 0, expected="verified", got=out)


def fault_boot():
    paths = make_images([32, 32], "bad")
    base = with_disks(ahci_args(paths, bad_sector=BAD_SECTOR))
    try:
        with Guest(mem=128, smp=1, timeout=120) as g:
            g.sh("ccdconfig ccd0 128 none /dev/ada0 /dev/ada1")
            # Disk 1's unit 40 is ccd unit 81: bytes 81 x 64 KB.
            out, st = g.sh("dd if=/dev/zero of=/dev/ccd0 bs=64k count=4 seek=80")
            T.check("dd to ccd0 over a failing component sector fails", st != 0 and "Input/output error" in out,
                    expected="non-zero status, Input/output error", got="status %d: %s" % (st, out.strip()))
            T.check("the console names ccd0 and the failing component", "ccd0: error 5 from component ada1" in g.console,
                    expected="ccd0: error 5 from component ada1",
                    got=[l for l in g.console.splitlines() if l.startswith("ccd0:")][-3:])
            out, st = g.sh("pattern write /dev/ccd0 4m 3 && pattern verify /dev/ccd0 4m 3")
            T.check("the stripe keeps working after the error", st == 0 and "verified" in out,
                    expected="verified", got="status %d: %s" % (st, out.strip()))
            out, st = g.sh("ccdconfig -u ccd0")
            T.check("ccdconfig -u after an error", st == 0, expected="status 0", got="status %d: %s" % (st, out))
    finally:
        wdrun.qemu_argv = base
    st, out = destripe("-i", 128, paths[0], paths[1], "--verify", "4m", "--seed", 3)
    T.check("host: the pattern written after the error is on both images", st == 0, expected="verified", got=out)


def pool_boot():
    paths = make_images([16, 16], "pool")
    base = with_disks(ahci_args(paths, bps=POOL_BPS))
    try:
        with Guest(mem=64, smp=2, timeout=120) as g:
            out, st = g.sh("ccdconfig ccd0 1 none /dev/ada0 /dev/ada1 && pattern write /dev/ccd0 16m 6"
                           " && pattern verify /dev/ccd0 16m 6", timeout=120)
            T.check("interleave 1: 16 MB through a short child pool, verified", st == 0 and "verified" in out,
                    expected="verified", got="status %d: %s" % (st, out.strip()))
            short = sysctl_int(g, "dev.ccd.0.pool_short")
            T.check("requests waited for the child pool instead of failing", short is not None and short > 0,
                    expected="> 0", got=short)
            T.check("no component error", "error" not in "".join(l for l in g.console.splitlines()
                                                                   if l.startswith("ccd0:")),
                    expected="none", got=[l for l in g.console.splitlines() if l.startswith("ccd0:")])
            flushes = [sysctl_int(g, "kern.devstat.%s.flushes" % d) for d in ("ccd0", "ada0", "ada1")]
            T.check("fsync of /dev/ccd0 flushed the ccd and both components",
                    all(f is not None and f >= 1 for f in flushes), expected="ccd0, ada0, ada1 >= 1",
                    got=flushes)
            check_fails(g, "dd if=/dev/ada0 of=/dev/null count=1", "a component of ccd0 cannot be opened",
                        "busy")
    finally:
        wdrun.qemu_argv = base
    st, out = destripe("-i", 1, paths[0], paths[1], "--verify", "16m", "--seed", 6)
    T.check("host: the interleave-1 pattern is on both images", st == 0, expected="verified", got=out)


if equal_boot():
    unequal_boot()
    fault_boot()
    pool_boot()
T.done()
