/* Spinlocks and sleep locks (see lock.h). */
#include "kern/lock.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/sleep.h"
#include "kern/sysctl.h"
#include "kern/time.h"
#include "arch/cpu.h"
#include "arch/x86.h"
#include "arch/pmap.h"

#define SPIN_PAUSE_WAIT_NS 1000000ull  /* spin_pause's wait for a spinning CPU: 1 ms */

void spin_init(struct spinlock *lk, const char *name)
{
	lk->locked = 0;
	lk->name = name;
	lk->cpu = NULL;
}

void spin_lock(struct spinlock *lk)
{
	pushcli();
	if (spin_held(lk))
		panic("spin_lock: %s already held by this CPU", lk->name ? lk->name : "?");
	if (xchg(&lk->locked, 1) != 0) {
		__atomic_add_fetch(&lk->spinning, 1, __ATOMIC_SEQ_CST);
		while (xchg(&lk->locked, 1) != 0) {
			pmap_spin_poll();          /* a TLB shootdown must not wait for us (arch/pmap.h) */
			pause();
		}
		__atomic_sub_fetch(&lk->spinning, 1, __ATOMIC_SEQ_CST);
	}
	__sync_synchronize();
	lk->cpu = mycpu();
}

void spin_unlock(struct spinlock *lk)
{
	if (!spin_held(lk))
		panic("spin_unlock: %s not held", lk->name ? lk->name : "?");
	lk->cpu = NULL;
	__sync_synchronize();
	__asm__ volatile("movl $0, %0" : "+m"(lk->locked) : : "memory");
	popcli();
}

/*
 * A long holder's pause: release lk, let interrupts in, and if another CPU was spinning for lk,
 * give it up to 1 ms to take it first (the lock is not fair: without the wait the holder's own
 * xchg right after the release usually wins; under TCG the waiter's virtual CPU may not even be
 * running on the host at that moment), then take lk again. Returns with lk held.
 */
void spin_pause(struct spinlock *lk)
{
	bool contended = __atomic_load_n(&lk->spinning, __ATOMIC_SEQ_CST) != 0;
	spin_unlock(lk);
	if (contended) {
		uint64_t t0 = nanouptime();
		while (!lk->locked && lk->spinning && nanouptime() - t0 < SPIN_PAUSE_WAIT_NS)
			pause();
	}
	spin_lock(lk);
}

bool spin_held(struct spinlock *lk)
{
	pushcli();
	bool r = lk->locked && lk->cpu == mycpu();
	popcli();
	return r;
}

void pushcli(void)
{
	uint32_t eflags = read_eflags();
	cli();
	struct cpu *c = mycpu();
	if (c->ncli == 0)
		c->intena = (eflags & FL_IF) != 0;
	c->ncli++;
}

void popcli(void)
{
	if (read_eflags() & FL_IF)
		panic("popcli: interrupts enabled");
	struct cpu *c = mycpu();
	if (--c->ncli < 0)
		panic("popcli: unbalanced");
	if (c->ncli == 0 && c->intena)
		sti();
}

void sleeplock_init(struct sleeplock *sl, const char *name)
{
	spin_init(&sl->lk, "sleeplock");
	sl->name = name;
	sl->locked = false;
	sl->pid = 0;
	sl->tickets = 0;
	sl->served = 0;
}

/* The lock is the current process's now: note it (lk held). */
static void sleeplock_own(struct sleeplock *sl)
{
	struct proc *p = curproc;

	sl->pid = p ? p->p_pid : 0;
	if (p)
		p->p_sleeplocks++;
}

/*
 * Take sl, sleeping until it is ours. A free lock is taken at once (a free lock has no
 * waiters: a release with waiters hands it over instead of freeing it). Otherwise the process
 * draws the next ticket and sleeps until a release has served every ticket up to its own, i.e.
 * handed the lock to it; then it is already marked locked on this process's behalf. Waiters
 * are thus served in arrival order, and no one can slip in between a release and the waiter's
 * run: that is what keeps a process that releases and re-takes the lock in a loop (a writer,
 * one system call after another) from starving the others on one CPU.
 */
void sleeplock_acquire(struct sleeplock *sl)
{
	struct proc *p = curproc;

	spin_lock(&sl->lk);
#ifdef INVARIANTS
	if (sl->locked && p != NULL && sl->pid == p->p_pid)
		panic("sleeplock %s: acquired again by process %d, which holds it", sl->name, p->p_pid);
#endif
	if (!sl->locked) {
		sl->locked = true;
	} else {
		uint32_t ticket = sl->tickets++;
		while ((int32_t)(sl->served - ticket) <= 0)    /* wraps safely: fewer than 2^31 waiters */
			msleep(sl, &sl->lk, 0, sl->name, 0);
	}
	sleeplock_own(sl);
	spin_unlock(&sl->lk);
}

/* Take sl only if it is free (so never ahead of a waiter); never sleeps. */
bool sleeplock_tryacquire(struct sleeplock *sl)
{
	spin_lock(&sl->lk);
	bool got = !sl->locked;
	if (got) {
		sl->locked = true;
		sleeplock_own(sl);
	}
	spin_unlock(&sl->lk);
	return got;
}

/*
 * Release sl: with waiters, serve the next ticket (the lock stays locked, now the longest
 * waiter's, and every waiter wakes to see whose turn it is); without, free it.
 */
void sleeplock_release(struct sleeplock *sl)
{
	struct proc *p = curproc;

	spin_lock(&sl->lk);
#ifdef INVARIANTS
	if (!sl->locked || sl->pid != (p ? p->p_pid : 0))
		panic("sleeplock %s: released by process %d but %s", sl->name, p ? p->p_pid : 0,
		      sl->locked ? "another holds it" : "it is not held");
#endif
	if (p)
		p->p_sleeplocks--;
	sl->pid = 0;
	if (sl->served != sl->tickets) {
		sl->served++;
		wakeup(sl);
	} else {
		sl->locked = false;
	}
	spin_unlock(&sl->lk);
}

bool sleeplock_held(struct sleeplock *sl)
{
	spin_lock(&sl->lk);
	bool r = sl->locked && curproc && sl->pid == curproc->p_pid;
	spin_unlock(&sl->lk);
	return r;
}

/* INVARIANTS: called where no lock may be held, e.g. on the way back to user mode. */
void lock_assert_none_held(const char *where)
{
#ifdef INVARIANTS
	struct proc *p = curproc;

	pushcli();
	int ncli = mycpu()->ncli - 1;
	popcli();
	if (ncli != 0)
		panic("%s: %d spin locks held", where, ncli);
	if (p != NULL && p->p_sleeplocks != 0)
		panic("%s: process %d (%s) holds %d sleep locks", where, p->p_pid, p->p_comm, p->p_sleeplocks);
#else
	(void)where;
#endif
}

#ifdef INVARIANTS
/* debug.invariants.leak_sleeplock=1 returns to user mode holding a sleep lock: the check panics. */
static int leak_sleeplock_handler(struct sysctl_req *req)
{
	static struct sleeplock leaked = { .name = "leaked", .lk = { .name = "leaked" } };
	int v = 0;
	int error = sysctl_handle_int(req, &v);

	if (error || req->newptr == NULL || v == 0)
		return error;
	sleeplock_acquire(&leaked);
	return 0;
}
SYSCTL_PROC(debug_invariants_leak, "debug.invariants.leak_sleeplock", CTLTYPE_INT | CTLFLAG_RW, NULL, 0,
            leak_sleeplock_handler, "I", "Set to return to user mode holding a sleep lock (tests INVARIANTS)");
#endif
