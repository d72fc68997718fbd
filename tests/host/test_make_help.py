"""test_make_help: `make help` names every target and variable a user can give make.

`make help` prints the top Makefile's header, written by hand, so it drifts when a makefile
gains a target or a variable: `make bench-vm`, ROOTFS_SIZE and TEST_JOBS were missing from it
once. This test reads the makefiles themselves (the Makefile and every fragment it includes)
and checks that the help names, for each of them:
  - every .PHONY target, as `make TARGET`;
  - every variable the user may set: those assigned with `?=`, and those the makefiles use
    (`$(NAME)`, upper case) but never assign (WERROR, THROTTLE, the experiment's...), as `NAME=`.
It also checks that the presets the help names come from the one table (kernel/kern/main.c's
presets[], read by tools/wdrun/presets.py): every line that names two or more presets names
them all, in the table's order, so a hand-written list cannot fall behind a new preset.
It needs no build and no guest (about a second).
"""
# tests/run: timeout=60
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
from wdrun.presets import NAMES  # noqa: E402  (wdtest put tools/ on the path)

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
INCLUDE_RE = re.compile(r"^-?include\s+([^\s$]+)\s*$", re.M)
PHONY_RE = re.compile(r"^\.PHONY:(.*)$", re.M)
DEFAULT_RE = re.compile(r"^([A-Z][A-Z0-9_]*)\s*\?=", re.M)
# NAME = / := / ?= / +=, also as a target-specific variable (`qemu: QEMUMODE = --vga`)
ASSIGN_RE = re.compile(r"^(?:[^\s:#=]+:\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*(?::=|\?=|\+=|=)", re.M)
USE_RE = re.compile(r"(?<!\$)\$[({]([A-Z][A-Z0-9_]*)[)}]")
MAKES_OWN = {"CURDIR", "SHELL"}          # and every MAKE* name

T = TestSet("make_help")


def makefile_text(path):
    """The file without its comment lines (a header may name what the file does not define)."""
    with open(os.path.join(ROOT, path)) as f:
        return "\n".join(ln for ln in f.read().split("\n") if not ln.lstrip().startswith("#"))


env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
r = subprocess.run(["make", "--no-print-directory", "help"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, text=True, timeout=30)
helptext = r.stdout
T.check("make help prints the Makefile's header", r.returncode == 0 and helptext.startswith("wdrain top-level Makefile"),
        expected="status 0, 'wdrain top-level Makefile...'", got="%s: %s" % (r.returncode, (helptext or r.stderr)[:200]))

lists = [ln.strip() for ln in helptext.split("\n") if sum(bool(re.search(r"\b%s\b" % n, ln)) for n in NAMES) >= 2]
T.check("make help lists the presets from the table, all of them in its order (%s)" % ", ".join(NAMES),
        lists and all(", ".join(NAMES) in ln for ln in lists) and "@PRESETS@" not in helptext,
        expected="each list: %s" % ", ".join(NAMES), got=lists or "no list of presets")

files = ["Makefile"] + INCLUDE_RE.findall(makefile_text("Makefile"))
texts = {p: makefile_text(p) for p in files}
assigned = set()
for text in texts.values():
    assigned |= set(ASSIGN_RE.findall(text))

found_targets, found_vars = set(), set()
for path, text in texts.items():
    targets = sorted({t for line in PHONY_RE.findall(text) for t in line.split()})
    user_vars = sorted(set(DEFAULT_RE.findall(text))
                       | {v for v in USE_RE.findall(text)
                          if v not in assigned and v not in MAKES_OWN and not v.startswith("MAKE")})
    found_targets |= set(targets)
    found_vars |= set(user_vars)
    missing = [t for t in targets if not re.search(r"\bmake %s(?![\w-])" % re.escape(t), helptext)]
    T.check("make help names every .PHONY target of %s" % path, not missing,
            expected="make %s" % ", make ".join(targets) if targets else "(none)", got="missing: %s" % missing)
    missing = [v for v in user_vars if not re.search(r"(?<![\w-])%s=" % v, helptext)]
    T.check("make help names every variable a user sets in %s" % path, not missing,
            expected="=, ".join(user_vars) + "=" if user_vars else "(none)", got="missing: %s" % missing)

# The scan itself: it must see the fragments and the names this test was written against,
# or the checks above would pass on nothing.
want = {"tests/tests.mk", "tools/fs.mk", "tools/experiment.mk", "user/user.mk", "kernel/arch/arch.mk"}
T.check("the Makefile's includes are found", want <= set(files), expected=sorted(want), got=files)
want_t, want_v = {"all", "test", "bench-vm", "experiment"}, {"TEST_JOBS", "ROOTFS_SIZE", "WERROR", "OUT"}
T.check("the scan finds targets and variables", want_t <= found_targets and want_v <= found_vars,
        expected="%s and %s" % (sorted(want_t), sorted(want_v)), got="%s and %s" % (sorted(found_targets), sorted(found_vars)))
T.done()
