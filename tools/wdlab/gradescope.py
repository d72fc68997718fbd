"""gradescope: make gradescope LAB=NAME, the autograder zip for Gradescope.

Gradescope's autograder specification: a zip with `setup.sh` (run once, as root, when the
autograder's image is built) and `run_autograder` (run for every submission) at its root,
unpacked into /autograder/source; the student's files arrive in /autograder/submission; the
grade goes to /autograder/results/results.json. The zip made here holds the lab's handout,
exactly as students get it (handout.base: every region stubbed, the lab's FILES and its
reference kernel), so Gradescope grades on the same handout as make grade does, and:
  setup.sh        tools/install-deps (the Debian/Ubuntu packages of the project, its one list),
                  then the handout built in place, in the folder setup.sh is in (each grade's
                  build starts from it)
  run_autograder  tools/lab grade-one NAME on /autograder/submission (the tarball of make
                  handin, or the files of the student's repository) with the zip's source as
                  the handout (--base) and --results /autograder/results/results.json
AUTOGRADER=DIR in run_autograder's environment stands for /autograder (to try the zip on
any machine: labs/README.md, "Gradescope").
"""
import zipfile
from pathlib import Path

from . import handout, tree

SETUP = """#!/usr/bin/env bash
# setup.sh (Gradescope, once, as root): the packages wdrain needs, then the handout built, so
# that each submission's build starts from it and rebuilds only what the student's files change.
# It works in the folder it is in (/autograder/source on Gradescope, DIR/source elsewhere).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")"
CI=true tools/install-deps </dev/null
make -s -j2 all test-host
"""

RUN = """#!/usr/bin/env bash
# run_autograder (Gradescope, per submission): grade lab %(lab)s into results/results.json.
set -uo pipefail
ag="${AUTOGRADER:-/autograder}"
mkdir -p "$ag/results"
# GRADEFLAGS (unset on Gradescope) passes tests and options to the grader, to try the zip on a few.
exec python3 "$ag/source/tools/lab" grade-one %(lab)s "$ag/submission" --base "$ag/source" \\
	--work "$ag/work" --results "$ag/results/results.json" ${GRADEFLAGS:-}
"""


def _add(z, name, data, executable=False):
    info = zipfile.ZipInfo(name, date_time=(2000, 12, 26, 0, 0, 0))
    info.external_attr = (0o755 if executable else 0o644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def make_zip(root, lab, out=None):
    base = handout.base(root, lab)
    out = Path(out) if out else Path(root) / "build" / ("gradescope-%s.zip" % lab)
    out.parent.mkdir(parents=True, exist_ok=True)
    files = tree.tracked_files(base)
    with zipfile.ZipFile(out, "w") as z:
        _add(z, "setup.sh", SETUP, executable=True)
        _add(z, "run_autograder", RUN % {"lab": lab}, executable=True)
        for name in files:
            p = base / name
            if p.is_symlink():
                continue
            _add(z, name, p.read_bytes(), executable=bool(p.stat().st_mode & 0o111))
    print("tools/lab: %s: lab %s's Gradescope autograder (its handout, %d files, setup.sh, run_autograder)"
          % (out, lab, len(files)))
    return out
