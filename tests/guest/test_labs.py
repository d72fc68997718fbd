#!/usr/bin/env python3
"""test_labs: the labs' machinery and every lab's handout (labs/README.md), in make test.

Marker syntax, on small made-up files: tools/wdlab/markers.py cuts a region to its stub or its
solution and drops every marker line; a stub may be kept in its own file under
labs/<lab>/stubs/ and named on the STUB line; a BEGIN without END, an END or STUB without
BEGIN, nested regions, two STUBs, a stub line not commented out, a marker not alone on its
line, a bad lab name, a stub file elsewhere than labs/<lab>/stubs/ and lines between a stub
file's STUB and END are each refused with the file and line. `tools/lab check` passes on the
tree and finds regions of every lab.

The grader library on a made-up grader (no build; its own guests): OK/FAIL lines and `Score:`
with partial credit; a guest that hangs is stopped by the progress watchdog (--watchdog 5) and
its test fails saying so; a kernel panic and QEMU failing to start are FAILs with their reason;
the performance comparison on numbers it is given: a ratio inside the band passes with every
trial shown, one outside fails naming the band widened by the baseline's spread, a baseline
spreading over the cap gets trials up to 7 and then fails as too noisy, unless the subject is
inside the band against every one of its trials (a pass after 3) or outside it against every
one (a fail after 3); a metric with widen=False is graded against its band as given; with
--quick a performance test is NOT GRADED and scores 0; a host program that prints nothing is
stopped by its watchdog. A made-up unit test (unit.h) on the grader's channel: all checks
passing and exit 0 is OK, one of two failing half the points; PASS lines on stdout alone, an
exit before a check, a check the list (unit-checks.txt) does not hold and an exit status of 1
with every check passed each score nothing. The written answers: matched to the course's questions by number, a
missing or empty answer named, no points of their own; a failed build's errors cut to their
first lines.

Then for every lab (tests/lib/labtest.py LABS, read from each grader's --describe):
`tools/lab handout` writes a git repository with one commit tagged handout-<lab>, nothing to
commit, `.lab` naming the lab, no lab marker and no line of any lab's solution left in any
file (labtest.solution_leaks), every file holding a region of any lab changed (all are stubbed),
labs/ holding only this lab's folder (with FILES naming the files of its regions and of the
labs it requires, handout-checks.txt, unit-checks.txt, and its reference kernel where the
grader asks for one) and no instructor's
test; the handout, with the tree's build outputs copied in so that only what the handout
changed is rebuilt, builds with WERROR=1 (kernel, userland, root image and every host unit
test: the stubs compile without warnings); it boots (tools/run in the handout), and so does its
reference kernel where it has one (tools/run --kernel), which names none of the functions of
the lab's FILES (labtest.lab_functions: no symbol table, "(lab)" in the kernel's own
backtrace table); its grader's fast tests
(LABS[lab]["fast"]: no guest that could hang, no performance run) all fail and score 0, exit
1, each with its reason, and its results.json has Gradescope's fields. In the stripe handout,
make handin refuses uncommitted work and, after a commit, packs the tree under stripe/ with
handin.diff naming the changed file and without the reference kernel. A course's labs in
sequence: tour's handout repository gets stripe's on top (tools/lab handout onto it); a student
who changed tour's file and committed runs tools/lab next stripe there: a branch stripe with the
new handout merged, .lab stripe, labs/stripe/ in, the tour work kept. make gradescope writes a
zip with setup.sh and run_autograder (executable) and the lab's handout (its FILES, no marker,
no solution).
The graders on the solutions are tests/guest/test_labs_grade.py (--quick); the graders' full
runs, the three grading paths, tampered submissions and the mutations are make test-labs.
"""
# tests/run: timeout=900 about=70
import os
import stat
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
import gradelib  # noqa: E402
import labtest  # noqa: E402
from labtest import LABS, ROOT, WORK, markers  # noqa: E402

T = TestSet("labs")
MARK = "LAB"                       # marker words are built here, so this file holds none itself


def m(kind, lab="demo", style="c"):
    return "/* %s %s %s */" % (MARK, lab, kind) if style == "c" else "# %s %s %s" % (MARK, lab, kind)


def marker_syntax():
    text = "\n".join(["int f(void)", "{", "\t" + m("BEGIN"), "\treturn 42;", "\t" + m("STUB"),
                      "\t// return 0;\t/* yours */", "\t//", "\t" + m("END"), "}", m("BEGIN", "other"), "int g;",
                      m("END", "other"), ""])
    regions = markers.scan("demo.c", text)
    T.check("markers: two regions found, with their labs", [r.lab for r in regions] == ["demo", "other"],
            expected=["demo", "other"], got=[r.lab for r in regions])
    stubbed = markers.cut(text, regions, lambda r: r.lab == "demo")
    want = "int f(void)\n{\n\treturn 0;\t/* yours */\n\n}\nint g;\n"
    T.check("markers: the lab's region becomes its stub, uncommented; the other keeps its code; no marker left",
            stubbed == want, expected=want, got=stubbed)
    kept = markers.cut(text, regions, lambda r: False)
    T.check("markers: a region that keeps its solution loses only its marker lines",
            kept == "int f(void)\n{\n\treturn 42;\n}\nint g;\n", expected="the solution", got=kept)
    py = "x = 1\n%s\ny = 2\n%s\n# y = 3\n%s\n" % (m("BEGIN", style="h"), m("STUB", style="h"), m("END", style="h"))
    T.check("markers: # comments in Python and Makefiles",
            markers.cut(py, markers.scan("a.py", py), lambda r: True) == "x = 1\ny = 3\n",
            expected="x = 1\\ny = 3\\n", got=markers.cut(py, markers.scan("a.py", py), lambda r: True))
    bad = {
        "BEGIN without END": ["a", m("BEGIN"), "b"],
        "END without BEGIN": ["a", m("END")],
        "STUB without BEGIN": [m("STUB")],
        "nested regions": [m("BEGIN"), m("BEGIN", "other"), m("END", "other"), m("END")],
        "two STUBs": [m("BEGIN"), m("STUB"), m("STUB"), m("END")],
        "a stub line not commented out": [m("BEGIN"), "x;", m("STUB"), "return 0;", m("END")],
        "a marker after code on its line": ["x; " + m("BEGIN"), m("END")],
        "an END of another lab": [m("BEGIN"), m("END", "other")],
        "a bad lab name": [m("BEGIN", "Bad!x"), m("END", "Bad!x")],
        "a stub file outside labs/<lab>/stubs/": [m("BEGIN"), "x;", m("STUB labs/other/stubs/f.c"), m("END")],
        "lines between a stub file's STUB and END": [m("BEGIN"), "x;", m("STUB labs/demo/stubs/f.c"), "// y;",
                                                     m("END")],
        "a file named on a BEGIN": [m("BEGIN labs/demo/stubs/f.c"), m("END")],
    }
    for what, lines in bad.items():
        try:
            markers.scan("bad.c", "\n".join(lines))
            T.check("markers: refused: " + what, False, expected="a MarkerError", got="accepted")
        except markers.MarkerError as e:
            T.check("markers: refused with the file and line: " + what, str(e).startswith("bad.c:"),
                    expected="bad.c:N: ...", got=str(e))
    stubs = WORK / "stubroot"
    (stubs / "labs" / "demo" / "stubs").mkdir(parents=True, exist_ok=True)
    (stubs / "labs" / "demo" / "stubs" / "f.c").write_text("\treturn 0;\t/* a long stub, kept apart */\n")
    text = "\n".join(["int f(void)", "{", "\t" + m("BEGIN"), "\treturn 42;", m("STUB labs/demo/stubs/f.c"),
                      m("END"), "}", ""])
    regions = markers.scan("demo.c", text)
    markers.load_stub_files(stubs, regions)
    got = markers.cut(text, regions, lambda r: True)
    want = "int f(void)\n{\n\treturn 0;\t/* a long stub, kept apart */\n}\n"
    T.check("markers: a stub in its own file (labs/<lab>/stubs/) stands in for the region, as it is",
            got == want, expected=want, got=got)
    try:
        markers.scan("notes.rst", "a\n" + m("BEGIN") + "\n")
        T.check("markers: refused in a file without a comment style (.rst)", False, expected="a MarkerError",
                got="accepted")
    except markers.MarkerError:
        T.check("markers: refused in a file without a comment style (.rst)", True)


def tree_check():
    r = labtest.lab_tool("check")
    found = {ln.split(":")[0] for ln in r.stdout.splitlines() if " regions in " in ln}
    T.check("tools/lab check: the tree's markers are well-formed and every lab has regions",
            r.returncode == 0 and set(LABS) <= found, expected="status 0, regions of %s" % sorted(LABS),
            got="status %d: %s" % (r.returncode, r.stdout.strip()[-300:]))


def files_with_regions():
    """The tree's files that hold lab regions, any lab's (every handout stubs all of them)."""
    regions, problems = labtest.wdtree.check(ROOT)
    return {p for p in regions if not p.startswith("labs/")}


def one_handout(lab, marked):
    tree = WORK / lab
    r = labtest.handout(lab, tree)
    T.check("%s: tools/lab handout" % lab, r.returncode == 0, expected="status 0", got=r.stdout.strip()[-300:])
    if r.returncode != 0:
        return None
    log = labtest.run(["git", "log", "--format=%s", "--decorate"], tree).stdout.strip().split("\n")
    status = labtest.run(["git", "status", "--porcelain"], tree).stdout.strip()
    tag = labtest.run(["git", "rev-parse", "handout-" + lab], tree).returncode
    T.check("%s: the handout is a git repository with one commit, tagged handout-%s, nothing uncommitted" % (lab, lab),
            len(log) == 1 and not status and tag == 0 and (tree / ".lab").read_text() == lab + "\n",
            expected="1 commit, clean, tag handout-%s, .lab = %s" % (lab, lab),
            got="%s; status %r; tag %d" % (log, status, tag))
    left = labtest.markers_left(tree)
    T.check("%s: no lab marker is left in the handout" % lab, not left, expected="none", got=left[:5])
    leaks = labtest.solution_leaks(tree)
    T.check("%s: no line of any lab's solution is in the handout" % lab, not leaks, expected="none", got=leaks[:5])
    mine = set(labtest.run(["git", "ls-files"], tree).stdout.split())
    theirs = set(labtest.run(["git", "ls-files"], ROOT).stdout.split())
    changed = {f for f in mine & theirs if (tree / f).read_bytes() != (ROOT / f).read_bytes()}
    T.check("%s: every file with a lab region, whichever lab's, is changed (stubbed), and no other" % lab,
            changed - {"labs/%s/answers.txt" % lab} == marked, expected=sorted(marked),
            got="changed %s" % sorted(changed))
    labs_files = {f for f in mine if f.startswith("labs/")}
    own = {"labs/README.md", "labs/labs.mk"} | {"labs/%s/%s" % (lab, f) for f in ("README.md", "grade", "answers.txt",
                                                                                  "FILES", "handout-checks.txt",
                                                                                  "unit-checks.txt")}
    if LABS[lab]["reference_kernel"]:
        own.add("labs/%s/reference/kernel.elf" % lab)
    T.check("%s: labs/ holds this lab's folder only (its FILES, handout-checks.txt, unit-checks.txt%s), no "
            "mutations, stubs or "
            "other labs" %
            (lab, " and reference kernel" if LABS[lab]["reference_kernel"] else ""),
            labs_files == own, expected=sorted(own), got=sorted(labs_files))
    instructors = sorted(f for f in mine if f.startswith(("tests/labs/", "tests/guest/test_labs")))
    T.check("%s: the instructor's own tests of the labs are not in it" % lab, not instructors, expected="none",
            got=instructors)
    files = [ln for ln in (tree / "labs" / lab / "FILES").read_text().split("\n") if ln and not ln.startswith("#")]
    want = sorted({p for p, rs in labtest.wdtree.check(ROOT)[0].items() if not p.startswith("labs/") and
                   any(r.lab in [lab] + LABS[lab]["requires"] for r in rs)}) + ["labs/%s/answers.txt" % lab]
    T.check("%s: labs/%s/FILES names the files of its regions and of the labs it requires (%s), and answers.txt"
            % (lab, lab, ", ".join(LABS[lab]["requires"]) or "none"), files == want, expected=want, got=files)
    return tree


def same_code(a, b):
    """The files two handouts differ in, outside labs/ and .lab (every handout stubs every lab
    alike, so none)."""
    na, nb = (set(labtest.run(["git", "ls-files"], t).stdout.split()) for t in (a, b))
    differ = (na ^ nb) | {f for f in na & nb if (a / f).read_bytes() != (b / f).read_bytes()}
    return sorted(f for f in differ if not f.startswith("labs/") and f != ".lab")


def build_and_boot(lab, tree, built):
    """The first handout is built (WERROR=1) and booted; every handout has the same code, so the
    others take its build (the check says they have the same code) and boot only their
    reference kernel."""
    if built is None:
        labtest.seed_build(tree)
        r = labtest.make(tree, "all", "test-host")
        T.check("%s: the handout builds with WERROR=1 (kernel, userland, root image, host unit tests)" % lab,
                r.returncode == 0, expected="status 0", got=r.stdout.strip()[-600:])
        if r.returncode != 0:
            return False
        r = labtest.run([sys.executable, tree / "tools" / "run", "--", "echo booted"], tree, timeout=300)
        T.check("%s: the handout boots (tools/run)" % lab, r.returncode == 0 and "booted" in r.stdout,
                expected="booted, status 0", got="status %d: %s" % (r.returncode, r.stdout.strip()[-300:]))
    else:
        differ = same_code(built, tree)
        T.check("%s: its handout has the same code as %s's (every lab stubbed alike): its build is that one"
                % (lab, built.name), not differ, expected="no file differs outside labs/", got=differ[:5])
        labtest.shutil.copytree(built / "build", tree / "build", symlinks=True, dirs_exist_ok=True)
    ref = tree / "labs" / lab / "reference" / "kernel.elf"
    if ref.is_file():
        r = labtest.run([sys.executable, tree / "tools" / "run", "-v", "--kernel", ref, "--", "echo booted"], tree,
                        timeout=300)
        T.check("%s: the reference kernel boots with tools/run --kernel (QEMU's -kernel is that file)" % lab,
                r.returncode == 0 and "booted" in r.stdout and ("-kernel %s " % ref) in r.stdout,
                expected="-kernel %s, booted" % ref, got="status %d: %s" % (r.returncode, r.stdout.strip()[-300:]))
        hidden = labtest.lab_functions(lab)
        named = labtest.names_in(ref, hidden)
        T.check("%s: the reference kernel names none of the %d functions of the lab's FILES (no symbol table, "
                "\"(lab)\" in the kernel's own)" % (lab, len(hidden)), hidden and not named,
                expected="none of %s..." % hidden[:3], got=named[:8])
    return True


def fast_grade(lab, tree):
    fast = LABS[lab]["fast"]
    g = labtest.grade(tree, lab, *fast)
    named = [LABS[lab]["titles"][i] for i in fast]
    T.check("%s: the handout's grader (%s) scores 0 and exits 1" % (lab, " ".join(fast)),
            g.status == 1 and g.score == 0, expected="Score: 0/m, status 1",
            got="status %d, score %s/%s\n%s" % (g.status, g.score, g.total, g.out[-1500:]))
    reasons = [g.out.split("== %s == FAIL" % t, 1)[-1].split("\n== ", 1)[0].strip() for t in named]
    T.check("%s: the handout's grader fails every one of them, each with its reason" % lab,
            set(g.failed()) == set(named) and all(reasons), expected=["== %s == FAIL + why" % n for n in named],
            got=g.failed())
    labtest.check_results(T, "%s handout" % lab, g)


def handin(tree):
    (tree / "kernel" / "dev" / "ccd_map.c").write_text((tree / "kernel" / "dev" / "ccd_map.c").read_text() + "\n")
    r = labtest.run(["make", "-s", "handin"], tree)
    T.check("stripe: make handin refuses uncommitted work and says what to do",
            r.returncode != 0 and "git add -A && git commit" in r.stdout and "ccd_map.c" in r.stdout,
            expected="a refusal naming ccd_map.c and the commit to make", got=r.stdout.strip()[-300:])
    labtest.run(["git", "-c", "user.name=student", "-c", "user.email=s@example.invalid", "commit", "-qam", "work"],
                tree)
    r = labtest.run(["make", "-s", "handin"], tree)
    out = tree / "handin-stripe.tar.gz"
    names, diff = [], ""
    if r.returncode == 0 and out.is_file():
        with tarfile.open(out) as tar:
            names = tar.getnames()
            diff = tar.extractfile("stripe/handin.diff").read().decode() if "stripe/handin.diff" in names else ""
    T.check("stripe: make handin packs the last commit under stripe/ with handin.diff naming the change",
            "stripe/kernel/dev/ccd_map.c" in names and "stripe/Makefile" in names and
            "diff --git a/kernel/dev/ccd_map.c" in diff and not any("/reference/" in n for n in names),
            expected="stripe/..., stripe/handin.diff with ccd_map.c, no reference kernel",
            got="status %d: %d names, diff %r" % (r.returncode, len(names), diff[:120]))
    T.check("stripe: make handin's tarball is ignored by git (the next handin does not see it)",
            labtest.run(["git", "status", "--porcelain"], tree).stdout.strip() == "",
            expected="nothing to commit", got=labtest.run(["git", "status", "--porcelain"], tree).stdout)


def git_as(tree, *args):
    return labtest.run(["git", "-c", "user.name=student", "-c", "user.email=s@example.invalid"] + list(args), tree)


def sequence():
    """tour, then stripe, in one student repository (tools/lab next)."""
    course, student = WORK / "course", WORK / "student"
    for d in (course, student):
        labtest.shutil.rmtree(d, ignore_errors=True)
    r1 = labtest.handout("tour", course)
    if not T.check("sequence: tour's handout repository", r1.returncode == 0, expected="status 0",
                   got=r1.stdout[-300:]):
        return
    r2 = labtest.lab_tool("handout", "stripe", course)
    tags = labtest.run(["git", "tag"], course).stdout.split()
    log = labtest.run(["git", "log", "--format=%s"], course).stdout.strip().split("\n")
    T.check("sequence: stripe's handout goes on top of tour's handout repository (tagged handout-stripe)",
            r1.returncode == 0 and r2.returncode == 0 and tags == ["handout-stripe", "handout-tour"] and len(log) == 2
            and (course / "labs" / "tour" / "README.md").is_file() and (course / ".lab").read_text() == "stripe\n",
            expected="2 commits, both tags, labs/tour/ kept, .lab stripe", got="%s %s %s\n%s" % (tags, log, r2.returncode,
                                                                                                r2.stdout[-300:]))
    labtest.run(["git", "clone", "-q", "-b", "main", str(course), str(student)], WORK)
    git_as(student, "reset", "-q", "--hard", "handout-tour")
    iostat = student / "user" / "bin" / "iostat.c"
    iostat.write_text(iostat.read_text() + "/* my tour work */\n")
    answers = student / "labs" / "tour" / "answers.txt"
    answers.write_text(answers.read_text().replace("(your answer)", "my answer", 1))
    git_as(student, "commit", "-qam", "tour done")
    r = labtest.run([labtest.sys.executable, student / "tools" / "lab", "next", "stripe", course], student)
    branch = labtest.run(["git", "branch", "--show-current"], student).stdout.strip()
    T.check("sequence: tools/lab next stripe merges the handout on a branch stripe, keeping the tour work",
            r.returncode == 0 and branch == "stripe" and (student / ".lab").read_text() == "stripe\n" and
            (student / "labs" / "stripe" / "FILES").is_file() and "/* my tour work */" in iostat.read_text() and
            "my answer" in answers.read_text(),
            expected="branch stripe, .lab stripe, labs/stripe/, the tour work",
            got="status %d, branch %s: %s" % (r.returncode, branch, r.stdout[-400:]))
    r = labtest.run([labtest.sys.executable, student / "tools" / "lab", "next", "stripe"], student)
    T.check("sequence: tools/lab next refuses a lab the repository is at already, saying so",
            r.returncode == 2 and "at lab stripe already" in r.stdout, expected="status 2, a message",
            got="status %d: %s" % (r.returncode, r.stdout.strip()))


def gradescope_zip():
    with tempfile.TemporaryDirectory() as d:
        z = Path(d) / "g.zip"
        r = labtest.lab_tool("gradescope", "stripe", "--out", z)
        ok = r.returncode == 0 and z.is_file()
        modes, names = {}, []
        if ok:
            with zipfile.ZipFile(z) as f:
                names = f.namelist()
                modes = {i.filename: i.external_attr >> 16 for i in f.infolist()}
        T.check("gradescope: the zip has setup.sh and run_autograder, executable, at its root, and the handout",
                ok and all(modes.get(n, 0) & stat.S_IXUSR for n in ("setup.sh", "run_autograder")) and
                "labs/stripe/grade" in names and "labs/stripe/FILES" in names and "kernel/dev/ccd_map.c" in names
                and modes.get("tools/lab", 0) & stat.S_IXUSR and not any(n.startswith("labs/tour/") for n in names),
                expected="setup.sh, run_autograder, labs/stripe/{grade,FILES}, kernel/..., tools/lab executable",
                got="status %d: %s" % (r.returncode, r.stdout.strip()[-200:]))
        if ok:
            unz = Path(d) / "unz"
            with zipfile.ZipFile(z) as f:
                f.extractall(unz)
            leaks = labtest.solution_leaks(unz) + labtest.markers_left(unz)
            T.check("gradescope: the zip holds no solution and no marker (it is the handout)", not leaks,
                    expected="none", got=leaks[:5])


FAKE_GRADER = """
import sys, time
sys.path.insert(0, %(lib)r)
from gradelib import Lab, Metric
lab = Lab("fake")
vals = {"b": iter([10.0, 10.2, 9.9]), "s": iter([19.5, 20.0, 20.6]), "slow": iter([14.0, 15.0, 16.0]),
        "noisy": iter([5.0, 10.0, 20.0, 5.0, 20.0, 5.0, 20.0]), "wide": iter([8.0, 10.0, 12.0, 8.0, 10.0, 12.0]),
        "wild": iter([8.0, 20.0, 10.0])}
def trial(k):
    return lambda i: {"MB/s": next(vals[k])}
@lab.test("passes", 2)
def passes(t):
    t.check(True, "fine")
@lab.test("half", 4, build=False)
def half(t):
    t.partial(1, 2)
    t.fail("one of two")
@lab.test("hang", 1)
def hang(t):
    with t.guest() as g:
        g.ok("sleep 1000")
@lab.test("panic", 1)
def panic(t):
    with t.guest() as g:
        g.ok("sysctl debug.kdb.panic=1")
@lab.test("qemu", 1)
def qemu(t):
    with t.guest(qemu_args=["-device", "wdrain-no-such-device"]) as g:
        g.ok("true")
@lab.test("faster", 1, perf=True)
def faster(t):
    t.compare(subject=("s", trial("s")), baseline=("b", trial("b")), metrics=[Metric("MB/s", lo=1.8)])
@lab.test("slower", 1, perf=True)
def slower(t):
    vals["b"] = iter([10.0, 10.2, 9.9])
    t.compare(subject=("slow", trial("slow")), baseline=("b", trial("b")), metrics=[Metric("MB/s", lo=1.8)])
def steady(value, base, **kw):
    # a test: a subject that always gives `value` against the baseline `base`'s values
    return lambda t: t.compare(subject=("s", lambda i: {"MB/s": value}), baseline=(base, trial(base)),
                               metrics=[Metric("MB/s", lo=1.8, **kw)])
lab.test("noisy", 1, perf=True)(steady(20.0, "noisy"))
lab.test("decided", 1, perf=True)(steady(30.0, "wide"))
lab.test("decided_fail", 1, perf=True)(steady(12.0, "wide"))
lab.test("unwidened", 1, perf=True)(steady(30.0, "wild", widen=False))
lab.run()
"""


def grader_library():
    """gradelib and gradeperf on a made-up grader: points, partial credit, the watchdog, a panic,
    QEMU failing, and the performance band (host-side numbers, so exact)."""
    d = WORK / "fake"
    d.mkdir(parents=True, exist_ok=True)
    (d / "grade").write_text(FAKE_GRADER % {"lib": str(ROOT / "tests" / "lib")})
    start = time.monotonic()
    r = labtest.run([sys.executable, d / "grade", "--watchdog", "5", "--results", d / "r.json"], ROOT)
    secs = time.monotonic() - start
    g = labtest.Graded(r, d / "r.json")
    block = {t: r.stdout.split("== %s ==" % t, 1)[-1].split("\n== ", 1)[0] for t in g.tests}
    T.check("gradelib: OK and FAIL per test, Score with partial credit (2 + 2 of 4 + 3 of 9 more), exit 1",
            g.tests.get("passes") == "OK" and g.tests.get("half") == "FAIL" and g.score == 7 and g.total == 15
            and r.returncode == 1, expected="passes OK, half FAIL, Score: 7/15", got="%s %s/%s" % (g.tests, g.score, g.total))
    T.check("gradelib: a guest that prints nothing and does no I/O is stopped by the watchdog, a FAIL saying so",
            g.tests.get("hang") == "FAIL" and "no progress for 5 s" in block.get("hang", ""),
            expected="FAIL: no progress for 5 s ...", got=block.get("hang", "")[:300])
    T.check("gradelib: a kernel panic is a FAIL with the panic line and the console's last lines",
            g.tests.get("panic") == "FAIL" and "panic: debug.kdb.panic" in block.get("panic", "") and
            "last " in block.get("panic", ""), expected="FAIL: guest panicked: panic: ...", got=block.get("panic", "")[:300])
    T.check("gradelib: QEMU failing to start is a FAIL with QEMU's reason",
            g.tests.get("qemu") == "FAIL" and "wdrain-no-such-device" in block.get("qemu", ""),
            expected="FAIL naming the device", got=block.get("qemu", "")[:300])
    T.check("gradeperf: 2.0x against a band from 1.8 passes, every trial shown",
            g.tests.get("faster") == "OK" and block["faster"].count("trial ") == 3 and "ratio 2.000" in block["faster"],
            expected="OK, 3 trial lines, ratio 2.000", got=block.get("faster", "")[:300])
    T.check("gradeperf: 1.5x fails, outside the band widened by the baseline's spread (1.8 x 0.95)",
            g.tests.get("slower") == "FAIL" and "outside the band [1.710, -]" in block.get("slower", ""),
            expected="FAIL: ratio 1.500 outside the band [1.710, -]", got=block.get("slower", "")[:400])
    T.check("gradeperf: a baseline spreading over the cap gets more trials, up to 7, then FAILs as too noisy",
            g.tests.get("noisy") == "FAIL" and block["noisy"].count("trial ") == 7 and "too noisy" in block["noisy"],
            expected="7 trials, then too noisy", got=block.get("noisy", "")[:400])
    T.check("gradeperf: a baseline spreading over the cap, with the subject above the band against every "
            "trial of it, passes after 3 trials",
            g.tests.get("decided") == "OK" and block["decided"].count("trial ") == 3 and
            "against every one of them" in block["decided"],
            expected="OK, 3 trials", got=block.get("decided", "")[:400])
    T.check("gradeperf: ... and one below the band against every trial fails after 3, not as too noisy",
            g.tests.get("decided_fail") == "FAIL" and block["decided_fail"].count("trial ") == 3 and
            "against every one of the baseline's trials" in block["decided_fail"] and
            "too noisy" not in block["decided_fail"],
            expected="FAIL, 3 trials, outside the band", got=block.get("decided_fail", "")[:400])
    T.check("gradeperf: widen=False grades the ratio of medians against the band as given, 3 trials, no cap",
            g.tests.get("unwidened") == "OK" and block["unwidened"].count("trial ") == 3 and
            "not widened" in block["unwidened"], expected="OK, 3 trials, not widened",
            got=block.get("unwidened", "")[:400])
    T.check("gradelib: the run ends by the watchdog, not a long limit (under 3 minutes)", secs < 180,
            expected="< 180 s", got="%.0f s" % secs)
    labtest.check_results(T, "made-up grader", g, ["faster"])
    out, code, stalled = gradelib._run_watched(["sleep", "30"], 2)
    T.check("gradelib: a host program that prints nothing for the watchdog's time is stopped", stalled,
            expected="stopped after 2 s", got="code %s" % code)
    r = labtest.run([sys.executable, d / "grade", "--quick", "--results", d / "q.json", "passes", "faster"], ROOT)
    q = labtest.Graded(r, d / "q.json")
    quick = r.stdout.split("== faster ==", 1)[-1]
    T.check("gradeperf: with --quick a performance test is NOT GRADED and scores 0 of its points, saying why",
            q.tests.get("faster") == "NOT GRADED" and q.score == 2 and q.total == 3 and "scores 0 of its 1 points"
            in quick and r.returncode == 1, expected="faster NOT GRADED, Score: 2/3, status 1",
            got="%s %s/%s: %s" % (q.tests, q.score, q.total, quick[:300]))


class FakeRun:
    """What check_answers needs of a test's run."""

    def __init__(self):
        self.extra, self.lines = {}, []

    def show(self, line):
        self.lines.append(line)


# A made-up unit test (tests/unit/unit.h): what it does is chosen by FAKE_UNIT in its environment.
FAKE_UNIT = r"""#include "unit.h"
int main(void)
{
	const char *how = getenv("FAKE_UNIT");
	if (strcmp(how, "stdout") == 0) {
		puts("PASS fake_a\nPASS fake_b");
		return 0;
	}
	check_int("fake_a", 1, 1);
	if (strcmp(how, "early") == 0)
		exit(0);
	check_int("fake_b", 2, strcmp(how, "honest") == 0 ? 3 : 2);
	if (strcmp(how, "extra") == 0)
		pass("fake_c");
	if (strcmp(how, "status") == 0)
		return 1;
	return unit_exit();
}
"""


def unit_channel():
    """gradelib's unit tests on a made-up test: only the verdicts on the grader's channel count,
    the checks must be the handout's list and the exit status must agree."""
    d = WORK / "fake-unit"
    d.mkdir(parents=True, exist_ok=True)
    (d / "fake.c").write_text(FAKE_UNIT)
    (d / "unit-checks.txt").write_text("test_fake fake_a\ntest_fake fake_b\n")
    r = labtest.run(["gcc", "-O1", "-I", ROOT / "tests" / "unit", "-o", d / "test_fake", d / "fake.c"], d)
    T.check("unit channel: the made-up unit test builds", r.returncode == 0, expected="status 0", got=r.stdout[-300:])
    lab = gradelib.Lab("fake")
    lab.dir = d
    lab.opts = gradelib.argparse.Namespace(quick=False, verbose=False, watchdog=10)

    def score(how):
        t = gradelib.Run(lab, None)
        os.environ["FAKE_UNIT"] = how
        try:
            t.unit_run(d / "test_fake", "test_fake", ("fake_",))
            return "OK", t.fraction, ""
        except gradelib.Fail as e:
            return "FAIL", t.fraction or 0, str(e)
        finally:
            del os.environ["FAKE_UNIT"]
    want = {"right": ("OK", None), "honest": ("FAIL", 0.5), "stdout": ("FAIL", 0), "early": ("FAIL", 0),
            "extra": ("FAIL", 0), "status": ("FAIL", 0)}
    what = {"right": "every check passes, exit 0: OK", "honest": "one of two checks fails: half the points",
            "stdout": "PASS lines on stdout alone: nothing", "early": "exit 0 before a check: nothing",
            "extra": "a check the handout's test does not make: nothing",
            "status": "every check passes, exit 1: nothing"}
    for how, (verdict, fraction) in want.items():
        got = score(how)
        T.check("unit channel: %s" % what[how], got[:2] == (verdict, fraction), expected=(verdict, fraction),
                got=got)


def answers_and_build_errors():
    d = WORK / "answers"
    d.mkdir(parents=True, exist_ok=True)
    questions, mine = d / "questions.txt", d / "answers.txt"
    questions.write_text("# the course's\nQ1. Why?\nA1: (your answer)\n\nQ2. How?\nA2: (your answer)\n\n"
                         "Q3. When?\nA3: (your answer)\n")
    mine.write_text("Q1. Why?\nA1: because.\n\nQ3. When?\nA3: (your answer)\n\nQ9. My own question?\n"
                    "A9: an answer to a question nobody asked, in many many words.\n")
    t = FakeRun()
    try:
        gradelib.check_answers(t, questions, mine, 10)
        why = ""
    except gradelib.Fail as e:
        why = str(e)
    T.check("answers: matched to the course's questions by number; a missing and an empty one are named, a "
            "question of the student's own counts for nothing",
            t.extra.get("answered") == [1, 3] and "Q2: no answer" in why and "Q3: the answer is empty" in why
            and "Q9" not in why, expected="1 of 3 answered, Q2 and Q3 named", got="%s: %s" % (t.extra, why))
    out = "\n".join(["make: Entering directory", "cc -c a.c"] + ["kernel/dev/ccd_map.c:%d: error: oops %d" % (i, i)
                                                                  for i in range(100)] + ["make: *** [all] Error 1"])
    got = gradelib.build_errors(out).split("\n")
    T.check("build errors: the first %d lines from the first error" % gradelib.BUILD_LINES,
            len(got) == gradelib.BUILD_LINES and got[0].endswith("error: oops 0"), expected="60 lines from oops 0",
            got="%d lines from %r" % (len(got), got[0]))


marker_syntax()
grader_library()
unit_channel()
answers_and_build_errors()
tree_check()
marked = files_with_regions()
trees, built = {}, None
for lab in LABS:
    tree = one_handout(lab, marked)
    if tree is not None and build_and_boot(lab, tree, built):
        built = built or tree
        fast_grade(lab, tree)
        trees[lab] = tree
if "stripe" in trees:
    handin(trees["stripe"])
sequence()
gradescope_zip()
T.done()
