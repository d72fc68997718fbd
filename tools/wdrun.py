"""wdrun: boot wdrain in QEMU and drive its serial console (the one implementation).

tools/run (the command line) and tests/lib/wdtest.py (the test harness) both use
this module, so every script, test, lab and experiment talks to the guest the
same way.

Interface:
  VMConfig(mem, smp, design, args, timeout, accel, iso, verbose, disks, bus,
           disk_size, root, keep, disk_dir, throttle, disk_model, inject,
           qemu_args, interactive, vga, gdb)
                          what to boot; add_arguments()/config_from_args() map
                          tools/run's options onto it; check_config() refuses
                          bad combinations with a ConfigError.
  DiskSet(cfg)            the disks of one run (see "Disks" below): images,
                          disk-model servers, their QEMU arguments.
  ensure_built(cfg)       `make -s all` (and `make -s iso`, plus a per-design ISO
                          copy when needed) unless WDRAIN_NO_BUILD=1.
  qemu_argv(cfg, iso, disks)
                          the QEMU command line, built from small pieces.
  VM(cfg)                 one guest:
    vm.boot()             start QEMU, wait for the shell prompt "# ".
    vm.run(cmd, timeout)  run one shell command line; returns (output, status).
    vm.poweroff()         `poweroff` in the guest, wait for QEMU to exit.
    vm.kill()             stop QEMU now (safe to call any time, many times).
    vm.console            everything the guest printed so far ("\r\n" -> "\n").
    vm.disks              its DiskSet (image paths, stats files).
  run_interactive(cfg)    the same VM with the serial console on the terminal
                          (tools/run --interactive, for make qemu).
  GuestError              base of GuestPanic, GuestTimeout, GuestExited: the
                          guest could not give an answer. .message says why,
                          .tail() gives the last console lines.
  BuildError, ConfigError the host side failed before a guest ran.

Protocol with the guest shell: after the prompt, the command line is sent as
one line followed by `; echo "@@RC=$?@@"`, written in small paced chunks
(INPUT_CHUNK bytes, INPUT_PAUSE seconds apart) because the guest's serial
input path is small. The tty echoes the line back; that echo is removed. The
output is what comes between the echo and the `@@RC=N@@` marker; N is the
status. Then the harness waits for the next prompt. A line that starts with
"panic:" anywhere in the console means the kernel panicked.

Every wait has a deadline; QEMU is started in its own session with a parent-
death signal and killed on every exit path of the caller.

Disks (DiskSet). With --disks N the guest gets N empty data disks on one
controller: --bus scsi is one virtio-scsi-pci HBA (legacy interface,
disable-modern=on) with a scsi-hd per target, the guest's da<unit>; --bus
ahci is one ich9-ahci with an ide-hd per port, the guest's ada<unit>. With
--root disk (the default whenever N > 0) unit 0 is a copy of build/root.img
and the kernel gets root=da0 / root=ada0; the data disks are units 1..N.
With --root md the root stays the multiboot module md0 and the data disks
are units 0..N-1. Data disk j (0-based) is the raw sparse image d<j>.img, the
root copy is root.img, in one folder:
  --disk-dir DIR          DIR
  --keep (no --disk-dir)  build/run/disks/<bus>/keep
  neither                 build/run/disks/<bus>/p<pid>-<n>, new for every VM;
                          its images are deleted when this process exits
                          (stats and logs stay), and the images of such
                          folders left by dead processes are deleted too.
Images are created fresh (qemu-img create -f raw) unless --keep, which reuses
those that exist (the root copy is refreshed if build/root.img is newer).
Each data disk's block graph, bottom up: file (or nbd to a disk-model server),
blkdebug if an error is injected on it, raw, throttle filter if --throttle;
every device has werror=report,rerror=report. The disk-model servers
(tools/diskmodel/serve, docs/diskmodel.md) are started before QEMU and get
SIGTERM after it exits; their stats (d<j>.stats) and stderr (d<j>.log) stay
in the folder.
"""

import argparse
import atexit
import codecs
import ctypes
import dataclasses
import hashlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"

DEFAULT_DESIGN = "patched"      # GRUB's default menu entry and the kernel's default preset
DESIGNS = ("patched", "stable42")

PROMPT = "# "                   # the root shell prompt (team brief)
PROMPT_QUIET = 0.3              # seconds of silence after "# " before it counts as the prompt
MARKER_CMD = 'echo "@@RC=$?@@"'
MARKER_RE = re.compile(r"@@RC=(\d+)@@\n")
# A kernel panic message starts a line (possibly right after a prompt).
PANIC_RE = re.compile(r"(?:^|\n|# )(panic: [^\n]*)")
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PANIC_GRACE = 3.0               # seconds to keep reading after a panic (trap frame, backtrace)

INPUT_CHUNK = 16                # bytes written to the serial port at a time...
INPUT_PAUSE = 0.01              # ...and the pause between chunks
MAX_LINE = 4095                 # the tty's canonical line limit (team brief)

POWEROFF_CMD = "poweroff"
POWEROFF_TIMEOUT = 10.0         # seconds for QEMU to exit after poweroff before it is killed
TAIL_LINES = 40

EXIT_GUEST_FAILED = 125         # tools/run: panic, timeout, QEMU died, build failed
EXIT_USAGE = 2


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
    def __init__(self, seconds, what, console):
        super().__init__("timed out after %g s waiting for %s" % (seconds, what), console)
        self.seconds = seconds
        self.what = what


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


@dataclass
class VMConfig:
    """What to boot. New options (disks, buses...) become fields here plus a
    piece in qemu_argv()."""
    mem: int = 128
    smp: int = 1
    design: str = DEFAULT_DESIGN
    args: str = ""
    timeout: float = 60.0
    accel: str = "tcg"
    iso: bool = False
    verbose: bool = False

    def describe(self):
        s = "smp=%d mem=%d design=%s" % (self.smp, self.mem, self.design)
        if self.args:
            s += " args='%s'" % self.args
        if self.iso:
            s += " iso"
        return s


def check_config(cfg):
    if cfg.mem < 8:
        raise ConfigError("--mem %d: at least 8 MB are needed" % cfg.mem)
    if not 1 <= cfg.smp <= 16:
        raise ConfigError("--smp %d: give 1 to 16 CPUs" % cfg.smp)
    if cfg.timeout <= 0:
        raise ConfigError("--timeout must be positive")
    if cfg.accel not in ("tcg", "kvm"):
        raise ConfigError("--accel %s: use tcg or kvm" % cfg.accel)
    if cfg.accel == "kvm" and not os.access("/dev/kvm", os.R_OK | os.W_OK):
        raise ConfigError("--accel kvm: /dev/kvm is missing or not accessible")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", cfg.design or ""):
        raise ConfigError("--design '%s': a preset name is letters, digits, '_', '.', '-'" % cfg.design)
    if "\n" in cfg.args or '"' in cfg.args:
        raise ConfigError("--args must be one line of key=value words without quotes")


# ---- command line of tools/run -----------------------------------------------------------

def add_arguments(parser):
    """The VM options shared by tools/run and anything else that boots wdrain."""
    parser.add_argument("--mem", type=int, default=128, metavar="MB", help="guest memory (default 128)")
    parser.add_argument("--smp", type=int, default=1, metavar="N", help="number of CPUs (default 1)")
    parser.add_argument("--design", default=DEFAULT_DESIGN, metavar="NAME",
                        help="design preset: %s (default %s)" % (", ".join(DESIGNS), DEFAULT_DESIGN))
    parser.add_argument("--timeout", type=float, default=60.0, metavar="SECS",
                        help="give up after SECS waiting for the prompt, and again for the command (default 60)")
    parser.add_argument("--args", default="", metavar="'k=v ...'", help="extra kernel command-line words")
    parser.add_argument("--accel", default="tcg", choices=("tcg", "kvm"), help="QEMU accelerator (default tcg)")
    parser.add_argument("--iso", action="store_true", help="boot build/wdrain.iso through GRUB")
    parser.add_argument("-v", "--verbose", action="store_true", help="copy the whole console to stderr")


def config_from_args(ns):
    cfg = VMConfig(mem=ns.mem, smp=ns.smp, design=ns.design, args=ns.args.strip(),
                   timeout=ns.timeout, accel=ns.accel, iso=ns.iso, verbose=ns.verbose)
    check_config(cfg)
    return cfg


# ---- building ----------------------------------------------------------------------------

def _make(targets):
    cmd = ["make", "-s"] + targets
    # make's stdout goes to our stderr so that tools/run's stdout is only the guest's output.
    r = subprocess.run(cmd, cwd=ROOT, stdout=sys.stderr.fileno(), stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise BuildError("build failed: %s (exit %d)" % (" ".join(cmd), r.returncode))


def ensure_built(cfg):
    """Build what cfg boots. WDRAIN_NO_BUILD=1 (set by tests/run after its own
    build) skips make but still checks that the files exist."""
    if os.environ.get("WDRAIN_NO_BUILD") != "1":
        _make(["all", "iso"] if cfg.iso else ["all"])
    need = [BUILD / "wdrain.iso"] if cfg.iso else [BUILD / "kernel.elf", BUILD / "root.img"]
    for f in need:
        if not f.exists():
            raise BuildError("%s does not exist (run make%s)" % (f.relative_to(ROOT), " iso" if cfg.iso else ""))
    if cfg.iso and (cfg.design != DEFAULT_DESIGN or cfg.args):
        return custom_iso(cfg)
    return BUILD / "wdrain.iso" if cfg.iso else None


def grub_cfg_for(text, design, args):
    """tools/grub.cfg rewritten so the menu entry that passes design=`design`
    boots at once, with `args` appended to its multiboot line."""
    entries = list(re.finditer(r"^[ \t]*menuentry\b.*?^[ \t]*\}", text, re.M | re.S))
    word = re.compile(r"^[ \t]*multiboot2?[ \t][^\n]*(?<!\S)design=%s(?!\S)[^\n]*" % re.escape(design), re.M)
    hits = [i for i, e in enumerate(entries) if word.search(e.group(0))]
    if not hits:
        have = sorted(set(re.findall(r"(?<!\S)design=(\S+)", text)))
        raise ConfigError("tools/grub.cfg has no menu entry passing design=%s (it has: %s)"
                          % (design, ", ".join(have) or "none"))
    e = entries[hits[0]]
    body = e.group(0)
    if args:
        mb = word.search(body)
        body = body[:mb.end()] + " " + args + body[mb.end():]
    out = text[:e.start()] + body + text[e.end():]
    out = re.sub(r"^[ \t]*set[ \t]+(default|timeout)=.*\n", "", out, flags=re.M)
    return "set default=%d\nset timeout=0\n" % hits[0] + out


def custom_iso(cfg):
    """build/run/<design>-<hash>.iso: the ISO with another default entry.
    Rebuilt only when its inputs are newer; written atomically."""
    src = ROOT / "tools" / "grub.cfg"
    if not src.exists():
        raise BuildError("tools/grub.cfg does not exist")
    text = grub_cfg_for(src.read_text(), cfg.design, cfg.args)
    tag = "%s-%s" % (cfg.design, hashlib.sha1(text.encode()).hexdigest()[:8])
    rundir = BUILD / "run"
    iso = rundir / (tag + ".iso")
    inputs = [src, BUILD / "kernel.elf", BUILD / "root.img", BUILD / "wdrain.iso"]
    if iso.exists() and all(iso.stat().st_mtime >= f.stat().st_mtime for f in inputs if f.exists()):
        return iso
    tree = rundir / ("iso-" + tag)
    (tree / "boot" / "grub").mkdir(parents=True, exist_ok=True)
    for name in ("kernel.elf", "root.img"):
        shutil.copyfile(BUILD / name, tree / "boot" / name)
    (tree / "boot" / "grub" / "grub.cfg").write_text(text)
    tmp = rundir / (tag + ".iso.tmp%d" % os.getpid())
    r = subprocess.run(["grub-mkrescue", "-o", str(tmp), str(tree)], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError("grub-mkrescue failed for design %s:\n%s" % (cfg.design, r.stdout))
    os.replace(tmp, iso)
    return iso


# ---- the QEMU command line ---------------------------------------------------------------

def qemu_binary():
    return os.environ.get("WDRAIN_QEMU", "qemu-system-i386")


def machine_args(cfg):
    return ["-machine", "pc", "-accel", cfg.accel, "-m", str(cfg.mem), "-smp", str(cfg.smp),
            "-nodefaults", "-no-reboot", "-display", "none",
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]


def boot_args(cfg, iso):
    if iso is not None:
        return ["-cdrom", str(iso), "-boot", "d"]
    cmdline = "design=" + cfg.design + (" " + cfg.args if cfg.args else "")
    return ["-kernel", str(BUILD / "kernel.elf"), "-initrd", str(BUILD / "root.img"), "-append", cmdline]


def serial_args():
    # COM1 on QEMU's stdin/stdout, which are pipes to us (no monitor: -nodefaults).
    return ["-serial", "stdio"]


def qemu_argv(cfg, iso=None):
    return [qemu_binary()] + machine_args(cfg) + boot_args(cfg, iso) + serial_args()


# ---- one guest ---------------------------------------------------------------------------

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

    def __init__(self, cfg):
        self.cfg = cfg
        self.proc = None
        self._text = ""               # console so far, "\r\n" -> "\n"
        self._cr = False              # last byte read was "\r"
        self._dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pos = 0                 # where the next command's echo starts
        self._panic_scan = 0
        self._last_data = time.monotonic()
        self._eof = False
        self._stderr = None
        self._usable = False          # at a prompt, ready for run()
        self._failed = False          # a GuestError was raised: only kill() is left
        self._what = "output"         # what we are waiting for, for error messages

    # -- lifecycle --

    @property
    def console(self):
        return self._text

    def start(self, iso=None):
        self._stderr = tempfile.TemporaryFile()
        argv = qemu_argv(self.cfg, iso)
        if self.cfg.verbose:
            sys.stderr.write("tools/run: " + " ".join(argv) + "\n")
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
        self.start(iso)
        self._wait_prompt(0, self.cfg.timeout, "the shell prompt after boot")
        self._usable = True

    def kill(self):
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

    # -- commands --

    def run(self, cmdline, timeout=None, on_output=None):
        """Run one shell command line. Returns (output, status). on_output(text)
        is called with complete output lines as they arrive (tools/run streams)."""
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

        def marker():
            m = MARKER_RE.search(self._text, out_start)
            if on_output is not None:
                end = m.start() if m else self._text.rfind("\n", emitted[0]) + 1
                if end > emitted[0]:
                    on_output(self._text[emitted[0]:end])
                    emitted[0] = end
            return m

        m = self._wait_for(marker, deadline, timeout, what)
        output, status = self._text[out_start:m.start()], int(m.group(1))
        self._wait_prompt(m.end(), timeout, "the shell prompt after '%s'" % _short(cmdline))
        self._usable = True
        return output, status

    # -- console plumbing --

    def _send(self, text, expect_exit=False):
        data = text.encode()
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
        if self.cfg.verbose:
            sys.stderr.buffer.write(data)
            sys.stderr.flush()
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
                raise GuestTimeout(timeout, what, self._text)
            self._pump(min(left, 0.1))

    def _wait_prompt(self, since, timeout, what):
        """The prompt is "# " at the very end of the console, followed by
        PROMPT_QUIET seconds of silence."""
        self._what = what
        deadline = time.monotonic() + timeout
        while True:
            if (len(self._text) > since and self._text.endswith(PROMPT)
                    and time.monotonic() - self._last_data >= PROMPT_QUIET):
                self._pos = len(self._text)
                return
            left = deadline - time.monotonic()
            if left <= 0:
                self._failed = True
                raise GuestTimeout(timeout, what, self._text)
            self._pump(min(left, 0.05))


def _short(s, n=60):
    s = s.replace("\n", "\\n")
    return s if len(s) <= n else s[:n - 3] + "..."


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


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tools/run",
        description="Boot wdrain in QEMU, run one shell command line in the guest, print its output, "
                    "power off, and exit with the command's status.",
        epilog="Exit status: the command's status (0-255); %d if the guest panicked, timed out, QEMU died "
               "or the build failed; %d for bad options; 130 on Ctrl-C." % (EXIT_GUEST_FAILED, EXIT_USAGE))
    add_arguments(parser)
    parser.add_argument("command", nargs="*", help="the shell command line (after --)")
    ns = parser.parse_args(argv)
    if not ns.command:
        parser.error("no command given: tools/run [options] -- 'command; another'")
    install_signal_handlers()
    vm = None
    try:
        cfg = config_from_args(ns)
        cmd = " ".join(ns.command)
        compose(cmd)                      # reject a bad command line before booting
        vm = VM(cfg)
        vm.boot()

        def stream(text):
            sys.stdout.write(text)
            sys.stdout.flush()
        _, status = vm.run(cmd, on_output=stream)
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
