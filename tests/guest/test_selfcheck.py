#!/usr/bin/env python3
"""test_selfcheck: the kernel's self-checks fire: the watchdog and the INVARIANTS lock checks.

The watchdog (kernel/kern/kern_watchdog.c), with debug.watchdog.timeout=2 on the command line:
an idle system that waits 3 s does not trip it; `sysctl debug.watchdog.hang=V` makes the process
spin with interrupts off (V=1 where it runs, V=2+N on CPU N), and within seconds the kernel
panics naming the stuck CPU and the process, with the trap frame (an NMI) at watchdog_hang and
a backtrace through sys_sysctl. Cases: 1 CPU (the boot CPU finds itself stuck through the
i8254's NMI), 2 CPUs with CPU 0 stuck (the same), 2 CPUs with CPU 1 stuck (the boot CPU sends it
an NMI IPI and CPU 1 reports itself). INVARIANTS (on in this build): a system call that returns
to user mode holding a sleep lock panics at once (debug.invariants.leak_sleeplock=1).
"""
# tests/run: timeout=300
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import Guest, GuestError, GuestPanic, TestSet  # noqa: E402

T = TestSet("selfcheck")
WATCHDOG_RE = re.compile(r"panic: watchdog: cpu (\d+) has not scheduled for (\d+) s \(process \d+, sysctl\)")


def expect_panic(tag, smp, args, before, cmd):
    """Boot, run `before` (checked to succeed), then `cmd`, which must panic. The GuestPanic, or None."""
    g = Guest(smp=smp, args=args, timeout=60)
    g.__enter__()
    try:
        if before:
            out, st = g.sh(before)
            T.check("%s: %s works first" % (tag, before), st == 0, expected="status 0", got="%d: %s" % (st, out))
        g.sh(cmd, timeout=30)
        T.check("%s: %s panics" % (tag, cmd), False, expected="a panic", got="the command returned")
    except GuestPanic as e:
        return e
    except GuestError as e:
        T.check("%s: %s panics" % (tag, cmd), False, expected="a panic", got=e.message)
    finally:
        g.vm.kill()
    return None


def watchdog(smp, hang, cpu):
    tag = "smp=%d, cpu %d stuck" % (smp, cpu)
    e = expect_panic(tag, smp, "debug.watchdog.timeout=2", "sleep 3; sysctl -n debug.watchdog.timeout",
                     "sysctl debug.watchdog.hang=%d" % hang)
    if e is None:
        return
    m = WATCHDOG_RE.search(e.console)
    T.check("%s: the watchdog panics naming cpu %d and the process" % (tag, cpu), m is not None and int(m.group(1)) == cpu,
            expected="panic: watchdog: cpu %d has not scheduled for 2 s (process P, sysctl)" % cpu, got=e.panic_line)
    tail = e.console[e.console.find("panic: watchdog"):]
    T.check("%s: with the stuck CPU's trap frame (an NMI) and the process's backtrace" % tag,
            "trap 2 (NMI)" in tail and "at watchdog_hang" in tail and "sys_sysctl" in tail,
            expected="trap 2 (NMI), at watchdog_hang, ... sys_sysctl", got=tail[:600])


watchdog(1, 1, 0)
watchdog(2, 2, 0)
watchdog(2, 3, 1)
e = expect_panic("INVARIANTS", 1, "", None, "sysctl debug.invariants.leak_sleeplock=1")
if e is not None:
    T.check("INVARIANTS: a sleep lock held on return to user mode panics",
            "panic: system call return: process" in e.panic_line and "holds 1 sleep locks" in e.panic_line,
            expected="panic: system call return: process N (sysctl) holds 1 sleep locks", got=e.panic_line)
T.done()
