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

/*
 * Zero what lies past byte `size` in the page holding it, if that page is resident and valid:
 * the part of a file's last page past EOF. A store through a MAP_SHARED mapping may have put
 * bytes there (POSIX lets it, and says they are not the file's). The page is busy while it is
 * zeroed so no I/O sees it half done.
 */
static void zero_page_tail(vm_object_t obj, off_t size)
{
	if (!(size & PAGE_MASK))
		return;
	vm_page_t m = busy_lookup(obj, OFF_TO_IDX(size));
	if (m == NULL)
		return;
	if (m->valid)
		memset((char *)P2V(VM_PAGE_TO_PHYS(m)) + (size & PAGE_MASK), 0, PAGE_SIZE - (size & PAGE_MASK));
	vm_page_wakeup(m);
}

/*
 * The file's size changes. On a shrink the pages past the new end go and the new last page's
 * tail is zeroed, so it reads as zeros if the file grows again. On a growth the old last page's
 * tail is zeroed: it becomes file data now (a truncate up, or the gap before an extending
 * write), and what a mapping stored there must not show. The file system calls this before it
 * puts a write's data past the old end (wdfs_write), so the zeroing never meets new data.
 */
void vnode_pager_setsize(struct vnode *vp, off_t size)
{
	vm_object_t obj = vp->v_object;
	if (obj == NULL || size == obj->un_pager.vnp.vnp_size)
		return;
	if (size < obj->un_pager.vnp.vnp_size) {
		vm_object_page_remove(obj, size_to_pages(size), 0, false);
		zero_page_tail(obj, size);
	} else {
		zero_page_tail(obj, obj->un_pager.vnp.vnp_size);
	}
	obj->un_pager.vnp.vnp_size = size;
	obj->size = size_to_pages(size);
}

/*
 * A page of a file is about to be written to the disk (vmio_write_prep, its mappings already
 * write-protected): zero its bytes past EOF, so the disk never holds what a mapping stored
 * there. Linux's block_write_full_page zeroes the page straddling i_size at every write-out
 * for the same reason. vnp_size is read without the vnode lock, as vnode_pager_haspage does:
 * the file system sets it before it puts a write's data past the old end, so the data in a
 * buffer never lies past the size read here.
 */
void vnode_pager_zero_eof(vm_page_t m)
{
	vm_object_t obj = m->object;
	if (obj == NULL || obj->type != OBJT_VNODE)
		return;
	off_t size = obj->un_pager.vnp.vnp_size, start = IDX_TO_OFF(m->pindex);
	if (start + PAGE_SIZE <= size)
		return;
	size_t keep = size > start ? (size_t)(size - start) : 0;
	memset((char *)P2V(VM_PAGE_TO_PHYS(m)) + keep, 0, PAGE_SIZE - keep);
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
