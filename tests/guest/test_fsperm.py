#!/usr/bin/env python3
"""test_fsperm: the utilities of owners, modes and links - chmod, chown, id, ln -s, ls -l,
mkfifo, truncate, the shell's umask, mount -u - on a data disk made on the host as a format
version 1 wdfs (before symbolic links), which the kernel upgrades to version 3 when it mounts it
read-write; after the boot the host's fsck finds what the guest made (links, a FIFO, device
nodes made by mknod, set-ID and sticky bits, other owners) clean, and the superblock says
version 3 (docs/fs.md,
docs/userland.md). One boot, about 15 s.
tests/run: timeout=300 about=20
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, TestSet  # noqa: E402
import wdrun  # noqa: E402
import wdfs  # noqa: E402

DIR = wdrun.BUILD / "run" / "disks" / ("test_fsperm-p%d" % os.getpid())
MKFS = str(wdrun.BUILD / "host" / "mkfs")
FSCK = str(wdrun.BUILD / "host" / "fsck")

T = TestSet("fsperm")


def run(g, name, cmd, status=0, out=None, contains=(), regex=None):
    """Run cmd in the guest; check $? and its output (exactly `out`, or parts of it)."""
    got, st = g.sh(cmd)
    ok = st == status and (out is None or got == out) and all(c in got for c in contains)
    if regex is not None:
        ok = ok and re.search(regex, got, re.M) is not None
    want = "status %d%s%s%s" % (status, ", output %r" % out if out is not None else "",
                                "".join(", containing %r" % c for c in contains), ", /%s/" % regex if regex else "")
    T.check(name, ok, expected=want, got="status %d: %r" % (st, got))


shutil.rmtree(DIR, ignore_errors=True)
DIR.mkdir(parents=True)
IMG = DIR / "d0.img"
subprocess.run([MKFS, "-s", "32m", str(IMG)], check=True, stdout=subprocess.DEVNULL)
with wdfs.Image(IMG, writable=True) as img:
    img.sb["s_version"] = 1
    img.seal_super()

with Guest(disks=1, root="md", keep=True, disk_dir=DIR, disk_size="32m", timeout=120) as g:
    run(g, "mount: a version 1 file system mounts read-write", "mount /dev/da0 /data1 && cd /data1")
    T.check("the kernel says it upgraded the format", "format version 1 upgraded to 3" in g.console,
            expected="wdfs: da0: format version 1 upgraded to 3", got=g.console[-400:])

    # the shell's umask (FreeBSD sh's forms) and the modes new files get
    run(g, "umask: init's mask is 022", "umask", out="0022\n")
    run(g, "umask -S", "umask -S", out="u=rwx,g=rx,o=rx\n")
    run(g, "umask 027 then a new file", "(umask 027; umask; touch u; ls -l u)",
        regex=r"\A0027\n-rw-r-----  1 root  wheel  0 ")
    run(g, "umask: a symbolic mask says what is allowed", "(umask u=rwx,g=rx,o=; umask)", out="0027\n")
    run(g, "umask: a bad mask", "umask 99", status=2, contains=["umask: bad mask"])

    # chmod
    run(g, "chmod: octal", "touch f; chmod 640 f; ls -l f", regex=r"\A-rw-r-----  1 root  wheel  0 ")
    run(g, "chmod: symbolic clauses", "chmod u+x,g-r,o=w f; ls -l f", regex=r"\A-rwx----w-  ")
    run(g, "chmod: a=r, then +X leaves a file without x alone", "chmod a=r f; chmod +X f; ls -l f",
        regex=r"\A-r--r--r--  ")
    run(g, "chmod: the set-ID bits show as s", "chmod 6755 f; ls -l f", regex=r"\A-rwsr-sr-x  ")
    run(g, "chmod: without x they show as S", "chmod 6644 f; ls -l f", regex=r"\A-rwSr-Sr--  ")
    run(g, "chmod: a sticky directory shows t", "mkdir t; chmod 1777 t; ls -ld t", regex=r"\Adrwxrwxrwt  ")
    run(g, "chmod -R and -v", "mkdir -p r/s; touch r/s/x; chmod -R -v go-rwx r; ls -l r/s",
        regex=r"\Ar\nr/s\nr/s/x\ntotal \d+\n-rw-------  ")
    run(g, "chmod: a bad mode", "chmod abc f", status=1, out="chmod: invalid file mode: abc\n")
    run(g, "chmod: a missing file", "chmod 644 none", status=1, out="chmod: none: No such file or directory\n")
    run(g, "chmod: usage", "chmod 644", status=1, contains=["usage: chmod"])

    # chown and id
    run(g, "chown: uid:gid by number", "chown 1001:5 f; ls -l f", regex=r"\A-rw.*  1 1001  operator  0 ")
    run(g, "chown: names from /etc/passwd and /etc/group", "chown daemon:staff f; ls -l f",
        regex=r"\A-rw.*  1 daemon  staff  0 ")
    run(g, "chown: :group alone", "chown :wheel f; ls -l f", regex=r"\A-rw.*  1 daemon  wheel  0 ")
    run(g, "chown: an unknown user", "chown nosuchuser f", status=1, out="chown: nosuchuser: illegal user name\n")
    run(g, "chown: an unknown group", "chown root:nosuchgroup f", status=1,
        out="chown: nosuchgroup: illegal group name\n")
    run(g, "chown -h changes the link, not its target", "ln -s f lf; chown -h 1002 lf; ls -l lf f",
        regex=r"\A-rw.*  1 daemon  wheel  0 .* f\nlrwxr-xr-x  1 1002 +wheel  1 .* lf -> f\n\Z")
    run(g, "id: root", "id", out="uid=0(root) gid=0(wheel) groups=0(wheel)\n")
    run(g, "id -un and -g", "id -un; id -g", out="root\n0\n")
    run(g, "id of a user in /etc/passwd", "id daemon", out="uid=1(daemon) gid=1(daemon) groups=1(daemon)\n")
    run(g, "id of an unknown user", "id nosuchuser", status=1, out="id: nosuchuser: no such user\n")

    # ln -s and ls -l
    run(g, "ln -s: a link to a file that does not exist", "ln -s /no/such target; ls -l target",
        regex=r"\Alrwxr-xr-x  1 root  wheel  8 .* target -> /no/such\n\Z")
    run(g, "ln -s: reading through a relative link", "echo hi > file; ln -s file rel; cat rel", out="hi\n")
    run(g, "ln -s into a directory, -v", "mkdir d; ln -sv ../file d", out="d/file -> ../file\n")
    run(g, "ln -sf replaces a link", "ln -sf other rel; ls -l rel", regex=r" rel -> other\n\Z")
    run(g, "ln -s: an existing name", "ln -s file rel", status=1, out="ln: rel: File exists\n")
    run(g, "ls of a link operand follows it without -l", "ls d/file", out="d/file\n")
    run(g, "ls -L-less listing of a directory does not follow its links", "ls -l d",
        regex=r"\Atotal \d+\nlrwxr-xr-x  1 root  wheel  7 .* file -> \.\./file\n\Z")
    run(g, "a link loop", "ln -s loop1 loop2; ln -s loop2 loop1; cat loop1", status=1,
        out="cat: loop1: Too many levels of symbolic links\n")

    # mkfifo
    run(g, "mkfifo and ls -l", "mkfifo p; ls -l p", regex=r"\Aprw-r--r--  1 root  wheel  0 ")
    run(g, "mkfifo -m", "mkfifo -m 600 p2; ls -l p2", regex=r"\Aprw-------  ")
    run(g, "mkfifo: an existing name", "mkfifo p", status=1, out="mkfifo: p: File exists\n")

    # mknod: device nodes on wdfs (format version 3) reach devfs's drivers by number
    run(g, "mknod c: /dev/null's number, ls -l shows it", "mknod nul c 1 0 && ls -l nul && echo x > nul && cat nul",
        regex=r"\Acrw-r--r--  1 root  wheel +1, +0 \w+ +\d+ [\d:]+ nul\n\Z")
    run(g, "mknod b: the first disk's number", "mknod disk b 2 0 && ls -l disk", regex=r"\Abrw-r--r--  1 root  wheel +2, +0 ")
    run(g, "mknod: a bad type", "mknod x d 1 0", status=1, out="mknod: node must be type 'b' or 'c'\n")
    run(g, "mknod: a non-numeric major", "mknod x c 1z 0", status=1, out="mknod: 1z: non-numeric major number\n")
    run(g, "mknod: a major past 255", "mknod x c 256 0", status=1, out="mknod: major or minor number too large\n")
    run(g, "mknod: an existing name", "mknod nul c 1 0", status=1, out="mknod: nul: File exists\n")
    run(g, "mknod: usage", "mknod nul c", status=1, out="usage: mknod name [b | c] major minor\n")
    run(g, "a FIFO between two processes", "(echo through the fifo > p &); cat p", out="through the fifo\n")

    # truncate
    run(g, "truncate -s", "truncate -s 10k t1; ls -l t1", regex=r"  10240 .* t1\n\Z")
    run(g, "truncate -s +1K and -2k", "truncate -s +1K t1; ls -l t1; truncate -s -2k t1; ls -l t1",
        regex=r"  11264 .* t1\n.*  9216 .* t1\n\Z")
    run(g, "truncate -s -: not below 0", "truncate -s -1g t1; ls -l t1", regex=r"  0 .* t1\n\Z")
    run(g, "truncate -r", "truncate -s 3m t2; truncate -r t2 t3; ls -l t3", regex=r"  3145728 .* t3\n\Z")
    run(g, "truncate -c does not create", "truncate -c -s 1 none2; ls none2", status=1,
        out="ls: none2: No such file or directory\n")
    run(g, "truncate: a bad size", "truncate -s 1x t1", status=1, out="truncate: invalid size argument `1x'\n")
    run(g, "truncate: a directory", "truncate -s 0 d", status=1, out="truncate: d: Is a directory\n")

    # mount -u
    run(g, "mount -u -r", "cd /; mount -u -r /data1; touch /data1/x; mount", status=0,
        contains=["touch: /data1/x: Read-only file system", "/dev/da0 on /data1 (wdfs, local, read-only)"])
    run(g, "mount -u -w", "mount -u -w /data1 && touch /data1/x && mount", contains=["/dev/da0 on /data1 (wdfs, local)\n"])
    run(g, "mount -u -r while a file is open for writing", "(sleep 3 > /data1/busy &); sleep 1; mount -u -r da0",
        status=1, contains=["mount: /data1: Device busy (a file in it is open for writing"])
    run(g, "mount -u of devfs", "sleep 3; mount -u -r /dev", status=1,
        contains=["mount: /dev: Operation not supported (this file-system type cannot be changed)"])
    run(g, "mount -u of something not mounted", "mount -u -r /nowhere", status=1,
        out="mount: /nowhere: not a mounted file system\n")

    # /dev/random
    run(g, "dd from /dev/urandom", "dd if=/dev/urandom of=/data1/rnd bs=1k count=4 2>/dev/null; ls -l /data1/rnd",
        regex=r"  4096 .* /data1/rnd\n\Z")
    run(g, "umount", "umount /data1")

st = subprocess.run([FSCK, str(IMG)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
T.check("host fsck: the file system the guest filled with links, FIFOs and owners is clean",
        st.returncode == 0 and "clean" in st.stdout, expected="status 0, clean", got=st.stdout)
with wdfs.Image(IMG) as img:
    T.check("the superblock says format version 3 now", img.sb["s_version"] == 3, expected=3,
            got=img.sb["s_version"])
    nul = img.lookup("/nul")
    T.check("the host reads the guest's device node: character, 1, 0", nul is not None and img.inode(nul).is_chr and
            img.inode(nul).rdev == (1 << 8) | 0, expected="is_chr, rdev 0x100",
            got=img.inode(nul) if nul is not None else None)
    lnk = img.lookup("/target")
    T.check("the host reads the guest's link to /no/such", lnk is not None and img.inode(lnk).is_lnk and
            img.read(lnk) == b"/no/such", expected="a link to /no/such",
            got=img.read(lnk) if lnk is not None else None)
shutil.rmtree(DIR, ignore_errors=True)
T.done()
