"""handout: a lab's student tree (tools/lab handout, make lab), and the pristine copy of it that
grading lays a student's files over.

A handout holds no lab's solution: every lab region of the tree becomes its stub, whatever the
lab, and every stub is a working fallback (labs/README.md), so a handout's kernel boots and
works. What tells two labs' handouts apart is under labs/: a handout has labs/README.md,
labs/labs.mk and its own lab's folder (README.md, grade, answers.txt with the questions and
their stubs, not the folder's mutations/ or stubs/), and
  .lab                  the lab's name (make grade, make handin and the grader read it)
  labs/<lab>/FILES      the files the student edits: those that hold the regions of the lab
                        and of the labs it requires, and its answers.txt. Grading takes these
                        from a submission and every other file from the handout.
  labs/<lab>/handout-checks.txt   the host unit tests' checks the handout's own code already
                        passes (its stubs are fallbacks): graders count the others
  labs/<lab>/unit-checks.txt      every check each host unit test makes: a unit-test group
                        that reports another list scores nothing
  labs/<lab>/reference/kernel.elf   where the grader compares with the reference design: this
                        handout's kernel with the lab's solution (and its requirements')
                        put back, without debug information or symbols, the functions of
                        the lab's FILES unnamed in the kernel's own table (reference_kernel)
The instructor's own tests of the labs (INSTRUCTOR_ONLY) stay out.

  write_tree(root, lab, dest)    the handout's files (no reference kernel) in the folder dest,
                                 made or brought up to date: a file that does not change keeps
                                 its time, and files that are no longer in it go (not build/
                                 or .git)
  base(root, lab)                build/labs/<lab>/handout: the instructor's pristine handout,
                                 up to date, with its reference kernel (built in
                                 build/labs/<lab>/restored, the handout with the solution put
                                 back: grading.overlay with the tree itself as the submission)
  make_handout(root, lab, dest)  a git repository in dest with one commit, tagged
                                 handout-<lab>; if dest is a handout repository already (an
                                 earlier lab's), a new commit on top of it with this lab's
                                 handout, tagged the same, the earlier labs' folders kept: a
                                 course's labs in sequence, which students merge with
                                 tools/lab next (sequence.py)
"""
import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

from . import grading, markers, tree
from .tree import LabError

REFERENCE = "reference/kernel.elf"      # under labs/<lab>/
FILES = "FILES"                         # labs/<lab>/FILES
HANDOUT_CHECKS = "handout-checks.txt"   # labs/<lab>/handout-checks.txt
UNIT_CHECKS = "unit-checks.txt"         # labs/<lab>/unit-checks.txt
LAB_KEEP = ("README.md", "grade", "answers.txt")
LABS_TOP = ("labs/README.md", "labs/labs.mk")
INSTRUCTOR_ONLY = ("tests/labs/", "tests/guest/test_labs.py", "tests/guest/test_labs_grade.py")
FALLBACK_IDENTITY = ("wdrain labs", "labs@wdrain.invalid")


def tag(lab):
    return "handout-%s" % lab


def _in_handout(name, lab):
    if name.startswith(INSTRUCTOR_ONLY):
        return False
    if not name.startswith("labs/"):
        return True
    return name in LABS_TOP or name in ("labs/%s/%s" % (lab, f) for f in LAB_KEEP)


def _files_text(lab, files):
    return ("# The files you edit in lab %s. make grade and the autograder take these from your tree\n"
            "# and every other file from the handout (labs/README.md, \"One grade, wherever it runs\").\n"
            % lab + "".join(f + "\n" for f in files))


def _unit_checks(root, dest, names):
    """The host unit tests' checks in the handout: (the checks its own code passes, every check
    each test makes), as the texts of HANDOUT_CHECKS and UNIT_CHECKS. The handout's stubs are
    fallbacks and some checks hold for them: a grader counts a unit-test group's other checks;
    and it gives a group nothing unless exactly the checks of the list ran (gradelib.unit_test).
    Built (from the tree's build) and run in dest; every lab's handout has the same code, so the
    answer is kept in build/labs/ by the code's digest."""
    digest = hashlib.sha256()
    for name in sorted(n for n in names if not n.startswith("labs/") and n != ".lab"):
        digest.update(name.encode() + b"\0" + (dest / name).read_bytes() + b"\0")
    caches = [Path(root) / "build" / "labs" / ("%s-%s.txt" % (what, digest.hexdigest()[:16]))
              for what in ("handout-checks", "unit-checks")]
    if all(c.is_file() for c in caches):
        return tuple(c.read_text() for c in caches)
    tree.seed_build(Path(root) / "build", dest / "build")
    r = subprocess.run(["make", "-s", "-j2", "test-host"], cwd=dest, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, text=True)
    if r.returncode != 0:
        raise LabError("the handout's host unit tests did not build in %s:\n%s" % (dest, r.stdout[-2000:]))
    passed = ["# The checks of the host unit tests that this handout's own code (its stubs) already passes.",
              "# A unit-test test of the grader counts the others (labs/README.md, \"Points\")."]
    made = ["# Every check each host unit test makes, once a line. A unit-test test of the grader scores",
            "# nothing unless exactly these ran (labs/README.md, \"Unit tests a student's code cannot rewrite\")."]
    for binary in sorted((dest / "build" / "host" / "tests").glob("test_*")):
        if binary.suffix or not binary.is_file():
            continue
        out = subprocess.run([str(binary)], cwd=dest, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL, text=True, errors="replace", timeout=600).stdout
        for ln in out.split("\n"):
            if ln.startswith("PASS "):
                passed.append("%s %s" % (binary.name, ln[5:]))
                made.append("%s %s" % (binary.name, ln[5:]))
            elif ln.startswith("FAIL ") and ": expected " in ln:
                made.append("%s %s" % (binary.name, ln[5:].split(": expected ", 1)[0]))
    for cache, lines in zip(caches, (passed, made)):
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text("\n".join(lines) + "\n")
    return tuple(c.read_text() for c in caches)


def checked_regions(root):
    regions, problems = tree.check(root)
    if problems:
        raise LabError("the tree's lab markers are not right:\n  " + "\n  ".join(problems))
    return regions


def write_tree(root, lab, dest, regions=None):
    """The handout of `lab` (without its reference kernel) in dest; the names it holds."""
    root, dest = Path(root), Path(dest)
    if lab not in tree.labs(root):
        raise LabError("no lab '%s' (labs: %s)" % (lab, ", ".join(tree.labs(root)) or "none"))
    regions = checked_regions(root) if regions is None else regions
    dest.mkdir(parents=True, exist_ok=True)
    kept = set()
    for name in tree.tracked_files(root):
        if not _in_handout(name, lab):
            continue
        src, dst = root / name, dest / name
        kept.add(name)
        if src.is_symlink():
            if dst.is_symlink() and os.readlink(dst) == os.readlink(src):
                continue
            if dst.exists() or dst.is_symlink():
                dst.unlink()
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(src), dst)
            continue
        data, st = src.read_bytes(), src.stat()
        if name in regions:
            data = markers.cut(data.decode(), regions[name], lambda r: True).encode()
        tree.put(dst, data, st.st_mode & 0o777, None if name in regions else st.st_mtime)
    files = tree.student_files(root, lab, regions)
    extra = {".lab": lab + "\n", "labs/%s/%s" % (lab, FILES): _files_text(lab, files)}
    for name, text in extra.items():
        tree.put(dest / name, text.encode())
        kept.add(name)
    for what, text in zip((HANDOUT_CHECKS, UNIT_CHECKS), _unit_checks(root, dest, kept)):
        name = "labs/%s/%s" % (lab, what)
        tree.put(dest / name, text.encode())
        kept.add(name)
    if tree.describe(root, lab)["reference_kernel"]:
        kept.add("labs/%s/%s" % (lab, REFERENCE))
    tree.prune(dest, kept)
    return kept


def base(root, lab, log=print):
    """build/labs/<lab>/handout, up to date with the tree, its reference kernel built."""
    root = Path(root).resolve()
    regions = checked_regions(root)
    top = root / "build" / "labs" / lab
    handout = top / "handout"
    write_tree(root, lab, handout, regions)
    if tree.describe(root, lab)["reference_kernel"]:
        restored = top / "restored"
        grading.overlay(handout, lab, root, restored, seed=root / "build")
        reference_kernel(restored / "tree", handout / "labs" / lab / REFERENCE,
                         tree.student_files(root, lab, regions), log)
    return handout


def lab_functions(src_tree, files, nm):
    """The functions defined in a lab's FILES (the kernel's objects of its .c files in src_tree's
    build): the names a reference kernel must not carry."""
    names = set()
    for name in files:
        obj = Path(src_tree) / "build" / (name + ".o")
        if not name.endswith(".c") or not obj.is_file():
            continue
        r = subprocess.run([nm, "--defined-only", str(obj)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise LabError("%s %s failed: %s" % (nm, obj, r.stdout.strip()))
        names |= {f[2] for f in (ln.split() for ln in r.stdout.split("\n")) if len(f) == 3 and f[1] in "tT"}
    return sorted(names)


def reference_kernel(src_tree, dest_file, files, log=print):
    """Build src_tree's kernel and copy it to dest_file as a binary that runs, not a key: without
    debug information or an ELF symbol table, and with the functions of the lab's FILES named
    "(lab)" in the kernel's own table for backtraces (tools/ksyms.sh, KSYMS_HIDE)."""
    prefix = os.environ.get("TOOLPREFIX", "i686-linux-gnu-")
    objs = ["build/%s.o" % f for f in files if f.startswith("kernel/") and f.endswith(".c")]
    hide = "build/ksyms-hidden.txt"
    r = subprocess.run(["make", "-s", "-j2"] + objs, cwd=src_tree, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode == 0:
        tree.put(Path(src_tree) / hide, "".join(n + "\n" for n in lab_functions(src_tree, files, prefix + "nm")).encode())
        r = subprocess.run(["make", "-s", "-j2", "build/kernel.elf", "KSYMS_HIDE=" + hide], cwd=src_tree,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise LabError("the reference kernel did not build in %s:\n%s" % (src_tree, r.stdout[-2000:]))
    Path(dest_file).parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "kernel.elf"
        r = subprocess.run([prefix + "objcopy", "--strip-all", str(Path(src_tree) / "build" / "kernel.elf"), str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise LabError("%sobjcopy --strip-all failed: %s" % (prefix, r.stdout.strip()))
        tree.put(dest_file, out.read_bytes(), 0o755)


def _identity(root):
    name = tree.git(root, "config", "user.name", check=False).stdout.decode().strip()
    email = tree.git(root, "config", "user.email", check=False).stdout.decode().strip()
    return (name, email) if name and email else FALLBACK_IDENTITY


def _source_commit(root):
    head = tree.git(root, "rev-parse", "--short", "HEAD", check=False).stdout.decode().strip() or "no commit"
    dirty = tree.git(root, "status", "--porcelain", "--untracked-files=no").stdout.strip()
    return head + (" with uncommitted changes" if dirty else "")


def _is_handout_repo(dest):
    return (dest / ".git").exists() and (dest / ".lab").is_file()


def _earlier_labs(dest, lab):
    """The files of the earlier labs' folders in a handout repository: they stay, so that a
    student's answers to them merge without conflict."""
    names = tree.git(dest, "ls-files", "-z").stdout.decode().split("\0")
    earlier = {n.split("/")[1] for n in names if n.startswith("labs/") and n.endswith("/" + FILES)}
    return {n for n in names if n.startswith("labs/") and n.count("/") >= 2 and n.split("/")[1] in earlier - {lab}}


def make_handout(root, lab, dest, log=print):
    """Write lab `lab`'s handout of the tree `root` into dest (a new folder, or a handout
    repository of an earlier lab); returns the commit's tag."""
    root, dest = Path(root).resolve(), Path(dest).resolve()
    if dest == root or root in dest.parents and not str(dest.relative_to(root)).startswith("build"):
        raise LabError("the handout cannot go inside the source tree (except under build/)")
    onto = _is_handout_repo(dest)
    if onto:
        if tree.git(dest, "status", "--porcelain").stdout.strip():
            raise LabError("%s has uncommitted changes: a new lab goes on a clean handout repository" % dest)
        if tree.git(dest, "rev-parse", "-q", "--verify", "refs/tags/" + tag(lab), check=False).returncode == 0:
            raise LabError("%s has lab %s's handout already (tag %s)" % (dest, lab, tag(lab)))
        before = (dest / ".lab").read_text().strip()
    elif dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise LabError("%s exists and is neither an empty folder nor a handout repository: give a new folder, "
                       "or an earlier lab's handout repository to add this lab to" % dest)
    src = base(root, lab, log)
    dest.mkdir(parents=True, exist_ok=True)
    names = set()
    for name in tree.tracked_files(src):
        s = src / name
        names.add(name)
        if s.is_symlink():
            if (dest / name).is_symlink() or (dest / name).exists():
                (dest / name).unlink()
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(s), dest / name)
        else:
            tree.put(dest / name, s.read_bytes(), s.stat().st_mode & 0o777, s.stat().st_mtime)
    if onto:
        names |= _earlier_labs(dest, lab)
    tree.prune(dest, names)
    name, email = _identity(root)
    ident = ["-c", "user.name=" + name, "-c", "user.email=" + email]
    if not onto:
        tree.git(dest, "init", "-q", "-b", "main")
    tree.git(dest, "add", "-A")
    msg = "wdrain lab %s: the handout\n\nMade by tools/lab handout from the source tree at %s%s." % (
        lab, _source_commit(root), ", on lab %s's handout" % before if onto else "")
    tree.git(dest, *ident, "commit", "-q", "--allow-empty", "-m", msg)
    tree.git(dest, *ident, "tag", tag(lab))
    own = sum(1 for rs in checked_regions(root).values() for r in rs if r.lab == lab)
    log("tools/lab: lab %s's handout in %s (tag %s%s): %d files, every lab's regions stubbed (%d of them %s's)%s"
        % (lab, dest, tag(lab), ", on top of lab %s's" % before if onto else "", len(names), own, lab,
           ", with the reference kernel" if tree.describe(root, lab)["reference_kernel"] else ""))
    return tag(lab)

