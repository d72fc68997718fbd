"""submit: handing a lab in (make handin) and unpacking a submission for grading.

handin(root, out)
    In a student's tree (a handout: it has .lab): refuse if anything is not committed (the
    tarball holds the last commit, so work left out would be lost silently), then write
    handin-<lab>.tar.gz: `git archive` of HEAD under the folder <lab>/ (without the
    reference kernel, which graders bring themselves) plus <lab>/handin.diff, `git diff
    handout-<lab> HEAD`: what the student changed since the handout, for the course staff
    to read.

unpack(submission, dest)
    A submission (such a tarball, any .tar/.tar.gz/.tgz holding one tree, a folder that is a
    tree, or a folder holding just one such tarball: a Gradescope upload) copied into the new
    folder dest. Returns the lab its .lab names, or None. Grading takes only the lab's FILES
    from it (grading.overlay).
"""
import io
import os
import shutil
import tarfile
import time
from pathlib import Path

from . import grading, tree
from .tree import LabError, SKIP_DIRS


def lab_of(root):
    f = Path(root) / ".lab"
    return f.read_text().strip() if f.is_file() else None


def handin(root, out=None):
    lab = lab_of(root)
    if lab is None:
        raise LabError("%s is not a lab handout (no .lab): make handin works in a tree made by make lab" % root)
    status = tree.git(root, "status", "--porcelain").stdout.decode().rstrip("\n")
    if status:
        raise LabError("make handin packs your last commit, and these changes are not in it:\n%s\n"
                       "commit them first: git add -A && git commit -m 'lab %s'" % (status, lab))
    out = Path(out) if out else Path(root) / ("handin-%s.tar.gz" % lab)
    archive = tree.git(root, "archive", "--format=tar", "--prefix=%s/" % lab, "HEAD", "--", ".",
                       ":(exclude)labs/*/reference").stdout
    diff = tree.git(root, "diff", grading.handout_commit(root, lab), "HEAD").stdout
    with tarfile.open(out, "w:gz") as tar:
        with tarfile.open(fileobj=io.BytesIO(archive)) as src:
            for member in src.getmembers():
                tar.addfile(member, src.extractfile(member) if member.isfile() else None)
        info = tarfile.TarInfo("%s/handin.diff" % lab)
        info.size, info.mtime, info.mode = len(diff), int(time.time()), 0o644
        tar.addfile(info, io.BytesIO(diff))
    changed = diff.count(b"\ndiff --git ") + diff.startswith(b"diff --git ")
    print("tools/lab: %s: your last commit of lab %s, %d files changed since the handout: hand this file in"
          % (out, lab, changed))
    return out


def _safe_members(tar, name):
    for m in tar.getmembers():
        p = Path(m.name)
        if p.is_absolute() or ".." in p.parts or not (m.isfile() or m.isdir() or m.issym()):
            raise LabError("%s: refusing the member %r (absolute, outside the tree, or not a plain file)" % (name, m.name))
        if m.issym() and (os.path.isabs(m.linkname) or ".." in Path(m.linkname).parts):
            raise LabError("%s: refusing the symbolic link %r -> %r" % (name, m.name, m.linkname))
    return tar.getmembers()


def _tree_in(folder):
    """The tree inside an unpacked folder: itself, or its only subfolder."""
    entries = [e for e in folder.iterdir() if e.name not in SKIP_DIRS]
    if (folder / "Makefile").exists() or len(entries) != 1 or not entries[0].is_dir():
        return folder
    return entries[0]


def _copy_tree(src, dest):
    """src's files into dest, without build outputs and git's own folder."""
    shutil.copytree(src, dest, symlinks=True, ignore=lambda d, names: [n for n in names if n in SKIP_DIRS])


def unpack(submission, dest):
    submission, dest = Path(submission), Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    if submission.is_dir():
        tarballs = [e for e in submission.iterdir() if e.name.endswith((".tar", ".tar.gz", ".tgz"))]
        if not (submission / "Makefile").exists() and len(tarballs) == 1:
            return unpack(tarballs[0], dest)      # an upload of make handin's tarball
        _copy_tree(_tree_in(submission), dest)
    elif submission.name.endswith((".tar", ".tar.gz", ".tgz")):
        raw = dest.with_name(dest.name + ".unpacked")
        shutil.rmtree(raw, ignore_errors=True)
        raw.mkdir(parents=True)
        try:
            with tarfile.open(submission) as tar:
                tar.extractall(raw, members=_safe_members(tar, submission.name))
        except tarfile.TarError as e:
            raise LabError("%s is not a readable tarball: %s" % (submission.name, e))
        _copy_tree(_tree_in(raw), dest)
        shutil.rmtree(raw)
    else:
        raise LabError("%s: a submission is a folder or a .tar, .tar.gz or .tgz file" % submission.name)
    if not (dest / "Makefile").is_file() or not (dest / "kernel").is_dir():
        raise LabError("%s does not hold a wdrain tree (no Makefile and kernel/ at its top)" % submission.name)
    return lab_of(dest)
