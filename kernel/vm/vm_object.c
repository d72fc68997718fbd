/*
 * VM objects (see vm_object.h). After FreeBSD 4.x vm/vm_object.c in names and contracts;
 * shadow chains and the pager operations arrive with the fault handler and the pagers.
 */
#include "vm/vm_object.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/sleep.h"
#include "vfs/vnode.h"
#include "vm/vm_pager.h"
#include "vm/swap_pager.h"
#include "vm/vm_pageout.h"
#include <sys/errno.h>

struct object_q vm_object_list = TAILQ_HEAD_INITIALIZER(vm_object_list);
int vm_object_count;
u_int vm_object_collapses;              /* backing objects merged away (approximate) */

void vm_object_init(void)
{
	vm_page_object_init();
}

vm_object_t vm_object_allocate(enum obj_type type, vm_pindex_t size)
{
	vm_object_t obj = kmalloc(sizeof(*obj), M_WAITOK | M_ZERO);
	TAILQ_INIT(&obj->memq);
	LIST_INIT(&obj->shadow_head);
	obj->type = type;
	obj->size = size;
	obj->ref_count = 1;
	spin_lock(&vm_page_queue_lock);
	TAILQ_INSERT_TAIL(&vm_object_list, obj, object_list);
	vm_object_count++;
	spin_unlock(&vm_page_queue_lock);
	return obj;
}

void vm_object_reference(vm_object_t obj)
{
	if (obj == NULL)
		return;
	spin_lock(&vm_page_queue_lock);
	obj->ref_count++;
	spin_unlock(&vm_page_queue_lock);
	if (obj->type == OBJT_VNODE)
		vref(obj->handle);
}

/*
 * Drop a reference. A vnode object lives on with its vnode (the reference was the vnode's too).
 * An anonymous object's last reference terminates it and then drops the reference it held on
 * its backing object, and so on down the chain. An object left with one reference, from its
 * only shadow, is collapsed into that shadow (FreeBSD 4.x vm_object_deallocate).
 */
void vm_object_deallocate(vm_object_t obj)
{
	while (obj != NULL) {
		spin_lock(&vm_page_queue_lock);
		KASSERT(obj->ref_count > 0, "vm_object_deallocate: no reference");
		int refs = --obj->ref_count;
		if (obj->type == OBJT_VNODE) {
			spin_unlock(&vm_page_queue_lock);
			vrele(obj->handle);
			return;
		}
		if (refs == 1 && obj->shadow_count == 1) {
			vm_object_t shadow = LIST_FIRST(&obj->shadow_head);
			shadow->ref_count++;                 /* kept alive while it collapses */
			spin_unlock(&vm_page_queue_lock);
			vm_object_collapse(shadow);
			obj = shadow;                        /* and drop that extra reference */
			continue;
		}
		if (refs > 0) {
			spin_unlock(&vm_page_queue_lock);
			return;
		}
		vm_object_t backing = obj->backing_object;
		if (backing != NULL) {
			LIST_REMOVE(obj, shadow_list);
			backing->shadow_count--;
			obj->backing_object = NULL;
		}
		spin_unlock(&vm_page_queue_lock);
		vm_object_terminate(obj);
		obj = backing;
	}
}

void vm_object_shadow(vm_object_t *objp, vm_ooffset_t *offset, vm_pindex_t size)
{
	vm_object_t src = *objp;
	spin_lock(&vm_page_queue_lock);
	bool private = src != NULL && src->ref_count == 1 && src->type != OBJT_VNODE;
	spin_unlock(&vm_page_queue_lock);
	if (private)
		return;
	vm_object_t res = vm_object_allocate(OBJT_DEFAULT, size);
	spin_lock(&vm_page_queue_lock);
	res->backing_object = src;
	res->backing_object_offset = *offset;
	if (src != NULL) {
		LIST_INSERT_HEAD(&src->shadow_head, res, shadow_list);
		src->shadow_count++;
	}
	spin_unlock(&vm_page_queue_lock);
	*objp = res;
	*offset = 0;
}

/* Can obj's backing object be merged into obj? Lock held. */
static bool collapsible(vm_object_t obj)
{
	vm_object_t b = obj->backing_object;
	if (b == NULL || b->type == OBJT_VNODE || b->ref_count != 1 || b->paging_in_progress ||
	    obj->paging_in_progress || (obj->flags & OBJ_DEAD))
		return false;
	vm_page_t m;
	TAILQ_FOREACH(m, &b->memq, listq)
		if ((m->flags & PG_BUSY) || m->busy || m->hold_count || m->wire_count)
			return false;
	return true;
}

/*
 * Merge backing objects into obj (FreeBSD 4.x vm_object_collapse without its "bypass" case):
 * while obj's backing object B is anonymous and obj holds its only reference, B's pages move up
 * into obj where obj has none of its own at that index, resident or on swap (they stay mapped:
 * the same frames), with their swap copies; B's pages only on swap follow where obj has
 * nothing; the rest are freed, and obj takes over B's backing object.
 */
void vm_object_collapse(vm_object_t obj)
{
	spin_lock(&vm_page_queue_lock);
	while (collapsible(obj)) {
		vm_object_t b = obj->backing_object;
		vm_pindex_t off = OFF_TO_IDX(obj->backing_object_offset);
		vm_page_t m, next;
		TAILQ_FOREACH_SAFE(m, &b->memq, listq, next) {
			vm_pindex_t bi = m->pindex, np = bi - off;
			if (bi < off || np >= obj->size || vm_page_lookup_locked(obj, np) != NULL ||
			    vm_pager_has_page(obj, np)) {
				vm_page_free_locked(m);         /* obj has its own (newer) copy */
				continue;
			}
			vm_page_remove(m);
			vm_page_insert(m, obj, np);
			swap_pager_move(b, bi, obj, np);    /* its swap copy goes along */
		}
		swap_pager_copy(b, obj, off);           /* the pages of b that are only on swap */
		LIST_REMOVE(obj, shadow_list);
		obj->backing_object = b->backing_object;
		obj->backing_object_offset += b->backing_object_offset;
		if (b->backing_object != NULL) {
			LIST_REMOVE(b, shadow_list);
			LIST_INSERT_HEAD(&b->backing_object->shadow_head, obj, shadow_list);
		}
		TAILQ_REMOVE(&vm_object_list, b, object_list);
		vm_object_count--;
		vm_object_collapses++;
		spin_unlock(&vm_page_queue_lock);
		kfree(b);
		spin_lock(&vm_page_queue_lock);
	}
	spin_unlock(&vm_page_queue_lock);
}

/*
 * Free the pages of [start, end) (end 0: all). A busy page is waited for and the walk starts
 * over (the list may have changed while asleep). Lock held on entry and exit.
 */
static void page_remove_locked(vm_object_t obj, vm_pindex_t start, vm_pindex_t end, bool clean_only)
{
	vm_page_t m, next;
again:
	TAILQ_FOREACH_SAFE(m, &obj->memq, listq, next) {
		if (m->pindex < start || (end != 0 && m->pindex >= end))
			continue;
		if ((m->flags & PG_BUSY) || m->busy) {
			m->flags |= PG_WANTED;
			msleep(m, &vm_page_queue_lock, 0, "vmopar", 0);
			goto again;
		}
		if (m->wire_count != 0 || m->hold_count != 0) {
			vm_page_protect_locked(m, VM_PROT_NONE);
			if (!clean_only)
				m->valid = m->dirty = 0;
			continue;
		}
		vm_page_test_dirty_locked(m);
		if (clean_only && m->dirty)
			continue;
		vm_page_free_locked(m);
	}
	if (!clean_only && obj->type == OBJT_SWAP && (end == 0 || end > start))
		swap_pager_freespace(obj, start, (end == 0 ? obj->size : end) - start);
}

void vm_object_page_remove(vm_object_t obj, vm_pindex_t start, vm_pindex_t end, bool clean_only)
{
	spin_lock(&vm_page_queue_lock);
	page_remove_locked(obj, start, end, clean_only);
	spin_unlock(&vm_page_queue_lock);
}

void vm_object_terminate(vm_object_t obj)
{
	spin_lock(&vm_page_queue_lock);
	KASSERT(obj->ref_count == 0, "vm_object_terminate: object still referenced");
	obj->flags |= OBJ_DEAD;
	page_remove_locked(obj, 0, 0, false);
	while (obj->paging_in_progress)
		msleep(obj, &vm_page_queue_lock, 0, "objtrm", 0);
	swap_pager_dealloc(obj);
	KASSERT(TAILQ_EMPTY(&obj->memq), "vm_object_terminate: wired pages left in a dead object");
	TAILQ_REMOVE(&vm_object_list, obj, object_list);
	vm_object_count--;
	spin_unlock(&vm_page_queue_lock);
	kfree(obj);
}

/* A page page_clean should write: resident, valid, dirty (after the pmap's word), not busy. */
static bool clean_candidate(vm_page_t m)
{
	if (m == NULL || (m->flags & PG_BUSY) || m->busy || !m->valid)
		return false;
	vm_page_test_dirty_locked(m);
	return m->dirty != 0;
}

/*
 * Write the dirty pages of [start, end) through the pager, in runs of up to
 * vm_pageout_page_count consecutive pages. Each run is soft-busied and write-protected before
 * the pager sees it (a write to it during the I/O faults and waits; afterwards the page can be
 * dirtied again). The vnode lock is held across each putpages, as the contract requires.
 * Returns 0 or EIO if some page could not be written (it stays dirty).
 */
int vm_object_page_clean(vm_object_t obj, vm_pindex_t start, vm_pindex_t end, int flags)
{
	if (obj->type != OBJT_VNODE)
		return 0;
	struct vnode *vp = obj->handle;
	vm_page_t run[VM_PAGEOUT_PAGE_COUNT];
	int rtvals[VM_PAGEOUT_PAGE_COUNT], error = 0;
	int max = MIN(vm_pageout_page_count, (int)nitems(run));
	sleeplock_acquire(&vp->v_lock);
	vm_pindex_t pi = start;
	for (;;) {
		spin_lock(&vm_page_queue_lock);
		vm_pindex_t lim = end == 0 || end > obj->size ? obj->size : end;
		while (pi < lim && !clean_candidate(vm_page_lookup_locked(obj, pi)))
			pi++;
		int n = 0;
		while (pi < lim && n < max && clean_candidate(vm_page_lookup_locked(obj, pi))) {
			vm_page_t m = vm_page_lookup_locked(obj, pi++);
			m->busy++;
			vm_page_protect_locked(m, VM_PROT_READ);
			run[n++] = m;
		}
		spin_unlock(&vm_page_queue_lock);
		if (n == 0)
			break;
		vm_pager_put_pages(obj, run, n, (flags & OBJPC_SYNC) ? VM_PAGER_PUT_SYNC : 0, rtvals);
		for (int i = 0; i < n; i++) {
			if (rtvals[i] != VM_PAGER_OK && rtvals[i] != VM_PAGER_PEND)
				error = EIO;
			if (rtvals[i] != VM_PAGER_PEND)
				vm_page_io_finish(run[i]);
		}
	}
	sleeplock_release(&vp->v_lock);
	return error;
}

/* No page of obj is dirty or writable-mapped any more. Lock held. */
static bool object_clean(vm_object_t obj)
{
	vm_page_t m;
	TAILQ_FOREACH(m, &obj->memq, listq)
		if (m->dirty || (m->flags & PG_WRITEABLE))
			return false;
	return true;
}

/*
 * sync(2) and the syncer: write the dirty pages of every file's object (FreeBSD's vfs_msync).
 * The objects that may hold dirty pages (OBJ_MIGHTBEDIRTY, set when the fault handler maps a
 * file page writable) are collected a batch at a time with a reference on their vnode, under
 * the VM lock, then cleaned without it. The last vnode of a batch stays referenced until the
 * next batch is collected: its object marks where to go on.
 */
void vm_object_sync_all(void)
{
	enum { BATCH = 32 };
	struct vnode *vps[BATCH], *hold = NULL;
	for (;;) {
		int n = 0;
		spin_lock(&vm_page_queue_lock);
		vm_object_t obj = hold ? TAILQ_NEXT(hold->v_object, object_list) : TAILQ_FIRST(&vm_object_list);
		for (; obj != NULL && n < BATCH; obj = TAILQ_NEXT(obj, object_list))
			if (obj->type == OBJT_VNODE && (obj->flags & OBJ_MIGHTBEDIRTY) && vget(obj->handle) == 0)
				vps[n++] = obj->handle;
		spin_unlock(&vm_page_queue_lock);
		if (hold)
			vrele(hold);
		hold = NULL;
		for (int i = 0; i < n; i++) {
			vm_object_t o = vps[i]->v_object;
			if (vm_object_page_clean(o, 0, 0, OBJPC_SYNC) != 0)
				continue;
			spin_lock(&vm_page_queue_lock);
			if (object_clean(o))
				o->flags &= ~OBJ_MIGHTBEDIRTY;
			spin_unlock(&vm_page_queue_lock);
		}
		if (n == BATCH)
			hold = vps[--n];
		for (int i = 0; i < n; i++)
			vrele(vps[i]);
		if (hold == NULL)
			return;
	}
}
