/* fork(2): a copy of the calling process (address space, descriptors, cwd, credentials). */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/proc_internal.h"
#include "kern/syscall.h"
#include "kern/file.h"
#include "arch/trap.h"
#include "vm/vm_map.h"
#include "vfs/vnode.h"
#include <sys/errno.h>

int sys_fork(register_t *args, register_t *rv)
{
	struct proc *parent = curproc;
	struct proc *p = proc_alloc();
	if (p == NULL)
		return EAGAIN;
	p->p_vmspace = vmspace_fork(parent->p_vmspace);
	if (p->p_vmspace == NULL) {
		proc_free(p);
		return ENOMEM;
	}
	p->p_fd = fdcopy(parent->p_fd);
	if (p->p_fd == NULL) {
		vmspace_free(p->p_vmspace);
		proc_free(p);
		return ENOMEM;
	}
	p->p_cwd = parent->p_cwd;
	if (p->p_cwd)
		vref(p->p_cwd);
	*p->p_tf = *parent->p_tf;
	p->p_tf->eax = 0;                     /* the child sees fork() return 0 */
	memcpy(p->p_comm, parent->p_comm, sizeof(p->p_comm));
	p->p_flag = parent->p_flag & ~P_SYSTEM;
	sigacts_fork(p, parent);
	spin_lock(&proc_lock);
	p->p_pptr = parent;
	p->p_pgid = parent->p_pgid;
	p->p_ucred = parent->p_ucred;
	p->p_stat = PRS_RUNNABLE;
	spin_unlock(&proc_lock);
	*rv = p->p_pid;
	return 0;
}
