/*
 * The scheduler and sleep/wakeup (FreeBSD's kern_synch.c).
 *
 * Each CPU runs scheduler(): it picks the next RUNNABLE process round-robin from the process
 * table and swtch()es to it; the process comes back through sched() when it sleeps, yields or
 * exits. The timer preempts a process that has run for a full time slice (sched_tick sets
 * cpu->resched; trap() then calls sched_yield()). A process that wakes from a sleep runs before
 * the others, and makes the CPU that woke it switch on its way back to user space
 * (need_resched), so it does not wait for the rest of the running process's slice. Among the
 * others, the one that used the least CPU lately goes first (p_estcpu_ns, pick_next).
 *
 * msleep/tsleep/wakeup: see sleep.h. Timeouts are checked on every tick of CPU 0.
 * Locking: proc_lock protects every process's p_stat and sleep fields. A process gives up the CPU
 * only with proc_lock held (and no other spinlock); the scheduler releases it after the switch.
 */
#include "vm/vm_page.h"
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/proc.h"
#include "kern/sleep.h"
#include "kern/sysctl.h"
#include "kern/time.h"
#include "kern/watchdog.h"
#include "arch/cpu.h"
#include "arch/x86.h"
#include "arch/pmap.h"
#include "arch/context.h"
#include "vm/vm_map.h"
#include "kern/proc_internal.h"
#include <sys/errno.h>

#define SLICE_TICKS 2                   /* 20 ms time slice */
#define DECAY_TICKS 100                 /* p_estcpu_ns halves every second */

static int next_slot;                   /* round-robin position (proc_lock) */
static uint32_t slice_ticks[NCPU];      /* ticks the current process has run on each CPU */

static void account_switch_out(struct proc *p)
{
	uint64_t ran = nanouptime() - p->p_switchtime;
	p->p_runtime += ran;
	p->p_estcpu_ns += ran;
}

/* Switch from the current process to this CPU's scheduler. proc_lock held, and nothing else. */
void sched(void)
{
	struct proc *p = curproc;
	struct cpu *c = mycpu();
	if (!spin_held(&proc_lock))
		panic("sched: proc_lock not held");
	if (c->ncli != 1)
		panic("sched: %d locks held (%s)", c->ncli, p->p_comm);
	if (p->p_stat == PRS_RUNNING)
		panic("sched: process %d still running", p->p_pid);
	if (read_eflags() & FL_IF)
		panic("sched: interrupts enabled");
	bool intena = c->intena;
	account_switch_out(p);
	swtch(&p->p_context, c->scheduler);
	mycpu()->intena = intena;
}

/*
 * The next process to run, scanning the process table from the round-robin position: the
 * first woken one if woken_only (a woken process jumps the queue without moving the position,
 * so the turn passes on as if it had not run), else the one that used the least CPU lately
 * (p_estcpu_ns; the first of equals), and the position moves past it.
 */
static struct proc *scan_runnable(bool woken_only)
{
	struct proc *best = NULL;
	int best_slot = 0;
	for (int i = 0; i < NPROC; i++) {
		int slot = (next_slot + i) % NPROC;
		struct proc *p = &proc_table[slot];
		if (p->p_stat != PRS_RUNNABLE)
			continue;
		if (woken_only) {
			if (p->p_woken)
				return p;
		} else if (best == NULL || p->p_estcpu_ns < best->p_estcpu_ns) {
			best = p;
			best_slot = slot;
		}
	}
	if (best != NULL)
		next_slot = best_slot + 1;
	return best;
}

/*
 * A process that has just ended a sleep goes before the others: BSD's sleeper holds the kernel
 * priority it slept at until it returns to user space (need_resched, below). It loses that on
 * the way back to user space or when its slice runs out, so a process that sleeps often cannot
 * keep the CPU from the others for long.
 *
 * Among the others, the one that used the least CPU lately: p_estcpu_ns, the nanoseconds it ran,
 * halved every second (decay_estcpu). This is BSD's p_estcpu, which lowers a process's user
 * priority by the CPU it used recently and forgets it at a rate set by the load (4.4BSD-Lite2
 * sys/kern/kern_synch.c 8.9, schedcpu/resetpriority); wdrain counts nanoseconds where BSD
 * counts statclock ticks, and halves where BSD decays by 2*load/(2*load+1). Two CPU-bound
 * processes still take turns (the one that ran has the larger count), and one that waited
 * long enough always comes first. Why it matters: a process that had to give the CPU to a
 * woken one on its way back to user space (a disk interrupt woke a kernel thread during its
 * system call) took its next turn in round-robin order, often after a CPU-bound writer's whole
 * 20 ms slice, sometimes two (docs/kernel.md "Least CPU first").
 */
static struct proc *pick_next(void)
{
	struct proc *p = scan_runnable(true);
	return p != NULL ? p : scan_runnable(false);
}

/*
 * kern.cp_idle_ns: nanoseconds the CPUs have spent halted in scheduler() with nothing to run,
 * summed over CPUs (each CPU adds its own idle_ns after each hlt). Finer than kern.cp_time's
 * ticks, which only see the CPU's state at each 10 ms interrupt: tools/experiment's sampler
 * reads it to tell a trial whose CPU was never idle (it measured the emulated CPU, not the
 * disks; docs/harness.md "Trials you can trust"). Another CPU's 64-bit counter may change
 * between the two halves of a 32-bit read, so each is read until two reads agree.
 */
static int sysctl_cp_idle_ns(struct sysctl_req *req)
{
	int64_t ns = 0;
	for (int i = 0; i < ncpu; i++) {
		volatile uint64_t *p = &cpus[i].idle_ns;
		uint64_t a, b;
		do {
			a = *p;
			b = *p;
		} while (a != b);
		ns += (int64_t)a;
	}
	return sysctl_handle_quad(req, &ns);
}
SYSCTL_PROC(kern_cp_idle_ns, "kern.cp_idle_ns", CTLTYPE_QUAD | CTLFLAG_RD, NULL, 0, sysctl_cp_idle_ns, "Q",
            "Nanoseconds the CPUs spent idle (halted in the scheduler), summed over CPUs");

void scheduler(void)
{
	struct cpu *c = mycpu();
	c->proc = NULL;
	for (;;) {
		sti();
		watchdog_pass();
		spin_lock(&proc_lock);
		struct proc *p = pick_next();
		if (p == NULL) {
			spin_unlock(&proc_lock);
			uint64_t t0 = nanouptime();
			hlt();                      /* until the next interrupt */
			c->idle_ns += nanouptime() - t0;
			continue;
		}
		c->proc = p;
		c->resched = false;
		c->want_resched = false;
		slice_ticks[c->index] = 0;
		p->p_stat = PRS_RUNNING;
		p->p_cpu = c;
		p->p_lastcpu = c->index;
		p->p_switchtime = nanouptime();
		pmap_activate(p->p_vmspace ? p->p_vmspace->vm_pmap : NULL, (uint32_t)p->p_kstack + KSTACKSIZE);
		vmcnt.v_swtch++;
		swtch(&c->scheduler, p->p_context);
		pmap_activate(NULL, 0);
		c->proc = NULL;
		spin_unlock(&proc_lock);
	}
}

void sched_yield(void)
{
	spin_lock(&proc_lock);
	curproc->p_woken = false;
	curproc->p_stat = PRS_RUNNABLE;
	sched();
	spin_unlock(&proc_lock);
}

/* End timed sleeps whose time has come. proc_lock held. */
static void sleep_timeouts(void)
{
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++) {
		if (p->p_stat == PRS_SLEEPING && p->p_slptimeout && (int32_t)(ticks - p->p_slptimeout) >= 0) {
			p->p_slpresult = EWOULDBLOCK;
			setrunnable(p);
		}
	}
}


/* pick_next forgets half of what each process ran, every second. proc_lock held. */
static void decay_estcpu(void)
{
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++)
		p->p_estcpu_ns /= 2;
}

void sched_tick(void)
{
	struct cpu *c = mycpu();
	if (c->index == 0) {
		spin_lock(&proc_lock);
		sleep_timeouts();
		if (ticks % DECAY_TICKS == 0)
			decay_estcpu();
		spin_unlock(&proc_lock);
	}
	struct proc *p = c->proc;
	if (p == NULL)
		return;
	if (++slice_ticks[c->index] >= SLICE_TICKS)
		c->resched = true;
}

/*
 * A sleeper woke: the process running on this CPU gives up the CPU when it next returns to
 * user space (sched_userret), not at the end of its slice. This is 4.4BSD's rule, which FreeBSD
 * kept: wakeup() asks for a reschedule because a sleeper wakes with the kernel priority it slept
 * at, better than any process's user priority (4.4BSD-Lite2 sys/kern/kern_synch.c 8.9, wakeup();
 * FreeBSD's text of late 2000, maybe_resched(), read in dmgerman/unix-history-token at
 * 019805e7), and the switch waits for the AST on the way back to user space. wdrain has no
 * priorities: "woke from a sleep" (p_woken) is the whole of the kernel priority. A kernel
 * thread never returns to user space, so only its slice preempts it.
 */
static void need_resched(void)
{
	struct cpu *c = mycpu();
	if (c->proc != NULL)
		c->want_resched = true;
}

void setrunnable(struct proc *p)
{
	p->p_stat = PRS_RUNNABLE;
	p->p_wchan = NULL;
	p->p_slptimeout = 0;
	p->p_woken = true;
	need_resched();
}

/* On the way back to user space: the kernel priority ends, and the CPU goes if it must. */
void sched_userret(struct proc *p)
{
	struct cpu *c = mycpu();

	p->p_woken = false;
	if (c->resched || c->want_resched)
		sched_yield();
}

int msleep(void *chan, struct spinlock *lk, int flags, const char *wmesg, int timo)
{
	struct proc *p = curproc;
	if (p == NULL)
		panic("msleep(%s) with no process", wmesg);
	if (lk != &proc_lock) {
		spin_lock(&proc_lock);
		if (lk)
			spin_unlock(lk);
	}
	int result = 0;
	if ((flags & PCATCH) && sig_pending(p))
		result = EINTR;
	else {
		p->p_wchan = chan;
		p->p_wmesg = wmesg;
		p->p_slpflags = flags;
		p->p_slpresult = 0;
		p->p_slptimeout = timo > 0 ? ticks + timo : 0;
		if (p->p_slptimeout == 0 && timo > 0)
			p->p_slptimeout = 1;
		p->p_stat = PRS_SLEEPING;
		sched();
		p->p_wchan = NULL;
		result = p->p_slpresult;
	}
	if (lk != &proc_lock) {
		spin_unlock(&proc_lock);
		if (lk)
			spin_lock(lk);
	}
	return result;
}

int tsleep(void *chan, int flags, const char *wmesg, int timo)
{
	return msleep(chan, NULL, flags, wmesg, timo);
}

static void wakeup_n(void *chan, bool one)
{
	bool held = spin_held(&proc_lock);
	if (!held)
		spin_lock(&proc_lock);
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++) {
		if (p->p_stat == PRS_SLEEPING && p->p_wchan == chan) {
			p->p_slpresult = 0;
			setrunnable(p);
			if (one)
				break;
		}
	}
	if (!held)
		spin_unlock(&proc_lock);
}

void wakeup(void *chan)
{
	wakeup_n(chan, false);
}

void wakeup_one(void *chan)
{
	wakeup_n(chan, true);
}
