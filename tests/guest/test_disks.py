"""test_disks: the harness's disk options (tools/run --disks/--bus/--root/--keep/--throttle/
--disk-model/--inject-write-error, the same keywords of wdtest.Guest).

Boot 1, virtio-SCSI, fresh images in a folder of this test: the root is on da0 (root=da0 in
kern.bootargs, `ls /` works, /dev has da0-da2 and no md0); a marker written raw to /dev/da1 is
in data disk 0's image once the guest is off; 50 MB written to a data disk throttled to 10 MB/s
take longer than 2.5 s (a loose bound). Boot 2, --keep: the marker is still on da1.
Boot 3, AHCI through the GRUB ISO, in the same folder without --keep: root on ada0 (the ISO's
menu entry gets root=ada0 and loses the md0 module), ada1 is fresh (no marker), and an
injected write error on ada1 fails a dd over that sector but not one beside it.
Boot 4, --root md: md0 stays the root and the data disk is da0. Boot 5, --disk-model ideal:
a write through the model server reaches the image and its statistics count it. Boot 6,
--disk-model ideal,ide7200 (a preset per disk): each disk's server runs its own preset.
Also: conflicting or impossible options are refused with exit status 2, before any boot.
"""
# tests/run: timeout=300
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import wdrun  # noqa: E402
from wdbench import CCD_RELEASE  # noqa: E402

DIR = wdrun.BUILD / "run" / "disks" / ("test_disks-p%d" % os.getpid())
MARK = "wdrain-keep-7391"
DD_RE = re.compile(r"(\d+) bytes transferred in ([\d.]+) secs")

T = TestSet("disks")


def words(g, cmd):
    out, st = g.sh(cmd)
    return out.split() if st == 0 else ["status %d: %s" % (st, out.strip())]


def check_root_disk(g, tag, name, data):
    args = words(g, "sysctl -n kern.bootargs")
    T.check("%s: kern.bootargs has root=%s" % (tag, name), "root=" + name in args,
            expected="root=" + name, got=args)
    ls = words(g, "ls /")
    T.check("%s: ls / lists the root file system" % tag, {"bin", "etc", "sbin"} <= set(ls),
            expected="bin etc sbin ...", got=ls)
    dev = words(g, "ls /dev")
    want = [name] + data
    T.check("%s: /dev has %s and no md0" % (tag, " ".join(want)), set(want) <= set(dev) and "md0" not in dev,
            expected=want, got=dev)


def read_marker(g, dev):
    out, st = g.sh("dd if=/dev/%s bs=512 count=1 2>/dev/null | head -n 1" % dev)
    return out.strip("\x00\n")


def image_starts_with(path, data):
    with open(path, "rb") as f:
        return f.read(len(data)) == data


def boot_fresh_scsi():
    with Guest(disks=2, bus="scsi", throttle=10, disk_dir=DIR, disk_size="256m") as g:
        tag = "scsi --disks 2"
        check_root_disk(g, tag, "da0", ["da1", "da2"])
        out, st = g.sh(CCD_RELEASE + "echo %s > /tmp/mark && dd if=/tmp/mark of=/dev/da1 bs=512 conv=sync" % MARK)
        T.check("%s: dd writes a marker to /dev/da1" % tag, st == 0, expected="status 0",
                got="status %d: %s" % (st, out.strip()))
        out, st = g.sh("dd if=/dev/zero of=/dev/da2 bs=128k count=400", timeout=120)
        m = DD_RE.search(out)
        secs = float(m.group(2)) if m and st == 0 else None
        T.check("%s --throttle 10: 50 MB to da2 take more than 2.5 s" % tag, secs is not None and secs > 2.5,
                expected="> 2.5 s", got=secs if secs is not None else out.strip())
    images = g.disk_images
    T.check("Guest.disk_images names d0.img and d1.img in the disk folder",
            images == [DIR / "d0.img", DIR / "d1.img"] and g.root_image == DIR / "root.img",
            expected=[str(DIR / "d0.img"), str(DIR / "d1.img")], got=[str(p) for p in images])
    T.check("host: after poweroff, data disk 0's image starts with the marker",
            images and image_starts_with(images[0], (MARK + "\n").encode()), expected=MARK,
            got=open(images[0], "rb").read(20) if images and images[0].exists() else "no image")


def boot_keep_scsi():
    with Guest(disks=2, bus="scsi", keep=True, disk_dir=DIR, disk_size="256m") as g:
        g.sh(CCD_RELEASE + "true")
        got = read_marker(g, "da1")
        T.check("--keep: the marker written in the first boot is still on da1", got == MARK,
                expected=MARK, got=got)


def boot_fresh_ahci():
    bad = 2048
    with Guest(iso=True, disks=1, bus="ahci", disk_dir=DIR, disk_size="256m", inject=["1:%d" % bad]) as g:
        tag = "GRUB ISO, ahci --disks 1"
        check_root_disk(g, tag, "ada0", ["ada1"])
        got = read_marker(g, "ada1")
        T.check("%s without --keep: the data disk is created fresh" % tag, got == "", expected="zeros", got=got)
        out, st = g.sh("dd if=/dev/zero of=/dev/ada1 bs=512 count=4 seek=%d" % (bad - 1))
        T.check("%s --inject-write-error 1:%d: dd over that sector fails with EIO" % (tag, bad),
                st != 0 and "Input/output error" in out, expected="non-zero status, Input/output error",
                got="status %d: %s" % (st, out.strip()))
        out, st = g.sh("dd if=/dev/zero of=/dev/ada1 bs=512 count=4 seek=%d" % (bad + 8))
        T.check("%s: a write beside the failing sector works" % tag, st == 0, expected="status 0",
                got="status %d: %s" % (st, out.strip()))


def boot_md_root():
    with Guest(disks=1, bus="scsi", root="md") as g:
        args = words(g, "sysctl -n kern.bootargs")
        T.check("--root md: no root= on the command line", not any(a.startswith("root=") for a in args),
                expected="no root= word", got=args)
        dev = words(g, "ls /dev")
        T.check("--root md --disks 1: /dev has md0 and da0, no da1", {"md0", "da0"} <= set(dev) and "da1" not in dev,
                expected="md0 da0", got=dev)


def boot_disk_model():
    with Guest(disks=1, bus="scsi", disk_model="ideal", disk_size="64m") as g:
        out, st = g.sh("echo %s > /tmp/mark && dd if=/tmp/mark of=/dev/da1 bs=512 conv=sync && "
                       "dd if=/dev/zero of=/dev/da1 bs=128k count=32 seek=1" % MARK, timeout=120)
        T.check("--disk-model ideal: dd to da1 through the model works", st == 0 and "32+0 records out" in out,
                expected="32+0 records out", got="status %d: %s" % (st, out.strip()))
    stats = g.disk_stats()
    written = stats[0].get("write_bytes", 0) if stats else 0
    T.check("--disk-model: the server's statistics count the 4 MB written", written >= 4 << 20,
            expected=">= 4194304 write_bytes", got=stats[0] if stats else "no stats")
    T.check("--disk-model: the data reached the image", image_starts_with(g.disk_images[0], MARK.encode()),
            expected=MARK, got=open(g.disk_images[0], "rb").read(20))


def boot_disk_models():
    """One preset per disk: each server runs its own (its log's banner names it)."""
    with Guest(disks=2, bus="scsi", disk_model="ideal,ide7200,trace=off", disk_size="64m") as g:
        out, st = g.sh("ccdconfig -u ccd0 2>/dev/null; dd if=/dev/zero of=/dev/da1 bs=128k count=8 && "
                       "dd if=/dev/zero of=/dev/da2 bs=128k count=8", timeout=120)
        T.check("--disk-model ideal,ide7200: dd to both disks works", st == 0 and out.count("8+0 records out") == 2,
                expected="8+0 records out twice", got="status %d: %s" % (st, out.strip()))
        disk_dir = g.disk_dir
    banners = []
    for j in range(2):
        try:
            text = (disk_dir / ("d%d.log" % j)).read_text(errors="replace")
        except OSError as e:
            text = str(e)
        banners.append(next((ln for ln in text.splitlines() if "preset=" in ln), text[-200:]))
    T.check("--disk-model ideal,ide7200: da1 is served as ideal, da2 as ide7200",
            "preset=ideal" in banners[0] and "preset=ide7200" in banners[1], expected="preset=ideal, preset=ide7200",
            got=banners)


def refused_options():
    run = str(wdrun.ROOT / "tools" / "run")
    cases = [
        (["--disks", "1", "--throttle", "5", "--disk-model", "ideal"], "exclude each other"),
        (["--disks", "1", "--inject-write-error", "2:100"], "da2 is not one of the disks"),
        (["--disks", "6", "--bus", "ahci"], "at most 6 disks"),
        (["--throttle", "5"], "give --disks N too"),
        (["--disks", "1", "--disk-model", "scsi15k"], "start with a preset"),
        (["--disks", "2", "--disk-model", "scsi10k,ide15k"], "'ide15k' is neither a preset"),
        (["--disks", "3", "--disk-model", "scsi10k,ide7200"], "2 presets for 3 data disks"),
    ]
    for opts, want in cases:
        r = subprocess.run([run] + opts + ["--", "true"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        T.check("tools/run %s is refused: %s" % (" ".join(opts), want), r.returncode == 2 and want in r.stderr,
                expected="status 2, '%s'" % want, got="status %d, %s" % (r.returncode, r.stderr.strip()))


try:
    refused_options()
    boot_fresh_scsi()
    boot_keep_scsi()
    boot_fresh_ahci()
    boot_md_root()
    boot_disk_model()
    boot_disk_models()
finally:
    shutil.rmtree(DIR, ignore_errors=True)
T.done()
