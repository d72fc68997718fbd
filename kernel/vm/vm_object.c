/*
 * VM objects (see vm_object.h). After FreeBSD 4.x vm/vm_object.c in names and contracts;
 * shadow chains and the pager operations arrive with the fault handler and the pagers.
 */
#include "vm/vm_object.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/sleep.h"
#include "vfs/vnode.h"

struct object_q vm_object_list = TAILQ_HEAD_INITIALIZER(vm_object_list);
int vm_object_count;

void vm_object_init(void)
{
	vm_page_object_init();
}

vm_object_t vm_object_allocate(enum obj_type type, vm_pindex_t size)
{
	vm_object_t obj = kmalloc(sizeof(*obj), M_WAITOK | M_ZERO);
	TAILQ_INIT(&obj->memq);
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

void vm_object_deallocate(vm_object_t obj)
{
	if (obj == NULL)
		return;
	spin_lock(&vm_page_queue_lock);
	KASSERT(obj->ref_count > 0, "vm_object_deallocate: no reference");
	bool last = --obj->ref_count == 0;
	spin_unlock(&vm_page_queue_lock);
	if (obj->type == OBJT_VNODE)
		vrele(obj->handle);           /* the vnode owns the object's life */
	else if (last)
		vm_object_terminate(obj);
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
		vm_page_test_dirty(m);
		if (clean_only && m->dirty)
			continue;
		vm_page_free_locked(m);
	}
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
	KASSERT(TAILQ_EMPTY(&obj->memq), "vm_object_terminate: wired pages left in a dead object");
	TAILQ_REMOVE(&vm_object_list, obj, object_list);
	vm_object_count--;
	spin_unlock(&vm_page_queue_lock);
	kfree(obj);
}
