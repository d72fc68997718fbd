/*
 * Process identity: getpid(2), getppid(2); process groups: setpgid(2), getpgrp(2).
 * A process group is what the console's ^C signals (its foreground group, TIOCSPGRP): an
 * interactive shell puts each job it waits for in a group of its own. wdrain has no sessions,
 * so setpgid's rules are FreeBSD's without them: a process may move itself or one of its
 * children, into a group of its own (pgid = its pid) or one that exists.
 */
#include "kern/proc.h"
#include "kern/syscall.h"
#include "kern/proc_internal.h"
#include <sys/errno.h>

int sys_getpid(register_t *args, register_t *rv)
{
	*rv = curproc->p_pid;
	return 0;
}

int sys_getppid(register_t *args, register_t *rv)
{
	struct proc *pp = curproc->p_pptr;
	*rv = pp ? pp->p_pid : 0;
	return 0;
}

/* setpgid(pid, pgid): 0 for pid is the caller, 0 for pgid is the process's own pid. */
int sys_setpgid(register_t *args, register_t *rv)
{
	pid_t pid = (pid_t)args[0], pgid = (pid_t)args[1];
	struct proc *me = curproc, *target = NULL;
	int error = 0;

	if (pgid < 0)
		return EINVAL;
	spin_lock(&proc_lock);
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++)
		if (p->p_stat != PRS_UNUSED && p->p_stat != PRS_ZOMBIE &&
		    p->p_pid == (pid ? pid : me->p_pid) && (p == me || p->p_pptr == me))
			target = p;
	if (target == NULL) {
		error = ESRCH;
	} else {
		if (pgid == 0)
			pgid = target->p_pid;
		bool exists = pgid == target->p_pid;
		for (struct proc *p = proc_table; p < &proc_table[NPROC] && !exists; p++)
			exists = p->p_stat != PRS_UNUSED && p->p_stat != PRS_ZOMBIE && p->p_pgid == pgid;
		if (exists)
			target->p_pgid = pgid;
		else
			error = EPERM;
	}
	spin_unlock(&proc_lock);
	*rv = 0;
	return error;
}

int sys_getpgrp(register_t *args, register_t *rv)
{
	spin_lock(&proc_lock);
	*rv = curproc->p_pgid;
	spin_unlock(&proc_lock);
	return 0;
}
