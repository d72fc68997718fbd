"""test_boot: wdrain boots to a working shell with every design preset, 1 and 2 CPUs, and GRUB.

Boots every design preset of the kernel's table (wdrun.DESIGNS, kernel/kern/main.c) with 1 and
2 CPUs through QEMU -kernel, and each preset through the GRUB ISO; in each, checks that the kernel saw its command line
(`sysctl kern.bootargs`), that output and exit statuses come back through the harness,
and (once) that tools/run itself works end to end, and that a harness timeout and a
kernel panic (`sysctl debug.kdb.panic=1`) are reported as such instead of hanging, and a
line the shell rejects (status 2) or one that exits the shell (its status) without waiting
for the timeout.
Memory: hw.physmem in 32 MB and 1 GB guests, and hw.physmem/hw.usermem with the root on a
disk and on md0 (what README's RAM table states). tools/run -v notes the time to the prompt.
"""
# tests/run: timeout=900 about=58
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, GuestPanic, GuestTimeout, TestSet  # noqa: E402
import wdrun  # noqa: E402  (wdtest put tools/ on the path)

DESIGNS = wdrun.DESIGNS                # the kernel's preset table: a new preset is booted too
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

T = TestSet("boot")


def check_bootargs(g, tag, design):
    out, st = g.sh("sysctl kern.bootargs")
    T.check("%s: sysctl kern.bootargs shows design=%s" % (tag, design),
            st == 0 and ("design=" + design) in out.split(),
            expected="status 0, a word design=%s" % design, got="status %d, %s" % (st, out))


def check_shell(g, tag):
    out, st = g.sh("echo hello world")
    T.check("%s: echo prints its arguments" % tag, (out, st) == ("hello world\n", 0),
            expected="hello world\\n, status 0", got="%s, status %d" % (out, st))
    out, st = g.sh("false")
    T.check("%s: false exits 1" % tag, st == 1, expected=1, got=st)
    out, st = g.sh("true")
    T.check("%s: true exits 0" % tag, st == 0, expected=0, got=st)
    out, st = g.sh("echo a; echo b; false")
    T.check("%s: a command list runs in order, status of the last" % tag, (out, st) == ("a\nb\n", 1),
            expected="a\\nb\\n, status 1", got="%s, status %d" % (out, st))


def check_harness_timeout(g, tag):
    try:
        g.sh("sleep 5", timeout=1)
        T.check("%s: a command over its timeout raises GuestTimeout" % tag, False,
                expected="GuestTimeout", got="it returned")
    except GuestTimeout as e:
        T.check("%s: a command over its timeout raises GuestTimeout" % tag, e.seconds == 1,
                expected="after 1 s", got=e.message)
        lines = [ln for ln in e.dump.splitlines() if ln.startswith("^P")]
        sleeper = [ln for ln in lines if ln.split()[-1:] == ["sleep"]]
        T.check("%s: the timeout's ^P dump lists the processes (the sleeping command with its wait "
                "message), the buffer cache, the page queues and the disks" % tag,
                sleeper and " S " in sleeper[0] and "nanslp" in sleeper[0]
                and any(ln.startswith("^P bufs:") for ln in lines) and any(ln.startswith("^P vm:") for ln in lines)
                and any(ln.startswith("^P disk ") for ln in lines),
                expected="^P lines: sleep (S, nanslp), bufs:, vm:, disk", got=lines[:12])


def check_panic_reported(g, tag):
    try:
        g.sh("sysctl debug.kdb.panic=1")
        T.check("%s: a kernel panic raises GuestPanic" % tag, False, expected="GuestPanic", got="it returned")
    except GuestPanic as e:
        T.check("%s: a kernel panic raises GuestPanic with the panic line" % tag,
                "debug.kdb.panic requested" in e.panic_line,
                expected="panic: debug.kdb.panic requested ...", got=e.panic_line)


RUN_QUICK = 10      # seconds after the prompt: far below the 60 s timeout tools/run would wait out


def tools_run_timed(cmdline):
    """tools/run -v -- cmdline: (status, stdout, stderr, seconds from the shell prompt to the end)."""
    t0 = time.monotonic()
    r = subprocess.run([os.path.join(ROOT, "tools", "run"), "-v", "--", cmdline], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", timeout=180)
    total = time.monotonic() - t0
    m = re.search(r"^tools/run: shell prompt (\d+\.\d) s after QEMU started$", r.stderr, re.M)
    return r.returncode, r.stdout, r.stderr, total - (float(m.group(1)) if m else 0)


def check_tools_run_endings():
    """A line the shell rejects, or one that ends the shell, ends tools/run at once."""
    for name, cmd, status, out, note in (
            ("a syntax error", "echo never; done", 2, 'sh: syntax error: "done" unexpected\n',
             "tools/run: the guest's shell gave up the command line (status 2)"),
            ("an unfinished line", "echo 'open", 2, "> \nsh: syntax error: unterminated quoted string\n",
             "tools/run: the guest's shell gave up the command line (status 2)"),
            ("exit 3", "echo hi; exit 3", 3, "hi\n",
             "tools/run: the command line ended the guest's shell (status 3)")):
        st, stdout, stderr, secs = tools_run_timed(cmd)
        T.check("tools/run: %s ends it at once with status %d and the shell's output" % (name, status),
                st == status and stdout == out and note in stderr and secs < RUN_QUICK,
                expected="status %d, %r, %r, under %d s after the prompt" % (status, out, note, RUN_QUICK),
                got="status %d, %r, %.1f s, ...%s" % (st, stdout, secs, stderr[-200:]))


def check_tools_run():
    r = subprocess.run([os.path.join(ROOT, "tools", "run"), "--", "echo one; echo two; false"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=180)
    T.check("tools/run prints the command's output and nothing else", r.stdout == "one\ntwo\n",
            expected="one\\ntwo\\n", got=r.stdout + r.stderr[-300:])
    T.check("tools/run exits with the status of the last command", r.returncode == 1,
            expected=1, got=r.returncode)
    r = subprocess.run([os.path.join(ROOT, "tools", "run"), "-v", "--", "true"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors="replace", timeout=180)
    T.check("tools/run -v notes the time from QEMU's start to the shell prompt",
            r.returncode == 0 and re.search(r"^tools/run: shell prompt \d+\.\d s after QEMU started$", r.stderr, re.M),
            expected="status 0 and 'tools/run: shell prompt N.N s after QEMU started'",
            got="%d and ...%s" % (r.returncode, r.stderr[-300:]))
    r = subprocess.run([os.path.join(ROOT, "tools", "run"), "--", "sysctl debug.kdb.panic=1"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=180)
    T.check("tools/run reports a guest panic with exit status 125",
            r.returncode == 125 and "tools/run: guest panicked: panic: debug.kdb.panic" in r.stderr,
            expected="125 and 'tools/run: guest panicked: panic: debug.kdb.panic...'",
            got="%d and %s" % (r.returncode, r.stderr[:300]))


for smp in (1, 2):
    for design in DESIGNS:
        tag = "smp=%d %s" % (smp, design)
        with Guest(smp=smp, design=design) as g:
            check_bootargs(g, tag, design)
            check_shell(g, tag)
            if smp == 1 and design == DESIGNS[0]:
                check_harness_timeout(g, tag)
            if smp == 2 and design == DESIGNS[1]:
                check_panic_reported(g, tag)

for design in DESIGNS:
    tag = "GRUB ISO %s" % design
    with Guest(iso=True, design=design) as g:
        check_bootargs(g, tag, design)
        out, st = g.sh("echo grub")
        T.check("%s: the shell answers" % tag, (out, st) == ("grub\n", 0),
                expected="grub\\n, status 0", got="%s, status %d" % (out, st))

# The memory range README.md "How much RAM the guest has" promises: the kernel runs in 32 MB
# (root on a disk: a memory-disk root would not fit) and uses up to at least 1 GB.
for mem, disks in ((32, 1), (1024, 0)):
    tag = "%d MB" % mem
    with Guest(mem=mem, smp=2, disks=disks) as g:
        out, st = g.sh("sysctl -n hw.physmem")
        physmem = int(out) if st == 0 and out.strip().isdigit() else 0
        T.check("%s: hw.physmem is most of the RAM" % tag, 0.8 * mem * 2**20 < physmem <= mem * 2**20,
                expected="between 80%% and 100%% of %d MB" % mem, got=out.strip())
        out, st = g.sh("usertests fork_wait sbrk pipe_data")
        T.check("%s: processes, memory and pipes work" % tag, st == 0,
                expected="usertests status 0", got="status %d: %s" % (st, out[-300:]))

# README "How much RAM the guest has": with the root on md0 the root image's pages are not the
# kernel's, so hw.physmem is that much lower than with the root on a disk; hw.usermem (the pages
# not wired, today the free ones) is below hw.physmem and, at an idle prompt, most of it.
IMAGE = os.path.getsize(os.path.join(ROOT, "build", "root.img"))
physmem = {}
for root in ("disk", "md"):
    tag = "128 MB, root on %s" % root
    with Guest(root=root) as g:
        out, st = g.sh("sysctl -n hw.physmem hw.usermem")
        words = out.split()
        ok = st == 0 and len(words) == 2 and all(w.isdigit() for w in words)
        phys, user = (int(words[0]), int(words[1])) if ok else (0, 0)
        physmem[root] = phys
        T.check("%s: 0.9 * hw.physmem < hw.usermem < hw.physmem at the prompt" % tag, 0.9 * phys < user < phys,
                expected="two numbers, the second a little below the first", got=out.strip())
# (Within 1 MB: the boot loader's own structures fall in or out of the reserved range.)
T.check("hw.physmem: a root on md0 costs the guest the root image's size",
        abs(physmem["disk"] - physmem["md"] - IMAGE) <= 1 << 20,
        expected="%d bytes, within 1 MB" % IMAGE, got=physmem["disk"] - physmem["md"])

check_tools_run()
check_tools_run_endings()
T.done()
