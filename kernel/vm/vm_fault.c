/*
 * The page-fault handler (see vm_fault.h), after FreeBSD 4.x vm/vm_fault.c: look the address
 * up in the map, then walk the shadow chain of the entry's object from the front ("first")
 * object down:
 *   - a resident page ends the walk (wait if it is busy, then retry the whole fault);
 *   - an object whose pager has the page (a file, swap) pages it in, into that object;
 *   - otherwise go to the backing object; at the end of the chain, zero-fill a page in the
 *     first object (demand zero: heap, stack, bss, anonymous mmap).
 * A page found below the first object is copied into the first object on a write (copy on
 * write) and mapped read-only on a read, so the first write comes back here. An entry that
 * still needs its copy gets its shadow object on the first write (vm_object_shadow).
 * A page wholly past the end of the file a mapping shows is not there to fault in, shared or
 * private, unless a private copy of it was made before the file shrank: the fault fails with
 * ENXIO and the process gets SIGBUS (POSIX.1-2017 mmap(); FreeBSD 4's vm_fault() fails such a
 * pindex >= object->size with KERN_PROTECTION_FAILURE, which its trap_pfault turns into SIGBUS).
 * The part of the last page past EOF is zeros (vnode_pager_setsize, the file system's getpages).
 * A page-in brings the faulting page's neighbours with it when the pager can read them in the
 * same request (fault_cluster). The pages stay on the page queues (active), mapped by the pmap,
 * not wired.
 */
#include "vm/vm_fault.h"
#include "vm/vm_map.h"
#include "vm/vm_object.h"
#include "vm/vm_pager.h"
#include "vm/vm_pageout.h"
#include "arch/pmap.h"
#include "arch/memlayout.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/sleep.h"
#include <sys/errno.h>

/* Outcome of looking for the page in one object. */
enum lookup { FOUND, NEXT, RETRY };

/*
 * Page-in clustering: the read-behind and read-ahead of FreeBSD's vm/vm_fault.c
 * (VM_FAULT_READ_BEHIND 7, VM_FAULT_READ_AHEAD 8; the same values in DragonFly's vm_fault.c,
 * which forked from FreeBSD 4.8; wdrain reads behind and ahead for every mapping, as FreeBSD
 * does for MADV_NORMAL ones).
 */
#define VM_FAULT_READ_BEHIND 7
#define VM_FAULT_READ_AHEAD  8
#define VM_FAULT_READ        (VM_FAULT_READ_BEHIND + 1 + VM_FAULT_READ_AHEAD)

/* A neighbour worth reading with a fault: not resident, and the pager has it. Lock held. */
static bool fault_neighbour(vm_object_t obj, vm_pindex_t pindex)
{
	return vm_page_lookup_locked(obj, pindex) == NULL && vm_pager_has_page(obj, pindex);
}

/*
 * fault_cluster (FreeBSD's vm_fault_additional_pages): around the busy new page m at (obj,
 * pindex), allocate busy pages for the neighbours the pager has, up to VM_FAULT_READ_BEHIND
 * before and VM_FAULT_READ_AHEAD after, stopping at a resident page, one the pager lacks, or a
 * failed allocation, so ma[0..count) are consecutive pindexes. Returns count; *reqpage is m's
 * index. No neighbours when free and cache pages could not spare them all above
 * v_free_reserved: then the pagedaemon is woken and m comes in alone, as in FreeBSD. The pager
 * reads only the neighbours it can fetch in m's request; fault_cluster_release sorts them out.
 */
static int fault_cluster(vm_object_t obj, vm_pindex_t pindex, vm_page_t m, vm_page_t *ma,
                         int *reqpage)
{
	int behind = 0, ahead = 0;

	spin_lock(&vm_page_queue_lock);
	if (vm_page_avail() > vmcnt.v_free_reserved + VM_FAULT_READ) {
		while (behind < VM_FAULT_READ_BEHIND && pindex > (vm_pindex_t)behind &&
		       fault_neighbour(obj, pindex - (vm_pindex_t)behind - 1))
			behind++;
		while (ahead < VM_FAULT_READ_AHEAD && fault_neighbour(obj, pindex + (vm_pindex_t)ahead + 1))
			ahead++;
	} else {
		pagedaemon_wakeup();
	}
	spin_unlock(&vm_page_queue_lock);

	vm_page_t before[VM_FAULT_READ_BEHIND];
	int nb = 0, count = 0;
	while (nb < behind && (before[nb] = vm_page_alloc(obj, pindex - (vm_pindex_t)nb - 1,
	                                                  VM_ALLOC_NORMAL)) != NULL)
		nb++;
	while (nb > 0)
		ma[count++] = before[--nb];
	*reqpage = count;
	ma[count++] = m;
	for (int i = 1; i <= ahead; i++) {
		if ((ma[count] = vm_page_alloc(obj, pindex + (vm_pindex_t)i, VM_ALLOC_NORMAL)) == NULL)
			break;
		count++;
	}
	return count;
}

/*
 * After the pager: the neighbours it read go to the inactive queue (the first the pageout
 * daemon reclaims if no one touches them; FreeBSD's vnode pager does the same with read-ahead
 * pages), the ones it left not valid are freed. The faulting page stays busy.
 */
static void fault_cluster_release(vm_page_t *ma, int count, int reqpage)
{
	for (int i = 0; i < count; i++) {
		if (i == reqpage)
			continue;
		if (ma[i]->valid) {
			vm_page_deactivate(ma[i]);
			vm_page_wakeup(ma[i]);
		} else {
			vm_page_free(ma[i]);       /* wakes anyone who waited for it: it is gone */
		}
	}
}

/*
 * Look for (obj, pindex): resident and not busy → busy it, FOUND; busy → sleep, RETRY;
 * absent but the pager has it → allocate, page it in with its neighbours, FOUND (or RETRY after
 * VM_WAIT);
 * otherwise NEXT. *major counts a page-in; *error is set when the page-in failed.
 */
static enum lookup fault_lookup(vm_object_t obj, vm_pindex_t pindex, vm_page_t *mp, bool *major,
                               int *error)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_t m = vm_page_lookup_locked(obj, pindex);
	if (m != NULL) {
		if ((m->flags & PG_BUSY) || m->busy) {
			m->flags |= PG_WANTED;
			msleep(m, &vm_page_queue_lock, 0, "vmpfw", 0);
			spin_unlock(&vm_page_queue_lock);
			return RETRY;
		}
		m->flags |= PG_BUSY;
		if (m->queue == PQ_CACHE)
			vm_page_activate_locked(m);    /* in use again: not the allocator's to reuse */
		spin_unlock(&vm_page_queue_lock);
		if (m->valid) {
			*mp = m;
			return FOUND;
		}
		vm_page_wakeup(m);                 /* an invalid page (truncated, or a failed read) */
		vm_page_free(m);
		return RETRY;
	}
	bool paged = vm_pager_has_page(obj, pindex);
	spin_unlock(&vm_page_queue_lock);
	if (!paged)
		return NEXT;
	m = vm_page_alloc(obj, pindex, VM_ALLOC_NORMAL);
	if (m == NULL) {
		if (vm_page_alloc_raced(obj, pindex))
			return RETRY;                  /* another fault put it there: look again */
		VM_WAIT;
		if (proc_killed())
			*error = EINTR;
		return RETRY;
	}
	vm_page_t ma[VM_FAULT_READ];
	int reqpage, count = fault_cluster(obj, pindex, m, ma, &reqpage);
	int rv = vm_pager_get_pages(obj, ma, count, reqpage);
	fault_cluster_release(ma, count, reqpage);
	if (rv != VM_PAGER_OK) {
		vm_page_free(m);
		*error = EIO;
		return RETRY;
	}
	*major = true;
	*mp = m;
	return FOUND;
}

/*
 * A new valid page for (obj, pindex), busy, zeroed if `zero`; NULL after a VM_WAIT, or when
 * another fault put a page there first (retry either way).
 */
static vm_page_t fault_page_alloc(vm_object_t obj, vm_pindex_t pindex, bool zero)
{
	vm_page_t m = vm_page_alloc(obj, pindex, VM_ALLOC_NORMAL);
	if (m == NULL) {
		if (!vm_page_alloc_raced(obj, pindex))
			VM_WAIT;
		return NULL;
	}
	if (zero) {
		vm_page_zero_fill(m);
		vmcnt.v_zfod++;
	}
	m->valid = VM_PAGE_BITS_ALL;
	return m;
}

/* The fault itself, in address space vm; *major tells whether it paged in. */
static int fault_vmspace(struct vmspace *vm, vaddr_t va, vm_prot_t fault_type, bool *major)
{
	if (vm == NULL || va >= USERTOP)
		return EFAULT;
	va &= ~PAGE_MASK;
	for (;;) {
		struct vm_map_entry *e = vm_map_lookup_entry(vm, va);
		if (e == NULL || (fault_type & ~e->protection))
			return EFAULT;
		if ((e->eflags & MAP_ENTRY_NEEDS_COPY) && (fault_type & VM_PROT_WRITE)) {
			vm_object_shadow(&e->object, &e->offset, (e->end - e->start) >> PAGE_SHIFT);
			e->eflags &= ~MAP_ENTRY_NEEDS_COPY;
		}
		if (e->object == NULL)
			e->object = vm_object_allocate(OBJT_DEFAULT, (e->end - e->start) >> PAGE_SHIFT);
		vm_object_t first = e->object, obj = first;
		vm_pindex_t first_pindex = OFF_TO_IDX(e->offset + (va - e->start)), pindex = first_pindex;
		vm_page_t m = NULL;
		int error = 0;
		enum lookup r;
		while ((r = fault_lookup(obj, pindex, &m, major, &error)) == NEXT && obj->backing_object) {
			pindex += OFF_TO_IDX(obj->backing_object_offset);
			obj = obj->backing_object;
		}
		if (error)
			return error;
		if (r == RETRY)
			continue;
		vm_prot_t prot = e->protection;
		if (r == NEXT && obj->type == OBJT_VNODE)
			return ENXIO;                          /* a whole page past the end of the file */
		if (r == NEXT) {                           /* end of the chain: demand zero */
			m = fault_page_alloc(first, first_pindex, true);
			if (m == NULL && proc_killed())
				return EINTR;
			if (m == NULL)
				continue;
			obj = first;
		}
		if (obj != first) {
			if (fault_type & VM_PROT_WRITE) {      /* copy on write */
				vm_page_t copy = fault_page_alloc(first, first_pindex, false);
				if (copy == NULL) {
					vm_page_wakeup(m);
					if (proc_killed())
						return EINTR;
					continue;
				}
				vm_page_copy(m, copy);
				vm_page_activate(m);           /* while still busy: nobody can free it */
				vm_page_wakeup(m);
				m = copy;
				vmcnt.v_cow_faults++;
			} else {
				prot &= ~VM_PROT_WRITE;
			}
		}
		if (e->eflags & MAP_ENTRY_NEEDS_COPY)
			prot &= ~VM_PROT_WRITE;
		if ((prot & VM_PROT_WRITE) && first->type == OBJT_VNODE) {
			spin_lock(&vm_page_queue_lock);
			first->flags |= OBJ_MIGHTBEDIRTY;
			spin_unlock(&vm_page_queue_lock);
		}
		pmap_enter(vm->vm_pmap, va, m, prot);
		if (fault_type & VM_PROT_WRITE)
			vm_page_dirty(m);
		vm_page_activate(m);
		vm_page_wakeup(m);
		vmcnt.v_vm_faults++;
		if (obj != first)
			vm_object_collapse(first);
		return 0;
	}
}

int vm_fault(struct proc *p, vaddr_t va, vm_prot_t fault_type)
{
	bool major = false;
	int error = fault_vmspace(p->p_vmspace, va, fault_type, &major);
	if (error == 0 && major)
		p->p_majflt++;
	else if (error == 0)
		p->p_minflt++;
	return error;
}

vm_page_t vm_fault_hold(struct vmspace *vm, vaddr_t va, vm_prot_t fault_type)
{
	bool write = (fault_type & VM_PROT_WRITE) != 0, major;
	for (int tries = 0; tries < 4; tries++) {
		vm_page_t m = pmap_extract_and_hold(vm->vm_pmap, va & ~PAGE_MASK, write);
		if (m != NULL)
			return m;
		if (fault_vmspace(vm, va, fault_type, &major) != 0)
			return NULL;
	}
	return NULL;                                   /* paged out again each time: give up */
}
