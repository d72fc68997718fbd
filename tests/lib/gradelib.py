"""gradelib: the labs' graders (labs/<name>/grade), built on the test library (wdtest, wdrun).

A grader is a list of named tests with points:

    from gradelib import Lab
    lab = Lab("stripe")

    @lab.test("ccd_map: striping over equal disks", points=20)
    def equal(t):
        t.unit_test("test_ccd_map", prefixes=("two_equal_", "ileave128_"))

    @lab.test("a pattern written through ccd0, de-striped on the host", points=20)
    def destripe(t):
        with t.guest(disks=2) as g:
            g.ok("pattern write /dev/ccd0 16m 7")
        t.check(...)

    lab.answers(points=10)          # labs/stripe/answers.txt, graded by the staff
    lab.run()                       # the command line below; exits

Lab(name, reference_kernel=False, requires=()): reference_kernel if a performance test compares
with the reference design; requires, the labs whose solutions this lab's grading needs (their
regions' files are the student's too: tools/lab, labs/README.md).

Command line of every grader (make grade runs it through tools/lab grade, which lays the lab's
files over the handout first; GRADEFLAGS='...' reaches it):
    labs/NAME/grade [TEST...] [--quick] [--results FILE] [--questions FILE]
                    [--reference-kernel FILE] [--watchdog SECS] [--list] [--describe] [-v]
  TEST           run only these tests: a test's id (its function's name, `-` for `_`), or
                 else the tests whose title contains it; default all
  --quick        performance tests run one trial each, to check that they run and report; they
                 are not graded and score 0 ("NOT GRADED")
  --results FILE Gradescope's results.json: score, execution_time, output, tests (name, score,
                 max_score, status, output, visibility) and leaderboard (name, value, order)
  --questions FILE  the questions of the written answers (default: labs/NAME/answers.txt
                 itself): tools/lab gives the handout's, so a student's file is matched to the
                 course's questions, not to its own
  --reference-kernel FILE   the reference design's kernel for performance comparisons (default:
                 labs/NAME/reference/kernel.elf in a handout, the tree's own kernel in the full tree)
  --watchdog SECS  the progress watchdog (default 60)
  --list         the tests, their ids and points;  --describe  the same as JSON, for tools/lab
  -v             the guests' consoles on stderr
Output: per test `== title == OK (12.3 s)`, `== title == FAIL (12.3 s)` or, for a performance
test in quick mode, `== title == NOT GRADED (12.3 s)`, followed by the lines that say why;
then `Score: n/m` and, where the lab has written answers, how many are answered (their points
are the staff's: not in n/m). Exit status 0 only with full marks and every question answered,
1 otherwise, 2 for a bad command line.

Points: a test scores its points when it passes, 0 when it fails; t.partial(got, of) gives a
share. A unit-test group (t.unit_test) that fails scores its points in proportion to its checks
that pass, counting only the checks the handout's own code fails (its stubs are working
fallbacks, and some checks hold for them: labs/NAME/handout-checks.txt lists those), less one
for each of those the handout passes and this code fails (what worked must keep working).

A build that fails fails every test that needs it, and the first BUILD_LINES lines of the
compiler's errors are in each such test's output and results.json's top-level output.

No wall-clock limit decides a grade. Every guest runs under a progress watchdog: QEMU is killed
when, for --watchdog seconds, the guest has printed nothing and QEMU has read and written fewer
than PROGRESS_BYTES bytes through system calls (/proc/PID/io: disk images, NBD sockets; QEMU's
own event notifications move 8 bytes at a time now and then, so any change at all is not
progress: a guest stuck asleep would never be stopped); host unit tests are killed when they
print nothing for as long. A panic, a hang (the watchdog) and a QEMU failure are each a FAIL
with its reason and the console's last lines. The hard limit behind the watchdog (HARD_LIMIT)
is there only so that nothing can wait forever.

The test body gets a Run `t`:
  t.quick, t.verbose
  t.check(cond, what, expected=None, got=None)  FAIL the test with `what` unless cond (and what
                                was expected and what came, those given)
  t.fail(what)                  FAIL now;  t.log(line) a line shown if the test fails
  t.show(line)                  a line shown whatever the result (performance trials)
  t.partial(got, of)            score got/of of the points, pass or fail (default: all or nothing)
  t.guest(reference=False, **vm) a booted guest (wdtest.Guest's keywords): g.sh(cmd) ->
                                (output, status), g.ok(cmd) -> output (FAIL unless status 0),
                                g.sysctl(name) -> int, g.sysctl_ints(names) -> {name: int},
                                g.sampled(cmd, names, wchans=()) -> (output, [{name: value}
                                every 10 ms], with "t_us" and "wchan.<w>" for each w in wchans);
                                reference=True boots the reference kernel.
                                Its scratch disk images (g.disk_images) stay readable after the
                                guest is gone and are deleted when the test ends
  t.unit_test(name, prefixes=None)  build and run build/host/tests/NAME; FAIL on any FAIL
                                among the checks named with one of the prefixes (all if None),
                                scoring the share of those checks that pass. The verdicts are read
                                from a channel of the grader's own (a descriptor and a token), and
                                the group scores nothing if a check is missing, extra or repeated
                                (labs/NAME/unit-checks.txt) or the exit status disagrees
  t.compare(...), t.leaderboard(...)  performance: gradeperf.py
"""
import argparse
import collections
import contextlib
import csv
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wdtest  # noqa: E402
import wdrun  # noqa: E402
import gradeperf  # noqa: E402
from gradeperf import Fail, Metric  # noqa: E402,F401  (the graders' names)

ROOT = wdrun.ROOT
HARD_LIMIT = 3600.0          # seconds: a command's limit behind the watchdog
WATCHDOG = 60.0              # seconds without progress that end a guest or a unit test
PROGRESS_BYTES = 4096        # QEMU's I/O that counts as progress (a disk sector is 512)
TAIL = 15                    # console lines shown with a guest's failure
BUILD_LINES = 60             # lines of a failed build's errors in the report
PLACEHOLDER = "(your answer)"


# ---- progress watchdog ----------------------------------------------------------------------

def _io_bytes(pid):
    """QEMU's bytes read and written through system calls (disk images, NBD sockets, console)."""
    try:
        with open("/proc/%d/io" % pid) as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return int(fields["rchar"]) + int(fields["wchar"])
    except (OSError, KeyError, ValueError):
        return None


class Watchdog(threading.Thread):
    """Kill the VM's QEMU once the guest shows no progress (console output, or PROGRESS_BYTES
    of I/O) for `quiet` seconds; .fired says so afterwards. Polls once a second."""

    def __init__(self, vm, quiet):
        super().__init__(daemon=True)
        self.vm, self.quiet = vm, quiet
        self.fired = False
        self._done = threading.Event()

    def run(self):
        last, since = None, time.monotonic()
        while not self._done.wait(1.0):
            proc = self.vm.proc
            if proc is None:
                continue
            console, io = len(self.vm.console), _io_bytes(proc.pid)
            if last is None or console != last[0] or (io or 0) - (last[1] or 0) >= PROGRESS_BYTES:
                last, since = (console, io), time.monotonic()
            elif time.monotonic() - since >= self.quiet:
                self.fired = True
                try:
                    proc.kill()
                except OSError:
                    pass
                return

    def stop(self):
        self._done.set()


# ---- guests ------------------------------------------------------------------------------------

class GuestHandle:
    """A booted guest inside t.guest(): commands without a deadline of their own."""

    def __init__(self, g):
        self.g = g

    @property
    def console(self):
        return self.g.console

    @property
    def disk_images(self):
        return self.g.disk_images

    def sh(self, cmd):
        return self.g.sh(cmd, timeout=HARD_LIMIT)

    def ok(self, cmd):
        out, st = self.sh(cmd)
        if st != 0:
            raise Fail("`%s` exited with status %d:\n%s" % (cmd, st, _indent(_last(out, TAIL))))
        return out

    def sysctl(self, name):
        out = self.ok("sysctl -n " + name).strip()
        if not re.fullmatch(r"-?\d+", out):
            raise Fail("sysctl %s: expected a number, got %r" % (name, out))
        return int(out)

    def sysctl_ints(self, names):
        vals = self.g.sysctl_ints(names)
        if vals is None:
            raise Fail("sysctl -n %s: expected %d numbers" % (" ".join(names), len(names)))
        return vals

    def sampled(self, cmd, names, min_samples=5, wchans=()):
        """Run cmd under sampler(1), which reads the integer sysctls `names` every 10 ms:
        (cmd's output, [{name: value} per sample]), each sample with its time "t_us" too and,
        for each wait message w in wchans, "wchan.w": how many processes slept on it (from the
        process table). FAIL unless cmd succeeds and there are at least min_samples samples."""
        out = self.ok("rm -f /tmp/grade.csv; sampler -i 10 -s %s%s -o /tmp/grade.csv %s && cat /tmp/grade.csv"
                      % (",".join(names), " -w " + ",".join(wchans) if wchans else "", cmd))
        names = list(names) + ["t_us"] + ["wchan." + w for w in wchans]
        cols = {n: wdtest.sampled(out, n) for n in names}
        n = min(len(v) for v in cols.values())
        if n < min_samples:
            raise Fail("sampler took %d samples during `%s`:\n%s" % (n, cmd, _indent(_last(out, TAIL))))
        return out, [{name: cols[name][i] for name in names} for i in range(n)]


def _last(text, n):
    return "\n".join(text.rstrip("\n").split("\n")[-n:])


def _indent(text, by="    "):
    return "\n".join(by + ln for ln in text.split("\n"))


def guest_failure(err, watchdog, quiet):
    """The reason a guest failed, for a FAIL: what happened, then the console's last lines."""
    if watchdog is not None and watchdog.fired:
        why = ("no progress for %g s: the guest printed nothing and did no disk I/O (a hang or a "
               "deadlock?); the watchdog stopped QEMU" % quiet)
    else:
        why = err.message           # "guest panicked: panic: ...", "QEMU exited ...", a build error
    tail = err.tail(TAIL) if isinstance(err, wdrun.GuestError) else []
    if tail:
        why += "\n  last %d lines of the console:\n" % len(tail) + _indent("\n".join(tail), "    | ")
    return why


# ---- one test's run ----------------------------------------------------------------------------

class Run:
    """What a test body gets (see the module comment)."""

    def __init__(self, lab, test):
        self.lab, self.test = lab, test
        self.quick, self.verbose = lab.opts.quick, lab.opts.verbose
        self.lines = []              # (always_shown, text)
        self.fraction = None
        self.board = []
        self.vms = []                # the guests booted, whose scratch disks go when the test ends
        self.not_graded = False      # a performance test in quick mode: it scores 0
        self.extra = {}              # results.json's extra_data for this test

    def discard_disks(self):
        """Delete the scratch disk images of this test's guests (a performance test boots many,
        and preallocated images hold their whole size until the grader exits otherwise)."""
        for vm in self.vms:
            vm.disks.discard()

    def log(self, line):
        self.lines.append((False, line))

    def show(self, line):
        self.lines.append((True, line))

    def fail(self, what):
        raise Fail(what)

    def check(self, cond, what, expected=None, got=None):
        if cond:
            return
        if expected is not None:
            what += ": expected %s, got %s" % (wdtest.show(expected), wdtest.show(got))
        elif got is not None:
            what += ": got %s" % wdtest.show(got)
        raise Fail(what)

    def partial(self, got, of):
        self.fraction = got / of if of else 0.0

    def leaderboard(self, name, value, order="desc"):
        self.board.append({"name": name, "value": value, "order": order})

    def compare(self, *args, **kw):
        return gradeperf.compare(self, *args, **kw)

    @contextlib.contextmanager
    def guest(self, reference=False, **vm):
        """A guest booted from the student's kernel (or the reference's), under the watchdog."""
        kernel = self.lab.reference_kernel() if reference else None
        if kernel is not None:
            vm["kernel"] = str(kernel)
        quiet = self.lab.opts.watchdog
        g = wdtest.Guest(timeout=HARD_LIMIT, verbose=self.verbose, **vm)
        self.vms.append(g.vm)
        dog = Watchdog(g.vm, quiet)
        dog.start()
        try:
            with g:
                yield GuestHandle(g)
        except wdrun.WdrunError as e:
            raise Fail(guest_failure(e, dog, quiet))
        finally:
            dog.stop()

    def unit_test(self, name, prefixes=None):
        """Build and run host unit test `name`; FAIL on its FAIL lines among `prefixes`, scoring
        the share of those checks that pass. Only the verdicts the test writes on the grader's
        own channel count (unit_channel), and the group scores nothing unless every check the
        handout's test runs among `prefixes` ran exactly once, no check it does not run was
        reported, and the test exited 0 exactly when none failed."""
        binary = Path(wdrun.BUILD) / "host" / "tests" / name
        if os.environ.get("WDRAIN_NO_BUILD") != "1":
            make = subprocess.run(["make", "-s", str(binary.relative_to(ROOT))], cwd=ROOT, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            if make.returncode != 0:
                raise Fail("tests/unit/%s.c did not build:\n%s" % (name, _indent(build_errors(make.stdout))))
        if not binary.exists():
            raise Fail("%s does not exist (make test-host)" % binary.relative_to(ROOT))
        self.unit_run(binary, name, prefixes)

    def unit_run(self, binary, name, prefixes):
        """Run the built unit test `binary` (its name: `name`) and score it (unit_test)."""
        out, code, stalled, verdicts = unit_channel(binary, self.lab.opts.watchdog)
        ours = (lambda check: True) if prefixes is None else (lambda check: check.startswith(tuple(prefixes)))
        mine = [(v, c) for v, c in verdicts if ours(c)]
        if stalled:
            raise Fail("%s printed nothing for %g s and was stopped (an endless loop?); its last lines:\n%s"
                       % (name, self.lab.opts.watchdog, _indent(_last(out, TAIL))))
        if code < 0:
            raise Fail("%s died of signal %d after %d checks; its last lines:\n%s"
                       % (name, -code, len(mine), _indent(_last(out, TAIL))))
        if not mine:
            raise Fail("%s ran none of the checks this test counts (%s); its last lines:\n%s"
                       % (name, ", ".join(prefixes or ()), _indent(_last(out, TAIL))))
        said = {ln.split(": expected ", 1)[0][5:]: ln for ln in out.split("\n") if ln.startswith("FAIL ")}
        for v, c in mine:
            self.log(said.get(c, "FAIL " + c) if v == "FAIL" else "PASS " + c)
        self._unit_list(name, verdicts, ours, out)
        fails = [c for v, c in mine if v == "FAIL"]
        want = 1 if any(v == "FAIL" for v, c in verdicts) else 0
        if code != want:
            raise Fail("%s exited with status %d, and %s: a test exits 0 exactly when every check passes; its "
                       "last lines:\n%s" % (name, code, "%d of its checks failed" % sum(v == "FAIL" for v, c in verdicts)
                                             if want else "none of its checks failed", _indent(_last(out, TAIL))))
        if fails:
            given = self.lab.handout_checks(name)
            counted = [(v, c) for v, c in mine if c not in given]
            broken = [c for c in fails if c in given]
            passed = sum(1 for v, c in counted if v == "PASS")
            if counted:
                self.partial(max(0, passed - len(broken)), len(counted))
            raise Fail("%d of %d checks failed (the FAIL lines above; the test's own output says what each "
                       "expected)%s" % (len(fails), len(mine), "; %d of the %d checks the handout's own code fails "
                                        "now pass%s" % (passed, len(counted), ", less %d the handout passed and this "
                                                        "code fails" % len(broken) if broken else "")
                                        if counted and given else ""))

    def _unit_list(self, name, verdicts, ours, out):
        """FAIL unless the checks reported are the handout's list (labs/NAME/unit-checks.txt): each
        of this group's checks once, and no check the handout's test does not run."""
        expected = self.lab.unit_checks(name)
        if expected is None:
            return
        got = collections.Counter(c for v, c in verdicts)
        extra = got - expected
        missing = collections.Counter({c: n for c, n in (expected - got).items() if ours(c)})
        if extra:
            raise Fail("%s reported checks that its test does not make, or made them twice: %s (forged results "
                       "score nothing)" % (name, ", ".join(sorted(extra.elements()))))
        if missing:
            shown = sorted(missing.elements())
            raise Fail("%d of this test's checks did not run (did the test stop early?): %s%s; its last lines:\n%s"
                       % (len(shown), ", ".join(shown[:8]), ", ..." if len(shown) > 8 else "",
                          _indent(_last(out, TAIL))))


UNIT_FD_ENV, UNIT_TOKEN_ENV = "WDRAIN_UNIT_FD", "WDRAIN_UNIT_TOKEN"


def unit_channel(binary, quiet):
    """Run a host unit test with the grader's own channel (tests/unit/unit.h): a file open on a
    descriptor and a random token, both in the environment; the test writes each check there as
    `TOKEN PASS name` or `TOKEN FAIL name`. Returns (its output, exit code or -signal, stopped by
    the watchdog, [(verdict, check)] from the lines with this run's token, nothing else)."""
    token = secrets.token_hex(16)
    with tempfile.TemporaryFile() as chan:
        env = dict(os.environ, **{UNIT_FD_ENV: str(chan.fileno()), UNIT_TOKEN_ENV: token})
        out, code, stalled = _run_watched([str(binary)], quiet, env=env, pass_fds=(chan.fileno(),))
        chan.seek(0)
        lines = chan.read().decode(errors="replace").split("\n")
    verdicts = []
    for ln in lines:
        parts = ln.split(" ", 2)
        if len(parts) == 3 and parts[0] == token and parts[1] in ("PASS", "FAIL"):
            verdicts.append((parts[1], parts[2]))
    return out, code, stalled, verdicts


def _run_watched(argv, quiet, env=None, pass_fds=()):
    """Run argv, stdout and stderr together; kill it after `quiet` seconds of silence.
    Returns (output, exit code or -signal, stopped by the watchdog)."""
    p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, env=env, pass_fds=pass_fds)
    chunks, stalled, last = [], False, time.monotonic()
    os.set_blocking(p.stdout.fileno(), False)
    while True:
        data = p.stdout.read()
        if data:
            chunks.append(data)
            last = time.monotonic()
        elif data == b"" and p.poll() is not None:
            break
        elif time.monotonic() - last >= quiet:
            p.kill()
            stalled = True
            p.wait()
            break
        else:
            time.sleep(0.05)
    p.wait()
    return b"".join(chunks).decode(errors="replace"), p.returncode, stalled


# ---- the lab: tests, options, the report -------------------------------------------------------

class Test:
    def __init__(self, fn, title, points, build, perf, fast, staff_points=0):
        self.fn, self.title, self.points, self.build, self.perf, self.fast = fn, title, points, build, perf, fast
        self.staff_points = staff_points     # the written answers': the staff's, not the grader's
        self.id = fn.__name__.replace("_", "-")


def build_errors(output):
    """The first BUILD_LINES lines of a failed build's output from its first error (or its end)."""
    lines = output.rstrip("\n").split("\n")
    first = next((i for i, ln in enumerate(lines) if re.search(r"\berror\b|Error \d+|\*\*\*", ln)), None)
    if first is None:
        return "\n".join(lines[-BUILD_LINES:])
    return "\n".join(lines[first:first + BUILD_LINES])


class Lab:
    def __init__(self, name, reference_kernel=False, requires=()):
        self.name = name
        self.dir = ROOT / "labs" / name
        self.needs_reference = reference_kernel
        self.requires = list(requires)
        self.tests = []
        self.opts = None
        self.build_output = None     # a failed build's errors, for results.json

    def test(self, title, points, build=True, perf=False, fast=False):
        """Decorator: fn(t) is a test worth `points`. build=False: it needs no build; perf: a
        performance test (gradeperf); fast: it fails quickly on the handout's stubs (no guest
        that could hang, no performance run), so make test runs it on the handout."""
        def register(fn):
            self.tests.append(Test(fn, title, points, build, perf, fast))
            return fn
        return register

    def answers(self, points):
        """The written answers (labs/<name>/answers.txt), worth `points` that the course staff
        give by hand: the test scores nothing itself. It passes when every question of the
        course's answers.txt (--questions) has a non-empty answer in the student's, matched by
        its number, and names each one that has not."""
        def answers_txt(t):
            questions = Path(self.opts.questions) if self.opts.questions else self.dir / "answers.txt"
            check_answers(t, questions, self.dir / "answers.txt", points)
        answers_txt.__name__ = "answers"
        self.tests.append(Test(answers_txt, "answers.txt: written answers, %g points graded by the course staff"
                               % points, 0, False, False, True, staff_points=points))

    def handout_checks(self, binary):
        """The checks of host unit test `binary` that the handout's own code passes (its
        labs/NAME/handout-checks.txt; none in the instructor's tree)."""
        f = self.dir / "handout-checks.txt"
        if not f.is_file():
            return set()
        return {ln.split(" ", 1)[1] for ln in f.read_text().split("\n")
                if ln.startswith(binary + " ")}

    def unit_checks(self, binary):
        """Every check host unit test `binary` makes, as a multiset (its labs/NAME/unit-checks.txt,
        written with the handout); None in the instructor's tree, which has none."""
        f = self.dir / "unit-checks.txt"
        if not f.is_file():
            return None
        return collections.Counter(ln.split(" ", 1)[1] for ln in f.read_text().split("\n")
                                   if ln.startswith(binary + " "))

    # -- the reference kernel --

    def reference_kernel(self):
        """The reference design's kernel, or None for the tree's own (the full tree is the reference)."""
        if self.opts.reference_kernel:
            k = Path(self.opts.reference_kernel)
            if not k.is_file():
                raise Fail("--reference-kernel %s: no such file" % k)
            return k.resolve()
        k = self.dir / "reference" / "kernel.elf"
        if k.is_file():
            return k
        if (ROOT / ".lab").exists():
            raise Fail("labs/%s/reference/kernel.elf is missing: it came with the handout (git checkout it)"
                       % self.name)
        return None

    # -- running --

    def _parse(self, argv):
        ap = argparse.ArgumentParser(prog="labs/%s/grade" % self.name,
                                     description="The grader of lab %s: its README.md in labs/%s says what it checks."
                                     % (self.name, self.name))
        ap.add_argument("tests", nargs="*", metavar="TEST", help="test ids or words of titles (default: all)")
        ap.add_argument("--quick", action="store_true", help="performance tests: one trial, band not graded")
        ap.add_argument("--results", metavar="FILE", help="write Gradescope's results.json there")
        ap.add_argument("--questions", metavar="FILE", help="the course's answers.txt, whose questions the "
                        "student's answers are matched to (default: labs/NAME/answers.txt)")
        ap.add_argument("--reference-kernel", metavar="FILE", help="the reference design's kernel")
        ap.add_argument("--watchdog", type=float, default=WATCHDOG, metavar="SECS",
                        help="seconds without progress that fail a test (default %g)" % WATCHDOG)
        ap.add_argument("--list", action="store_true", help="list the tests and their points")
        ap.add_argument("--describe", action="store_true", help="the tests as JSON (for tools/lab)")
        ap.add_argument("-v", "--verbose", action="store_true", help="the guests' consoles on stderr")
        opts = ap.parse_args(argv)
        if opts.watchdog <= 0:
            ap.error("--watchdog must be positive")
        return ap, opts

    def _select(self, ap, words):
        if not words:
            return list(self.tests)
        chosen = []
        for w in words:
            hits = ([t for t in self.tests if t.id == w.lower()] or
                    [t for t in self.tests if w.lower() in t.title.lower()])
            if not hits:
                ap.error("no test '%s' (ids: %s)" % (w, ", ".join(t.id for t in self.tests)))
            chosen += [t for t in hits if t not in chosen]
        return [t for t in self.tests if t in chosen]

    def run(self, argv=None):
        ap, self.opts = self._parse(sys.argv[1:] if argv is None else argv)
        if self.opts.describe:
            print(json.dumps({"lab": self.name, "reference_kernel": self.needs_reference, "requires": self.requires,
                              "max_score": sum(t.points for t in self.tests),
                              "tests": [{"id": t.id, "title": t.title, "points": t.points, "perf": t.perf,
                                         "fast": t.fast, "staff_points": t.staff_points}
                                        for t in self.tests]}, indent=1))
            sys.exit(0)
        if self.opts.list:
            for t in self.tests:
                print("%-14s %3g  %s%s" % (t.id, t.points or t.staff_points, t.title,
                                           "  (performance)" if t.perf else ""))
            sys.exit(0)
        chosen = self._select(ap, self.opts.tests)
        wdrun.install_signal_handlers()
        started = time.monotonic()
        build_error = self._build() if any(t.build for t in chosen) else None
        results = [self._run_one(t, build_error) for t in chosen]
        score, total = sum(r["score"] for r in results), sum(r["max_score"] for r in results)
        summary = "Score: %s/%s" % (_num(score), _num(total))
        print(summary)
        written = [r for r in results if r["staff_points"]]
        for r in written:
            print("Written answers: %d of %d questions answered (%s points, graded by the course staff)"
                  % (r["extra_data"]["answered"][0], r["extra_data"]["answered"][1], _num(r["staff_points"])))
        if self.opts.results:
            output = summary + ("\n\nThe build failed; its errors:\n" + self.build_output if self.build_output else "")
            write_results(self.opts.results, results, score, time.monotonic() - started, output)
        answered = all(r["status"] == "passed" for r in written)
        sys.exit(0 if score == total and answered else 1)

    def _build(self):
        """make all (the student's build: warnings are not errors unless WERROR=1); an error
        text, with the first BUILD_LINES lines of the compiler's errors."""
        if os.environ.get("WDRAIN_NO_BUILD") == "1":
            return None
        r = subprocess.run(["make", "-s", "all"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, stdin=subprocess.DEVNULL)
        if r.returncode == 0:
            return None
        self.build_output = build_errors(r.stdout)
        print("make all failed:\n" + _indent(self.build_output))
        return "the build failed (make all); its errors:\n" + _indent(self.build_output)

    def _run_one(self, test, build_error):
        t = Run(self, test)
        start = time.monotonic()
        ok = False
        try:
            if test.build and build_error:
                raise Fail(build_error)
            test.fn(t)
            ok = True
        except Fail as e:
            t.lines.append((True, str(e)))
        except KeyboardInterrupt:
            raise
        except Exception as e:      # a bug in the grader: a FAIL that says so, not a traceback
            t.lines.append((True, "the grader itself failed: %s: %s" % (type(e).__name__, e)))
        finally:
            t.discard_disks()
        secs = time.monotonic() - start
        t.extra["seconds"] = round(secs, 1)
        if ok and t.not_graded:
            t.lines.append((True, "quick mode: not graded, so this test scores 0 of its %g points (grade it "
                                  "without --quick)" % test.points))
        verdict = "NOT GRADED" if ok and t.not_graded else "OK" if ok else "FAIL"
        print("== %s == %s (%.1f s)" % (test.title, verdict, secs))
        shown = [text for always, text in t.lines if always or not ok]
        if shown:
            print(_indent("\n".join(shown)))
        sys.stdout.flush()
        fraction = t.fraction if t.fraction is not None else 1.0
        score = 0 if t.not_graded else round(test.points * fraction, 2) if ok or t.fraction is not None else 0
        status = "passed" if ok and not t.not_graded and score == test.points else "failed"
        return {"name": test.title, "id": test.id, "score": score, "max_score": test.points, "status": status,
                "output": "\n".join(shown), "visibility": "visible", "leaderboard": t.board,
                "staff_points": test.staff_points, "extra_data": t.extra}


def _num(x):
    return ("%.2f" % x).rstrip("0").rstrip(".")


def write_results(path, results, score, secs, output):
    """Gradescope's results.json (its autograder specification: top-level score, execution_time,
    output, tests[] with extra_data, leaderboard[])."""
    board = [e for r in results for e in r["leaderboard"]]
    tests = [{k: r[k] for k in ("name", "score", "max_score", "status", "output", "visibility", "extra_data")}
             for r in results]
    doc = {"score": score, "execution_time": round(secs), "visibility": "visible", "output": output,
           "tests": tests, "leaderboard": board}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(doc, indent=1) + "\n")


# ---- answers.txt ------------------------------------------------------------------------------

QUESTION_RE = re.compile(r"^Q(\d+)\.\s")
ANSWER_RE = re.compile(r"^A(\d+):")


def parse_answers(text):
    """{question number: answer text} from answers.txt: a question starts with `Qn. `, its
    answer with `An:` and runs to the next question; lines starting with # are comments. A
    missing `An:` gives None."""
    answers, cur, body = {}, None, None
    for line in text.split("\n"):
        if line.startswith("#"):
            continue
        q = QUESTION_RE.match(line)
        if q:
            cur, body = int(q.group(1)), None
            answers[cur] = None
            continue
        a = ANSWER_RE.match(line)
        if a and cur is not None and int(a.group(1)) == cur:
            body = [line[a.end():]]
            answers[cur] = ""
        elif body is not None:
            body.append(line)
        if body is not None:
            answers[cur] = "\n".join(body).strip()
    return answers


def check_answers(t, questions, path, points):
    """Every question of the course's answers.txt (`questions`) has a non-empty answer in the
    student's (`path`), matched by number; each one that has not is named."""
    if not questions.is_file():
        raise Fail("%s is missing: the course's questions are not there" % questions)
    asked = sorted(parse_answers(questions.read_text()))
    if not asked:
        raise Fail("%s has no questions (lines starting with Q1. Q2. ...)" % questions)
    given = parse_answers(path.read_text()) if path.is_file() else {}
    missing = []
    for n in asked:
        text = given.get(n)
        if text is None:
            missing.append("Q%d: no answer (no line starting with A%d: after Q%d.)" % (n, n, n))
        elif not text.replace(PLACEHOLDER, "").strip():
            missing.append("Q%d: the answer is empty" % n)
    t.extra["answered"] = [len(asked) - len(missing), len(asked)]
    t.show("%d of %d questions answered; the course staff read and grade them (%g points, not part of this "
           "score)" % (len(asked) - len(missing), len(asked), points))
    if not path.is_file():
        raise Fail("%s is missing: no question is answered" % path.relative_to(ROOT))
    if missing:
        raise Fail("\n".join(missing))


def disk_model_stats(g):
    """The host's view of a guest's data disks: the disk model's statistics of each (a dict per
    data disk, tools/diskmodel: requests, write_bytes, max_qdepth, flushes ...), from the stats
    files its servers write. They are counted outside the guest, so no lab's files can move
    them; read them after the guest's `with` block for the final values (the servers write them
    as they exit). A guest booted without disk_model= has none: FAIL then."""
    stats = g.g.disk_stats()
    if not stats or not all(stats):
        raise Fail("the guest's data disks have no disk-model statistics (boot it with disk_model=)")
    return stats


def disk_model_writes(g, j=0):
    """Host: (bytes, seconds) of the writes the disk model served for the guest's data disk j,
    from its trace (boot the guest with disk_model="PRESET,trace=on"): every write's bytes, and
    the host time from the first write's arrival to the last one's completion. A rate measured
    by the host's clock, which nothing in the guest can move; read it after the `with` block."""
    path = Path(g.g.disk_dir) / ("d%d.trace.csv" % j)
    if not path.is_file():
        raise Fail("no disk-model trace for data disk %d (boot the guest with disk_model=\"PRESET,trace=on\")" % j)
    with open(path, newline="") as f:
        writes = [r for r in csv.DictReader(f) if r["op"] == "W"]
    if not writes:
        raise Fail("the disk model served no write on data disk %d" % j)
    start = min(float(r["time_s"]) for r in writes)
    end = max(float(r["time_s"]) + float(r["latency_ms"]) / 1e3 for r in writes)
    return sum(int(r["length"]) for r in writes), end - start
