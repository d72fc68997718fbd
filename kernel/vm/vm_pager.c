/*
 * Pager dispatch by object type (see vm_pager.h).
 */
#include "vm/vm_pager.h"
#include "vm/vnode_pager.h"
#include "vm/swap_pager.h"
#include "kern/klib.h"

bool vm_pager_has_page(vm_object_t obj, vm_pindex_t pindex)
{
	switch (obj->type) {
	case OBJT_VNODE:
		return vnode_pager_haspage(obj, pindex);
	case OBJT_SWAP:
		return swap_pager_haspage(obj, pindex);
	default:
		return false;
	}
}

int vm_pager_get_pages(vm_object_t obj, vm_page_t *m, int count, int reqpage)
{
	switch (obj->type) {
	case OBJT_VNODE:
		return vnode_pager_getpages(obj, m, count, reqpage);
	case OBJT_SWAP:
		return swap_pager_getpages(obj, m, count, reqpage);
	default:
		return VM_PAGER_FAIL;
	}
}

void vm_pager_put_pages(vm_object_t obj, vm_page_t *m, int count, int flags, int *rtvals)
{
	switch (obj->type) {
	case OBJT_VNODE:
		vnode_pager_putpages(obj, m, count, flags, rtvals);
		return;
	case OBJT_DEFAULT:
	case OBJT_SWAP:
		swap_pager_putpages(obj, m, count, flags, rtvals);
		return;
	}
}
