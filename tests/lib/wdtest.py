"""wdtest: the harness for guest integration tests (tests/guest/test_*.py).

    from wdtest import Guest, TestSet
    T = TestSet("programs")
    with Guest(mem=128, smp=1, design=None) as g:   # boots wdrain, waits for the shell
        out, st = g.sh("echo hi")                   # one shell command line -> (output, $?)
        T.check("echo prints its argument", out == "hi\\n", expected="hi\\\\n", got=out)
    T.done()                                        # summary; exit status 1 on any failure

Guest(mem=128, smp=1, design=None, args='', timeout=60, iso=False, verbose=False,
      disks=0, bus='scsi', disk_size='2g', prealloc='off', root=None, keep=False,
      disk_dir=None, throttle=0, disk_model=None, inject=(), inject_read=(), qemu_args=(),
      serial2=None, root_image=None, kernel=None)
    g.wait(secs) reads the console while a background job runs; g.crash() is power loss
    (SIGKILL to QEMU) for crash tests. root_image is tools/run's --root-image, kernel its
    --kernel (another kernel ELF: a lab's reference kernel).
    A context manager around tools/wdrun.VM, i.e. exactly what tools/run does;
    the disk keywords are tools/run's options (README.md, docs/testing.md):
    inject=['1:20480', 'da2:100:once'] is --inject-write-error, inject_read the
    read form. design=None boots the default preset (patched). g.sh(cmdline,
    timeout=60) returns (output, status); g.sysctl_ints(names) the integer sysctls as a
    dict (None if any is missing); g.keys(data, prompt=True, seconds=1)
    types raw keys (arrows, ^C) at the shell's line editor and returns what the
    guest printed, waiting for the prompt or, without it, for `seconds`;
    g.console is everything the guest printed. WDTEST_VERBOSE=1 in the environment copies the console to stderr.
    Disks: g.disk_images[j] is data disk j's image (a Path), g.disk_names[j]
    its guest name (da1...), g.root_image the root disk's image (None for md0),
    g.disk_dir the folder, g.disk_stats() the disk model's statistics per data
    disk (dicts). These stay valid after the guest is gone: leaving the `with`
    block (or g.close()) powers the guest off cleanly (it syncs) and waits for
    QEMU and the disk-model servers to exit, so the images can be read. Scratch
    images (no disk_dir, no keep) are deleted when the test process exits.
    If the guest panics, times out or dies (wdrun.GuestError) while a TestSet
    exists, the error is reported as a FAIL line naming the guest and the
    command, the console tail is printed, the rest of that `with` block is
    skipped and the script goes on after it. Without a TestSet the exception
    propagates. A boot failure surfaces at the first g.sh() for the same reason
    (Python cannot skip a `with` body from __enter__).

pattern(seed, offset, length)
    the bytes `pattern write DEV SIZE SEED` (user/bin/pattern.c) puts at [offset, offset+length)
    of a raw device or file, from tools/destripe's independent implementation: a host check of
    a disk image or a file read back.

sampled(text, name)
    the values of counter `name` in sampler(1)'s CSV lines (the header line names the columns),
    in order; [] if the text has no such column.

TestSet(name)
    check(name, cond, expected=None, got=None)  prints `PASS name` or
        `FAIL name: expected X, got Y` (values on one line, truncated).
    skip(name, needs, why=None)                 prints `SKIP name: needs X (why)`: X is an
        absolute path or a command the host lacks. tests/run checks that X really is missing
        and counts any other skip as a FAIL: what the system under test lacks is a failure.
    done()  prints `<set>: N passed, N failed` and exits 1 if anything failed
            or nothing was checked at all.
tests/run counts the PASS and FAIL lines on stdout.
"""

import importlib.machinery
import importlib.util
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import wdrun  # noqa: E402
from wdrun import GuestError, GuestPanic, GuestTimeout, GuestExited  # noqa: E402,F401

MAX_SHOWN = 200              # characters of an expected/got value shown in a FAIL line

_active = None               # the TestSet that reports guest errors (one per test script)
_destripe = None             # tools/destripe as a module, loaded by pattern()
_pattern_tables = {}         # seed -> its 61 rows


def show(v):
    """A value on one line: control characters escaped, long values cut."""
    s = v if isinstance(v, str) else repr(v) if isinstance(v, bytes) else str(v)
    s = "".join(c if c >= " " and c != "\x7f" else
                {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(c, "\\x%02x" % ord(c)) for c in s)
    if len(s) > MAX_SHOWN:
        s = s[:MAX_SHOWN] + "...(%d more)" % (len(s) - MAX_SHOWN)
    return s


def pattern(seed, offset, length):
    """pattern(1)'s bytes at [offset, offset+length) (multiples of 512) for SEED."""
    global _destripe
    if _destripe is None:
        path = os.path.join(str(wdrun.ROOT), "tools", "destripe")
        loader = importlib.machinery.SourceFileLoader("destripe", path)
        _destripe = importlib.util.module_from_spec(importlib.util.spec_from_loader("destripe", loader))
        loader.exec_module(_destripe)
    if seed not in _pattern_tables:
        _pattern_tables[seed] = _destripe.pattern_table(seed)
    return _destripe.pattern(_pattern_tables[seed], seed, offset, length)


def moved(before, after):
    """{name: after - before} of two sysctl_ints() readings; None if either failed."""
    return {k: after[k] - before[k] for k in before} if before is not None and after is not None else None


def sampled(text, name):
    """Counter `name`'s integer values from sampler's CSV output in `text`."""
    col, values = None, []
    for line in text.splitlines():
        f = line.strip().split(",")
        if col is None and name in f:
            col = f.index(name)
        elif col is not None and len(f) > col and f[col].lstrip("-").isdigit():
            values.append(int(f[col]))
    return values


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

    def skip(self, name, needs, why=None):
        self.skipped += 1
        self._line("SKIP %s: needs %s%s" % (name, needs, " (%s)" % why if why else ""))

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
    def __init__(self, mem=128, smp=1, design=None, args="", timeout=60, iso=False, verbose=None,
                 disks=0, bus="scsi", disk_size="2g", prealloc="off", root=None, keep=False, disk_dir=None,
                 throttle=0, disk_model=None, inject=(), inject_read=(), qemu_args=(), serial2=None,
                 root_image=None, kernel=None):
        if verbose is None:
            verbose = os.environ.get("WDTEST_VERBOSE") == "1"
        self.cfg = wdrun.VMConfig(mem=mem, smp=smp, design=design or wdrun.DEFAULT_DESIGN,
                                  args=args, timeout=timeout, iso=iso, verbose=verbose,
                                  disks=disks, bus=bus, disk_size=disk_size, prealloc=prealloc, root=root,
                                  keep=keep, disk_dir=None if disk_dir is None else str(disk_dir),
                                  throttle=throttle, disk_model=disk_model, inject_write=tuple(inject),
                                  inject_read=tuple(inject_read), qemu_args=tuple(qemu_args),
                                  serial2=None if serial2 is None else str(serial2),
                                  root_image=None if root_image is None else str(root_image),
                                  kernel=None if kernel is None else str(kernel))
        wdrun.check_config(self.cfg)
        self.vm = wdrun.VM(self.cfg)
        self.doing = None            # the command line in progress, for failure reports
        self._boot_error = None
        self._closed = False

    @property
    def disk_images(self):
        return list(self.vm.disks.images)

    @property
    def disk_names(self):
        return list(self.vm.disks.names)

    @property
    def root_image(self):
        return self.vm.disks.root_image

    @property
    def disk_dir(self):
        return self.vm.disks.dir

    def disk_stats(self):
        return self.vm.disks.read_stats()

    def __enter__(self):
        try:
            self.vm.boot()
        except wdrun.WdrunError as e:        # the guest, the build or the host's disks failed
            self.vm.kill()
            if _active is None:
                raise
            self._boot_error = e
        return self

    def wait(self, seconds):
        """Read the console for `seconds` (a background job runs); returns the console so far."""
        return self.vm.wait(seconds)

    def crash(self):
        """Power loss now: SIGKILL to QEMU (wdrun.VM.crash); the images keep what QEMU had
        completed. Leaving the `with` block afterwards does nothing more."""
        self._closed = True
        self.vm.crash()

    def sh(self, cmdline, timeout=60):
        if self._boot_error is not None:
            e, self._boot_error = self._boot_error, None
            raise e
        self.doing = cmdline
        out, status = self.vm.run(cmdline, timeout)
        self.doing = None
        return out, status

    def sysctl_ints(self, names):
        """{name: value} of the integer sysctls `names`, read with one `sysctl -n`; None if the
        command fails or any value is missing or not an integer."""
        out, st = self.sh("sysctl -n " + " ".join(names))
        vals = out.split()
        if st != 0 or len(vals) != len(names) or not all(v.lstrip("-").isdigit() for v in vals):
            return None
        return dict(zip(names, map(int, vals)))

    def keys(self, data, prompt=True, seconds=1.0, timeout=60):
        """Type raw keys at the shell's prompt (wdrun.VM.keys); what the guest printed."""
        self.doing = "typing %r" % data
        out = self.vm.keys(data, prompt, seconds, timeout)
        self.doing = None
        return out

    @property
    def console(self):
        return self.vm.console

    def close(self):
        """Power the guest off (it syncs) and wait for QEMU and the disk servers;
        leaving the `with` block does the same. Safe to call again."""
        if self._closed:
            return
        self._closed = True
        if self._boot_error is None:
            self.doing = "poweroff"
            self.vm.poweroff()
            self.doing = None
        else:
            self.vm.kill()

    def __exit__(self, etype, exc, tb):
        err = None
        try:
            if etype is None:
                self.close()
            else:
                self._closed = True
                self.vm.kill()
        except GuestError as e:
            err = e
        if isinstance(exc, wdrun.WdrunError):
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
