#!/usr/bin/env python3
"""test_labs_grade: every lab's grader gives the full tree full marks (labs/README.md).

The full tree holds every lab's solution and model answers, so each grader (labs/<lab>/grade,
tests/lib/labtest.py LABS) run on it with --quick must print `== title == OK` for every test,
`Score: m/m`, and exit 0. --quick runs each performance test once and checks only that it
runs and reports: its trial line and its median and ratio line are printed, not graded (a
band is a property of the host; make test-labs grades them in full). results.json has
Gradescope's fields and a leaderboard entry for each performance test. One lab at a time,
each grader booting its guests one at a time (about 3 minutes in all on the shared 2-core host).
"""
# tests/run: timeout=900 about=180
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
import labtest  # noqa: E402
from labtest import LABS, ROOT  # noqa: E402

T = TestSet("labs_grade")

for lab, info in LABS.items():
    g = labtest.grade(ROOT, lab, "--quick")
    desc = labtest.describe(lab)
    titles = [t["title"] for t in desc["tests"]]
    T.check("%s: the full tree scores full marks (--quick), exit 0" % lab,
            g.status == 0 and g.score == g.total == desc["max_score"],
            expected="Score: %g/%g, status 0" % (desc["max_score"], desc["max_score"]),
            got="status %d, score %s/%s; failed: %s\n%s" % (g.status, g.score, g.total, g.failed(), g.out[-1500:]))
    T.check("%s: every test printed == title == OK" % lab, all(g.tests.get(t) == "OK" for t in titles),
            expected=titles, got=g.tests)
    for pid in info["perf"]:
        title = next(t["title"] for t in desc["tests"] if t["id"] == pid)
        block = g.out.split("== %s ==" % title, 1)[-1].split("\n== ", 1)[0]
        T.check("%s: the performance test %s ran one trial and reported its medians, not graded (--quick)"
                % (lab, pid), "trial 1:" in block and "trial 2:" not in block and "ratio" in block and
                "quick mode: the band" in block, expected="trial 1: ..., ratio ... (quick mode ...)", got=block[:400])
    labtest.check_results(T, "%s full tree" % lab, g, info["perf"])
T.done()
