"""wdrun.config: what to boot, and tools/run's options for it.

  VMConfig                one VM: memory, CPUs, preset, kernel words, disks...
  check_config(cfg)       refuses a bad combination with a ConfigError whose message
                          names the option; parse_size/parse_disk_model/parse_inject
                          read the option values the disks use.
  add_arguments(parser)   the VM options shared by tools/run and the other tools;
  config_from_args(ns)    the checked VMConfig they give.
"""

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError
from .presets import DEFAULT as DEFAULT_DESIGN, NAMES as DESIGNS  # noqa: F401 (kernel/kern/main.c's table)

ROOT = Path(__file__).resolve().parent.parent.parent
BUILD = ROOT / "build"

EXIT_GUEST_FAILED = 125         # tools/run: panic, timeout, QEMU died, build failed
EXIT_USAGE = 2

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
    disk_model: str = None          # "PRESET[,PRESET...][,param=value...]" for tools/diskmodel/serve
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


def parse_disk_model(spec, ndisks=None):
    """'scsi10k,qdepth=8' -> (['scsi10k'], ['qdepth=8']); 'scsi10k,ide7200' -> (['scsi10k', 'ide7200'], []).
    The presets go to the data disks in order (one preset: every disk; several: one per disk, so
    as many as ndisks when it is given), the param=value words to every disk."""
    words = [p.strip() for p in spec.split(",")]
    presets = [w for w in words if "=" not in w]
    params = [w for w in words if "=" in w]
    if not presets or words[0] not in DISK_MODEL_PRESETS:
        raise ConfigError("--disk-model '%s': start with a preset, one of %s" % (spec, ", ".join(DISK_MODEL_PRESETS)))
    for p in presets:
        if p not in DISK_MODEL_PRESETS:
            raise ConfigError("--disk-model '%s': '%s' is neither a preset (%s) nor param=value"
                              % (spec, p, ", ".join(DISK_MODEL_PRESETS)))
    if ndisks is not None and len(presets) > 1 and len(presets) != ndisks:
        raise ConfigError("--disk-model '%s': %d presets for %d data disks (give one for all, or one per disk)"
                          % (spec, len(presets), ndisks))
    for p in params:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=[^\s=]+", p):
            raise ConfigError("--disk-model: '%s' is not param=value" % p)
        key, value = p.split("=", 1)
        if key == "stats":
            raise ConfigError("--disk-model: stats= is set by tools/run (d<j>.stats in the disk folder)")
        if key == "trace" and value not in ("on", "off"):
            raise ConfigError("--disk-model: trace=on writes d<j>.trace.csv in the disk folder; no other value")
        if key == "wlog" and value not in ("on", "off"):
            raise ConfigError("--disk-model: wlog=on writes the write log d<j>.wlog (and .data) in the disk folder; "
                              "no other value")
    return presets, params


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
        parse_disk_model(cfg.disk_model, cfg.disks)
    for op, specs in (("write", cfg.inject_write), ("read", cfg.inject_read)):
        for spec in specs:
            parse_inject(spec, cfg, op)


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
    d.add_argument("--disk-model", metavar="PRESET[,PRESET...][,p=v...]",
                   help="serve each data disk through tools/diskmodel (%s): one preset for every disk, or one "
                        "per disk in order (scsi10k,ide7200); the params go to every disk" % ", ".join(DISK_MODEL_PRESETS))
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
