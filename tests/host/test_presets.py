"""test_presets: the design presets have one source, kernel/kern/main.c's presets[].

tools/wdrun/presets.py reads that table; GRUB's menu (tools/mkgrubcfg, build/grub.cfg), tools/run's
--design, tools/bench-vm and the experiment's --presets take the names from there. This test
checks, without a build or a guest:
  - the table parses, its default is one of its names, and each name appears in the kernel's
    code once (the table; twice more if a setting's value has the same name, which the kernel
    accepts in one place): no second list in the kernel;
  - every setting a preset makes is a sysctl the kernel declares;
  - wdrun.DESIGNS/DEFAULT_DESIGN and the experiment's PRESETS are the table's, and the seed's
    figures are keyed by preset names;
  - GRUB's menu has one entry per preset, in order, passing design=NAME, the default chosen, and
    build/grub.cfg (if built) is that menu;
  - every preset name the tools, tests, makefiles and the book use (design=NAME, --design NAME,
    --designs/--presets LIST, DESIGN=NAME, design="NAME") is in the table.
"""
# tests/run: timeout=60
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
import wdrun  # noqa: E402  (wdtest put tools/ on the path)
from wdexp import plan  # noqa: E402

ROOT = wdrun.ROOT
T = TestSet("presets")
presets, default = wdrun.presets.read_presets()
names = [p.name for p in presets]
T.check("kernel/kern/main.c's presets[] parses, and DEFAULT_DESIGN is one of them",
        len(names) >= 2 and default in names, expected="stable42, patched; default patched",
        got="%s; default %s" % (", ".join(names), default))


def kernel_sources():
    for d, dirs, files in os.walk(ROOT / "kernel"):
        for f in files:
            if f.endswith((".c", ".h")):
                path = os.path.join(d, f)
                with open(path) as fh:
                    yield os.path.relpath(path, ROOT), fh.read()


ksrc = dict(kernel_sources())
DEFINE_RE = re.compile(r"^#define\s+DEFAULT_DESIGN\b.*$", re.M)
COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
code = [COMMENT_RE.sub("", DEFINE_RE.sub("", text)) for text in ksrc.values()]
literals = {n: sum(text.count('"%s"' % n) for text in code) for n in names}
# A preset may share its name with a value it sets (preset perdevice sets vfs.bufdaemon_design=perdevice):
# that value is written once more in presets[] and once where the kernel accepts it (the design's table).
wanted = {n: 1 + 2 * sum(v == n for p in presets for _, v in p.settings) for n in names}
T.check("each preset name is written once in the kernel's code (its presets[] entry; and the default), "
        "plus twice per setting whose value has its name", literals == wanted, expected=wanted, got=literals)
declared = set(re.findall(r'SYSCTL_\w+\(\s*\w+\s*,\s*"([\w.]+)"', "\n".join(ksrc.values())))
declared |= {"%s.%s" % m for m in re.findall(r"SYSCTL_(?:INT|UINT|STRING|LONG|QUAD)\(\s*(\w+)\s*,\s*(\w+)\s*,",
                                               "\n".join(ksrc.values()))}
unknown = ["%s: %s" % (p.name, k) for p in presets for k, _ in p.settings if k not in declared]
T.check("every setting of a preset is a sysctl the kernel declares", not unknown and declared,
        expected="none unknown", got=unknown or "no sysctls found")

T.check("wdrun.DESIGNS and DEFAULT_DESIGN are the table's", list(wdrun.DESIGNS) == names and
        wdrun.DEFAULT_DESIGN == default, expected=(names, default), got=(list(wdrun.DESIGNS), wdrun.DEFAULT_DESIGN))
T.check("the experiment's presets are the table's, and the seed's figures are keyed by preset names",
        list(plan.PRESETS) == names and set(plan.SEED_BPS) <= set(names),
        expected=names, got=(list(plan.PRESETS), sorted(plan.SEED_BPS)))

r = subprocess.run([str(ROOT / "tools" / "mkgrubcfg")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                   text=True, timeout=30)
menu = r.stdout
entries = re.findall(r'^menuentry "[^"]*" \{\n\tmultiboot /boot/kernel.elf design=(\S+)\n\tmodule [^\n]*\n\tboot\n\}',
                     menu, re.M)
chosen = re.search(r"^set default=(\d+)$", menu, re.M)
T.check("GRUB's menu (tools/mkgrubcfg) has one entry per preset, in order, passing design=NAME",
        r.returncode == 0 and entries == names, expected=names, got=entries or menu[:300])
T.check("GRUB's menu chooses DEFAULT_DESIGN's entry", chosen is not None and entries and
        int(chosen.group(1)) < len(entries) and entries[int(chosen.group(1))] == default,
        expected=default, got=chosen.group(0) if chosen else menu[:200])
built = ROOT / "build" / "grub.cfg"
if built.exists():
    T.check("build/grub.cfg is the menu the presets give (make iso rebuilt it)", built.read_text() == menu,
            expected="the same text", got="differs")
else:
    T.skip("build/grub.cfg is the menu the presets give", str(built), "make iso writes it")

# A name as text (followed by a space, a quote, `|`, `;` or the end: not a Python argument such
# as design=ns.design), or quoted (Guest(design="stable42")).
END = r"(?=[\s`'\"|;]|$)"
USES = [re.compile(r"(?<![\w.])design=([a-z][\w.-]*)" + END),
        re.compile(r"(?<![\w.])design=[\"']([a-z][\w.-]*)[\"']"),
        re.compile(r"--design[= ]+([a-z][\w.-]*)" + END),
        re.compile(r"\bDESIGN=([a-z][\w.-]*)" + END),
        re.compile(r"--(?:designs|presets)[= ]+([a-z][\w-]*(?:,[a-z][\w-]*)*)" + END)]
CODE_WORDS = {"design"}                  # `design=design or ...`: the Python variable, not a name
SCAN = ["tools", "tests/host", "tests/guest", "tests/lib", "tests/stress", "docs", "user/etc", "Makefile", "README.md"]
HERE = os.path.abspath(__file__)
bad = []
for top in SCAN:
    paths = [ROOT / top] if (ROOT / top).is_file() else sorted((ROOT / top).rglob("*"))
    for path in paths:
        if (not path.is_file() or path.suffix not in ("", ".py", ".md", ".mk", ".sh", ".c")
                or "__pycache__" in path.parts or str(path.resolve()) == HERE):
            continue
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.split("\n"), 1):
            for rx in USES:
                for m in rx.finditer(line):
                    for word in m.group(1).strip(",.").split(","):
                        if word and word not in names and word not in CODE_WORDS:
                            bad.append("%s:%d %s" % (path.relative_to(ROOT), n, word))
T.check("every preset name the tools, tests, makefiles and the book use is in the table",
        not bad, expected="none else", got=bad)
T.done()
