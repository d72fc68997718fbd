"""reltest: what the reliability tests share (docs/reliability.md).

Sizes. Each reliability test runs at a small size in `make test` and at full size in
`make stress` (tests/stress), which sets WDREL_STRESS=1:
    size(small, full)       the number for this run
    STRESS                  True under make stress
Seeds. Every random choice in these tests comes from a numbered seed, and every failure line
names the seed that reproduces it:
    seeds(n)                the seed list of this run: 1..n, or the ones in WDREL_SEEDS
                            ("17" or "3,17,40"), so one failure can be replayed alone:
                            WDREL_SEEDS=17 python3 tests/guest/test_fsimages.py
Host helpers:
    scratch(name)           a fresh folder build/rel/<name>-p<pid>, removed at exit
    make_tree(dir, seed)    a small deterministic tree of files and directories for mkfs
    mkfs(image, tree, size, bsize) / fsck(image, *opts) -> (status, output)
"""
import atexit
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import wdrun  # noqa: E402

STRESS = os.environ.get("WDREL_STRESS") == "1"
MKFS = wdrun.BUILD / "host" / "mkfs"
FSCK = wdrun.BUILD / "host" / "fsck"
FSCK_TIMEOUT = 120               # seconds: fsck on a damaged image must end


def size(small, full):
    return full if STRESS else small


def seeds(n):
    given = os.environ.get("WDREL_SEEDS", "").strip()
    if given:
        return [int(s) for s in given.replace(",", " ").split()]
    return list(range(1, n + 1))


def scratch(name):
    d = wdrun.BUILD / "rel" / ("%s-p%d" % (name, os.getpid()))
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    atexit.register(shutil.rmtree, d, True)
    return d


def make_tree(root, seed=1):
    """Directories three deep, an empty file, small files, one of 100 KB (past the 12 direct
    blocks of 4 KB-block wdfs) and one of 4.5 MB (into the double indirect block), symbolic
    links (to a file, to a directory, dangling) and a FIFO."""
    rng = random.Random(seed)
    root = str(root)
    for d in ("a/b/c", "sub/deep", "empty1", "empty2", "d1/d2"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    files = {"a/hello": b"hello\n", "zero": b"", "sub/deep/small": rng.randbytes(300),
             "a/b/mid": rng.randbytes(100000), "big": rng.randbytes(4500000)}
    for i in range(1, 41):
        files["d1/f%d" % i] = b"file %d\n" % i
    for name, data in files.items():
        with open(os.path.join(root, name), "wb") as f:
            f.write(data)
    for name, target in (("a/link", "hello"), ("sub/up", "../a"), ("dangling", "no/such/file")):
        if not os.path.islink(os.path.join(root, name)):
            os.symlink(target, os.path.join(root, name))
    if not os.path.exists(os.path.join(root, "fifo")):
        os.mkfifo(os.path.join(root, "fifo"))
    return files


def run(argv, timeout=FSCK_TIMEOUT):
    try:
        r = subprocess.run([str(a) for a in argv], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "%s did not finish within %d s" % (argv[0], timeout)
    return r.returncode, r.stdout


def mkfs(image, tree, size="12m", bsize=4096):
    st, out = run([MKFS, "-b", bsize, "-s", size, "-d", tree, image])
    if st != 0:
        raise RuntimeError("mkfs failed: %s" % out)


def fsck(image, *opts):
    return run([FSCK] + list(opts) + [image])
