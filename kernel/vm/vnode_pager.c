/*
 * The vnode pager (see vnode_pager.h): one OBJT_VNODE object per regular file.
 */
#include "vm/vnode_pager.h"
#include "vm/vm_pager.h"
#include "kern/klib.h"
#include "arch/memlayout.h"
#include "kern/sleep.h"
#include "vfs/vnode.h"

static vm_pindex_t size_to_pages(off_t size)
{
	return (vm_pindex_t)OFF_TO_IDX(size + PAGE_MASK);
}

vm_object_t vnode_pager_alloc(struct vnode *vp, off_t size)
{
	if (vp->v_object != NULL)
		return vp->v_object;
	vm_object_t obj = vm_object_allocate(OBJT_VNODE, size_to_pages(size));
	obj->ref_count = 0;                /* the vnode itself holds no reference (see the header) */
	obj->handle = vp;
	obj->un_pager.vnp.vnp_size = size;
	vp->v_object = obj;
	return obj;
}

void vnode_pager_dealloc(struct vnode *vp)
{
	vm_object_t obj = vp->v_object;
	if (obj == NULL)
		return;
	vm_object_page_clean(obj, 0, 0, OBJPC_SYNC);   /* dirty mmap'd data must reach the file */
	vp->v_object = NULL;
	vm_object_terminate(obj);
}

/* The resident page at pindex, made busy (waiting out other users), or NULL. */
static vm_page_t busy_lookup(vm_object_t obj, vm_pindex_t pindex)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_t m;
	while ((m = vm_page_lookup_locked(obj, pindex)) != NULL && ((m->flags & PG_BUSY) || m->busy)) {
		m->flags |= PG_WANTED;
		msleep(m, &vm_page_queue_lock, 0, "vnpset", 0);
	}
	if (m != NULL)
		m->flags |= PG_BUSY;
	spin_unlock(&vm_page_queue_lock);
	return m;
}

void vnode_pager_setsize(struct vnode *vp, off_t size)
{
	vm_object_t obj = vp->v_object;
	if (obj == NULL || size == obj->un_pager.vnp.vnp_size)
		return;
	if (size < obj->un_pager.vnp.vnp_size) {
		vm_object_page_remove(obj, size_to_pages(size), 0, false);
		if (size & PAGE_MASK) {
			/* The new last page: what lies past EOF must read back as zeros if the file
			 * grows again. The page is busy while it is zeroed so no I/O sees it half done. */
			vm_page_t m = busy_lookup(obj, OFF_TO_IDX(size));
			if (m != NULL && m->valid)
				memset((char *)P2V(VM_PAGE_TO_PHYS(m)) + (size & PAGE_MASK), 0,
				       PAGE_SIZE - (size & PAGE_MASK));
			if (m != NULL)
				vm_page_wakeup(m);
		}
	}
	obj->un_pager.vnp.vnp_size = size;
	obj->size = size_to_pages(size);
}

bool vnode_pager_haspage(vm_object_t obj, vm_pindex_t pindex)
{
	return IDX_TO_OFF(pindex) < obj->un_pager.vnp.vnp_size;
}

int vnode_pager_getpages(vm_object_t obj, vm_page_t *m, int count, int reqpage)
{
	int rv = VOP_GETPAGES(obj->handle, m, count, reqpage);
	vmcnt.v_vnodein++;
	for (int i = 0; i < count; i++)
		if (m[i]->valid)
			vmcnt.v_vnodepgsin++;
	return rv;
}

void vnode_pager_putpages(vm_object_t obj, vm_page_t *m, int count, int flags, int *rtvals)
{
	vmcnt.v_vnodeout++;
	vmcnt.v_vnodepgsout += count;
	VOP_PUTPAGES(obj->handle, m, count, flags, rtvals);
}
