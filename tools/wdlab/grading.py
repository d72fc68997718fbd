"""grading: one grade, wherever it runs (labs/README.md, "One grade, wherever it runs").

make grade (tools/lab grade) in a student's tree, tools/lab grade-all over a class's
submissions and Gradescope's run_autograder (tools/lab grade-one) all grade this way:
  1. overlay: a pristine copy of the lab's handout (the base) is brought into work/tree, and
     the files its labs/<lab>/FILES names are taken from the submission over it. Nothing else
     of the submission is used: its Makefile, tests/, tools/ and grader are the handout's.
  2. the grader of that tree, labs/<lab>/grade, builds it (make all, and every host unit test
     it runs, from these sources, every time) and grades it, with the questions of the
     handout's own answers.txt (--questions) and results.json where asked. The files taken
     are printed first and head results.json's output.
The bases: in a student's tree, its handout commit (tag handout-<lab>) extracted into
build/grade/<lab>/handout (student_base); in the instructor's tree, handout.base(), generated
from the tree; on Gradescope, the zip's source folder, which is that same handout.

  overlay(base, lab, source, work, seed=None) -> (taken, missing)
      work/tree made or brought up to date: the base's files (new ones with the base's times),
      then FILES from source (a file that does not change keeps its time, so the build in
      work/tree/build is reused). seed: a build folder to start a new work/tree/build from,
      only where the base's files are that build's tree's, times included (the instructor's
      tree and the handouts made from it; never a student's build: their other files may
      differ); by default the base's own build/, if it has one (Gradescope's setup.sh builds
      the handout in the zip's folder). A file
      of source that still has lab markers (the instructor's tree) keeps the solutions of the
      lab and the labs it requires and gets the stubs of the others, so the instructor's tree
      as a submission is the handout with this lab's solution put back. A FILES entry source
      lacks keeps the handout's version (answers.txt: none, so it is reported unanswered).
  grade(base, lab, source, work, args, results=None, log=None, seed=None) -> the grader's exit status
  run(base, lab, work, args, took, results=None, log=None)   step 2 alone, on a tree already
                            laid over (and changed: tools/lab mutants)
  student_base(root, lab)   a student's handout commit, extracted (the base of make grade)
"""
import json
import os
import subprocess
import sys
import tarfile
import io
from pathlib import Path

from . import markers, tree
from .tree import LabError

ANSWERS = "labs/%s/answers.txt"


def files_of(base, lab):
    """The FILES list of the handout in base."""
    f = Path(base) / "labs" / lab / "FILES"
    if not f.is_file():
        raise LabError("%s is not lab %s's handout: it has no labs/%s/FILES" % (base, lab, lab))
    return [ln.strip() for ln in f.read_text().split("\n") if ln.strip() and not ln.startswith("#")]


def _labs_kept(base, lab):
    """The labs whose solutions a restored file keeps: lab and those it requires (its grader's
    --describe, run from the base)."""
    return {lab} | set(tree.describe(base, lab).get("requires", []))


def _taken_bytes(src, name, keep):
    data = src.read_bytes()
    if markers.comment_style(name) is None or b"LAB" not in data:
        return data
    try:
        text = data.decode()
        regions = markers.scan(name, text)
        markers.load_stub_files(src.parents[len(Path(name).parts) - 1], regions)
    except (UnicodeDecodeError, markers.MarkerError):
        return data
    return markers.cut(text, regions, lambda r: r.lab not in keep).encode() if regions else data


def overlay(base, lab, source, work, seed=None):
    base, source, work = Path(base), Path(source), Path(work)
    dest = work / "tree"
    dest.mkdir(parents=True, exist_ok=True)
    seed = seed if seed is not None else base / "build"
    tree.seed_build(seed, dest / "build")
    wanted = files_of(base, lab)
    keep, names, taken, missing = None, set(), [], []
    for name in tree.tracked_files(base):
        s = base / name
        names.add(name)
        if s.is_symlink():
            if not (dest / name).is_symlink() or os.readlink(dest / name) != os.readlink(s):
                if (dest / name).exists() or (dest / name).is_symlink():
                    (dest / name).unlink()
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(os.readlink(s), dest / name)
            continue
        if name not in wanted:
            tree.put(dest / name, s.read_bytes(), s.stat().st_mode & 0o777, s.stat().st_mtime)
    for name in wanted:
        s = source / name
        if s.is_file() and not s.is_symlink():
            keep = keep if keep is not None else _labs_kept(base, lab)
            mode = (base / name).stat().st_mode & 0o777 if (base / name).is_file() else 0o644
            tree.put(dest / name, _taken_bytes(s, name, keep), mode)
            names.add(name)
            taken.append(name)
        else:
            missing.append(name)
            if name == ANSWERS % lab:
                names.discard(name)
            elif (base / name).is_file():
                tree.put(dest / name, (base / name).read_bytes(), (base / name).stat().st_mode & 0o777)
    tree.prune(dest, names)
    return taken, missing


def _took_text(lab, taken, missing):
    text = "Lab %s, graded on its handout with these files of the submission: %s." % (
        lab, ", ".join(taken) if taken else "none")
    if missing:
        text += " Not in the submission (the handout's kept; no answers.txt means no answers): %s." % (
            ", ".join(missing))
    return text


def grade(base, lab, source, work, args, results=None, log=None, seed=None):
    """Overlay, then run the grader in work/tree; its exit status. Output to `log` (a file
    name) or stdout."""
    taken, missing = overlay(base, lab, source, work, seed)
    return run(base, lab, work, args, _took_text(lab, taken, missing), results, log)


def run(base, lab, work, args, took, results=None, log=None):
    """The grader of work/tree (laid over already), its output headed by `took`."""
    root = Path(work) / "tree"
    cmd = [sys.executable, str(root / "labs" / lab / "grade"),
           "--questions", str(Path(base).resolve() / (ANSWERS % lab))] + list(args)
    if results is not None:
        results = Path(results).resolve()
        results.unlink(missing_ok=True)
        cmd += ["--results", str(results)]
    env = {k: v for k, v in os.environ.items() if k not in ("WDRAIN_NO_BUILD", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    if log is None:
        print("tools/lab: " + took)
        sys.stdout.flush()
        status = subprocess.run(cmd, cwd=root, stdin=subprocess.DEVNULL, env=env).returncode
    else:
        with open(log, "w") as f:
            f.write("tools/lab: " + took + "\n")
            f.flush()
            status = subprocess.run(cmd, cwd=root, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=env).returncode
    if results is not None and results.is_file():
        try:
            doc = json.loads(results.read_text())
            doc["output"] = took + "\n" + doc.get("output", "")
            results.write_text(json.dumps(doc, indent=1) + "\n")
        except ValueError:
            pass
    return status


def handout_commit(root, lab):
    """The commit a student's tree was handed out at: tag handout-<lab> (`handout` in a tree
    from before the tags had the lab's name)."""
    for ref in ("handout-%s" % lab, "handout"):
        r = tree.git(root, "rev-parse", "-q", "--verify", "refs/tags/%s^{commit}" % ref, check=False)
        if r.returncode == 0:
            return r.stdout.decode().strip()
    raise LabError("%s has no tag handout-%s: make grade grades your files on the handout they came in, "
                   "and cannot find it (git fetch --tags from your course's handout repository)" % (root, lab))


def student_base(root, lab):
    """The handout commit's tree, extracted into build/grade/<lab>/handout (kept up to date)."""
    root = Path(root)
    commit = handout_commit(root, lab)
    dest = root / "build" / "grade" / lab / "handout"
    stamp = dest.parent / "handout.commit"
    if stamp.is_file() and stamp.read_text().strip() == commit and dest.is_dir():
        return dest
    archive = tree.git(root, "archive", "--format=tar", commit).stdout
    names = set()
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for m in tar.getmembers():
            if m.isdir():
                continue
            names.add(m.name)
            if m.issym():
                p = dest / m.name
                if p.exists() or p.is_symlink():
                    p.unlink()
                p.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(m.linkname, p)
            else:
                tree.put(dest / m.name, tar.extractfile(m).read(), m.mode & 0o777, m.mtime)
    tree.prune(dest, names)
    stamp.write_text(commit + "\n")
    return dest
