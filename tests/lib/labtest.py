"""labtest: what the labs' tests share (tests/guest/test_labs.py and test_labs_grade.py in make
test, tests/labs/test_labs_full.py in make test-labs).

  LABS                  every lab (labs/*/grade), with its grader's `fast` tests (they fail quickly
                        on the handout's stubs: make test runs them there) and `perf` tests, as
                        the grader describes them: a new lab needs nothing here
  WORK                  build/labs-test/, where the tests put handouts and submissions
  lab_tool(*args, cwd)  tools/lab (of ROOT, or of the tree cwd) -> CompletedProcess (text)
  handout(lab, dest)    a fresh handout of ROOT's tree in dest (removed first)
  seed_build(tree)      copy ROOT's build outputs into tree/build with their times, so that make
                        in the tree rebuilds only what the handout changed (and its dependents)
  make(tree, *targets, werror=True)  make -j2 in tree -> CompletedProcess
  grade(tree, lab, *args)  the tree's labs/<lab>/grade --results F *args -> Graded
  markers_left(tree)    "path:line: text" of every lab marker word left in a tree's text files
  check_results(T, what, graded, perf_ids)  the Gradescope fields of results.json
"""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
WORK = ROOT / "build" / "labs-test"
sys.path.insert(0, str(ROOT / "tools"))
from wdlab import markers  # noqa: E402

BUILD_DIRS = ("kernel", "user", "host", "rootfs")       # build/ folders a handout reuses
TEST_LINE_RE = re.compile(r"^== (.+) == (OK|FAIL) \([\d.]+ s\)$", re.M)
SCORE_RE = re.compile(r"^Score: ([\d.]+)/([\d.]+)$", re.M)


def env(no_build=True):
    e = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    if no_build:
        e["WDRAIN_NO_BUILD"] = "1"
    else:
        e.pop("WDRAIN_NO_BUILD", None)
    return e


def run(argv, cwd, no_build=True, timeout=None):
    return subprocess.run([str(a) for a in argv], cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, stdin=subprocess.DEVNULL, env=env(no_build), timeout=timeout)


def lab_tool(*args, cwd=ROOT):
    return run([sys.executable, Path(cwd) / "tools" / "lab"] + list(args), cwd)


def handout(lab, dest):
    shutil.rmtree(dest, ignore_errors=True)
    return lab_tool("handout", lab, dest)


def seed_build(tree):
    src, dst = ROOT / "build", Path(tree) / "build"
    dst.mkdir(parents=True, exist_ok=True)
    for d in BUILD_DIRS:
        if (src / d).is_dir():
            shutil.copytree(src / d, dst / d, symlinks=True, dirs_exist_ok=True)
    for f in src.iterdir():
        if f.is_file():
            shutil.copy2(f, dst / f.name)


def make(tree, *targets, werror=True):
    return run(["make", "-s", "-j2"] + (["WERROR=1"] if werror else []) + list(targets), tree)


class Graded:
    """A grader's run: .status, .out, .tests {title: "OK"/"FAIL"}, .score, .total, .results."""

    def __init__(self, proc, results_file):
        self.status, self.out = proc.returncode, proc.stdout
        self.tests = dict(TEST_LINE_RE.findall(self.out))
        m = SCORE_RE.search(self.out)
        self.score, self.total = (float(m.group(1)), float(m.group(2))) if m else (None, None)
        try:
            self.results = json.loads(Path(results_file).read_text())
        except (OSError, ValueError):
            self.results = None

    def failed(self):
        return sorted(t for t, r in self.tests.items() if r == "FAIL")


def grade(tree, lab, *args, no_build=True):
    results = Path(tree) / "build" / ("results-%s.json" % lab)
    results.unlink(missing_ok=True)
    proc = run([sys.executable, Path(tree) / "labs" / lab / "grade", "--results", results] + list(args), tree,
               no_build=no_build)
    return Graded(proc, results)


def describe(lab, tree=ROOT):
    return json.loads(run([sys.executable, Path(tree) / "labs" / lab / "grade", "--describe"], tree).stdout)


def _labs():
    found = {}
    for grader in sorted((ROOT / "labs").glob("*/grade")):
        tests = describe(grader.parent.name)["tests"]
        found[grader.parent.name] = {"fast": [t["id"] for t in tests if t["fast"]],
                                     "perf": [t["id"] for t in tests if t["perf"]]}
    return found


LABS = _labs()


def markers_left(tree):
    left = []
    for p in sorted(Path(tree).rglob("*")):
        rel = p.relative_to(tree)
        if not p.is_file() or p.is_symlink() or rel.parts[0] in (".git", "build"):
            continue
        data = p.read_bytes()
        if b"\0" in data or b"LAB" not in data:
            continue
        for n, line in enumerate(data.decode(errors="replace").split("\n"), 1):
            if markers.MARKER_RE.search(line):
                left.append("%s:%d: %s" % (rel, n, line.strip()))
    return left


def check_results(T, what, graded, perf_ids=()):
    """results.json has Gradescope's fields, agrees with the printed score, and has a leaderboard
    entry for every performance test that ran."""
    doc = graded.results
    fields = ("name", "score", "max_score", "status", "output", "visibility")
    ok = (doc is not None and isinstance(doc.get("tests"), list) and doc["tests"] and
          all(all(k in t for k in fields) for t in doc["tests"]) and
          "execution_time" in doc and "score" in doc and isinstance(doc.get("leaderboard"), list))
    T.check("%s: results.json has score, execution_time, tests[] with %s, leaderboard[]" % (what, ", ".join(fields)),
            ok, expected="Gradescope's fields", got=json.dumps(doc)[:300] if doc else "no results.json")
    if not ok:
        return
    T.check("%s: results.json's score is the printed one, and the sum of its tests" % what,
            graded.score is not None and abs(doc["score"] - graded.score) < 0.01 and
            abs(sum(t["score"] for t in doc["tests"]) - doc["score"]) < 0.01,
            expected=graded.score, got="%s (tests sum %s)" % (doc["score"], sum(t["score"] for t in doc["tests"])))
    if perf_ids:
        board = doc["leaderboard"]
        T.check("%s: the performance tests put their figures on the leaderboard (name, value, order)" % what,
                len(board) >= len(perf_ids) and all({"name", "value", "order"} <= set(e) for e in board),
                expected="an entry per performance test", got=board)
