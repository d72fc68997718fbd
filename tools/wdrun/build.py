"""wdrun.build: what a boot needs on the host, built.

  ensure_built(cfg)       `make -s all` (and `make -s iso`) unless WDRAIN_NO_BUILD=1;
                          returns the ISO to boot, or None for a -kernel boot.
  custom_iso(cfg)         build/run/<design>-<hash>.iso for a GRUB boot other than
                          build/wdrain.iso as made (another preset, kernel words,
                          the menu, no root module), from grub_cfg_for()'s text.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys

from . import presets
from .config import BUILD, DEFAULT_DESIGN, ROOT
from .errors import BuildError, ConfigError


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
    """GRUB's menu (`text`: presets.grub_cfg()) rewritten so the entry that
    passes design=`design` boots at once, with `args` appended to its multiboot
    line. With menu=True (an interactive boot) the menu stays: that entry
    becomes the default, the timeout is kept, and every entry gets `args`.
    module=False drops the root image module lines (the root is on a disk: no md0)."""
    if not module:
        text = re.sub(r"^[ \t]*module2?[ \t][^\n]*\n", "", text, flags=re.M)
    entries = list(re.finditer(r"^[ \t]*menuentry\b.*?^[ \t]*\}", text, re.M | re.S))
    word = re.compile(r"^[ \t]*multiboot2?[ \t][^\n]*(?<!\S)design=%s(?!\S)[^\n]*" % re.escape(design), re.M)
    hits = [i for i, e in enumerate(entries) if word.search(e.group(0))]
    if not hits:
        have = sorted(set(re.findall(r"(?<!\S)design=(\S+)", text)))
        raise ConfigError("GRUB's menu has no entry passing design=%s (the presets of kernel/kern/main.c: %s)"
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
    module = cfg.root_kind() == "md"
    text = grub_cfg_for(presets.grub_cfg(), cfg.design, cfg.kernel_args(), menu=cfg.interactive, module=module)
    tag = "%s-%s" % (cfg.design, hashlib.sha1(text.encode()).hexdigest()[:8])
    rundir = BUILD / "run"
    iso = rundir / (tag + ".iso")
    files = ["kernel.elf", "root.img"] if module else ["kernel.elf"]
    inputs = [BUILD / name for name in files]     # the menu's text is in the tag
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
