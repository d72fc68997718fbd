/* Spinlocks and sleep locks (see lock.h). */
#include "kern/lock.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/sleep.h"
#include "arch/cpu.h"
#include "arch/x86.h"
#include "arch/pmap.h"

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
	while (xchg(&lk->locked, 1) != 0) {
		pmap_spin_poll();              /* a TLB shootdown must not wait for us (arch/pmap.h) */
		pause();
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
}

void sleeplock_acquire(struct sleeplock *sl)
{
	spin_lock(&sl->lk);
	while (sl->locked)
		msleep(sl, &sl->lk, 0, sl->name, 0);
	sl->locked = true;
	sl->pid = curproc ? curproc->p_pid : 0;
	spin_unlock(&sl->lk);
}

void sleeplock_release(struct sleeplock *sl)
{
	spin_lock(&sl->lk);
	sl->locked = false;
	sl->pid = 0;
	wakeup(sl);
	spin_unlock(&sl->lk);
}

bool sleeplock_held(struct sleeplock *sl)
{
	spin_lock(&sl->lk);
	bool r = sl->locked && curproc && sl->pid == curproc->p_pid;
	spin_unlock(&sl->lk);
	return r;
}
