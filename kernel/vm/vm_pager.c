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

/*
 * Every page-out goes through here (the pagedaemon's laundering, msync, fsync and the syncer's
 * object cleaning), so this is where v_pgpgout counts the pages a pager took: written (OK)
 * or in flight (PEND), to swap and to files alike.
 */
void vm_pager_put_pages(vm_object_t obj, vm_page_t *m, int count, int flags, int *rtvals)
{
	switch (obj->type) {
	case OBJT_VNODE:
		vnode_pager_putpages(obj, m, count, flags, rtvals);
		break;
	case OBJT_DEFAULT:
	case OBJT_SWAP:
		swap_pager_putpages(obj, m, count, flags, rtvals);
		break;
	default:
		return;
	}
	u_int out = 0;
	for (int i = 0; i < count; i++)
		if (rtvals[i] == VM_PAGER_OK || rtvals[i] == VM_PAGER_PEND)
			out++;
	vmcnt.v_pgpgout += out;
}
