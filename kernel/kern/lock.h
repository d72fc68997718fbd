/*
 * Locks.
 *   struct spinlock - busy-waiting mutual exclusion; disables interrupts on this CPU while held
 *       (so an interrupt handler taking the same lock cannot deadlock). Held only briefly; never
 *       sleep while holding one (msleep releases the one it is given). A holder with a long walk
 *       to do calls spin_pause every so often: interrupts get in, and a CPU spinning for the lock
 *       gets it first (the lock itself is not fair).
 *   struct sleeplock - a lock that may be held across sleeps (disk I/O): a waiter sleeps with the
 *       lock's name as its wait message, so `ps` shows what it waits for. It is fair: waiters are
 *       served first come, first served, and a release with waiters hands the lock straight to
 *       the longest waiter, so the releaser cannot take it back before that waiter has run (it
 *       queues behind it). Every vnode/inode lock, the file offset lock and the pipe, devfs,
 *       ccd and wdfs mount locks are sleep locks, so none of them can starve a process
 *       (docs/kernel.md "Sleep locks").
 * Interrupt nesting: spin_lock/spin_unlock keep a per-CPU count (xv6's pushcli/popcli); interrupts
 * come back on only when the outermost lock is released and they were on before.
 * INVARIANTS (the default build; FreeBSD's option of that name): a sleep lock taken again by its
 * holder or released by another process panics, and each process counts the sleep locks it
 * holds, so a system call that returns to user mode still holding one panics at once
 * (lock_assert_none_held, kern_syscall.c) instead of deadlocking someone later.
 */
#ifndef _KERN_LOCK_H_
#define _KERN_LOCK_H_

#include "kern/types.h"

struct cpu;

struct spinlock {
	volatile uint32_t locked;
	const char       *name;
	struct cpu       *cpu;     /* holder, for debugging and spin_held() */
	volatile uint32_t spinning; /* CPUs waiting for it (spin_pause lets them in) */
};

void spin_init(struct spinlock *lk, const char *name);
void spin_lock(struct spinlock *lk);
void spin_unlock(struct spinlock *lk);
void spin_pause(struct spinlock *lk);      /* held: let a waiting CPU have it, then take it again */
bool spin_held(struct spinlock *lk);
void pushcli(void);
void popcli(void);

struct sleeplock {
	bool            locked;    /* held, or handed to a waiter that has not run yet */
	struct spinlock lk;        /* protects this structure */
	const char     *name;      /* also the wait message, so keep it short (<= 7 chars shows in full) */
	int             pid;       /* holder; 0 while handed over and not yet taken */
	uint32_t        tickets;   /* waiters so far: the next waiter's ticket */
	uint32_t        served;    /* waiters handed the lock so far: tickets below it have had their turn */
};

void sleeplock_init(struct sleeplock *sl, const char *name);
void sleeplock_acquire(struct sleeplock *sl);
void sleeplock_release(struct sleeplock *sl);
bool sleeplock_tryacquire(struct sleeplock *sl);  /* take it if free, never sleep */
bool sleeplock_held(struct sleeplock *sl);   /* held by the current process */
void lock_assert_none_held(const char *where); /* INVARIANTS: no spin or sleep lock held here */

#endif
