"""wdrun.errors: what can keep the harness from getting an answer.

  WdrunError              the base; .message says why, .console is what the guest
                          printed, .tail() its last lines without terminal escapes.
    ConfigError           a bad option or a missing file on the host.
    BuildError            make (or grub-mkrescue) failed.
    DiskError             the host could not set up the disks (qemu-img, a disk-model server).
    GuestError            the guest did not answer: GuestPanic, GuestTimeout (with the
                          kernel's ^P dump), GuestExited (QEMU's status and stderr).
"""

import re

ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
TAIL_LINES = 40
DUMP_LINES = 80          # at most this many lines of a ^P dump in a timeout's report


class WdrunError(Exception):
    """Base: something kept the harness from getting an answer."""

    def __init__(self, message, console=""):
        super().__init__(message)
        self.message = message
        self.console = console

    def tail(self, n=TAIL_LINES):
        """The last n console lines, without terminal escape sequences (GRUB's menu)."""
        text = ANSI_RE.sub("", self.console).rstrip("\n")
        return text.split("\n")[-n:] if text else []


class ConfigError(WdrunError):
    """A bad option or a missing file on the host."""


class BuildError(WdrunError):
    """make (or grub-mkrescue) failed."""


class GuestError(WdrunError):
    """The guest did not answer: base of the three cases below."""


class GuestPanic(GuestError):
    def __init__(self, panic_line, console):
        super().__init__("guest panicked: " + panic_line, console)
        self.panic_line = panic_line


class GuestTimeout(GuestError):
    """`dump` is what the kernel printed for the ^P sent after the time ran out (VM._status_dump):
    its processes, wait channels, buffers and disk queues; tail() shows it after the console."""

    def __init__(self, seconds, what, console, dump=""):
        super().__init__("timed out after %g s waiting for %s" % (seconds, what), console)
        self.seconds = seconds
        self.what = what
        self.dump = dump

    def tail(self, n=TAIL_LINES):
        lines = super().tail(n)
        dump = [ln for ln in self.dump.split("\n") if ln.startswith("^P")]
        return lines + (["(^P: the kernel's state after the timeout)"] + dump[:DUMP_LINES] if dump else [])


class GuestExited(GuestError):
    def __init__(self, code, what, console, qemu_stderr=""):
        if code == 3:
            why = "the kernel reported failure (isa-debug-exit code 3)"
        elif code == 0:
            why = "QEMU exited (status 0: the guest powered off, rebooted or triple-faulted)"
        else:
            why = "QEMU exited with status %s" % code
        msg = "%s while waiting for %s" % (why, what)
        if qemu_stderr.strip():
            msg += "\nQEMU said: " + qemu_stderr.strip()
        super().__init__(msg, console)
        self.code = code


class DiskError(WdrunError):
    """The host could not set up the disks (qemu-img, a disk-model server)."""
