/*
 * Pagers: where an object's pages come from and go to (FreeBSD's vm/vm_pager.h). An object's
 * type picks its pager: OBJT_VNODE the vnode pager (the file, through VOP_GETPAGES and
 * VOP_PUTPAGES), OBJT_SWAP the swap pager; OBJT_DEFAULT has nothing on a pager yet (its pages
 * start zero-filled) and becomes OBJT_SWAP when the swap pager first writes one out.
 *   vm_pager_has_page(obj, pindex)   - the pager holds a copy of that page (lock held)
 *   vm_pager_get_pages(obj, m, count, reqpage) - fill the busy page m[reqpage] from the backing
 *                                      store, and those of the pages around it, m[0..count)
 *                                      (consecutive pindexes), that the same read brings in;
 *                                      the others stay not valid (the caller frees them).
 *                                      VM_PAGER_OK (m[reqpage] is valid) or VM_PAGER_ERROR.
 *                                      Sleeps.
 *   vm_pager_put_pages(obj, m, count, flags, rtvals) - write the soft-busy pages; rtvals[i] is
 *                                      each page's result (VM_PAGER_OK: written and marked clean,
 *                                      VM_PAGER_PEND: in flight, the pager finishes it later).
 *                                      VM_PAGER_PUT_SYNC waits for the writes.
 */
#ifndef _VM_VM_PAGER_H_
#define _VM_VM_PAGER_H_

#include "vm/vm_object.h"

#define VM_PAGER_OK    0
#define VM_PAGER_BAD   1
#define VM_PAGER_FAIL  2
#define VM_PAGER_PEND  3
#define VM_PAGER_ERROR 4
#define VM_PAGER_AGAIN 5

#define VM_PAGER_PUT_SYNC 0x1

bool vm_pager_has_page(vm_object_t obj, vm_pindex_t pindex);
int  vm_pager_get_pages(vm_object_t obj, vm_page_t *m, int count, int reqpage);
void vm_pager_put_pages(vm_object_t obj, vm_page_t *m, int count, int flags, int *rtvals);

#endif
