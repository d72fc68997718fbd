/*
 * vm_fault(p, va, write): resolve a user page fault at va, or return EFAULT (the caller then
 * delivers SIGSEGV). For now it grows the stack; the VM issue adds demand paging and copy-on-write.
 */
#ifndef _VM_VM_FAULT_H_
#define _VM_VM_FAULT_H_

#include "kern/types.h"

struct proc;
int vm_fault(struct proc *p, vaddr_t va, bool write);

#endif
