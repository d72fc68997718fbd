"""sequence: a course's labs one after another in one student repository (tools/lab next).

The instructor adds each lab to one handout repository in turn (tools/lab handout NAME DIR on
the earlier labs' repository: a new commit, tagged handout-NAME) and publishes it. A student
who did the earlier labs in their own repository runs, there,

    tools/lab next NAME [SOURCE]

which fetches tag handout-NAME from SOURCE (the handout repository's URL or folder; it is
remembered as the git remote `handout`, so later labs need only the name), starts a branch
NAME at the student's last commit, and merges the new handout into it. The merge brings the
new lab's README, grader, answers.txt, FILES and reference kernel, and .lab; the student's
earlier solutions stay, since every handout has the same stubs and the student changed only
the stubs' files. A conflict (the instructor also changed a file the student edited) is left
for the student to resolve, with git's usual message and ours.
"""
from pathlib import Path

from . import submit, tree
from .handout import tag
from .tree import LabError

REMOTE = "handout"


def next_lab(root, lab, source=None):
    root = Path(root)
    own = submit.lab_of(root)
    if own is None:
        raise LabError("%s is not a lab handout (no .lab): tools/lab next works in a student's repository" % root)
    if own == lab:
        raise LabError("this repository is at lab %s already" % lab)
    if tree.git(root, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        raise LabError("commit your work first (git add -A && git commit -m 'lab %s'): the next lab is merged "
                       "into your last commit" % own)
    remotes = tree.git(root, "remote").stdout.decode().split()
    if source is not None:
        tree.git(root, "remote", "set-url" if REMOTE in remotes else "add", REMOTE, str(source))
    elif REMOTE not in remotes:
        raise LabError("say where the course's handout repository is: tools/lab next %s URL-OR-FOLDER" % lab)
    fetched = tree.git(root, "fetch", "-q", REMOTE, "+refs/tags/%s:refs/tags/%s" % (tag(lab), tag(lab)), check=False)
    if fetched.returncode != 0:
        raise LabError("no lab %s in the handout repository (%s): %s"
                       % (lab, tree.git(root, "remote", "get-url", REMOTE).stdout.decode().strip(),
                          fetched.stderr.decode().strip()))
    if tree.git(root, "rev-parse", "-q", "--verify", "refs/heads/" + lab, check=False).returncode == 0:
        raise LabError("a branch named %s exists already: rename it (git branch -m %s old-%s) and run this again"
                       % (lab, lab, lab))
    tree.git(root, "checkout", "-q", "-b", lab)
    merged = tree.git(root, "merge", "--no-edit", "-m", "lab %s: the handout merged into my work" % lab,
                      tag(lab), check=False)
    if merged.returncode != 0:
        raise LabError("the merge of lab %s's handout stopped on conflicts, on branch %s:\n%s\nresolve them "
                       "(git status lists them), then git add -A && git commit"
                       % (lab, lab, (merged.stdout + merged.stderr).decode().strip()))
    print("tools/lab: branch %s: lab %s's handout merged into your work (lab %s's solutions kept); read the "
          "README.md in labs/%s" % (lab, lab, own, lab))
