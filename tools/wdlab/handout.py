"""handout: write a lab's student tree (tools/lab handout NAME DIR, make lab LAB=NAME DEST=DIR).

The student tree is every file git tracks in the source tree, as it is in the working tree,
with every lab marker removed:
  - the regions of lab NAME are replaced by their stubs: the code the student writes;
  - the regions of the other labs keep their solution, so the rest of the kernel works;
  - the regions in files under labs/ (model answers in answers.txt, instructors' notes) are
    replaced by their stubs whatever the lab: they are course material, not code.
A file whose text does not change keeps its modification time, so a build folder copied
along with the tree is reused for everything the lab did not touch. The tree also gets
`.lab` (the lab's name: make grade, make handin and the grader read it) and, when the
lab's grader compares the student's kernel with the reference design (it says so in its
--describe), the reference kernel built from the source tree, without debug information, as
labs/NAME/reference/kernel.elf. It is a git repository with one commit, tagged `handout`,
which make handin diffs against.
"""
import os
import shutil
import subprocess
from pathlib import Path

from . import markers, tree
from .tree import LabError

REFERENCE = "reference/kernel.elf"    # under labs/<lab>/ in a handout
FALLBACK_IDENTITY = ("wdrain labs", "labs@wdrain.invalid")


def _dest_ready(dest):
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise LabError("%s exists and is not an empty folder: give a new folder for the handout" % dest)
    dest.mkdir(parents=True, exist_ok=True)


def _copy_file(root, name, dest, regions, lab):
    src, dst = Path(root) / name, dest / name
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_symlink():
        os.symlink(os.readlink(src), dst)
        return False
    if not regions:
        shutil.copy2(src, dst)
        return False
    text = src.read_text()
    out = markers.cut(text, regions, lambda r: r.lab == lab or name.startswith("labs/"))
    dst.write_text(out)
    shutil.copymode(src, dst)
    return True


def reference_kernel(root, dest_file):
    """Build the source tree's kernel and copy it, without debug information, to dest_file."""
    r = subprocess.run(["make", "-s", "build/kernel.elf"], cwd=root, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise LabError("the reference kernel did not build (make build/kernel.elf in %s)" % root)
    dest_file.parent.mkdir(parents=True, exist_ok=True)
    objcopy = os.environ.get("TOOLPREFIX", "i686-linux-gnu-") + "objcopy"
    r = subprocess.run([objcopy, "--strip-debug", str(Path(root) / "build" / "kernel.elf"), str(dest_file)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise LabError("%s --strip-debug failed: %s" % (objcopy, r.stdout.strip()))


def _identity(root):
    name = tree.git(root, "config", "user.name", check=False).stdout.decode().strip()
    email = tree.git(root, "config", "user.email", check=False).stdout.decode().strip()
    return (name, email) if name and email else FALLBACK_IDENTITY


def _source_commit(root):
    head = tree.git(root, "rev-parse", "--short", "HEAD", check=False).stdout.decode().strip() or "no commit"
    dirty = tree.git(root, "status", "--porcelain", "--untracked-files=no").stdout.strip()
    return head + (" with uncommitted changes" if dirty else "")


def _commit(root, dest, lab):
    name, email = _identity(root)
    ident = ["-c", "user.name=" + name, "-c", "user.email=" + email]
    tree.git(dest, "init", "-q", "-b", "main")
    tree.git(dest, "add", "-A")
    msg = "wdrain lab %s: the handout\n\nMade by tools/lab handout from the source tree at %s." % (
        lab, _source_commit(root))
    tree.git(dest, *ident, "commit", "-q", "-m", msg)
    tree.git(dest, *ident, "tag", "handout")


def make_handout(root, lab, dest, log=print):
    """Write lab `lab`'s handout of the tree `root` into the new folder `dest`."""
    root, dest = Path(root).resolve(), Path(dest).resolve()
    if lab not in tree.labs(root):
        raise LabError("no lab '%s' (labs: %s)" % (lab, ", ".join(tree.labs(root)) or "none"))
    if dest == root or root in dest.parents and not str(dest.relative_to(root)).startswith("build"):
        raise LabError("the handout cannot go inside the source tree (except under build/)")
    regions, problems = tree.check(root)
    if problems:
        raise LabError("the tree's lab markers are not right:\n  " + "\n  ".join(problems))
    desc = tree.run_grader(root, lab, ["--describe"])
    _dest_ready(dest)
    files = tree.tracked_files(root)
    changed = [n for n in files if _copy_file(root, n, dest, regions.get(n, []), lab)]
    (dest / ".lab").write_text(lab + "\n")
    if desc.get("reference_kernel"):
        reference_kernel(root, dest / "labs" / lab / REFERENCE)
    _commit(root, dest, lab)
    own = sum(1 for rs in regions.values() for r in rs if r.lab == lab)
    log("tools/lab: lab %s's handout in %s: %d files, %d of %s's regions stubbed, %d files changed%s"
        % (lab, dest, len(files), own, lab, len(changed),
           ", with the reference kernel" if desc.get("reference_kernel") else ""))
    return changed
