"""wdrun.presets: the design presets, read out of the kernel's own table.

The one list of presets is `presets[]` in kernel/kern/main.c (with DEFAULT_DESIGN beside it);
everything on the host that names a preset takes the names from here, so a new preset is one
more entry in that table:

  read_presets(path)   [Preset(name, title, settings)] in the table's order, and the default's
                       name; settings is [(sysctl, value)]. BuildError if the table cannot be
                       read (the message says what the parser expected).
  NAMES, DEFAULT       the names and the default, read once at import.
  SETTINGS             {name: {sysctl: value}}.
  grub_cfg()           the text of GRUB's menu (build/grub.cfg, `make iso`): one entry per
                       preset passing design=NAME, the default's entry chosen.
"""

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError

# config.py takes the names from here, so this module cannot take ROOT from there.
MAIN_C = Path(__file__).resolve().parents[2] / "kernel" / "kern" / "main.c"

TABLE_RE = re.compile(r"\bpresets\[\]\s*=\s*\{(.*?)\n\};", re.S)
ENTRY_RE = re.compile(r'\{\s*"([^"]+)"\s*,\s*"([^"]*)"\s*,\s*\{((?:\s*\{[^{}]*\}\s*,?)*)\s*\}\s*\}')
PAIR_RE = re.compile(r'\{\s*"([^"]+)"\s*,\s*"([^"]*)"\s*\}')
DEFAULT_RE = re.compile(r'^#define\s+DEFAULT_DESIGN\s+"([^"]+)"', re.M)
SIZE_RE = re.compile(r"\bstatic\s+char\s+design\[(\d+)\]")

GRUB_HEAD = """\
# GRUB menu for the wdrain ISO, made by `make iso` from the design presets in kernel/kern/main.c
# (tools/wdrun/presets.py): one entry per preset, passing design=NAME on the kernel command line.
# The console is the serial port as well as the screen, so `make qemu` works in a terminal.
# Each entry loads the root file system image as a module (the memory disk md0), so the ISO
# boots on its own; tools/run drops the module lines and adds root=da0 when the root is on a
# disk (make qemu's default), so that GRUB reads only the kernel.
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
set timeout=2
set default=%d
"""
GRUB_ENTRY = """
menuentry "wdrain: %s (%s)" {
	multiboot /boot/kernel.elf design=%s
	module /boot/root.img root.img
	boot
}
"""


@dataclass
class Preset:
    name: str
    title: str
    settings: list


def read_presets(path=MAIN_C):
    """The presets of the kernel source at `path` and the default's name."""
    try:
        text = path.read_text()
    except OSError as e:
        raise BuildError("%s: %s" % (path, e.strerror))
    table = TABLE_RE.search(text)
    default = DEFAULT_RE.search(text)
    if table is None or default is None:
        raise BuildError("%s: no `presets[] = { ... };` table or no #define DEFAULT_DESIGN \"NAME\"" % path)
    presets = [Preset(m.group(1), m.group(2), PAIR_RE.findall(m.group(3))) for m in ENTRY_RE.finditer(table.group(1))]
    braces = len(re.findall(r'\{\s*"', table.group(1)))          # one per entry and one per setting
    if not presets or braces != len(presets) + sum(len(p.settings) for p in presets):
        raise BuildError("%s: presets[] must be entries { \"name\", \"title\", { { \"sysctl\", \"value\" }, ... } }, "
                         "each field one string literal" % path)
    size = SIZE_RE.search(text)
    for p in presets:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", p.name) or (size and len(p.name) >= int(size.group(1))):
            raise BuildError("%s: preset name %r: letters, digits, '_', '.', '-', shorter than design[]" % (path, p.name))
    names = [p.name for p in presets]
    if len(set(names)) != len(names) or default.group(1) not in names:
        raise BuildError("%s: preset names must differ and DEFAULT_DESIGN (%s) be one of them (%s)"
                         % (path, default.group(1), ", ".join(names)))
    return presets, default.group(1)


def grub_cfg(presets=None, default=None):
    """GRUB's menu for the given presets (default: the kernel's)."""
    if presets is None:
        presets, default = PRESETS, DEFAULT
    names = [p.name for p in presets]
    return GRUB_HEAD % names.index(default) + "".join(GRUB_ENTRY % (p.name, p.title, p.name) for p in presets)


PRESETS, DEFAULT = read_presets()
NAMES = tuple(p.name for p in PRESETS)
SETTINGS = {p.name: dict(p.settings) for p in PRESETS}
