/* User address spaces (see vm_map.h) and the page-fault handler (vm_fault.h). */
#include "vm/vm_map.h"
#include "vm/vm_fault.h"
#include "arch/pmap.h"
#include "arch/memlayout.h"
#include "kern/kmalloc.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "vm/vm_page.h"
#include <sys/errno.h>

struct vmspace *vmspace_alloc(void)
{
	struct vmspace *vm = kmalloc(sizeof(*vm), M_WAITOK | M_ZERO);
	vm->vm_pmap = pmap_create();
	vm->vm_taddr = vm->vm_daddr = vm->vm_brk = USERBASE;
	vm->vm_stack = USERTOP;
	return vm;
}

void vmspace_free(struct vmspace *vm)
{
	pmap_destroy(vm->vm_pmap);
	kfree(vm);
}

/*
 * A user page: a wired page in no object (until the fault handler pages user memory, a
 * process's pages stay resident), or NULL when an ordinary allocation must fail (ENOMEM).
 */
static vm_page_t user_page_alloc(void)
{
	vm_page_t m = vm_page_alloc(NULL, 0, VM_ALLOC_NORMAL);
	if (m == NULL)
		return NULL;
	vm_page_wire(m);
	vm_page_wakeup(m);
	return m;
}

int vm_map_zero(struct vmspace *vm, vaddr_t start, vaddr_t end)
{
	/* A request that cannot fit in free memory fails at once instead of draining it all. */
	if ((end - (start & ~PAGE_MASK)) / PAGE_SIZE > vm_page_avail())
		return ENOMEM;
	for (vaddr_t va = start & ~PAGE_MASK; va < end; va += PAGE_SIZE) {
		if (pmap_extract(vm->vm_pmap, va, false))
			continue;
		vm_page_t m = user_page_alloc();
		if (m == NULL)
			return ENOMEM;
		vm_page_zero_fill(m);
		pmap_enter(vm->vm_pmap, va, VM_PAGE_TO_PHYS(m), VM_PROT_READ | VM_PROT_WRITE);
	}
	return 0;
}

/* Copy the pages of [start, end) from one address space into another. */
static int copy_range(struct vmspace *from, struct vmspace *to, vaddr_t start, vaddr_t end)
{
	for (vaddr_t va = start; va < end; va += PAGE_SIZE) {
		paddr_t pa = pmap_extract(from->vm_pmap, va, false);
		if (pa == 0)
			continue;
		vm_page_t m = user_page_alloc();
		if (m == NULL)
			return ENOMEM;
		memcpy(P2V(VM_PAGE_TO_PHYS(m)), P2V(pa), PAGE_SIZE);
		pmap_enter(to->vm_pmap, va, VM_PAGE_TO_PHYS(m), VM_PROT_READ | VM_PROT_WRITE);
	}
	return 0;
}

struct vmspace *vmspace_fork(struct vmspace *vm)
{
	struct vmspace *n = vmspace_alloc();
	n->vm_taddr = vm->vm_taddr;
	n->vm_daddr = vm->vm_daddr;
	n->vm_brk = vm->vm_brk;
	n->vm_stack = vm->vm_stack;
	if (copy_range(vm, n, vm->vm_taddr, roundup(vm->vm_brk, PAGE_SIZE)) ||
	    copy_range(vm, n, vm->vm_stack, USERTOP)) {
		vmspace_free(n);
		return NULL;
	}
	return n;
}

int vm_brk(struct vmspace *vm, intptr_t incr, vaddr_t *oldbrk)
{
	vaddr_t old = vm->vm_brk;
	*oldbrk = old;
	if (incr == 0)
		return 0;
	if (incr < 0) {
		if ((vaddr_t)-incr > old - vm->vm_daddr)
			return EINVAL;
		vaddr_t nbrk = old + incr;
		pmap_remove(vm->vm_pmap, roundup(nbrk, PAGE_SIZE), roundup(old, PAGE_SIZE));
		vm->vm_brk = nbrk;
		return 0;
	}
	/* Leave a gap of at least a page below the stack's furthest extent. */
	if ((vaddr_t)incr > USERTOP - USTACKMAX - PAGE_SIZE - old)
		return ENOMEM;
	vaddr_t nbrk = old + incr;
	int error = vm_map_zero(vm, roundup(old, PAGE_SIZE), roundup(nbrk, PAGE_SIZE));
	if (error) {
		pmap_remove(vm->vm_pmap, roundup(old, PAGE_SIZE), roundup(nbrk, PAGE_SIZE));
		return error;
	}
	vm->vm_brk = nbrk;
	return 0;
}

uint32_t vmspace_size(struct vmspace *vm)
{
	return vm->vm_pmap->pm_resident * PAGE_SIZE;
}

int vm_fault(struct proc *p, vaddr_t va, bool write)
{
	struct vmspace *vm = p->p_vmspace;
	if (vm == NULL || va >= USERTOP || va < USERTOP - USTACKMAX)
		return EFAULT;
	if (pmap_extract(vm->vm_pmap, va, false))
		return EFAULT;                    /* mapped: a protection fault */
	vaddr_t page = va & ~PAGE_MASK;
	if (vm_map_zero(vm, page, vm->vm_stack))
		return EFAULT;
	vm->vm_stack = page;
	return 0;
}
