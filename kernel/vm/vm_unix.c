/* sbrk(2): grow or shrink the heap; returns the old break. */
#include "kern/proc.h"
#include "kern/syscall.h"
#include "vm/vm_map.h"

int sys_sbrk(register_t *args, register_t *rv)
{
	vaddr_t old;
	int error = vm_brk(curproc->p_vmspace, (intptr_t)args[0], &old);
	if (error == 0)
		*rv = old;
	return error;
}
