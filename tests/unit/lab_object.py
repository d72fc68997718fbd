#!/usr/bin/env python3
"""lab_object.py OBJ EMPTY: refuse a lab file's object (tests/tests.mk, UNIT_LAB_SRCS) that
could take over the host unit test it is linked into before or around the test's checks.

A lab's file is kernel code: the kernel has no C library, so its code calls only what the
kernel defines (kernel/kern/klib.h names the few that the host's C library has too, such as
memset), defines nothing the C library defines, and has no constructor or destructor (the
kernel runs none). The object is refused, with an `error:` line for each reason, when it
  - calls a C library function that klib.h does not declare (getenv, write, fork, _exit...),
  - defines a global symbol the C library defines (interposing strcmp under the test), or
  - has more constructor or destructor entries (.init_array, .fini_array, .ctors, .dtors,
    .preinit_array) than EMPTY, an empty file compiled with the same flags (ThreadSanitizer
    adds one of its own), code in .init or .fini, or an indirect function (its resolver runs
    before main).
What it does not stop: labs/README.md, "Unit tests a student's code cannot rewrite".
Environment: HOSTCC (default gcc) finds the C library; NM and READELF the host's binutils.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
KLIB = ROOT / "kernel" / "kern" / "klib.h"
TABLES = (".init_array", ".fini_array", ".ctors", ".dtors", ".preinit_array")


def run(*argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True).stdout


def libc_symbols():
    cc = os.environ.get("HOSTCC", "gcc")
    libc = run(cc, "-print-file-name=libc.so.6").strip()
    out = run(os.environ.get("NM", "nm"), "-D", "--defined-only", libc)
    return {f[2].split("@")[0] for f in (ln.split() for ln in out.split("\n")) if len(f) == 3}


def symbols(obj, *flags):
    out = run(os.environ.get("NM", "nm"), *flags, obj)
    return {ln.split()[-1] for ln in out.split("\n") if ln.strip()}


def table_entries(obj):
    """Relocations into constructor and destructor tables: one per entry."""
    out = run(os.environ.get("READELF", "readelf"), "-rW", obj)
    n, counting = 0, False
    for ln in out.split("\n"):
        m = re.match(r"Relocation section '\.rela?(\S+)'", ln)
        if m:
            counting = m.group(1).startswith(TABLES)
        elif counting and re.match(r"[0-9a-f]{8,}\s", ln):
            n += 1
    return n


def startup_code(obj):
    """Sections .init and .fini, and indirect functions (nm's type i): code the C library or
    the dynamic linker runs before main or after it."""
    out = run(os.environ.get("READELF", "readelf"), "-SW", obj)
    found = sorted({m.group(1) for m in re.finditer(r"\]\s+(\.(?:init|fini))\s", out)})
    out = run(os.environ.get("NM", "nm"), "--defined-only", obj)
    found += ["indirect function %s" % ln.split()[2] for ln in out.split("\n") if len(ln.split()) == 3 and
              ln.split()[1] == "i"]
    return found


def problems(obj, empty):
    libc = libc_symbols()
    kernel_has = set(re.findall(r"\b(\w+)\s*\(", KLIB.read_text()))
    found = []
    for name in sorted((symbols(obj, "-u") & libc) - kernel_has):
        found.append("calls %s, a C library function the kernel does not have" % name)
    for name in sorted(symbols(obj, "-g", "--defined-only") & libc):
        found.append("defines %s, which the C library defines (the test's calls would reach it)" % name)
    extra = table_entries(obj) - table_entries(empty)
    if extra > 0:
        found.append("has %d constructor or destructor entries (the kernel runs none)" % extra)
    for what in startup_code(obj):
        found.append("has %s, which runs before main or after it" % what)
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: lab_object.py OBJ EMPTY")
    obj = sys.argv[1]
    found = problems(obj, sys.argv[2])
    for p in found:
        print("%s: error: a lab file's object %s" % (obj, p))
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
