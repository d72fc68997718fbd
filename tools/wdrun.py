"""wdrun: boot wdrain in QEMU and drive its serial console (the one implementation).

tools/run (the command line) and tests/lib/wdtest.py (the test harness) both use
this module, so every script, test, lab and experiment talks to the guest the
same way.

Interface:
  VMConfig(mem, smp, design, args, timeout, accel, iso, verbose, disks, bus,
           disk_size, root, keep, disk_dir, throttle, disk_model, inject,
           qemu_args, serial2, root_image, kernel, interactive, vga, gdb)
                          what to boot; add_arguments()/config_from_args() map
                          tools/run's options onto it; check_config() refuses
                          bad combinations with a ConfigError.
  DiskSet(cfg)            the disks of one run (see "Disks" below): images,
                          disk-model servers, their QEMU arguments.
  ensure_built(cfg)       `make -s all` (and `make -s iso`, plus a per-design ISO
                          copy when needed) unless WDRAIN_NO_BUILD=1.
  qemu_argv(cfg, iso, disks)
                          the QEMU command line, built from small pieces.
  VM(cfg, echo=None)      one guest (echo: a binary stream that gets a copy of the
                          console as it arrives; -v makes it stderr):
    vm.boot()             start QEMU, wait for the shell prompt "# ";
                          vm.boot_seconds is how long that took (-v prints it).
    vm.run(cmd, timeout)  run one shell command line; returns (output, status).
    vm.poweroff()         `poweroff` in the guest, wait for QEMU to exit.
    vm.kill()             stop QEMU now (safe to call any time, many times).
    vm.wait(secs)         read what the guest prints for secs seconds, at a prompt
                          (a background job's output); GuestPanic if it panics.
    vm.crash()            power loss: SIGKILL to QEMU at once (only the writes QEMU
                          completed survive, as measured and recorded in the project's shared
                          notes, qemu-facts.md §6, outside this repository), then read the
                          rest of the console. Nothing else can be done with the VM.
    vm.console            everything the guest printed so far ("\r\n" -> "\n").
    vm.disks              its DiskSet (image paths, stats files).
    vm.type_lines(queue)  type lines into the booted guest as a person would,
                          then power off (piped input to make qemu).
  run_interactive(cfg)    the same VM with the serial console on the terminal
                          (tools/run --interactive, for make qemu); input that
                          is not a terminal is held until the prompt and typed
                          (run_piped). Both note the time to the first prompt.
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

Every wait for the guest has a deadline (interactive sessions wait for their
person, or for piped input as slowly as it comes); QEMU is started in its own
session with a parent-death signal and killed on every exit path of the caller.

Disks (DiskSet). With --disks N the guest gets N empty data disks on one
controller: --bus scsi is one virtio-scsi-pci HBA (legacy interface,
disable-modern=on) with a scsi-hd per target, the guest's da<unit>; --bus
ahci is one ich9-ahci with an ide-hd per port, the guest's ada<unit>. With
--root disk (the default whenever N > 0) unit 0 is a copy of build/root.img
(or of --root-image FILE) and the kernel gets root=da0 / root=ada0; the data disks are units 1..N.
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
those that exist (the root copy is refreshed if its source image is newer; a
kept root copy is first repaired with the host's fsck -y, since a QEMU that
was killed leaves it not clean, which wdfs refuses to mount read-write).
Each data disk's block graph, bottom up: file (or nbd to a disk-model server),
blkdebug if an error is injected on it, raw, throttle filter if --throttle (the root
disk: file, blkdebug if injected, raw);
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
import queue
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
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

INPUT_IDLE = 2.0                # piped input: seconds of guest silence after which the next line is typed ahead

POWEROFF_CMD = "poweroff"
POWEROFF_TIMEOUT = 10.0         # seconds for QEMU to exit after poweroff before it is killed
TAIL_LINES = 40
DUMP_LINES = 80          # at most this many lines of a ^P dump in a timeout's report
DUMP_WAIT = 3.0          # seconds to collect it

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


BUSES = {"scsi": "da", "ahci": "ada"}          # --bus -> the guest's disk name prefix
MAX_UNITS = {"scsi": 16, "ahci": 6}           # virtio_scsi.c scans targets 0..15; ich9-ahci has 6 ports
DISK_MODEL_PRESETS = ("scsi10k", "ide7200", "ideal")   # docs/diskmodel.md
MB = 1000 * 1000                              # --throttle counts MB as dd does: 10^6 bytes
ROOT_KINDS = ("disk", "md")
PREALLOC = ("off", "falloc", "full")          # qemu-img create -o preallocation=...


@dataclass
class VMConfig:
    """What to boot. A new option is a field here, a check in check_config()
    and a piece of qemu_argv() (or of DiskSet for disks)."""
    mem: int = 128
    smp: int = 1
    design: str = DEFAULT_DESIGN
    args: str = ""
    timeout: float = 60.0
    accel: str = "tcg"
    iso: bool = False
    verbose: bool = False
    disks: int = 0                  # data disks
    bus: str = "scsi"               # "scsi" (virtio-scsi, da*) or "ahci" (ich9-ahci, ada*)
    disk_size: str = "2g"           # size of each data disk image (k/m/g/t = powers of 1024)
    prealloc: str = "off"           # qemu-img preallocation of data disks: off (sparse), falloc, full
    root: str = None                # "disk", "md"; None: "disk" if disks else "md"
    keep: bool = False              # reuse existing images
    disk_dir: str = None            # where the images live (None: see the module comment)
    throttle: float = 0.0           # MB/s per data disk, reads and writes; 0 = unlimited
    disk_model: str = None          # "PRESET[,param=value...]" for tools/diskmodel/serve
    inject_write: tuple = ()        # "DISK:SECTOR[:once]": fail writes covering SECTOR on data disk DISK
    inject_read: tuple = ()         # the same for reads
    qemu_args: tuple = ()           # appended to QEMU's command line as they are
    root_image: str = None          # the root file system image (None: build/root.img)
    kernel: str = None              # the kernel ELF -kernel boots (None: build/kernel.elf)
    serial2: str = None             # host file that receives the guest's COM2 (/dev/ttyd1)
    interactive: bool = False       # serial console on the terminal (run_interactive)
    vga: bool = False               # interactive: a QEMU window with the VGA console too
    gdb: bool = False               # interactive: QEMU waits for gdb on tcp::1234

    def root_source(self):
        """The image the root disk is copied from, or that becomes md0."""
        return Path(self.root_image).resolve() if self.root_image else BUILD / "root.img"

    def root_kind(self):
        return self.root or ("disk" if self.disks else "md")

    def prefix(self):
        """The guest's name for a disk on this bus, without the unit: da or ada."""
        return BUSES.get(self.bus, "?")

    def first_data_unit(self):
        return 1 if self.root_kind() == "disk" else 0

    def data_names(self):
        """The guest names of the data disks, in order: data disk j is data_names()[j]."""
        u = self.first_data_unit()
        return ["%s%d" % (self.prefix(), u + j) for j in range(self.disks)]

    def kernel_args(self):
        """--args plus the root= word the root disk needs."""
        words = [self.args] if self.args else []
        if self.root_kind() == "disk":
            words.append("root=%s0" % self.prefix())
        return " ".join(words)

    def describe(self):
        s = "smp=%d mem=%d design=%s" % (self.smp, self.mem, self.design)
        if self.args:
            s += " args='%s'" % self.args
        if self.iso:
            s += " iso"
        if self.disks or self.root_kind() == "disk":
            s += " disks=%d bus=%s root=%s" % (self.disks, self.bus, self.root_kind())
        if self.throttle:
            s += " throttle=%g" % self.throttle
        if self.disk_model:
            s += " disk-model=%s" % self.disk_model
        return s


def parse_size(text):
    """'2g', '512m', '65536k', '1048576' -> bytes (suffixes are powers of 1024)."""
    m = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)\s*", str(text), re.I)
    if m is None:
        raise ConfigError("--disk-size '%s': give a number with an optional k, m, g or t suffix" % text)
    n = int(m.group(1)) * 1024 ** " kmgt".index((m.group(2) or " ").lower())
    if n < 1 << 20 or n % 512:
        raise ConfigError("--disk-size '%s': a disk must be at least 1m and a multiple of 512 bytes" % text)
    return n


def parse_disk_model(spec):
    """'scsi10k,qdepth=8' -> ('scsi10k', ['qdepth=8'])."""
    preset, *params = [p.strip() for p in spec.split(",")]
    if preset not in DISK_MODEL_PRESETS:
        raise ConfigError("--disk-model '%s': the preset is one of %s" % (spec, ", ".join(DISK_MODEL_PRESETS)))
    for p in params:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=[^\s=]+", p):
            raise ConfigError("--disk-model: '%s' is not param=value" % p)
        key, value = p.split("=", 1)
        if key == "stats":
            raise ConfigError("--disk-model: stats= is set by tools/run (d<j>.stats in the disk folder)")
        if key == "trace" and value not in ("on", "off"):
            raise ConfigError("--disk-model: trace=on writes d<j>.trace.csv in the disk folder; no other value")
    return preset, params


def parse_inject(spec, cfg, op="write"):
    """'DISK:SECTOR[:once]' -> (unit, sector, once). DISK is the guest's unit number or
    name (1 or da1 for /dev/da1): a data disk, or the root disk (unit 0 with --root disk)."""
    opt = "--inject-%s-error" % op
    m = re.fullmatch(r"(?:(a?da))?(\d+):(\d+)(:once)?", spec.strip())
    if m is None:
        raise ConfigError("%s '%s': give DISK:SECTOR[:once], e.g. 1:20480 or %s1:20480:once"
                          % (opt, spec, cfg.prefix()))
    if m.group(1) and m.group(1) != cfg.prefix():
        raise ConfigError("%s '%s': the disks on --bus %s are %s0, %s1, ..."
                          % (opt, spec, cfg.bus, cfg.prefix(), cfg.prefix()))
    unit, sector = int(m.group(2)), int(m.group(3))
    name = "%s%d" % (cfg.prefix(), unit)
    disks = (["%s0" % cfg.prefix()] if cfg.root_kind() == "disk" else []) + cfg.data_names()
    if name not in disks:
        raise ConfigError("%s '%s': %s is not one of the disks (they are: %s)"
                          % (opt, spec, name, ", ".join(disks) or "none"))
    return unit, sector, bool(m.group(4))


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
    check_disk_config(cfg)
    if cfg.root_image is not None:
        if not Path(cfg.root_image).is_file():
            raise ConfigError("--root-image %s: no such file" % cfg.root_image)
        if cfg.iso and cfg.root_kind() == "md":
            raise ConfigError("--root-image goes with a root disk or -kernel boots: the ISO carries build/root.img")
    if cfg.kernel is not None:
        if not Path(cfg.kernel).is_file():
            raise ConfigError("--kernel %s: no such file" % cfg.kernel)
        if cfg.iso:
            raise ConfigError("--kernel goes with -kernel boots: the ISO carries build/kernel.elf")
    if cfg.serial2 is not None:
        parent = Path(cfg.serial2).resolve().parent
        if not cfg.serial2 or "\n" in cfg.serial2 or not parent.is_dir():
            raise ConfigError("--serial2 '%s': give a file in an existing folder" % cfg.serial2)
    if (cfg.vga or cfg.gdb) and not cfg.interactive:
        raise ConfigError("--vga and --gdb go with --interactive")


MD_ROOT_SPARE_MB = 16          # RAM a guest needs besides a memory-disk root image (the kernel needs 8 MB)


def check_disk_config(cfg):
    if cfg.bus not in BUSES:
        raise ConfigError("--bus %s: use scsi or ahci" % cfg.bus)
    if cfg.root is not None and cfg.root not in ROOT_KINDS:
        raise ConfigError("--root %s: use disk or md" % cfg.root)
    image = cfg.root_source()
    if cfg.root_kind() == "md" and image.exists():
        need = -(-image.stat().st_size // 2**20) + MD_ROOT_SPARE_MB
        if cfg.mem < need:
            raise ConfigError("--mem %d: the root on md0 needs --mem %d or more (its %d MB image is loaded into "
                              "RAM); put the root on a disk (--root disk) instead"
                              % (cfg.mem, need, need - MD_ROOT_SPARE_MB))
    if cfg.disks < 0:
        raise ConfigError("--disks %d: give 0 or more" % cfg.disks)
    units = cfg.disks + cfg.first_data_unit()
    if units > MAX_UNITS[cfg.bus]:
        raise ConfigError("--disks %d: --bus %s takes at most %d disks%s" % (
            cfg.disks, cfg.bus, MAX_UNITS[cfg.bus], " including the root disk" if cfg.first_data_unit() else ""))
    if re.search(r"(?<!\S)root=", cfg.args):
        raise ConfigError("--args: give --root disk|md instead of a root= word")
    parse_size(cfg.disk_size)
    if cfg.prealloc not in PREALLOC:
        raise ConfigError("--prealloc %s: use %s" % (cfg.prealloc, ", ".join(PREALLOC)))
    if cfg.disks == 0 and (cfg.throttle or cfg.disk_model):
        raise ConfigError("--throttle and --disk-model act on data disks: give --disks N too")
    if cfg.throttle < 0:
        raise ConfigError("--throttle %g: give MB/s (10^6 bytes), or 0 for unlimited" % cfg.throttle)
    if cfg.disk_model:
        if cfg.throttle:
            raise ConfigError("--throttle and --disk-model exclude each other: a modelled disk has its own "
                              "speed (throttle it with the model's parameters instead)")
        parse_disk_model(cfg.disk_model)
    for op, specs in (("write", cfg.inject_write), ("read", cfg.inject_read)):
        for spec in specs:
            parse_inject(spec, cfg, op)


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
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="copy the whole console to stderr; show the QEMU command line and disk files")
    d = parser.add_argument_group("disks")
    d.add_argument("--disks", type=int, default=0, metavar="N", help="number of empty data disks (default 0)")
    d.add_argument("--bus", default="scsi", choices=sorted(BUSES),
                   help="controller: scsi = virtio-scsi, disks da0..; ahci = ich9-ahci, disks ada0.. (default scsi)")
    d.add_argument("--root", choices=ROOT_KINDS, default=None,
                   help="disk: root file system on unit 0 (da0/ada0), data disks from unit 1; md: root on the "
                        "memory disk md0, data disks from unit 0 (default: disk if --disks > 0, else md)")
    parser.add_argument("--kernel", metavar="FILE",
                        help="boot this kernel ELF instead of build/kernel.elf (e.g. a lab's reference kernel)")
    d.add_argument("--root-image", metavar="FILE",
                   help="the root file system image to boot (copied to the root disk, or loaded as md0; "
                        "default build/root.img)")
    d.add_argument("--disk-size", default="2g", metavar="SIZE",
                   help="size of each data disk, a sparse raw image (default 2g)")
    d.add_argument("--prealloc", default="off", choices=PREALLOC,
                   help="allocate the data disk images on the host: off = sparse (default), falloc, full "
                        "(a first write to a sparse image pays for host allocation)")
    d.add_argument("--keep", action="store_true",
                   help="reuse the images that exist instead of creating them fresh")
    d.add_argument("--disk-dir", metavar="DIR",
                   help="folder of the images (default: new under build/run/disks/BUS/; with --keep "
                        "build/run/disks/BUS/keep)")
    d.add_argument("--throttle", type=float, default=0.0, metavar="MBPS",
                   help="limit each data disk to MBPS x 10^6 bytes/s for reads and for writes (0 = unlimited)")
    d.add_argument("--disk-model", metavar="PRESET[,p=v...]",
                   help="serve each data disk through tools/diskmodel (%s)" % ", ".join(DISK_MODEL_PRESETS))
    d.add_argument("--inject-write-error", action="append", default=[], metavar="DISK:SECTOR[:once]",
                   help="writes covering SECTOR of disk DISK (unit number or name, e.g. 1 or da1; the root "
                        "disk too) fail with EIO (every time, or once); repeatable")
    d.add_argument("--inject-read-error", action="append", default=[], metavar="DISK:SECTOR[:once]",
                   help="the same for reads")
    parser.add_argument("--serial2", metavar="FILE",
                        help="attach the guest's second serial port, COM2 = /dev/ttyd1, to FILE (QEMU writes it)")
    d.add_argument("--qemu-arg", action="append", default=[], metavar="ARG",
                   help="one more argument for QEMU, as is (repeatable: --qemu-arg=-device --qemu-arg=...)")


def config_from_args(ns):
    cfg = VMConfig(mem=ns.mem, smp=ns.smp, design=ns.design, args=ns.args.strip(),
                   timeout=ns.timeout, accel=ns.accel, iso=ns.iso, verbose=ns.verbose,
                   disks=ns.disks, bus=ns.bus, disk_size=ns.disk_size, prealloc=ns.prealloc,
                   root=ns.root, keep=ns.keep,
                   disk_dir=ns.disk_dir, throttle=ns.throttle, disk_model=ns.disk_model,
                   inject_write=tuple(ns.inject_write_error), inject_read=tuple(ns.inject_read_error),
                   qemu_args=tuple(ns.qemu_arg), serial2=ns.serial2, root_image=ns.root_image, kernel=ns.kernel,
                   interactive=getattr(ns, "interactive", False),
                   vga=getattr(ns, "vga", False), gdb=getattr(ns, "gdb", False))
    check_config(cfg)
    return cfg


# ---- building ----------------------------------------------------------------------------

def _make(targets):
    cmd = ["make", "-s"] + targets
    # make's stdout goes to our stderr so that tools/run's stdout is only the guest's output.
    r = subprocess.run(cmd, cwd=ROOT, stdout=sys.stderr.fileno(), stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise BuildError("build failed: %s (exit %d)" % (" ".join(cmd), r.returncode))


def boots_default_iso(cfg):
    """True if cfg boots build/wdrain.iso as `make iso` made it: GRUB, the default
    design, no extra kernel words, the root on md0, no menu. Any other GRUB boot
    gets its own ISO from custom_iso()."""
    return cfg.iso and cfg.design == DEFAULT_DESIGN and not cfg.kernel_args() and not cfg.interactive


def ensure_built(cfg):
    """Build what cfg boots. WDRAIN_NO_BUILD=1 (set by tests/run and make qemu
    after their own build) skips make but still checks that the files exist."""
    default_iso = boots_default_iso(cfg)
    if os.environ.get("WDRAIN_NO_BUILD") != "1":
        _make(["all", "iso"] if default_iso else ["all"])
    need = [BUILD / "wdrain.iso"] if default_iso else [BUILD / "kernel.elf", BUILD / "root.img"]
    for f in need:
        if not f.exists():
            raise BuildError("%s does not exist (run make%s)" % (f.relative_to(ROOT), " iso" if default_iso else ""))
    if default_iso:
        return BUILD / "wdrain.iso"
    return custom_iso(cfg) if cfg.iso else None


def grub_cfg_for(text, design, args, menu=False, module=True):
    """tools/grub.cfg rewritten so the menu entry that passes design=`design`
    boots at once, with `args` appended to its multiboot line. With menu=True
    (an interactive boot) the menu stays: that entry becomes the default, the
    timeout is kept, and every entry gets `args`. module=False drops the
    root image module lines (the root is on a disk: no md0)."""
    if not module:
        text = re.sub(r"^[ \t]*module2?[ \t][^\n]*\n", "", text, flags=re.M)
    entries = list(re.finditer(r"^[ \t]*menuentry\b.*?^[ \t]*\}", text, re.M | re.S))
    word = re.compile(r"^[ \t]*multiboot2?[ \t][^\n]*(?<!\S)design=%s(?!\S)[^\n]*" % re.escape(design), re.M)
    hits = [i for i, e in enumerate(entries) if word.search(e.group(0))]
    if not hits:
        have = sorted(set(re.findall(r"(?<!\S)design=(\S+)", text)))
        raise ConfigError("tools/grub.cfg has no menu entry passing design=%s (it has: %s)"
                          % (design, ", ".join(have) or "none"))
    if menu:
        if args:
            text = re.sub(r"^([ \t]*multiboot2?[ \t][^\n]*)", lambda m: m.group(1) + " " + args, text, flags=re.M)
        text = re.sub(r"^[ \t]*set[ \t]+default=.*\n", "", text, flags=re.M)
        return "set default=%d\n" % hits[0] + text
    e = entries[hits[0]]
    body = e.group(0)
    if args:
        mb = word.search(body)
        body = body[:mb.end()] + " " + args + body[mb.end():]
    out = text[:e.start()] + body + text[e.end():]
    out = re.sub(r"^[ \t]*set[ \t]+(default|timeout)=.*\n", "", out, flags=re.M)
    return "set default=%d\nset timeout=0\n" % hits[0] + out


def custom_iso(cfg):
    """build/run/<design>-<hash>.iso: the ISO with another default entry, other
    kernel words, the menu kept (interactive) or not, and without the root image
    when the root is on a disk (GRUB then reads only the kernel, and the guest
    keeps the 48 MB md0 would take). Rebuilt only when its inputs are newer;
    written atomically."""
    src = ROOT / "tools" / "grub.cfg"
    if not src.exists():
        raise BuildError("tools/grub.cfg does not exist")
    module = cfg.root_kind() == "md"
    text = grub_cfg_for(src.read_text(), cfg.design, cfg.kernel_args(), menu=cfg.interactive, module=module)
    tag = "%s-%s" % (cfg.design, hashlib.sha1(text.encode()).hexdigest()[:8])
    rundir = BUILD / "run"
    iso = rundir / (tag + ".iso")
    files = ["kernel.elf", "root.img"] if module else ["kernel.elf"]
    inputs = [src] + [BUILD / name for name in files]
    if iso.exists() and all(iso.stat().st_mtime >= f.stat().st_mtime for f in inputs if f.exists()):
        return iso
    tree = rundir / ("iso-" + tag)
    (tree / "boot" / "grub").mkdir(parents=True, exist_ok=True)
    for name in files:
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


def have_display():
    """Is there a display for a QEMU window (X11 or Wayland)?"""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def machine_args(cfg):
    # A GRUB boot gets a VGA card: GRUB's multiboot loader asks the VGA BIOS for VBE information
    # (grub-core/loader/i386/multiboot_mbi.c, retrieve_video_parameters -> fill_vbe_info) and,
    # with no card, prints "error: Can't get controller info." before booting. A -kernel boot
    # needs none. The window (--vga) opens only where there is a display to open it on.
    vga = ["-vga", "std"] if cfg.iso or cfg.vga else []
    display = [] if cfg.vga and have_display() else ["-display", "none"]
    return ["-machine", "pc", "-accel", cfg.accel, "-m", str(cfg.mem), "-smp", str(cfg.smp),
            "-nodefaults", "-no-reboot"] + vga + display + ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]


def boot_args(cfg, iso):
    if iso is not None:
        return ["-cdrom", str(iso), "-boot", "d"]
    args = cfg.kernel_args()
    cmdline = "design=" + cfg.design + (" " + args if args else "")
    # With the root on a disk there is no module: md0 would only take the guest's memory.
    initrd = ["-initrd", str(cfg.root_source())] if cfg.root_kind() == "md" else []
    kernel = Path(cfg.kernel).resolve() if cfg.kernel else BUILD / "kernel.elf"
    return ["-kernel", str(kernel)] + initrd + ["-append", cmdline]


def serial_args(cfg):
    # A second -serial is COM2 (0x2f8, IRQ 3): the guest's /dev/ttyd1, written to a host file.
    com2 = ["-serial", "file:" + str(Path(cfg.serial2).resolve())] if cfg.serial2 else []
    if cfg.interactive:
        # COM1 and QEMU's monitor on the terminal (Ctrl-a c switches, Ctrl-a x quits).
        return ["-serial", "mon:stdio"] + com2 + (["-S", "-gdb", "tcp::1234"] if cfg.gdb else [])
    # COM1 on QEMU's stdin/stdout, which are pipes to us (no monitor: -nodefaults).
    return ["-serial", "stdio"] + com2


def qemu_argv(cfg, iso=None, disks=None):
    """disks: the run's DiskSet (its devices and block nodes), if it has any."""
    argv = [qemu_binary()] + machine_args(cfg) + boot_args(cfg, iso) + serial_args(cfg)
    if disks is not None:
        argv += disks.qemu_args()
    return argv + list(cfg.qemu_args)


# ---- disks -------------------------------------------------------------------------------

DISKS_BASE = BUILD / "run" / "disks"
SERVE = ROOT / "tools" / "diskmodel" / "serve"
SERVER_READY_TIMEOUT = 120.0     # seconds for a disk-model server to listen (it may build the filter first)
SERVER_STOP_TIMEOUT = 10.0       # seconds for it to exit after SIGTERM (nbdkit takes about 2)
SUN_PATH_MAX = 100               # a Unix socket path must fit in sockaddr_un.sun_path (108 bytes)
STALE_AGE = 24 * 3600            # seconds: a dead process's scratch folder is removed after this
SCRATCH_RE = re.compile(r"p(\d+)-\d+$")

_scratch_seq = 0
_scratch_dirs = []               # this process's scratch folders, emptied of images at exit


class DiskError(WdrunError):
    """The host could not set up the disks (qemu-img, a disk-model server)."""


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_images(d):
    for f in list(d.glob("*.img")) + list(d.glob("*.sock")) + list(d.glob("*.ready")):
        f.unlink(missing_ok=True)


def _sweep_stale(base):
    """Scratch folders of processes that are gone: their images now, the rest when old."""
    for d in base.glob("p*-*"):
        m = SCRATCH_RE.match(d.name)
        if m is None or not d.is_dir() or _pid_alive(int(m.group(1))):
            continue
        try:
            _remove_images(d)
            if time.time() - d.stat().st_mtime > STALE_AGE:
                shutil.rmtree(d, ignore_errors=True)
        except OSError:
            pass


def _cleanup_scratch():
    for d, sockdir in _scratch_dirs:
        try:
            _remove_images(d)
            if sockdir != d:
                shutil.rmtree(sockdir, ignore_errors=True)
            d.rmdir()                    # only if empty: disk-model stats and logs stay
        except OSError:
            pass


def _new_scratch_dir(bus):
    global _scratch_seq
    base = DISKS_BASE / bus
    if not _scratch_dirs:
        atexit.register(_cleanup_scratch)
    _scratch_seq += 1
    return base / ("p%d-%d" % (os.getpid(), _scratch_seq))


class DiskSet:
    """The disks of one VM (see the module comment): where the images are, making
    them, the disk-model servers and the QEMU arguments that attach them.
      .dir          the folder;  .root_image  the root copy (None with --root md)
      .images       data disk j's image;  .names  its guest name (da1...)
      .stats        data disk j's disk-model stats file (None without a model)
      prepare()     make the images and start the servers (before QEMU)
      qemu_args()   the controller, block nodes and devices
      stop()        stop the servers (after QEMU), many times
      discard()     delete a scratch folder's images now instead of at exit
      read_stats()  the stats files as dicts"""

    def __init__(self, cfg):
        self.cfg = cfg
        self.active = cfg.disks > 0 or cfg.root_kind() == "disk"
        self.scratch = cfg.disk_dir is None and not cfg.keep
        if cfg.disk_dir is not None:
            self.dir = Path(cfg.disk_dir).resolve()
        elif cfg.keep:
            self.dir = DISKS_BASE / cfg.bus / "keep"
        else:
            self.dir = _new_scratch_dir(cfg.bus) if self.active else None
        n = cfg.disks
        self.root_image = self.dir / "root.img" if cfg.root_kind() == "disk" else None
        self.images = [self.dir / ("d%d.img" % j) for j in range(n)]
        self.names = cfg.data_names()
        self.units = [cfg.first_data_unit() + j for j in range(n)]
        self.model = parse_disk_model(cfg.disk_model) if cfg.disk_model else None
        sockdir = self.dir
        if self.model and len(str(self.dir / ("d%d.sock" % n))) > SUN_PATH_MAX:
            tag = hashlib.sha1(str(self.dir).encode()).hexdigest()[:12]
            sockdir = Path(tempfile.gettempdir()) / ("wdrun-" + tag)
        self.sockdir = sockdir
        self.sockets = [sockdir / ("d%d.sock" % j) for j in range(n)] if self.model else []
        self.stats = [self.dir / ("d%d.stats" % j) for j in range(n)] if self.model else [None] * n
        self.logs = [self.dir / ("d%d.log" % j) for j in range(n)] if self.model else []
        self.inject = {}             # unit -> [(op, sector, once)]
        for op, specs in (("write", cfg.inject_write), ("read", cfg.inject_read)):
            for spec in specs:
                unit, sector, once = parse_inject(spec, cfg, op)
                self.inject.setdefault(unit, []).append((op, sector, once))
        self.servers = []            # (Popen, log file)
        self._prepared = False

    # -- images --

    def prepare(self):
        if not self.active or self._prepared:
            return
        if self.scratch:
            _sweep_stale(self.dir.parent)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            self.sockdir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise DiskError("cannot make the disk folder %s: %s" % (self.dir, e.strerror))
        if self.scratch:
            _scratch_dirs.append((self.dir, self.sockdir))
        self._prepared = True
        if self.root_image is not None:
            self._make_root()
        size = parse_size(self.cfg.disk_size)
        for img in self.images:
            self._make_data(img, size)
        if self.model:
            self._start_servers()

    def _make_root(self):
        src = self.cfg.root_source()
        if not src.exists():
            raise DiskError("%s does not exist (run make)" % src)
        dst = self.root_image
        if self.cfg.keep and dst.exists():
            if dst.stat().st_mtime >= src.stat().st_mtime:
                self._fsck_root()
                return
            sys.stderr.write("tools/run: %s is newer than the kept %s: copying it again\n" % (src, dst))
        tmp = dst.with_name(dst.name + ".tmp%d" % os.getpid())
        try:
            shutil.copyfile(src, tmp)
            os.replace(tmp, dst)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise DiskError("cannot copy the root image to %s: %s" % (dst, e.strerror))

    def _fsck_root(self):
        """A kept root may not have been unmounted (QEMU killed, Ctrl-a x): wdfs then refuses
        to mount it read-write, so repair it first, as FreeBSD's /etc/rc runs fsck at boot."""
        fsck = BUILD / "host" / "fsck"
        if not fsck.exists():
            raise DiskError("%s does not exist (run make)" % fsck.relative_to(ROOT))
        r = subprocess.run([str(fsck), "-y", str(self.root_image)], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode == 0:
            return
        report = "".join("tools/run: fsck: " + ln + "\n" for ln in r.stdout.splitlines())
        if r.returncode == 1:
            sys.stderr.write("tools/run: the kept root %s was not cleanly unmounted; fsck -y repaired it:\n%s"
                             % (self.root_image, report))
            return
        raise DiskError("the kept root %s is damaged beyond repair (fsck -y exit %d):\n%sdelete it, or boot once "
                        "without --keep (make qemu FRESH=1), for a fresh copy of its source image"
                        % (self.root_image, r.returncode, report))

    def _make_data(self, img, size):
        if self.cfg.keep and img.exists():
            have = img.stat().st_size
            if have != size:
                sys.stderr.write("tools/run: keeping %s of %d bytes (--disk-size asks for %d)\n" % (img, have, size))
            return
        img.unlink(missing_ok=True)
        try:
            r = subprocess.run(["qemu-img", "create", "-q", "-f", "raw", "-o", "preallocation=" + self.cfg.prealloc,
                                str(img), str(size)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
        except OSError as e:
            raise DiskError("cannot run qemu-img (package qemu-utils): %s" % e.strerror)
        if r.returncode != 0:
            raise DiskError("qemu-img create %s failed: %s" % (img, r.stdout.strip()))

    # -- disk-model servers --

    def _start_servers(self):
        preset, params = self.model
        for j, img in enumerate(self.images):
            ready = self.dir / ("d%d.ready" % j)
            ready.unlink(missing_ok=True)
            extra = []
            for p in params:
                if p == "trace=on":
                    extra.append("trace=%s" % (self.dir / ("d%d.trace.csv" % j)))
                elif p != "trace=off":
                    extra.append(p)
            argv = [str(SERVE), "--ready", str(ready), "--exit-with-parent", preset, str(img),
                    str(self.sockets[j]), "stats=%s" % self.stats[j]] + extra
            if self.cfg.verbose:
                sys.stderr.write("tools/run: " + " ".join(shlex.quote(a) for a in argv) + "\n")
            log = open(self.logs[j], "wb")
            try:
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=ROOT,
                                        start_new_session=True)
            except OSError as e:
                log.close()
                raise DiskError("cannot start %s: %s" % (SERVE, e.strerror))
            self.servers.append((proc, log, ready))
        deadline = time.monotonic() + SERVER_READY_TIMEOUT
        for j, (proc, log, ready) in enumerate(self.servers):
            while not (ready.exists() and ready.stat().st_size > 0):
                if proc.poll() is not None:
                    raise DiskError("the disk-model server for %s exited with status %d:\n%s"
                                    % (self.names[j], proc.returncode, self._log_tail(j)))
                if time.monotonic() > deadline:
                    raise DiskError("the disk-model server for %s did not listen within %g s:\n%s"
                                    % (self.names[j], SERVER_READY_TIMEOUT, self._log_tail(j)))
                time.sleep(0.05)

    def _log_tail(self, j, n=15):
        try:
            text = self.logs[j].read_text(errors="replace").rstrip("\n")
        except OSError:
            return "(no log)"
        return "\n".join("  | " + ln for ln in text.split("\n")[-n:])

    def stop(self):
        """SIGTERM every server, wait for all of them (they write the final stats)."""
        if not self.servers:
            return
        for proc, _, _ in self.servers:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + SERVER_STOP_TIMEOUT
        for proc, log, ready in self.servers:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
            ready.unlink(missing_ok=True)
        for s in self.sockets:
            s.unlink(missing_ok=True)
        self.servers = []
        if self.cfg.verbose:
            sys.stderr.write("tools/run: disk-model statistics and logs in %s (%s)\n"
                             % (self.dir, " ".join(p.name for p in self.stats + self.logs)))

    def discard(self):
        """Delete a scratch folder's images now (after stop()), not at exit; no-op otherwise."""
        if self.scratch and self._prepared:
            _remove_images(self.dir)

    def read_stats(self):
        """Data disk j's last disk-model statistics as {key: number or string}."""
        out = []
        for path in self.stats:
            d = {}
            if path is not None and path.exists():
                for line in path.read_text(errors="replace").splitlines():
                    key, sep, value = line.partition("=")
                    if sep:
                        try:
                            d[key.strip()] = float(value) if "." in value else int(value)
                        except ValueError:
                            d[key.strip()] = value.strip()
            out.append(d)
        return out

    # -- QEMU --

    def qemu_args(self):
        if not self.active:
            return []
        cfg = self.cfg
        if cfg.bus == "scsi":
            args = ["-device", "virtio-scsi-pci,id=scsi0,disable-modern=on"]
        else:
            args = ["-device", "ich9-ahci,id=ahci"]
        if self.root_image is not None:
            args += _blockdev({"driver": "file", "node-name": "rootf", "filename": str(self.root_image)})
            args += self._blkdebug(0, "rootf", "dbgroot")
            args += _blockdev({"driver": "raw", "node-name": "root",
                               "file": "dbgroot" if self.inject.get(0) else "rootf"})
            args += self._device("root", 0)
        for j, unit in enumerate(self.units):
            args += self._data_nodes(j, unit)
        return args

    def _device(self, node, unit):
        if self.cfg.bus == "scsi":
            dev = "scsi-hd,drive=%s,bus=scsi0.0,scsi-id=%d,lun=0" % (node, unit)
        else:
            dev = "ide-hd,drive=%s,bus=ahci.%d" % (node, unit)
        return ["-device", dev + ",werror=report,rerror=report"]

    def _blkdebug(self, unit, below, name):
        """The blkdebug node `name` over node `below` for the errors injected on `unit` (or nothing)."""
        rules = self.inject.get(unit)
        if not rules:
            return []
        # raw emits read_aio/write_aio on its file child; errno 5 = EIO (the project's shared
        # notes, qemu-facts.md §3, outside this repository).
        inject = [{"event": "%s_aio" % op, "errno": 5, "sector": sector, "once": once} for op, sector, once in rules]
        return _blockdev({"driver": "blkdebug", "node-name": name, "image": below, "inject-error": inject})

    def _data_nodes(self, j, unit):
        """Data disk j, bottom up: file or nbd, blkdebug, raw, throttle; then the device."""
        args = []
        if self.model:
            bottom = {"driver": "nbd", "node-name": "nbd%d" % j,
                      "server": {"type": "unix", "path": str(self.sockets[j])}}
        else:
            bottom = {"driver": "file", "node-name": "f%d" % j, "filename": str(self.images[j])}
        args += _blockdev(bottom)
        below = bottom["node-name"]
        if self.inject.get(unit):
            args += self._blkdebug(unit, below, "dbg%d" % j)
            below = "dbg%d" % j
        args += _blockdev({"driver": "raw", "node-name": "r%d" % j, "file": below})
        top = "r%d" % j
        if self.cfg.throttle:
            bps = int(round(self.cfg.throttle * MB))
            # A throttle filter node; its own group, so each disk gets the whole limit
            # (the project's shared notes, qemu-facts.md §2, outside this repository).
            args += ["-object", json.dumps({"qom-type": "throttle-group", "id": "tg%d" % j,
                                            "limits": {"bps-read": bps, "bps-write": bps}})]
            args += _blockdev({"driver": "throttle", "node-name": "t%d" % j, "throttle-group": "tg%d" % j,
                               "file": top})
            top = "t%d" % j
        return args + self._device(top, unit)

    def describe(self):
        """One line per disk for -v."""
        lines = []
        if self.root_image is not None:
            lines.append("%s0 (root): %s" % (self.cfg.prefix(), self.root_image))
        for j, name in enumerate(self.names):
            how = "throttled to %g MB/s" % self.cfg.throttle if self.cfg.throttle else (
                "disk model %s via %s" % (self.cfg.disk_model, self.sockets[j]) if self.model else "unlimited")
            lines.append("%s: %s, %s" % (name, self.images[j], how))
        return lines


def _blockdev(node):
    return ["-blockdev", json.dumps(node, separators=(",", ":"))]


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
        argv = qemu_argv(self.cfg, iso, self.disks) if self.disks.active else qemu_argv(self.cfg, iso)
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
