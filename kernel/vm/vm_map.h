/*
 * A process's user address space (FreeBSD's struct vmspace, much simplified until the VM issue):
 *   [vm_taddr, vm_daddr)   program image from the ELF file (text, data, bss)
 *   [vm_daddr, vm_brk)     the heap, grown and shrunk by sbrk
 *   [vm_ssize below USERTOP, USERTOP)  the stack, grown on demand by vm_fault up to USTACKMAX
 * Pages are private, allocated zeroed when first mapped and copied on fork: wired pages in no
 * object (docs/vm.md) until the fault handler pages user memory.
 */
#ifndef _VM_VM_MAP_H_
#define _VM_VM_MAP_H_

#include "kern/types.h"

struct pmap;
struct proc;

struct vmspace {
	struct pmap *vm_pmap;
	vaddr_t      vm_taddr;      /* start of the program image */
	vaddr_t      vm_daddr;      /* start of the heap (end of the image, page-aligned) */
	vaddr_t      vm_brk;        /* current break */
	vaddr_t      vm_stack;      /* lowest mapped stack address */
};

struct vmspace *vmspace_alloc(void);
void            vmspace_free(struct vmspace *vm);
struct vmspace *vmspace_fork(struct vmspace *vm);        /* copy of every page, or NULL */
int             vm_map_zero(struct vmspace *vm, vaddr_t start, vaddr_t end);  /* 0 or ENOMEM */
int             vm_brk(struct vmspace *vm, intptr_t incr, vaddr_t *oldbrk);   /* 0, ENOMEM, EINVAL */
uint32_t        vmspace_size(struct vmspace *vm);        /* bytes of user memory */

#endif
