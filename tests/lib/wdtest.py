"""wdtest: the harness for guest integration tests (tests/guest/test_*.py).

    from wdtest import Guest, TestSet
    T = TestSet("programs")
    with Guest(mem=128, smp=1, design=None) as g:   # boots wdrain, waits for the shell
        out, st = g.sh("echo hi")                   # one shell command line -> (output, $?)
        T.check("echo prints its argument", out == "hi\\n", expected="hi\\\\n", got=out)
    T.done()                                        # summary; exit status 1 on any failure

Guest(mem=128, smp=1, design=None, args='', timeout=60, iso=False, verbose=False)
    A context manager around tools/wdrun.VM, i.e. exactly what tools/run does.
    design=None boots the default preset (patched). g.sh(cmdline, timeout=60)
    returns (output, status); g.console is everything the guest printed.
    WDTEST_VERBOSE=1 in the environment copies the console to stderr.
    If the guest panics, times out or dies (wdrun.GuestError) while a TestSet
    exists, the error is reported as a FAIL line naming the guest and the
    command, the console tail is printed, the rest of that `with` block is
    skipped and the script goes on after it. Without a TestSet the exception
    propagates. A boot failure surfaces at the first g.sh() for the same reason
    (Python cannot skip a `with` body from __enter__).

TestSet(name)
    check(name, cond, expected=None, got=None)  prints `PASS name` or
        `FAIL name: expected X, got Y` (values on one line, truncated).
    skip(name, reason)                          prints `SKIP name: reason`.
    done()  prints `<set>: N passed, N failed` and exits 1 if anything failed
            or nothing was checked at all.
tests/run counts the PASS and FAIL lines on stdout.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import wdrun  # noqa: E402
from wdrun import GuestError, GuestPanic, GuestTimeout, GuestExited  # noqa: E402,F401

MAX_SHOWN = 200              # characters of an expected/got value shown in a FAIL line

_active = None               # the TestSet that reports guest errors (one per test script)


def show(v):
    """A value on one line: control characters escaped, long values cut."""
    s = v if isinstance(v, str) else repr(v) if isinstance(v, bytes) else str(v)
    s = "".join(c if c >= " " and c != "\x7f" else
                {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(c, "\\x%02x" % ord(c)) for c in s)
    if len(s) > MAX_SHOWN:
        s = s[:MAX_SHOWN] + "...(%d more)" % (len(s) - MAX_SHOWN)
    return s


class TestSet:
    def __init__(self, name):
        global _active
        self.name = name
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        _active = self
        wdrun.install_signal_handlers()

    def _line(self, text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def check(self, name, cond, expected=None, got=None):
        if cond:
            self.passed += 1
            self._line("PASS " + name)
        else:
            self.failed += 1
            if expected is None and got is None:
                self._line("FAIL " + name)
            else:
                self._line("FAIL %s: expected %s, got %s" % (name, show(expected), show(got)))
        return bool(cond)

    def skip(self, name, reason):
        self.skipped += 1
        self._line("SKIP %s: %s" % (name, reason))

    def guest_failed(self, guest, err):
        """A GuestError ended a Guest block: one FAIL, then the console tail."""
        self.failed += 1
        doing = "running '%s'" % guest.doing if guest.doing else "booting"
        self._line("FAIL guest [%s] %s: %s" % (guest.cfg.describe(), doing, show(err.message)))
        tail = err.tail()
        if tail:
            self._line("    last %d lines of the console:" % len(tail))
            for ln in tail:
                self._line("    | " + ln)
        self._line("    (the rest of this guest's checks did not run)")

    def done(self):
        global _active
        _active = None
        summary = "%s: %d passed, %d failed" % (self.name, self.passed, self.failed)
        if self.skipped:
            summary += ", %d skipped" % self.skipped
        self._line(summary)
        if self.passed == 0 and self.failed == 0 and self.skipped == 0:
            self._line("%s: no checks ran" % self.name)
            sys.exit(1)
        sys.exit(1 if self.failed else 0)


class Guest:
    def __init__(self, mem=128, smp=1, design=None, args="", timeout=60, iso=False, verbose=None):
        if verbose is None:
            verbose = os.environ.get("WDTEST_VERBOSE") == "1"
        self.cfg = wdrun.VMConfig(mem=mem, smp=smp, design=design or wdrun.DEFAULT_DESIGN,
                                  args=args, timeout=timeout, iso=iso, verbose=verbose)
        wdrun.check_config(self.cfg)
        self.vm = None
        self.doing = None            # the command line in progress, for failure reports
        self._boot_error = None

    def __enter__(self):
        self.vm = wdrun.VM(self.cfg)
        try:
            self.vm.boot()
        except (GuestError, wdrun.BuildError) as e:
            self.vm.kill()
            if _active is None:
                raise
            self._boot_error = e
        return self

    def sh(self, cmdline, timeout=60):
        if self._boot_error is not None:
            e, self._boot_error = self._boot_error, None
            raise e
        self.doing = cmdline
        out, status = self.vm.run(cmdline, timeout)
        self.doing = None
        return out, status

    @property
    def console(self):
        return self.vm.console if self.vm is not None else ""

    def __exit__(self, etype, exc, tb):
        err = None
        try:
            if etype is None and self._boot_error is None:
                self.doing = "poweroff"
                self.vm.poweroff()
            else:
                self.vm.kill()
        except GuestError as e:
            err = e
        if isinstance(exc, (GuestError, wdrun.BuildError)):
            err = exc
        elif etype is not None:
            return False             # not the guest's failure: let it propagate
        err = err or self._boot_error
        if err is None:
            return False
        if _active is None:
            if etype is None:
                raise err
            return False
        _active.guest_failed(self, err)
        return True
