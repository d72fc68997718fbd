"""wdrun.cli: tools/run itself (main), its interactive boot for make qemu
(run_interactive, run_piped), and what every tool that boots wdrain shares:
install_signal_handlers() and report() of a WdrunError with the console's tail.
"""

import argparse
import os
import queue
import select
import shlex
import signal
import subprocess
import sys
import threading
import time

from .build import ensure_built
from .config import EXIT_GUEST_FAILED, EXIT_USAGE, ROOT, add_arguments, config_from_args
from .disks import DiskSet
from .errors import ConfigError, GuestError, GuestExited, WdrunError
from .qemu import have_display, qemu_argv
from .vm import PROMPT, PROMPT_QUIET, VM, _die_with_parent, compose


def install_signal_handlers():
    """SIGTERM/SIGHUP become SystemExit so `finally` blocks kill QEMU."""
    def handler(signum, frame):
        raise SystemExit(128 + signum)
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, handler)


def report(err, stream=None, prefix="tools/run: "):
    """Print a WdrunError the way tools/run does: message, then the console tail."""
    stream = stream or sys.stderr
    stream.write(prefix + err.message + "\n")
    tail = err.tail()
    if tail:
        stream.write("%slast %d lines of the console:\n" % (prefix, len(tail)))
        for ln in tail:
            stream.write("  | %s\n" % ln)
    stream.flush()


def _interactive_child():
    """preexec_fn: SIGINT back to its default (ignored signals survive exec), parent-death signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    _die_with_parent()


BOOT_NOTE = "tools/run: shell prompt %.1f s after QEMU started"


def run_interactive(cfg):
    """Boot cfg for a person, as `make qemu` does; returns the exit status. The
    disks are the same as for a scripted run. On a terminal (or with --gdb), QEMU
    reads it itself (-serial mon:stdio: Ctrl-C goes to the guest, Ctrl-a x
    quits) and its output comes through us, so that the time to the first prompt
    can be noted just before that prompt; the status is QEMU's. Input that is not
    a terminal is typed into the guest once it is at its prompt (run_piped)."""
    if not sys.stdin.isatty() and not cfg.gdb:
        return run_piped(cfg)
    disks = DiskSet(cfg)
    try:
        iso = ensure_built(cfg)
        disks.prepare()
        argv = qemu_argv(cfg, iso, disks)
        if cfg.verbose:
            for ln in disks.describe():
                sys.stderr.write("tools/run: " + ln + "\n")
            sys.stderr.write("tools/run: " + " ".join(shlex.quote(a) for a in argv) + "\n")
        if cfg.vga and not have_display():
            sys.stderr.write("tools/run: --vga: no display (DISPLAY and WAYLAND_DISPLAY are unset), so no window\n")
        if cfg.gdb:
            sys.stderr.write("*** now run 'gdb' in another terminal (the .gdbinit connects to port 1234)\n")
        # While QEMU runs, a Ctrl-C that reaches us (not in raw mode) is QEMU's business.
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            try:
                proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, preexec_fn=_interactive_child)
            except OSError as e:
                raise WdrunError("cannot start %s: %s" % (argv[0], e.strerror))
            try:
                _relay_console(proc.stdout.fileno(), time.monotonic())
                return proc.wait()
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                proc.stdout.close()
        finally:
            signal.signal(signal.SIGINT, old)
    finally:
        disks.stop()


def _relay_console(fd, started):
    """Copy QEMU's output (fd) to our stdout until it ends. A "# " that ends the output
    is held back until PROMPT_QUIET seconds of silence prove it the first prompt; then
    BOOT_NOTE goes to stderr, before it. (QEMU has put the terminal in raw mode: "\r\n".)"""
    out = sys.stdout.buffer
    prompt = PROMPT.encode()
    held = b""                     # a trailing "# " that may be the first prompt
    arrived = 0.0                  # when it arrived
    noted = False
    while True:
        r, _, _ = select.select([fd], [], [], PROMPT_QUIET if held else None)
        if r:
            data = os.read(fd, 65536)
            if not data:
                out.write(held)
                out.flush()
                return
            data, held = held + data, b""
            if not noted and data.endswith(prompt):
                data, held = data[:-len(prompt)], prompt
                arrived = time.monotonic()
        else:
            sys.stderr.write(BOOT_NOTE % (arrived - started) + "\r\n")
            sys.stderr.flush()
            data, held, noted = held, b"", True
        out.write(data)
        out.flush()


def run_piped(cfg):
    """tools/run --interactive with input that is not a terminal (`printf 'ls\\n' | make qemu`):
    the console is copied to stdout, and each input line is typed once the guest is ready
    for it (VM.type_lines): nothing is lost to GRUB's menu or to the boot. At the end of
    the input the guest is powered off, so QEMU exits. Returns 0 when the guest powered
    off, EXIT_GUEST_FAILED if it panicked, failed to boot or hung."""
    lines = queue.Queue()
    threading.Thread(target=_read_lines, args=(sys.stdin.buffer, lines), daemon=True).start()
    vm = VM(cfg, echo=sys.stdout.buffer)
    try:
        vm.boot()
        sys.stderr.write(BOOT_NOTE % vm.boot_seconds + "\n")
        return vm.type_lines(lines)
    except GuestExited as e:
        if e.code == 0:
            return 0
        sys.stderr.write("tools/run: %s\n" % e.message)
        return EXIT_GUEST_FAILED
    except GuestError as e:
        sys.stderr.write("tools/run: %s\n" % e.message)
        return EXIT_GUEST_FAILED
    finally:
        vm.kill()


def _read_lines(stream, lines):
    """Thread: stream's lines into the queue, then None. A last line without its newline gets one."""
    for line in iter(stream.readline, b""):
        lines.put(line if line.endswith(b"\n") else line + b"\n")
    lines.put(None)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tools/run",
        description="Boot wdrain in QEMU, run one shell command line in the guest, print its output, "
                    "power off, and exit with the command's status. With --interactive, boot the same VM "
                    "with its serial console on this terminal instead.",
        epilog="Exit status: the command's status (0-255); %d if the guest panicked, timed out, QEMU died "
               "or the build failed; %d for bad options; 130 on Ctrl-C. --interactive: QEMU's status."
               % (EXIT_GUEST_FAILED, EXIT_USAGE))
    add_arguments(parser)
    i = parser.add_argument_group("interactive (make qemu)")
    i.add_argument("--interactive", action="store_true",
                   help="no command: the serial console and QEMU's monitor on this terminal (Ctrl-a x quits)")
    i.add_argument("--vga", action="store_true", help="with --interactive: a QEMU window with the VGA console")
    i.add_argument("--gdb", action="store_true",
                   help="with --interactive: QEMU starts stopped and waits for gdb on tcp::1234")
    parser.add_argument("command", nargs="*", help="the shell command line (after --)")
    ns = parser.parse_args(argv)
    if ns.interactive and ns.command:
        parser.error("--interactive takes no command")
    if not ns.command and not ns.interactive:
        parser.error("no command given: tools/run [options] -- 'command; another'")
    install_signal_handlers()
    vm = None
    try:
        cfg = config_from_args(ns)
        if cfg.interactive:
            return run_interactive(cfg)
        cmd = " ".join(ns.command)
        compose(cmd)                      # reject a bad command line before booting
        vm = VM(cfg)
        vm.boot()
        if cfg.verbose:                   # after the console copy, which ends with the prompt
            sys.stderr.write("\n" + BOOT_NOTE % vm.boot_seconds + "\n")

        def stream(text):
            sys.stdout.write(text)
            sys.stdout.flush()
        _, status = vm.run(cmd, on_output=stream)
        if vm.last_end == "rejected":
            sys.stderr.write("tools/run: the guest's shell gave up the command line (status 2)\n")
        elif vm.last_end == "exit":
            sys.stderr.write("tools/run: the command line ended the guest's shell (status %d)\n" % status)
        vm.poweroff()
        return status
    except ConfigError as e:
        sys.stderr.write("tools/run: %s\n" % e.message)
        return EXIT_USAGE
    except WdrunError as e:
        sys.stdout.flush()
        report(e)
        return EXIT_GUEST_FAILED
    except KeyboardInterrupt:
        sys.stderr.write("tools/run: interrupted\n")
        return 130
    finally:
        if vm is not None:
            vm.kill()
