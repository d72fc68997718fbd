#!/usr/bin/env python3
"""test_labs_full: the labs end to end, as an instructor uses them (make test-labs; .ci/run).

make test checks the machinery quickly (tests/guest/test_labs.py: handouts built on a copy of
the tree's build, fast grader tests; test_labs_grade.py: the full tree with --quick). This file
runs what those leave out:
- every lab's handout built with WERROR=1 (make all test-host; stripe's from nothing in a fresh
  folder, the others on a copy of the tree's build, as test_labs does, so that only what their
  stubs change is rebuilt: each build from nothing costs 1.5-2 minutes on the shared host, and
  grade-all and the Gradescope run below build three more) and graded in full: every test
  FAILs, each with its reason (a panic, a hang stopped by the watchdog, a wrong count...), the
  score is 0 and the exit status 1;
- every lab's grader in full on the full tree, performance bands graded: full marks;
- tools/lab grade-all over a folder holding the stripe handout's make handin tarball and a copy
  of the full tree, one at a time, --quick;
  the CSV has 0 and full marks and `graded` for both;
- the Gradescope zip of stripe, unzipped as /autograder/source into a temporary folder, its
  setup.sh run (tools/install-deps, the reference kernel), the handin tarball as the
  submission, run_autograder run with AUTOGRADER pointing there: results.json with score 0
  and a test per grader test.
About 20 minutes on the shared 2-core host (six labs), mostly builds and the graders' guests.
"""
# tests/run: timeout=3600
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
import labtest  # noqa: E402
from labtest import LABS, ROOT, WORK  # noqa: E402

T = TestSet("labs_full")
FULL = WORK / "full"
FROM_NOTHING = "stripe"            # the lab whose handout is built from nothing (and handed in)


def handout_in_full(lab):
    tree = FULL / lab
    r = labtest.handout(lab, tree)
    T.check("%s: tools/lab handout" % lab, r.returncode == 0, expected="status 0", got=r.stdout[-300:])
    if r.returncode != 0:
        return None
    if lab != FROM_NOTHING:
        labtest.seed_build(tree)
    r = labtest.make(tree, "all", "test-host")
    T.check("%s: the handout builds%s with WERROR=1" % (lab, " from nothing" if lab == FROM_NOTHING else ""),
            r.returncode == 0, expected="status 0", got=r.stdout[-600:])
    if r.returncode != 0:
        return None
    g = labtest.grade(tree, lab, "--watchdog", "30")
    titles = [t["title"] for t in labtest.describe(lab, tree)["tests"]]
    T.check("%s: the handout's full grader run fails every test, score 0, exit 1" % lab,
            g.status == 1 and g.score == 0 and set(g.failed()) == set(titles),
            expected="every test FAIL, Score: 0/%s" % g.total,
            got="status %d, score %s; OK: %s\n%s" % (g.status, g.score,
                                                     sorted(set(titles) - set(g.failed())), g.out[-1500:]))
    reasons = [g.out.split("== %s == FAIL" % t, 1)[-1].split("\n== ", 1)[0].strip() for t in g.failed()]
    T.check("%s: every failing test says why" % lab, all(reasons), expected="a reason under each FAIL",
            got=[t for t, r in zip(g.failed(), reasons) if not r])
    labtest.check_results(T, "%s handout, full run" % lab, g)
    return tree


def full_tree(lab):
    g = labtest.grade(ROOT, lab)
    T.check("%s: the full tree scores full marks with the performance bands graded" % lab,
            g.status == 0 and g.score == g.total, expected="Score: m/m, status 0",
            got="status %d, score %s/%s; failed %s\n%s" % (g.status, g.score, g.total, g.failed(), g.out[-2000:]))
    labtest.check_results(T, "%s full tree, full run" % lab, g, LABS[lab]["perf"])


def handin_tarball(tree):
    r = labtest.run(["make", "-s", "handin"], tree)
    out = tree / "handin-stripe.tar.gz"
    T.check("stripe: make handin in the untouched handout", r.returncode == 0 and out.is_file(),
            expected="handin-stripe.tar.gz", got=r.stdout[-300:])
    return out if out.is_file() else None


def grade_all(tarball):
    subs = FULL / "submissions"
    shutil.rmtree(subs, ignore_errors=True)
    subs.mkdir(parents=True)
    shutil.copy(tarball, subs / "student-handout.tar.gz")
    os.symlink(ROOT, subs / "solution")
    csv_file = FULL / "grades.csv"
    r = labtest.lab_tool("grade-all", "stripe", subs, "--quick", "--out", csv_file)
    rows = {}
    if csv_file.is_file():
        with open(csv_file) as f:
            rows = {row["submission"]: row for row in csv.DictReader(f)}
    want_cols = {t["title"] for t in labtest.describe("stripe")["tests"]}
    T.check("grade-all: both submissions graded, exit 0", r.returncode == 0 and
            all(rows.get(s, {}).get("status") == "graded" for s in ("student-handout.tar.gz", "solution")),
            expected="status graded for both", got="status %d: %s / %s" % (r.returncode, rows, r.stdout[-500:]))
    if len(rows) != 2:
        return
    full = rows["solution"]
    hand = rows["student-handout.tar.gz"]
    T.check("grade-all: the CSV has the scores (handout 0, solution full marks) and a column per test",
            float(hand["score"]) == 0 and float(full["score"]) == float(full["max_score"]) > 0 and
            want_cols <= set(full), expected="0 and max_score; columns %s" % sorted(want_cols),
            got="%s / %s" % (hand, full))


def gradescope(tarball):
    with tempfile.TemporaryDirectory(dir=str(WORK)) as d:
        ag = Path(d)
        z = ag / "autograder.zip"
        r = labtest.lab_tool("gradescope", "stripe", "--out", z)
        if not T.check("gradescope: make the zip", r.returncode == 0, expected="status 0", got=r.stdout[-300:]):
            return
        with zipfile.ZipFile(z) as f:
            f.extractall(ag / "source")
            for info in f.infolist():
                os.chmod(ag / "source" / info.filename, info.external_attr >> 16)
        (ag / "submission").mkdir()
        shutil.copy(tarball, ag / "submission")
        env = dict(os.environ, AUTOGRADER=str(ag))
        env.pop("WDRAIN_NO_BUILD", None)
        for script in ("setup.sh", "run_autograder"):
            r = subprocess.run([str(ag / "source" / script)], cwd=str(ag), env=env, text=True,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
            T.check("gradescope: %s runs" % script, r.returncode in (0, 1), expected="status 0 (or 1: < full marks)",
                    got="status %d: %s" % (r.returncode, r.stdout[-400:]))
        res = ag / "results" / "results.json"
        doc = json.loads(res.read_text()) if res.is_file() else None
        tests = labtest.describe("stripe")["tests"]
        T.check("gradescope: results.json for the handout: score 0, a test per grader test with its max_score",
                doc is not None and doc["score"] == 0 and len(doc["tests"]) == len(tests) and
                [t["max_score"] for t in doc["tests"]] == [t["points"] for t in tests],
                expected="score 0, %d tests" % len(tests), got=str(doc)[:400])


FULL.mkdir(parents=True, exist_ok=True)
trees = {lab: handout_in_full(lab) for lab in LABS}
for lab in LABS:
    full_tree(lab)
if trees.get("stripe"):
    tarball = handin_tarball(trees["stripe"])
    if tarball:
        grade_all(tarball)
        gradescope(tarball)
T.done()
