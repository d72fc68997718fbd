"""crashcheck: what a crashed wdfs image may and may not show, for the crash tests and
tools/powercut.

    ALLOWED                     fsck messages a crash may leave (docs/fs.md "What a crash can
                                leave"), as patterns of the message with its numbers taken out
    damage_kinds(out, lostfound, skip=())
                                fsck's problem lines: (allowed kinds, forbidden lines)
    parse_promises(text)        crashload's FSYNC/SYNC lines: [(kind, name, k, bytes)]
    pattern(seed, fid, n)       crashload.c's fill()
    verify(img, seed, promises) the promised bytes, read from a (repaired) image: what is wrong
"""
import re
import struct

import wdfs

PROMISE_RE = re.compile(r"(FSYNC|SYNC) (keep/k(\d+)|big) (\d+)\n")

# Every other fsck message breaks one of the kernel's ordering rules.
ALLOWED = [
    r"block # is unused but marked in use", r"block # is in use but marked free",
    r"inode # is unused but marked in use", r"inode # is in use but marked free",
    r"block bitmap: # in use but marked free, # unused but marked in use.*",
    r"inode bitmap: # in use but marked free, # unused but marked in use.*",
    r"inode #: unreferenced (file|directory) with link count # and size #: cleared",
    r"inode #: unreferenced (file|directory) \(size #\)", r"reconnected inode # as /lost\+found/##",
    r"directory inode # is not reachable from the root", r"directory inode # has no blocks \(size #\): .*",
    r"directory \(inode #\): '\.\.' is inode #, should be #",     # part of reconnecting it (-n's view)
    r"inode #: block # at logical block # is past the end of the file \(# blocks\)",
    r"inode #: indirect block # at logical block # is past the end of the file \(# blocks\)",
    r"inode #: block count is #, should be #",
    r"superblock: free (block|inode) count is #, should be #",
    r"superblock: clean flag not set \(the file system was not unmounted cleanly\)",
]
LINK_RE = re.compile(r"inode (\d+) \((file|directory)\): link count is (\d+), should be (\d+)")


def damage_kinds(out, lostfound, skip=()):
    """fsck's problem lines: (allowed kinds, with the numbers taken out; forbidden lines as they
    are). Lines starting with one of `skip` (the image's path) are fsck's own headings. A link
    count too low breaks rule 3, except /lost+found's when fsck reconnects directories into it
    (each one's '..' adds a link)."""
    allowed, forbidden = [], []
    reconnects = "is not reachable from the root" in out
    for line in out.splitlines():
        line = line.replace(" - fixed", "").strip()
        if not line or line.startswith(("** ", "/") + tuple(skip)) or ": clean:" in line or \
                re.search(r"problems? found", line):
            continue
        m = LINK_RE.match(line)
        if m:
            if int(m.group(3)) > int(m.group(4)):
                allowed.append("%s link count too high" % m.group(2))
            elif reconnects and int(m.group(1)) == lostfound:
                allowed.append("/lost+found link count too low after reconnecting directories")
            else:
                forbidden.append(line)
            continue
        generic = re.sub(r"\d+", "#", line)
        if any(re.fullmatch(p, generic) for p in ALLOWED):
            allowed.append(generic)
        else:
            forbidden.append(line)
    return allowed, forbidden


def parse_promises(text):
    return [(m.group(1), m.group(2), int(m.group(3) or 0), int(m.group(4))) for m in PROMISE_RE.finditer(text)]


def pattern(seed, fid, n):
    """crashload.c's fill(): sector s of file fid is (seed, fid, s) as <IIQ, 32 times."""
    return b"".join(struct.pack("<IIQ", seed, fid, s) * 32 for s in range((n + 511) // 512))[:n]


def verify(img, seed, promises):
    """The promised bytes, checked on a repaired image: a list of what is wrong."""
    wrong = []
    with wdfs.Image(img) as im:
        big = max([n for kind, name, k, n in promises if name == "big"] or [0])
        for kind, name, k, n in promises:
            if name == "big":
                continue
            ino = im.lookup("/" + name)
            if ino is None:
                wrong.append("%s (fsync'd with %d bytes) is gone" % (name, n))
                continue
            data = im.read(ino)
            if data != pattern(seed, k + 1, n):
                wrong.append("%s: %d bytes, %s" % (name, len(data), "the right size but other bytes"
                                                    if len(data) == n else "expected %d" % n))
        if big:
            ino = im.lookup("/big")
            data = im.read(ino, limit=big) if ino else b""
            want = pattern(seed, 0, big)
            if data != want:
                first = next((o for o in range(0, big, 512) if data[o:o + 512] != want[o:o + 512]), big)
                wrong.append("big: fsync'd or synced at %d bytes, %s" % (big, "gone" if ino is None else
                             "has %d bytes, the first wrong sector at byte %d" % (len(data), first)))
    return wrong
