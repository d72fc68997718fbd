"""test_first_run: the README's two commands work as the first commands on a fresh clone, and
make qemu's root disk persists between runs until FRESH=1 (both since 164f26d).

The repository's files (what a clone has: no build/, no .git) are copied to
build/run/first-run/src. In the copy, tools/install-deps is replaced by a stand-in that
"installs" the cross toolchain: it writes i686-linux-gnu-{gcc,ld,objcopy,nm,ar} wrappers into
build/run/first-run/bin, which is empty until then, and every make gets
TOOLPREFIX=<that folder>/i686-linux-gnu-. So the toolchain is missing when make first reads
the Makefile and present once the deps step has run, as on a fresh Debian machine, where the
old Makefile (GCCINC := $(shell $(CC) ...) read before `deps` ran) failed to compile.
  1. `make -j2 test` in the copy, with tests/run replaced by a stub: install-deps, the build,
     the ISO and the host tests, then the stub. The toolchain folder is emptied and the build
     removed afterwards.
  2. `printf ... | make -j2 qemu`: the build, then GRUB, the root on da0, the piped lines typed
     at the prompt, and at their end the guest powers off so that make exits 0. The lines
     write a file on the root disk.
  3. `make qemu` again: the file is still there (build/qemu/root.img is kept).
  4. `make qemu FRESH=1`: a fresh copy of build/root.img, the file is gone.
  5. `make qemu </dev/null`: no input at all, so the guest powers off at its first prompt.
"""
# tests/run: timeout=900 about=90
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
WORK = os.path.join(ROOT, "build", "run", "first-run")
SRC = os.path.join(WORK, "src")
BIN = os.path.join(WORK, "bin")
TOOLS = ("gcc", "ld", "objcopy", "nm", "ar")
STEP_TIMEOUT = 400
MEM_MB = 128

T = TestSet("first_run")


def copy_tree():
    """The files a fresh clone has: everything but build outputs and git's own."""
    shutil.rmtree(WORK, ignore_errors=True)
    shutil.copytree(ROOT, SRC, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "build", "__pycache__", "*.o", "*.d"))
    os.makedirs(BIN)
    stand_in = os.path.join(SRC, "tools", "install-deps")
    with open(stand_in, "w") as f:
        f.write("#!/bin/sh\n"
                "# test_first_run's stand-in: \"installs\" the cross toolchain into %s\n"
                "set -e\n" % BIN)
        for tool in TOOLS:
            real = shutil.which("i686-linux-gnu-" + tool)
            wrapper = os.path.join(BIN, "i686-linux-gnu-" + tool)
            f.write("printf '#!/bin/sh\\nexec %s \"$@\"\\n' > %s\nchmod +x %s\n" % (real, wrapper, wrapper))
        f.write("echo 'install-deps stand-in: toolchain installed' >&2\n")
    os.chmod(stand_in, 0o755)
    stub = os.path.join(SRC, "tests", "run")
    with open(stub, "w") as f:
        f.write("#!/bin/sh\necho \"tests/run stub: $*\"\necho '0 passed, 0 failed'\n")
    os.chmod(stub, 0o755)


def uninstall_toolchain():
    for name in os.listdir(BIN):
        os.unlink(os.path.join(BIN, name))


def make(args, stdin_text=None):
    """make in the copy, as a user would run it (no make or harness state inherited)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "WDRAIN_NO_BUILD")}
    argv = ["make", "-j2"] + args + ["TOOLPREFIX=%s/i686-linux-gnu-" % BIN]
    try:
        return subprocess.run(argv, cwd=SRC, env=env, input=stdin_text if stdin_text is not None else "",
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                              timeout=STEP_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(argv, "timeout", e.stdout or "", e.stderr or "")


def lines(text):
    return [ln.rstrip("\r") for ln in text.split("\n")]


def tail(r, n=600):
    return "status %s; stderr ...%s; stdout ...%s" % (r.returncode, r.stderr[-n:], r.stdout[-n:])


copy_tree()
T.check("the copy has no cross toolchain before its deps step", os.listdir(BIN) == [],
        expected="an empty folder", got=os.listdir(BIN))

r = make(["test"])
T.check("fresh clone: make test installs the deps, builds and runs tests/run",
        r.returncode == 0 and "tests/run stub: --no-build" in r.stdout
        and os.path.exists(os.path.join(SRC, "build", "wdrain.iso")),
        expected="status 0, the stub's line, build/wdrain.iso", got=tail(r))

uninstall_toolchain()
shutil.rmtree(os.path.join(SRC, "build"))
r = make(["qemu"], "echo first-run-ok\nsysctl -n hw.physmem\necho kept > /kept.txt\n")
out = lines(r.stdout)
booted = "first-run-ok" in out
T.check("fresh clone: piped make qemu builds, boots, runs the lines and exits 0",
        r.returncode == 0 and booted, expected="status 0 and a line first-run-ok", got=tail(r))
physmem = [int(ln) for ln in out if re.fullmatch(r"\d{6,}", ln)]
T.check("make qemu: the root is on a disk, so hw.physmem is nearly all of MEM",
        len(physmem) == 1 and 0.95 * MEM_MB * 2**20 < physmem[0] <= MEM_MB * 2**20,
        expected="one number between 95%% and 100%% of %d MB" % MEM_MB, got=physmem)
T.check("make qemu: GRUB loaded no root image (the root is da0)",
        "vfs_mountroot: mounted /dev/da0 on / (wdfs)" in out and not any(ln.startswith("md0:") for ln in out),
        expected="da0 mounted as the root, no md0", got=[ln for ln in out if "mountroot" in ln or "md0" in ln])
T.check("make qemu: GRUB printed no error", booted and not any("error:" in ln for ln in out),
        expected="a boot without an 'error:' line", got=[ln for ln in out if "error:" in ln] or tail(r))
T.check("make qemu reports the time to the shell prompt",
        re.search(r"^tools/run: shell prompt \d+\.\d s after QEMU started$", r.stderr, re.M) is not None,
        expected="tools/run: shell prompt N.N s after QEMU started", got=r.stderr[-400:])

r = make(["qemu"], "cat /kept.txt\n")
T.check("make qemu again: a file written in the last session is still on the root disk",
        r.returncode == 0 and "kept" in lines(r.stdout), expected="status 0 and a line kept", got=tail(r))

r = make(["qemu", "FRESH=1"], "test -f /kept.txt && echo still-there || echo gone\n")
out = lines(r.stdout)
T.check("make qemu FRESH=1 starts from a fresh copy of build/root.img",
        r.returncode == 0 and "gone" in out and "still-there" not in out,
        expected="status 0 and a line gone", got=tail(r))

r = make(["qemu"], "")
T.check("make qemu with empty input powers the guest off at its first prompt",
        r.returncode == 0 and "tools/run: end of input: powering the guest off" in r.stderr,
        expected="status 0 and the end-of-input line", got=tail(r))

if T.failed == 0:
    shutil.rmtree(WORK, ignore_errors=True)
T.done()
