/* Process identity: getpid(2), getppid(2). */
#include "kern/proc.h"
#include "kern/syscall.h"

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
