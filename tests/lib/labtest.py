"""labtest: what the labs' tests share (tests/guest/test_labs.py and test_labs_grade.py in make
test, tests/labs/test_labs_full.py in make test-labs).

  LABS                  every lab (labs/*/grade), as its grader describes it (--describe): its
                        `fast` tests (they fail quickly on the handout's stubs: make test runs them
                        there), `perf` tests, `requires`, `reference_kernel`, `points` per test id
  WORK                  build/labs-test/, where the tests put handouts and submissions
  lab_tool(*args, cwd)  tools/lab (of ROOT, or of the tree cwd) -> CompletedProcess (text)
  handout(lab, dest)    a fresh handout of ROOT's tree in dest (removed first)
  seed_build(tree)      start tree/build from ROOT's build outputs with their times, so that make
                        in the tree rebuilds only what the handout changed (and its dependents)
  make(tree, *targets, werror=True)  make -j2 in tree -> CompletedProcess
  grade(tree, lab, *args)      the tree's labs/<lab>/grade --results F *args, run as it is -> Graded
  lab_grade(tree, lab, *args)  tools/lab grade in the tree (make grade's way: the lab's files laid
                        over its handout) with --results F among the grader's args -> Graded
  markers_left(tree)    "path:line: text" of every lab marker word left in a tree's text files
  solution_leaks(tree)  "path:line: text" of every line of a lab solution found in a tree's files
                        (SOLUTION_LINES: the distinctive ones; ALLOWED_ELSEWHERE: the few that
                        the tree also holds outside the regions on purpose, with the reason)
  check_results(T, what, graded, perf_ids)  the Gradescope fields of results.json
  lab_functions(lab)    the functions defined in the lab's FILES (ROOT's kernel objects): the
                        names its reference kernel must not carry (but for a name the kernel
                        also uses as a string)
  names_in(path, names) those of names that a binary holds as a whole string (a symbol table's
                        or the kernel's own backtrace table's)
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
from wdlab import handout as wdhandout  # noqa: E402
from wdlab import markers  # noqa: E402
from wdlab import tree as wdtree  # noqa: E402

TEST_LINE_RE = re.compile(r"^== (.+) == (OK|FAIL|NOT GRADED) \([\d.]+ s\)$", re.M)
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
    wdtree.seed_build(ROOT / "build", Path(tree) / "build")


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


def lab_grade(tree, lab, *args):
    results = Path(tree) / "build" / ("results-%s.json" % lab)
    results.parent.mkdir(parents=True, exist_ok=True)
    results.unlink(missing_ok=True)
    proc = run([sys.executable, Path(tree) / "tools" / "lab", "grade", lab] + list(args) + ["--results", results],
               tree, no_build=False)
    return Graded(proc, results)


def describe(lab, tree=ROOT):
    return json.loads(run([sys.executable, Path(tree) / "labs" / lab / "grade", "--describe"], tree).stdout)


def _labs():
    found = {}
    for grader in sorted((ROOT / "labs").glob("*/grade")):
        tests = describe(grader.parent.name)["tests"]
        d = describe(grader.parent.name)
        found[grader.parent.name] = {"fast": [t["id"] for t in tests if t["fast"]],
                                     "perf": [t["id"] for t in tests if t["perf"]],
                                     "requires": d["requires"], "reference_kernel": d["reference_kernel"],
                                     "points": {t["id"]: t["points"] for t in tests},
                                     "titles": {t["id"]: t["title"] for t in tests}}
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


MIN_SOLUTION_LINE = 16            # shorter lines ("}", "return 0;") are everyone's
ALLOWED_ELSEWHERE = {
    # The simulation of the buffer cache charges its disks' writes as bwrite does (a harness
    # must, to drive the daemon); it is not the lab's bwrite.
    "runningbufspace += bytes;": "tests/unit/bufdaemon_sim.h",
    # The per-disk checks' own definition of a full disk, which lab perdevice's README states.
    "return rd->rd_running > perdevice_hirunning(rd) || rd->rd_nwait > 0;": "tests/unit/bufdaemon_sim.h",
    # A test marks a page by hand to set up the queue it checks.
    "m->flags |= PG_WINATCFLS;": "tests/unit/test_vm_page.c",
}


def _solution_lines():
    """The distinctive lines of every region's solution: at least MIN_SOLUTION_LINE characters,
    and not also in the kernel's or the userland's code outside the regions (a signature or a
    loop the given code shares) nor in a stub."""
    files = wdtree.tracked_files(ROOT)
    regions = wdtree.all_regions(ROOT, files)
    outside = set()
    for name in files:
        if name.startswith(("kernel/", "user/")) and markers.comment_style(name) == "c":
            text = (ROOT / name).read_text()
            if name in regions:
                text = markers.cut(text, regions[name], lambda r: True)
            outside.update(ln.strip() for ln in text.split("\n"))
    lines = {}
    for name, rs in regions.items():
        text = (ROOT / name).read_text().split("\n")
        for r in rs:
            for ln in text[r.begin + 1:r.stub if r.stub >= 0 else r.end]:
                t = ln.strip()
                if len(t) >= MIN_SOLUTION_LINE and t not in outside and not t.startswith(("//", "#")):
                    lines.setdefault(t, "%s (lab %s)" % (name, r.lab))
    return lines


def solution_leaks(tree):
    """Every line of a solution (SOLUTION_LINES) in a tree's text files, but for
    ALLOWED_ELSEWHERE's, where they are allowed."""
    sol = _solution_lines()
    found = []
    for p in sorted(Path(tree).rglob("*")):
        rel = p.relative_to(tree)
        if not p.is_file() or p.is_symlink() or rel.parts[0] in (".git", "build"):
            continue
        data = p.read_bytes()
        if b"\0" in data:
            continue
        for n, line in enumerate(data.decode(errors="replace").split("\n"), 1):
            t = line.strip()
            if t in sol and ALLOWED_ELSEWHERE.get(t) != str(rel):
                found.append("%s:%d: %s (from %s)" % (rel, n, t, sol[t]))
    return found


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


def lab_functions(lab):
    """Less those the kernel's code holds as a string literal too (a sleep's wait message
    "getblk" is in any kernel, with symbols or without)."""
    files = wdtree.student_files(ROOT, lab, wdhandout.checked_regions(ROOT))
    nm = os.environ.get("TOOLPREFIX", "i686-linux-gnu-") + "nm"
    code = "".join(p.read_text(errors="replace") for p in sorted((ROOT / "kernel").rglob("*.[ch]")))
    return [n for n in wdhandout.lab_functions(ROOT, files, nm) if '"%s"' % n not in code]


def names_in(path, names):
    data = Path(path).read_bytes()
    return [n for n in names if b"\0" + n.encode() + b"\0" in data]
