/* Shared between the kern_*.c files that manage processes; not an interface for the rest. */
#ifndef _KERN_PROC_INTERNAL_H_
#define _KERN_PROC_INTERNAL_H_

#include "kern/proc.h"
#include "kern/lock.h"

extern struct proc proc_table[NPROC];
extern struct spinlock proc_lock;
extern struct proc *initproc;

void sched(void);                 /* proc_lock held: switch to the scheduler */
void forkret(void);               /* first code a new process runs in the kernel */

#endif
