#!/usr/bin/env python3
"""test_labs_grade: every lab's solution, graded as make grade does, in quick mode (labs/README.md).

In the instructor's tree `tools/lab grade LAB` lays the lab's solution (the regions of the lab
and of the labs it requires; every other lab's stubbed) over the lab's handout and grades it:
exactly what a student who solved the lab hands in. With --quick every test but the
performance ones must print `== title == OK`; each performance test runs one trial and must
print its trial and its ratio and `== title == NOT GRADED`, scoring 0 of its points ("quick
mode: not graded"); so the score is the lab's points less its performance tests', the exit
status 1 (not full marks), and results.json has Gradescope's fields, the score printed and a
leaderboard entry for each performance test. make test-labs grades the same with the bands.
One lab at a time, each grader booting its guests one at a time.
"""
# tests/run: timeout=900 about=200
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
import labtest  # noqa: E402
from labtest import LABS, ROOT  # noqa: E402

T = TestSet("labs_grade")

for lab, info in LABS.items():
    g = labtest.lab_grade(ROOT, lab, "--quick")
    perf = sum(info["points"][p] for p in info["perf"])
    total = sum(info["points"].values())
    titles = info["titles"]
    T.check("%s: its solution on its handout scores every point but the performance tests' (--quick), exit 1"
            % lab, g.status == (1 if perf else 0) and g.score == total - perf and g.total == total,
            expected="Score: %g/%g, status %d" % (total - perf, total, 1 if perf else 0),
            got="status %d, score %s/%s; failed: %s\n%s" % (g.status, g.score, g.total, g.failed(), g.out[-1500:]))
    T.check("%s: every test but the performance ones printed == title == OK" % lab,
            all(g.tests.get(titles[t]) == "OK" for t in titles if t not in info["perf"]),
            expected=[titles[t] for t in titles if t not in info["perf"]], got=g.tests)
    for pid in info["perf"]:
        block = g.out.split("== %s ==" % titles[pid], 1)[-1].split("\n== ", 1)[0]
        T.check("%s: the performance test %s ran one trial, reported its ratio, and is NOT GRADED for 0 points"
                % (lab, pid), block.startswith(" NOT GRADED") and "trial 1:" in block and "trial 2:" not in block
                and "ratio" in block and "scores 0 of its %g points" % info["points"][pid] in block,
                expected="NOT GRADED, trial 1: ..., ratio ..., scores 0", got=block[:500])
    labtest.check_results(T, "%s solution, quick" % lab, g, info["perf"])
T.done()
