"""wdrun.vm: one guest (VM) and the protocol with its shell, described in the
package's manual (wdrun/__init__.py): boot to the prompt, run a command line and
read its output and status, power off, kill, crash, and typed input for make qemu.
"""

import codecs
import ctypes
import os
import queue
import re
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import time

from .build import ensure_built
from .config import EXIT_GUEST_FAILED, ROOT
from .disks import DiskSet
from .errors import ConfigError, GuestError, GuestExited, GuestPanic, GuestTimeout, WdrunError

PROMPT = "# "                   # the root shell's prompt (user/bin/sh.c)
PROMPT_QUIET = 0.3              # seconds of silence after "# " before it counts as the prompt
MARKER_CMD = 'echo "@@RC=$?@@"'
MARKER_RE = re.compile(r"@@RC=(\d+)@@\n")
# The shell rejected the line, or gave it up at an error (user/sh/main.c, sh_error): its
# message, then the prompt again, and no marker. $? is then 2.
SHELL_ERROR_RE = re.compile(r"(?:^|> )sh: ", re.M)
REJECTED_STATUS = 2
# The line ended the shell (exit N, exec): init reports it (user/sbin/init.c) and starts another.
SHELL_EXIT_RE = re.compile(r"init: /bin/sh (?:exited with status (\d+)|killed by signal \S+ \((\d+)\))\n")
PS2 = "> "                      # the shell's prompt for the rest of an unfinished command
EOF_KEY = b"\x04"              # ^D at that prompt: the shell reports the unfinished command
# A kernel panic message starts a line (possibly right after a prompt).
PANIC_RE = re.compile(r"(?:^|\n|# )(panic: [^\n]*)")
PANIC_GRACE = 3.0               # seconds to keep reading after a panic (trap frame, backtrace)

INPUT_CHUNK = 16                # bytes written to the serial port at a time...
INPUT_PAUSE = 0.01              # ...and the pause between chunks
MAX_LINE = 4095                 # the console's line limit: INBUF (4096) less the newline (console.c)

INPUT_IDLE = 2.0                # piped input: seconds of guest silence after which the next line is typed ahead

POWEROFF_CMD = "poweroff"
POWEROFF_TIMEOUT = 10.0         # seconds for QEMU to exit after poweroff before it is killed
DUMP_WAIT = 3.0                 # seconds to collect the ^P dump after a timeout


def _qemu_argv(*args):
    """The package's qemu_argv, looked up at each call: tests wrap wdrun.qemu_argv to
    add devices of their own (tests/guest/test_ahci.py, test_ccd.py, test_virtio_scsi.py)."""
    return sys.modules[__package__].qemu_argv(*args)


def _die_with_parent():
    """preexec_fn: QEMU gets SIGKILL if we die without cleaning up (Linux prctl)."""
    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def compose(cmdline):
    """The line sent to the shell: the user's line and the status marker."""
    c = cmdline.strip()
    if not c:
        raise ConfigError("empty command line")
    if "\n" in c or "\r" in c:
        raise ConfigError("the command must be one line (join commands with ';')")
    if c.endswith("&") and not c.endswith("&&") or c.endswith(";"):
        line = c + " " + MARKER_CMD
    else:
        line = c + "; " + MARKER_CMD
    if len(line.encode()) >= MAX_LINE:
        raise ConfigError("command line too long (%d bytes; the tty takes %d)" % (len(line.encode()), MAX_LINE - 1))
    return line


class VM:
    """One QEMU running wdrain; see the module comment for the protocol."""

    def __init__(self, cfg, echo=None):
        """echo: a binary stream that gets a copy of the console as it arrives (default:
        stderr with cfg.verbose, else none)."""
        self.cfg = cfg
        self.disks = DiskSet(cfg)
        self.proc = None
        self.echo = echo if echo is not None else (sys.stderr.buffer if cfg.verbose else None)
        self.boot_seconds = None      # from QEMU's start to the first prompt's arrival
        self._text = ""               # console so far, "\r\n" -> "\n"
        self._cr = False              # last byte read was "\r"
        self._dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pos = 0                 # where the next command's echo starts
        self._panic_scan = 0
        self._last_data = time.monotonic()
        self._eof = False
        self._stderr = None
        self._usable = False          # at a prompt, ready for run()
        self.last_end = None          # how the last run() ended: "marker", "rejected" or "exit"
        self._eof_sent = False        # run() sent ^D to an unfinished line
        self._failed = False          # a GuestError was raised: only kill() is left
        self._what = "output"         # what we are waiting for, for error messages

    # -- lifecycle --

    @property
    def console(self):
        return self._text

    def start(self, iso=None):
        self._stderr = tempfile.TemporaryFile()
        # Without disks, qemu_argv is called as qemu_argv(cfg, iso), the form that tests
        # wrapping it to add devices of their own rely on.
        argv = _qemu_argv(self.cfg, iso, self.disks) if self.disks.active else _qemu_argv(self.cfg, iso)
        if self.cfg.verbose:
            for ln in self.disks.describe():
                sys.stderr.write("tools/run: " + ln + "\n")
            sys.stderr.write("tools/run: " + " ".join(shlex.quote(a) for a in argv) + "\n")
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, start_new_session=True,
                                         preexec_fn=_die_with_parent, cwd=ROOT)
        except OSError as e:
            raise WdrunError("cannot start %s: %s" % (argv[0], e.strerror))
        os.set_blocking(self.proc.stdout.fileno(), False)

    def boot(self):
        """Build, start QEMU and wait for the first prompt."""
        iso = ensure_built(self.cfg)
        self.disks.prepare()
        self.start(iso)
        started = time.monotonic()
        self._wait_prompt(0, self.cfg.timeout, "the shell prompt after boot")
        self.boot_seconds = self._last_data - started
        self._usable = True

    def kill(self):
        """Stop QEMU, then the disk-model servers."""
        try:
            self._kill_qemu()
        finally:
            self.disks.stop()

    def _kill_qemu(self):
        p = self.proc
        if p is None:
            return
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=2)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except OSError:
                pass
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self.proc = None

    def poweroff(self, timeout=POWEROFF_TIMEOUT):
        """Ask the guest to power off and wait for QEMU to exit; kill it after
        `timeout`. A panic on the way down is still reported. After a
        GuestError the guest is only killed (that error was already raised)."""
        try:
            if self._failed:
                return
            if self.proc is not None and self.proc.poll() is None and not self._eof:
                self._usable = False
                self._send(POWEROFF_CMD + "\n", expect_exit=True)
                deadline = time.monotonic() + timeout
                while not self._eof and time.monotonic() < deadline:
                    self._pump(min(0.1, deadline - time.monotonic()), expect_exit=True)
            self._check_panic()
        finally:
            self.kill()

    def wait(self, seconds):
        """Read the console for `seconds` while the guest runs on its own."""
        deadline = time.monotonic() + seconds
        self._what = "the guest's output"
        while time.monotonic() < deadline:
            self._pump(min(0.05, max(0.0, deadline - time.monotonic())))
        return self._text

    def crash(self):
        """SIGKILL QEMU (no flush, no drain), then collect what it had already printed."""
        self._usable = False
        self._failed = True                  # no poweroff, no more commands
        p = self.proc
        if p is not None and p.poll() is None:
            p.kill()
        while p is not None and not self._eof:
            self._pump(0.2, expect_exit=True)
        self.kill()

    # -- commands --

    def run(self, cmdline, timeout=None, on_output=None):
        """Run one shell command line. Returns (output, status). on_output(text)
        is called with complete output lines as they arrive (tools/run streams).
        The line ends in one of three ways (self.last_end): the status marker
        ("marker"); a message from the shell and its prompt again ("rejected",
        status 2: a syntax error, or an error such as $((1/0)) that made the
        shell give the line up; a line left unfinished at the "> " prompt gets ^D
        first, so the shell says what is missing); init's report that the shell
        exited ("exit", its status; the VM is usable again at the new shell's
        prompt)."""
        if not self._usable or self._failed:
            raise GuestError("the guest is not at a prompt (it was not booted, or an earlier command failed)",
                             self._text)
        timeout = self.cfg.timeout if timeout is None else timeout
        line = compose(cmdline)
        self._usable = False
        start = self._pos
        self._send(line + "\n")
        deadline = time.monotonic() + timeout
        what = "the output of '%s'" % _short(cmdline)
        nl = self._wait_for(lambda: self._text.find("\n", start), deadline, timeout, "the echo of the command line")
        echoed = self._text[start:nl]
        if echoed != line:
            sys.stderr.write("tools/run: warning: the guest echoed %r, not the line sent (serial input lost?)\n"
                             % _short(echoed, 120))
        out_start = nl + 1
        emitted = [out_start]
        self._eof_sent = False

        def ending():
            end = self._ending(out_start)
            if on_output is not None:
                upto = end[1] if end else self._text.rfind("\n", emitted[0]) + 1
                if upto > emitted[0]:
                    on_output(self._text[emitted[0]:upto])
                    emitted[0] = upto
            return end

        self.last_end, out_end, after, status = self._wait_for(ending, deadline, timeout, what)
        output = self._text[out_start:out_end]
        if self.last_end == "rejected":
            self._pos = len(self._text)
        else:
            self._wait_prompt(after, timeout, "the shell prompt after '%s'" % _short(cmdline))
        self._usable = True
        return output, status

    def keys(self, data, prompt=True, seconds=1.0, timeout=None):
        """Type `data` at the console as it is, control keys and all (the shell's line
        editor: "\\x1b[A" is the up arrow, "\\x03" ^C). With prompt, wait until the
        shell is at its "# " prompt again; else read for `seconds` (a job still runs).
        Returns what the guest printed meanwhile (its echo included)."""
        if self._failed:
            raise GuestError("the guest failed earlier", self._text)
        timeout = self.cfg.timeout if timeout is None else timeout
        start = len(self._text)
        self._usable = False
        self._send(data)
        if prompt:
            self._wait_prompt(start, timeout, "the shell prompt after typing %r" % _short(data))
            self._usable = True
        else:
            self.wait(seconds)
        return self._text[start:]

    def _ending(self, since):
        """How the command line that printed from `since` on has ended, if it has:
        (kind, end of its output, end of the ending, status), else None."""
        m = MARKER_RE.search(self._text, since)
        if m:
            return "marker", m.start(), m.end(), int(m.group(1))
        x = SHELL_EXIT_RE.search(self._text, since)
        if x:
            status = int(x.group(1)) if x.group(1) is not None else 128 + int(x.group(2))
            return "exit", x.start(), x.end(), status
        if self._at_prompt(since) and SHELL_ERROR_RE.search(self._text, since):
            end = len(self._text) - len(PROMPT)
            return "rejected", end, end, REJECTED_STATUS
        if self._text[since:] == PS2 and self._quiet() >= PROMPT_QUIET and not self._eof_sent:
            self._eof_sent = True
            self._send(EOF_KEY)
        return None

    # -- console plumbing --

    def _send(self, text, expect_exit=False):
        data = text.encode() if isinstance(text, str) else text
        for i in range(0, len(data), INPUT_CHUNK):
            try:
                self.proc.stdin.write(data[i:i + INPUT_CHUNK])
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                self._pump(0.5, expect_exit=True)
                self._raise_exited("the guest to read its input")
            self._pump(INPUT_PAUSE, expect_exit)

    def _pump(self, seconds, expect_exit=False):
        """Read what the guest printed within `seconds`. Raises GuestExited if
        QEMU went away (unless expect_exit) and GuestPanic on a panic line."""
        if self._eof:
            if not expect_exit:
                self._raise_exited(self._what)
            return
        fd = self.proc.stdout.fileno()
        r, _, _ = select.select([fd], [], [], max(0.0, seconds))
        if r:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                data = None
            if data == b"":
                self._eof = True
                if not expect_exit:
                    self._raise_exited(self._what)
                return
            if data:
                self._add(data)
        if not expect_exit:
            self._check_panic()

    def _add(self, data):
        if self.echo is not None:
            self.echo.write(data)
            self.echo.flush()
        s = self._dec.decode(data)
        if self._cr:
            s = "\r" + s
        self._cr = s.endswith("\r")
        if self._cr:
            s = s[:-1]
        self._text += s.replace("\r\n", "\n")
        self._last_data = time.monotonic()

    def _check_panic(self):
        # Rescan from the start of the last (possibly partial) line seen.
        m = PANIC_RE.search(self._text, max(0, self._text.rfind("\n", 0, self._panic_scan)))
        self._panic_scan = len(self._text)
        if m is None:
            return
        deadline = time.monotonic() + PANIC_GRACE
        while not self._eof and time.monotonic() < deadline:
            self._pump(0.1, expect_exit=True)
        self._failed = True
        m = PANIC_RE.search(self._text, m.start())      # the whole line has arrived by now
        raise GuestPanic(m.group(1).strip(), self._text)

    def _raise_exited(self, what):
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self._check_panic()
        self._failed = True
        err = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            err = self._stderr.read().decode(errors="replace")
        raise GuestExited(code, what, self._text, err)

    def _wait_for(self, probe, deadline, timeout, what):
        """Pump until probe() returns a value that is not None/-1."""
        self._what = what
        while True:
            v = probe()
            if v is not None and v != -1:
                return v
            left = deadline - time.monotonic()
            if left <= 0:
                self._failed = True
                raise GuestTimeout(timeout, what, *self._status_dump())
            self._pump(min(left, 0.1))

    def _status_dump(self):
        """The console so far and, after it, the kernel's answer to ^P (console.c): for a
        timeout's report, since a hung guest cannot run ps. QEMU gone or a panic: no dump."""
        before = self._text
        try:
            self.proc.stdin.write(b"\x10")
            self.proc.stdin.flush()
            deadline = time.monotonic() + DUMP_WAIT
            while not self._eof and time.monotonic() < deadline:
                self._pump(0.1, expect_exit=True)
        except (OSError, GuestError):
            pass
        return before, self._text[len(before):]

    def _wait_prompt(self, since, timeout, what):
        """The prompt is "# " at the very end of the console, followed by
        PROMPT_QUIET seconds of silence."""
        self._what = what
        deadline = time.monotonic() + timeout
        while True:
            if self._at_prompt(since):
                self._pos = len(self._text)
                return
            left = deadline - time.monotonic()
            if left <= 0:
                self._failed = True
                raise GuestTimeout(timeout, what, *self._status_dump())
            self._pump(min(left, 0.05))

    def _at_prompt(self, since):
        return (len(self._text) > since and self._text.endswith(PROMPT)
                and self._quiet() >= PROMPT_QUIET)

    def _quiet(self):
        """Seconds since the guest last printed anything."""
        return time.monotonic() - self._last_data

    # -- typed input (run_interactive with piped input) --

    def type_lines(self, lines):
        """Type the lines from the queue `lines` (bytes each, None after the last) into the
        booted guest as a person would: each one when the guest is at a new prompt, or has
        printed nothing for INPUT_IDLE seconds (a program reading its input, a long
        command: the tty holds the line until it is read). Then finish_input()."""
        self._usable = False
        since = self._pos - len(PROMPT)        # the boot prompt is the first line's
        while True:
            self._what = "the guest to be ready for more input"
            while not (self._at_prompt(since) or self._quiet() >= INPUT_IDLE):
                self._pump(0.05)
            line = self._next_line(lines)
            if line is None:
                return self.finish_input(since)
            since = len(self._text)
            self._send(line)

    def _next_line(self, lines):
        while True:
            try:
                return lines.get_nowait()
            except queue.Empty:
                self._pump(0.05)

    def finish_input(self, since):
        """The input has ended: wait for the last command to return to the prompt, then
        power off (if the input powered the guest off itself, _pump raises GuestExited).
        Returns 0, or EXIT_GUEST_FAILED if the guest printed nothing for cfg.timeout
        seconds without coming back to the prompt (QEMU is then stopped)."""
        self._what = "the guest to finish the last command of the input"
        while True:
            if self._at_prompt(since):
                sys.stderr.write("tools/run: end of input: powering the guest off\n")
                self.poweroff()
                return 0
            if self._quiet() >= self.cfg.timeout:
                sys.stderr.write("tools/run: end of input, but the guest has printed nothing for %g s and is not "
                                 "at the shell prompt: stopping QEMU\n" % self.cfg.timeout)
                self.kill()
                return EXIT_GUEST_FAILED
            self._pump(0.05)


def _short(s, n=60):
    s = s.replace("\n", "\\n")
    return s if len(s) <= n else s[:n - 3] + "..."
