/*
 * vm_fault(p, va, fault_type): resolve a user page fault at va for an access of fault_type
 * (VM_PROT_READ or VM_PROT_WRITE): find the map entry, walk its object's shadow chain for the
 * page (paging it in from the file or swap), copy it on write when it belongs to a backing
 * object, or zero-fill a new one, and map it. Returns 0, or EFAULT when va is not mapped or
 * the access is not allowed (the trap handler then kills the process with SIGSEGV), ENXIO when
 * the page lies wholly past the end of the file the mapping shows (SIGBUS), EIO when the page
 * could not be read, or EINTR when the process was killed while it waited for memory. Sleeps.
 * Counts minor (no I/O) and major (page-in) faults in the process.
 * vm_fault_hold(vm, va, fault_type): the page at va in address space vm (not necessarily the
 * current one: exec builds the new image with it), faulted in if need be and held
 * (vm_page_unhold when done), or NULL if va is not mapped for that access.
 */
#ifndef _VM_VM_FAULT_H_
#define _VM_VM_FAULT_H_

#include "kern/types.h"
#include "vm/vm.h"

struct proc;
struct vmspace;
int       vm_fault(struct proc *p, vaddr_t va, vm_prot_t fault_type);
vm_page_t vm_fault_hold(struct vmspace *vm, vaddr_t va, vm_prot_t fault_type);

#endif
