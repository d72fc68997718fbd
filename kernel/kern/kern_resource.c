/* getrusage(2): CPU time and block I/O counts of the process or of its waited-for children. */
#include "kern/proc.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include <sys/errno.h>
#include <sys/resource.h>

int sys_getrusage(register_t *args, register_t *rv)
{
	int who = (int)args[0];
	struct rusage ru;
	struct proc *p = curproc;
	if (who == RUSAGE_SELF)
		proc_rusage(p, &ru);
	else if (who == RUSAGE_CHILDREN)
		ru = p->p_cru;
	else
		return EINVAL;
	return copyout(&ru, (void *)args[1], sizeof(ru));
}
