/*
 * Physical pages: one struct vm_page per 4 KB frame of usable RAM (FreeBSD's vm_page_t).
 * For now the pages are handed out by a buddy allocator (runs of 2^order contiguous frames);
 * the VM issue adds objects and the FREE/CACHE/INACTIVE/ACTIVE queues on the same structure.
 *
 *   vm_page_startup(...)     - build the page array from the multiboot memory map, leaving out the
 *                              kernel image, the boot modules and the first megabyte.
 *   vm_page_alloc_run(order) - 2^order physically contiguous pages, or NULL. Never sleeps.
 *   vm_page_free_run(m)      - give back a run (m is its first page; the order is remembered).
 *   PHYS_TO_VM_PAGE(pa), VM_PAGE_TO_PHYS(m)
 * Locking: vm_page_queue_free_lock (a spinlock in vm_page.c) protects the free lists and counts.
 */
#ifndef _VM_VM_PAGE_H_
#define _VM_VM_PAGE_H_

#include "kern/types.h"

#define VM_NFREEORDER 11              /* runs of 1 page .. 4 MB */

/* Page queues (FreeBSD 4.x); only PQ_NONE and PQ_FREE are used until the VM issue. */
enum pqueue { PQ_NONE, PQ_FREE, PQ_CACHE, PQ_INACTIVE, PQ_ACTIVE, PQ_COUNT };

struct vm_object;

struct vm_page {
	paddr_t           phys_addr;
	uint16_t          flags;          /* PG_* */
	uint8_t           queue;          /* enum pqueue */
	uint8_t           order;          /* PQ_FREE run head, or allocated run head: its order */
	uint16_t          wire_count;
	uint16_t          kmsize;         /* kmalloc bucket size when PG_KMEM, else 0 */
	struct vm_object *object;
	uint32_t          pindex;
	struct vm_page   *next, *prev;    /* free list (or, later, page queue) links */
	void             *kmfree;         /* kmalloc bucket page: its free chunk list */
	uint16_t          kmused;         /* kmalloc bucket page: chunks handed out */
};

#define PG_RUNHEAD  0x0001            /* first page of an allocated run */
#define PG_KMEM     0x0002            /* holds kmalloc bucket chunks */

extern struct vm_page *vm_page_array;
extern uint32_t vm_page_array_size;
extern paddr_t  vm_page_base;         /* physical address of vm_page_array[0] */
extern uint32_t physmem_pages;        /* usable pages managed here */
extern uint32_t v_free_count;         /* pages on the free lists */

struct multiboot_info;
void vm_page_startup(const struct multiboot_info *mbi, const paddr_t (*reserved)[2], int nreserved);
struct vm_page *vm_page_alloc_run(int order);
void            vm_page_free_run(struct vm_page *m);

static inline struct vm_page *PHYS_TO_VM_PAGE(paddr_t pa)
{
	uint32_t i = (pa - vm_page_base) >> 12;
	return i < vm_page_array_size ? &vm_page_array[i] : NULL;
}
#define VM_PAGE_TO_PHYS(m) ((m)->phys_addr)

#endif
