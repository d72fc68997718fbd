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
"""
import json
import os
import subprocess
import sys
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
    for lab in known:
        if not (Path(root) / "labs" / lab / "README.md").is_file():
            problems.append("labs/%s/ has a grader but no README.md" % lab)
    return regions, problems


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
