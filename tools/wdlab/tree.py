"""tree: the source tree as the lab tools see it, its labs and its marked regions.

Interface:
  ROOT                     the repository this module is in
  tracked_files(root)      the files of the tree (relative paths, sorted), as they are in the
                           working tree: those git tracks if root is the top of a git work
                           tree, else every file but build/, .git and __pycache__ (an
                           unpacked Gradescope source, a submission)
  labs(root)               the labs: the folders labs/<name>/ that have a `grade` script
  all_regions(root, files) {path: [Region]} for every file with a marker, every marker checked;
                           raises MarkerError on the first malformed one
  check(root)              (regions, problems): problems are the readable sentences a
                           well-formed tree has none of: a malformed marker, markers of a lab
                           that has no labs/<name>/grade, a lab without README.md
  run_grader(root, lab, args)   labs/<lab>/grade with args, its stdout parsed as JSON when
                           asked for --describe
  describe(root, lab)      the grader's --describe: its tests, points, reference_kernel and
                           requires (the labs whose solutions its grading needs)
  student_files(root, lab, regions)  the files a student of `lab` edits: those holding the
                           regions of the lab and of the labs it requires (not under labs/),
                           and labs/<lab>/answers.txt
  put(path, data, mode, mtime)   write a file only if its bytes or mode differ (an unchanged
                           file keeps its time, so make rebuilds only what changed); a new
                           file gets mtime if given (a copy of a file keeps the original's)
  seed_build(src, dst)     a new build folder seeded with another's outputs
  prune(top, keep)         remove the files under top that are not in keep (relative paths),
                           leaving every build/, .git and __pycache__ folder alone
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import markers

ROOT = Path(__file__).resolve().parent.parent.parent


class LabError(Exception):
    """Something the user can fix: the message says what."""


def git(root, *args, check=True, **kw):
    r = subprocess.run(["git", "-C", str(root)] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, **kw)
    if check and r.returncode != 0:
        raise LabError("git %s failed in %s: %s" % (" ".join(args), root,
                                                     r.stderr.decode(errors="replace").strip()))
    return r


SKIP_DIRS = {"build", ".git", "__pycache__"}
SEED_DIRS = ("kernel", "user", "host", "rootfs")    # build/ folders a tree seeded from another reuses


def tracked_files(root):
    top = git(root, "rev-parse", "--show-toplevel", check=False)
    if top.returncode == 0 and Path(top.stdout.decode().strip()).resolve() == Path(root).resolve():
        names = [n for n in git(root, "ls-files", "-z").stdout.decode().split("\0") if n]
        return sorted(n for n in names if os.path.lexists(os.path.join(root, n)))
    found = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        found += [os.path.relpath(os.path.join(d, f), root) for f in files]
    return sorted(found)


def labs(root):
    d = Path(root) / "labs"
    return sorted(p.name for p in d.iterdir() if (p / "grade").is_file()) if d.is_dir() else []


def read_text(path):
    """A file's text, or None if it is not UTF-8 text (a binary file has no markers)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def all_regions(root, files):
    found = {}
    for name in files:
        text = read_text(Path(root) / name)
        if text is None or "LAB" not in text:
            continue
        regions = markers.scan(name, text)
        markers.load_stub_files(root, regions)
        if regions:
            found[name] = regions
    return found


def check(root):
    problems = []
    try:
        regions = all_regions(root, tracked_files(root))
    except markers.MarkerError as e:
        return {}, [str(e)]
    known = labs(root)
    marked = sorted({r.lab for rs in regions.values() for r in rs})
    for lab in marked:
        if lab not in known:
            where = sorted(p for p, rs in regions.items() if any(r.lab == lab for r in rs))
            problems.append("lab '%s' has regions (in %s) but no labs/%s/grade" % (lab, ", ".join(where), lab))
    problems += unit_includes(root, regions)
    for lab in known:
        if not (Path(root) / "labs" / lab / "README.md").is_file():
            problems.append("labs/%s/ has a grader but no README.md" % lab)
        for need in describe(root, lab).get("requires", []):
            if need not in known:
                problems.append("lab %s requires lab %s, which has no labs/%s/grade" % (lab, need, need))
    return regions, problems


INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def unit_includes(root, regions):
    """A host unit test (tests/unit/) that #includes a file with lab regions: that file, a
    student's, could redefine the test's checks. tests/tests.mk links such a file as an object
    of its own (UNIT_LAB_SRCS_<test>) instead."""
    problems = []
    for name in tracked_files(root):
        if not name.startswith("tests/unit/"):
            continue
        for n, line in enumerate((Path(root) / name).read_text().split("\n"), 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            where = {os.path.normpath(os.path.join("kernel", m.group(1))),
                     os.path.normpath(os.path.join("tests/unit", m.group(1)))}
            for lab_file in sorted(where & set(regions)):
                problems.append("%s:%d #includes %s, a lab's file: link it as an object of its own "
                                "(tests/tests.mk, UNIT_LAB_SRCS_<test>)" % (name, n, lab_file))
    return problems


_described = {}


def describe(root, lab):
    key = (str(Path(root).resolve()), lab)
    if key not in _described:
        _described[key] = run_grader(root, lab, ["--describe"])
    return _described[key]


def student_files(root, lab, regions):
    labs_done = {lab} | set(describe(root, lab).get("requires", []))
    files = {p for p, rs in regions.items() if not p.startswith("labs/") and any(r.lab in labs_done for r in rs)}
    return sorted(files) + ["labs/%s/answers.txt" % lab]


def put(path, data, mode=0o644, mtime=None):
    path = Path(path)
    if path.is_symlink():
        path.unlink()
    new = not path.exists()
    if new or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp-wdlab")
        tmp.write_bytes(data)
        if new and mtime is not None:
            os.utime(tmp, (mtime, mtime))
        os.replace(tmp, path)
    if (path.stat().st_mode & 0o777) != mode:
        os.chmod(path, mode)


def seed_build(src, dst):
    """Copy a build folder's outputs, with their times, into the empty build folder dst: make in
    dst's tree then rebuilds only what is newer. Only for trees whose other files are src's
    tree's, with its times (a handout of it, a solution laid over one). Every file of dst's tree
    that is not src's tree's (a stubbed file, a student's) is then made newer than the outputs:
    a handout keeps a stub's time while its content stays the same, and src's tree may have
    rebuilt the solution's objects since (a header changed), which make would otherwise take."""
    src, dst = Path(src), Path(dst)
    if dst.exists() or not src.is_dir():
        return
    dst.mkdir(parents=True)
    for d in SEED_DIRS:
        if (src / d).is_dir():
            shutil.copytree(src / d, dst / d, symlinks=True)
    for f in src.iterdir():
        if f.is_file():
            shutil.copy2(f, dst / f.name)
    _touch_changed(src.parent, dst.parent)


def _touch_changed(src_tree, dst_tree):
    now = time.time()
    for d, dirs, files in os.walk(dst_tree):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
        for f in files:
            mine = Path(d) / f
            theirs = Path(src_tree) / mine.relative_to(dst_tree)
            if mine.is_symlink():
                continue
            if not theirs.is_file() or theirs.stat().st_size != mine.stat().st_size or \
                    theirs.read_bytes() != mine.read_bytes():
                os.utime(mine, (now, now))


def prune(top, keep):
    top = Path(top)
    for d, dirs, files in os.walk(top, topdown=True):
        rel = os.path.relpath(d, top)
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
        for f in files:
            name = os.path.normpath(os.path.join(rel, f))
            if name not in keep:
                os.unlink(os.path.join(d, f))
    for d, dirs, files in os.walk(top, topdown=False):
        if d != str(top) and not os.listdir(d) and not SKIP_DIRS & set(Path(d).relative_to(top).parts):
            os.rmdir(d)


def run_grader(root, lab, args, capture=True):
    grade = Path(root) / "labs" / lab / "grade"
    if not grade.is_file():
        raise LabError("no lab '%s': labs/%s/grade does not exist (labs: %s)"
                       % (lab, lab, ", ".join(labs(root)) or "none"))
    cmd = [sys.executable, str(grade)] + list(args)
    if not capture:
        return subprocess.run(cmd, cwd=root).returncode
    r = subprocess.run(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise LabError("labs/%s/grade %s failed: %s" % (lab, " ".join(args), (r.stderr or r.stdout).strip()))
    return json.loads(r.stdout) if "--describe" in args else r.stdout
