/*
 * The physical allocator: the free frames of RAM as a binary buddy system (runs of 2^order
 * contiguous frames, order 0 .. VM_NFREEORDER-1), FreeBSD 8+'s vm_phys in miniature. It is the
 * PQ_FREE queue of vm_page.h: every page in a free block has queue == PQ_FREE, and the
 * allocator's own state (which pages head free blocks, of what order; which allocated pages
 * head a run) is kept in m->pstate and m->order, never inferred from m->queue.
 *
 *   vm_phys_add_page(m)          - a frame joins the allocator at boot.
 *   vm_phys_alloc_pages(order)   - 2^order contiguous pages, taken off PQ_FREE (queue PQ_NONE,
 *                                  the first PHYS_RUNHEAD, the rest PHYS_ALLOC), or NULL.
 *   vm_phys_free_pages(m)        - give back the run m heads (its order is remembered),
 *                                  merging with free buddies.
 *   vm_phys_count_free()         - walk the free lists, checking every block: the number of
 *                                  free pages, or -1 if a list is corrupt (vm_meter's check).
 * Locking: vm_page_queue_lock held for all of them; v_free_count changes with it.
 */
#ifndef _VM_VM_PHYS_H_
#define _VM_VM_PHYS_H_

#include "vm/vm_page.h"

#define VM_NFREEORDER 11              /* runs of 1 page .. 4 MB */

/* m->pstate */
#define PHYS_UNMANAGED 0              /* not RAM, or the kernel's own (image, page array) */
#define PHYS_FREEHEAD  1              /* first page of a free block of 2^order pages */
#define PHYS_FREE      2              /* another page of a free block */
#define PHYS_RUNHEAD   3              /* first page of an allocated run of 2^order pages */
#define PHYS_ALLOC     4              /* another page of an allocated run */

void      vm_phys_add_page(vm_page_t m);
vm_page_t vm_phys_alloc_pages(int order);
void      vm_phys_free_pages(vm_page_t m);
long      vm_phys_count_free(void);

#endif
