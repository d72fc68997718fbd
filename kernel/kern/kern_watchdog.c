/*
 * kern_watchdog.c - the deadlock watchdog: a CPU that has not passed through its scheduler for
 * debug.watchdog.timeout seconds (10 by default, 0 = off) is stuck - spinning on a lock that
 * never comes free, or looping with interrupts off - and the kernel panics on that CPU, so the
 * panic prints the stuck CPU's trap frame and the stuck process's backtrace.
 *
 *   watchdog_pass()     - scheduler(), on every pass: this CPU is alive.
 *   watchdog_start()    - boot CPU, once every CPU is up: start the NMI source.
 *   watchdog_nmi(tf)    - trap(), for every NMI (vector 2): check or report.
 *   watchdog_stop()     - reboot(2) and panic: CPUs about to halt are not stuck.
 *
 * A stuck CPU has its interrupts off, so only an NMI reaches it. The source is the i8254's
 * channel 0, 18.2 times a second, routed by the IOAPIC to the boot CPU as an NMI
 * (arch: watchdog_arch_start). On each, the boot CPU compares every CPU's last pass with the
 * uptime (the TSC, which runs on even if CPU 0, the keeper of `ticks`, is the stuck one). It
 * reports itself at once; another CPU is marked and sent an NMI IPI, and reports itself from
 * its own NMI, with its own trap frame. Not in FreeBSD 4, which had no such thing; the idea is
 * that of FreeBSD's later software watchdog (sw_watchdog in kern_clock.c) and of Linux's NMI
 * watchdog, done the xv6 way: a stamp per CPU and a periodic check.
 *
 * debug.watchdog.hang=1 makes the writing process spin with interrupts off forever, to test it;
 * =2+N does so once the process runs on CPU N (it yields until the scheduler puts it there).
 * Locking: wd_stamp is written only by its own CPU and read by the boot CPU without a lock: it
 * is 32 bits (uptime in units of 2^20 ns, about 1 ms), so a read is never torn, and the age is
 * a signed difference, so a stamp newer than the reader's clock is young, not ancient.
 * wd_fire is set by the boot CPU and read by the marked CPU; watchdog_timeout is a plain int
 * written by sysctl.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/sysctl.h"
#include "kern/time.h"
#include "kern/watchdog.h"
#include "arch/cpu.h"
#include "arch/intr.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include <sys/errno.h>

#define NS_PER_S 1000000000ull
#define WD_SHIFT 20                   /* stamp unit: 2^20 ns */

static uint32_t wd_now(void)
{
	return (uint32_t)(nanouptime() >> WD_SHIFT);
}

/* Seconds since c last passed through its scheduler (negative: it just did, after `now`). */
static int32_t wd_age(struct cpu *c, uint32_t now)
{
	return (int32_t)((int64_t)(int32_t)(now - c->wd_stamp) * (1 << WD_SHIFT) / (int64_t)NS_PER_S);
}

static int watchdog_timeout = 10;
static volatile bool watchdog_armed;

SYSCTL_PROC(debug_watchdog_timeout, "debug.watchdog.timeout", CTLTYPE_INT | CTLFLAG_RW, &watchdog_timeout, 0,
            NULL, "I", "Seconds a CPU may go without scheduling before the watchdog panics (0 = off)");

extern struct trapframe *panic_tf;

void watchdog_pass(void)
{
	mycpu()->wd_stamp = wd_now();
}

void watchdog_start(void)
{
	uint32_t now = wd_now();

	for (int i = 0; i < ncpu; i++)
		cpus[i].wd_stamp = now;
	if (watchdog_arch_start() == 0) {
		watchdog_armed = true;
		kprintf("watchdog: a CPU that does not schedule for %d s panics (NMI from the i8254, 18.2 Hz)\n",
		        watchdog_timeout);
	}
}

void watchdog_stop(void)
{
	watchdog_armed = false;
}

/* On the stuck CPU, from its NMI: the trap frame is where it was stuck. */
static void __attribute__((noreturn)) watchdog_fire(struct trapframe *tf, struct cpu *c)
{
	struct proc *p = c->proc;

	watchdog_armed = false;
	panic_tf = tf;
	panic("watchdog: cpu %d has not scheduled for %d s (process %d, %s)", c->index, wd_age(c, wd_now()),
	      p ? p->p_pid : -1, p ? p->p_comm : "none");
}

void watchdog_nmi(struct trapframe *tf)
{
	struct cpu *self = mycpu();
	uint32_t now;

	if (self->wd_fire)
		watchdog_fire(tf, self);
	if (!watchdog_armed || watchdog_timeout <= 0 || self->index != 0)
		return;
	now = wd_now();
	for (int i = 0; i < ncpu; i++) {
		struct cpu *c = &cpus[i];

		if (!c->started || c->wd_fire || wd_age(c, now) < watchdog_timeout)
			continue;
		if (c == self)
			watchdog_fire(tf, c);
		c->wd_fire = true;
		lapic_nmi(c->apicid);
	}
}

/* debug.watchdog.hang: spin with interrupts off until the watchdog fires (tests). */
static void __attribute__((noinline, noreturn)) watchdog_hang(void)
{
	cli();
	for (;;)
		pause();
}

static int watchdog_hang_handler(struct sysctl_req *req)
{
	int v = 0;
	int error = sysctl_handle_int(req, &v);

	if (error || req->newptr == NULL)
		return error;
	if (v == 0)
		return 0;
	if (v >= 2) {
		uint64_t give_up = nanouptime() + 5 * NS_PER_S;
		if (v - 2 >= ncpu)
			return EINVAL;
		while (cpu_index() != v - 2) {
			if (nanouptime() > give_up)
				return EBUSY;
			sched_yield();
		}
	}
	kprintf("watchdog: process %d spins with interrupts off on cpu %d (debug.watchdog.hang)\n", curproc->p_pid,
	        cpu_index());
	watchdog_hang();
}
SYSCTL_PROC(debug_watchdog_hang, "debug.watchdog.hang", CTLTYPE_INT | CTLFLAG_RW, NULL, 0, watchdog_hang_handler,
            "I", "1: spin with interrupts off here; 2+N: on CPU N (for testing the watchdog)");
