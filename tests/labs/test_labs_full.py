#!/usr/bin/env python3
"""test_labs_full: the labs end to end, as a course uses them (make test-labs; .ci/run).

make test checks the machinery quickly (tests/guest/test_labs.py: the handouts, their fast
tests, the sequence of labs; test_labs_grade.py: every solution graded in quick mode). This file
runs what those leave out, for every lab (tests/lib/labtest.py LABS):
- its handout: no line of any lab's solution and no marker in it;
- the handout untouched, graded in full by make grade in it (the student's path: its files
  laid over its handout commit, built from nothing): every test FAILs, each with its reason,
  the score is 0, the exit status 1;
- its solution graded in full in the instructor's tree (tools/lab grade: the solution laid over
  the handout, every other lab's regions stubbed), the performance bands graded: full marks;
- one submission graded three ways, which must agree test for test, points and verdicts: make
  grade in the student's repository, tools/lab grade-all over make handin's tarball, and the
  Gradescope zip's run_autograder (setup.sh run first) on the same tarball. The submission is
  the solution with its last code file the handout's stub (a broken file: the unit tests it
  fails, fail alike); the three run the lab's fast tests (GRADEFLAGS, --only);
- a tampered submission: the untouched handout with the Makefile building the unit tests from a
  file of its own, a grader that gives every point and a unit test that passes everything:
  grade-one takes only the lab's FILES, so it scores what the untouched handout scores (0);
- the mutations of its solution (tools/lab mutants, labs/<lab>/mutations/): each fails the
  grader's tests it names; bufdaemon's lost give-back hangs a writer in wdrain and must fail
  within 150 s with the default watchdog (60 s), as its README says.
And for stripe: grade-all refuses --quick without --dry-run (it would give performance tests 0),
and a submission that does not compile gets the compiler's errors in results.json's output.
About 30-40 minutes on the shared 2-core host, mostly the graders' guests.
"""
# tests/run: timeout=5400
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
import labtest  # noqa: E402
from labtest import LABS, ROOT, WORK  # noqa: E402

T = TestSet("labs_full")
FULL = WORK / "full"
STUDENT = ["-c", "user.name=student", "-c", "user.email=s@example.invalid"]


def git(tree, *args):
    return labtest.run(["git"] + STUDENT + list(args), tree)


def handout(lab):
    tree = FULL / lab
    r = labtest.handout(lab, tree)
    T.check("%s: tools/lab handout" % lab, r.returncode == 0, expected="status 0", got=r.stdout[-300:])
    if r.returncode != 0:
        return None
    leaks = labtest.solution_leaks(tree) + labtest.markers_left(tree)
    T.check("%s: no line of any lab's solution, and no marker, in its handout" % lab, not leaks, expected="none",
            got=leaks[:5])
    return tree


def untouched(lab, tree):
    g = labtest.lab_grade(tree, lab, "--watchdog", "30")
    titles = [LABS[lab]["titles"][t] for t in LABS[lab]["titles"]]
    T.check("%s: the untouched handout, graded in full by make grade's way, fails every test: score 0, exit 1" % lab,
            g.status == 1 and g.score == 0 and set(g.failed()) == set(titles),
            expected="every test FAIL, Score: 0/%s" % g.total,
            got="status %d, score %s; not failed: %s\n%s" % (g.status, g.score,
                                                             sorted(set(titles) - set(g.failed())), g.out[-1500:]))
    reasons = [g.out.split("== %s == FAIL" % t, 1)[-1].split("\n== ", 1)[0].strip() for t in g.failed()]
    T.check("%s: every failing test of the handout says why" % lab, all(reasons), expected="a reason under each FAIL",
            got=[t for t, r in zip(g.failed(), reasons) if not r])
    labtest.check_results(T, "%s handout, full run" % lab, g)


def solution(lab):
    g = labtest.lab_grade(ROOT, lab)
    T.check("%s: its solution on its handout scores full marks with the performance bands graded" % lab,
            g.status == 0 and g.score == g.total, expected="Score: m/m, status 0",
            got="status %d, score %s/%s; failed %s\n%s" % (g.status, g.score, g.total, g.failed(), g.out[-2500:]))
    labtest.check_results(T, "%s solution, full run" % lab, g, LABS[lab]["perf"])


def files_of(tree, lab):
    return [ln for ln in (tree / "labs" / lab / "FILES").read_text().split("\n") if ln and not ln.startswith("#")]


def submission(lab, tree):
    """The student's repository: the solution in every FILES file but the last code file (the
    handout's stub), committed."""
    restored = ROOT / "build" / "labs" / lab / "restored" / "tree"
    files = files_of(tree, lab)
    for name in files[:-2] + files[-1:]:
        shutil.copy(restored / name, tree / name)
    git(tree, "commit", "-qam", "my work")
    r = labtest.run(["make", "-s", "handin"], tree)
    tarball = tree / ("handin-%s.tar.gz" % lab)
    T.check("%s: make handin of the submission" % lab, r.returncode == 0 and tarball.is_file(),
            expected="handin-%s.tar.gz" % lab, got=r.stdout[-300:])
    return tarball if tarball.is_file() else None


def scores(doc):
    return {t["name"]: (t["score"], t["status"]) for t in doc["tests"]} if doc else None


def three_paths(lab, tree, tarball):
    fast = LABS[lab]["fast"]
    local = labtest.lab_grade(tree, lab, *fast)
    subs = FULL / ("submissions-%s" % lab)
    shutil.rmtree(subs, ignore_errors=True)
    subs.mkdir(parents=True)
    shutil.copy(tarball, subs / tarball.name)
    only = [a for t in fast for a in ("--only", t)]
    r = labtest.lab_tool("grade-all", lab, subs, *only)
    all_doc = None
    res = ROOT / "build" / "grade-all" / lab / tarball.name[:-len(".tar.gz")] / "results.json"
    if res.is_file():
        all_doc = json.loads(res.read_text())
    ag = FULL / ("autograder-%s" % lab)
    shutil.rmtree(ag, ignore_errors=True)
    (ag / "submission").mkdir(parents=True)
    shutil.copy(tarball, ag / "submission")
    r2 = labtest.lab_tool("gradescope", lab, "--out", ag / "autograder.zip")
    gs_doc = None
    if r2.returncode == 0:
        with zipfile.ZipFile(ag / "autograder.zip") as f:
            f.extractall(ag / "source")
            for info in f.infolist():
                os.chmod(ag / "source" / info.filename, info.external_attr >> 16)
        env = dict(labtest.env(no_build=False), AUTOGRADER=str(ag), GRADEFLAGS=" ".join(only))
        for script in ("setup.sh", "run_autograder"):
            r3 = subprocess.run([str(ag / "source" / script)], cwd=str(ag), env=env, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            T.check("%s: gradescope's %s runs" % (lab, script), r3.returncode in (0, 1), expected="status 0 or 1",
                    got="status %d: %s" % (r3.returncode, r3.stdout[-500:]))
        res = ag / "results" / "results.json"
        gs_doc = json.loads(res.read_text()) if res.is_file() else None
    got = {"make grade": scores(local.results), "grade-all": scores(all_doc), "run_autograder": scores(gs_doc)}
    T.check("%s: make grade, grade-all and run_autograder give one submission (its last code file the handout's) "
            "the same points and verdicts, test for test (%s)" % (lab, " ".join(fast)),
            got["make grade"] is not None and got["make grade"] == got["grade-all"] == got["run_autograder"],
            expected="the same scores", got="%s; grade-all %s" % (got, r.stdout[-300:]))
    took = (gs_doc or {}).get("output", "")
    T.check("%s: run_autograder's output names the files it took from the submission" % lab,
            all(f in took for f in files_of(tree, lab)), expected=files_of(tree, lab), got=took[:400])


def handout_copy(tree, lab, dest):
    """The handout commit of a student's repository, in the new folder dest."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(tree), "archive", "handout-" + lab], stdout=subprocess.PIPE).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def tampered(lab, tree):
    """The untouched handout, with the Makefile, the grader and a unit test changed."""
    sub = FULL / ("tampered-%s" % lab)
    handout_copy(tree, lab, sub)
    unit = sorted((sub / "tests" / "unit").glob("test_*.c"))
    for f in unit:
        f.write_text('#include <stdio.h>\nint main(void) { puts("PASS everything"); return 0; }\n')
    with open(sub / "Makefile", "a") as f:
        f.write("\n$(BUILD)/host/tests/%: tests/unit/fake.c\n\t$(HOSTCC) -o $@ $<\n")
    (sub / "tests" / "unit" / "fake.c").write_text('int main(void) { return 0; }\n')
    grader = sub / "labs" / lab / "grade"
    grader.write_text(grader.read_text().replace("lab.run()", "lab.tests = []\n    lab.run()"))
    fast = LABS[lab]["fast"]
    only = [a for t in fast for a in ("--only", t)]
    results = FULL / ("tampered-%s.json" % lab)
    r = labtest.lab_tool("grade-one", lab, sub, "--results", results, "--work", FULL / ("tampered-%s-work" % lab), *only)
    doc = json.loads(results.read_text()) if results.is_file() else None
    T.check("%s: a submission that changes the Makefile, the grader and the unit tests gains nothing (grade-one "
            "takes only the lab's FILES): the handout's 0" % lab,
            doc is not None and doc["score"] == 0 and len(doc["tests"]) == len(fast),
            expected="score 0, %d tests" % len(fast), got="status %d: %s" % (r.returncode, json.dumps(doc)[:400]))


def mutants(lab):
    r = labtest.lab_tool("mutants", lab)
    lines = [ln for ln in r.stdout.split("\n") if ln.startswith("tools/lab mutants: %s/" % lab)]
    T.check("%s: every mutation of its solution fails the grader's tests it names (tools/lab mutants)" % lab,
            r.returncode == 0 and lines, expected="every mutation caught",
            got="status %d:\n%s" % (r.returncode, r.stdout[-2000:]))


def handout_kernel_works(student):
    """Every handout has the same kernel (every lab stubbed): it runs usertests on 2 CPUs, and its
    ccd, laid out end to end, holds a file system and a pattern."""
    tree = FULL / "untouched"
    handout_copy(student, "stripe", tree)
    r = labtest.make(tree, "all")
    if not T.check("the untouched handout builds with WERROR=1", r.returncode == 0, expected="status 0",
                   got=r.stdout[-600:]):
        return
    r = labtest.run([sys.executable, tree / "tools" / "run", "--smp", "2", "--timeout", "300", "--", "usertests"],
                    tree, timeout=900)
    summary = [ln for ln in r.stdout.split("\n") if ln.startswith("usertests:")]
    T.check("the handouts' kernel (every lab's stubs) passes usertests on 2 CPUs",
            r.returncode == 0 and summary and summary[-1].endswith(" 0 failed"), expected="usertests: N passed, 0 failed",
            got="status %d: %s" % (r.returncode, r.stdout[-600:]))
    r = labtest.run([sys.executable, tree / "tools" / "run", "--disks", "2", "--timeout", "300", "--",
                     "newfs /dev/ccd0 > /dev/null && mount /dev/ccd0 /data1 && pattern write /data1/p 24m 3 && "
                     "pattern verify /data1/p 24m 3"], tree, timeout=900)
    T.check("the handouts' kernel: a file system on ccd0 (its stripe laid out end to end) holds a pattern",
            r.returncode == 0, expected="status 0", got="status %d: %s" % (r.returncode, r.stdout[-600:]))


def quick_refused():
    subs = FULL / "submissions-stripe"
    r = labtest.lab_tool("grade-all", "stripe", subs, "--quick")
    T.check("grade-all refuses --quick without --dry-run, saying why", r.returncode == 2 and "--dry-run" in r.stdout,
            expected="status 2, a message naming --dry-run", got="status %d: %s" % (r.returncode, r.stdout.strip()))


def build_errors(tree):
    sub = FULL / "broken-stripe"
    handout_copy(tree, "stripe", sub)
    f = sub / "kernel" / "dev" / "ccd_map.c"
    f.write_text(f.read_text() + "\nint this_does_not_compile(void) { return missing_name; }\n")
    results = FULL / "broken-stripe.json"
    labtest.lab_tool("grade-one", "stripe", sub, "--results", results, "--work", FULL / "broken-stripe-work",
                     "--only", "equal", "--only", "destripe-two")
    doc = json.loads(results.read_text()) if results.is_file() else {}
    outs = [t["output"] for t in doc.get("tests", [])]
    T.check("a submission that does not compile: results.json's output and each failing test's have the "
            "compiler's error", "missing_name" in doc.get("output", "") and outs and
            all("missing_name" in o for o in outs), expected="'missing_name' in the output and every test's",
            got=json.dumps(doc)[:600])


FULL.mkdir(parents=True, exist_ok=True)
for lab in LABS:
    tree = handout(lab)
    if tree is None:
        continue
    untouched(lab, tree)
    solution(lab)
    tarball = submission(lab, tree)
    if tarball:
        three_paths(lab, tree, tarball)
    tampered(lab, tree)
    mutants(lab)
quick_refused()
if (FULL / "stripe").is_dir():
    build_errors(FULL / "stripe")
    handout_kernel_works(FULL / "stripe")
T.done()
