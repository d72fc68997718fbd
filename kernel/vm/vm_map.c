/*
 * User address spaces (see vm_map.h): map entries over VM objects, after FreeBSD 4.x
 * vm/vm_map.c (vm_map_insert, vm_map_findspace, vm_map_clip_start/end, vm_map_delete,
 * vm_map_protect, vmspace_fork) on a plain sorted list instead of FreeBSD's splay tree: a
 * wdrain process has a handful of entries.
 */
#include "vm/vm_map.h"
#include "vm/vm_object.h"
#include "arch/pmap.h"
#include "arch/memlayout.h"
#include "kern/kmalloc.h"
#include "kern/klib.h"
#include "vfs/vnode.h"
#include <sys/errno.h>

struct vmspace *vmspace_alloc(void)
{
	struct vmspace *vm = kmalloc(sizeof(*vm), M_WAITOK | M_ZERO);
	TAILQ_INIT(&vm->vm_entries);
	vm->vm_pmap = pmap_create();
	vm->vm_taddr = vm->vm_daddr = vm->vm_brk = USERBASE;
	return vm;
}

static vm_pindex_t entry_pages(struct vm_map_entry *e)
{
	return (e->end - e->start) >> PAGE_SHIFT;
}

/*
 * Add delta (1 or -1) to the counts of the file that e holds (MAP_ENTRY_VN_COUNTS, vm_map.h),
 * with a reference on the vnode of its own: the entry's object may be a shadow by now.
 */
static void entry_vnode_count(struct vm_map_entry *e, int delta)
{
	if (!(e->eflags & MAP_ENTRY_VN_COUNTS))
		return;
	if (delta > 0)
		vref(e->vnode);
	if (e->eflags & MAP_ENTRY_VN_WRITECNT)
		__atomic_add_fetch(&e->vnode->v_writecount, delta, __ATOMIC_RELAXED);
	if (e->eflags & MAP_ENTRY_VN_TEXT)
		__atomic_add_fetch(&e->vnode->v_textcount, delta, __ATOMIC_RELAXED);
	if (delta < 0)
		vrele(e->vnode);
}

static void entry_free(struct vm_map_entry *e)
{
	entry_vnode_count(e, -1);
	vm_object_deallocate(e->object);
	kfree(e);
}

struct vm_map_entry *vm_map_lookup_entry(struct vmspace *vm, vaddr_t va)
{
	struct vm_map_entry *e;
	TAILQ_FOREACH(e, &vm->vm_entries, link) {
		if (va < e->start)
			return NULL;
		if (va < e->end)
			return e;
	}
	return NULL;
}

bool vm_map_check_free(struct vmspace *vm, vaddr_t start, vaddr_t end)
{
	struct vm_map_entry *e;
	TAILQ_FOREACH(e, &vm->vm_entries, link)
		if (e->start < end && start < e->end)
			return false;
	return true;
}

int vm_map_insert(struct vmspace *vm, vm_object_t obj, vm_ooffset_t offset, vaddr_t start,
                  vaddr_t end, vm_prot_t prot, vm_prot_t maxprot, int inherit, int eflags)
{
	KASSERT((start & PAGE_MASK) == 0 && (end & PAGE_MASK) == 0 && start < end, "vm_map_insert: bad range");
	if (start < USERBASE || end > USERTOP || !vm_map_check_free(vm, start, end))
		return ENOMEM;
	struct vm_map_entry *n = kmalloc(sizeof(*n), M_WAITOK | M_ZERO), *e;
	n->start = start;
	n->end = end;
	n->object = obj;
	n->offset = offset;
	n->protection = prot;
	n->max_protection = maxprot;
	n->inheritance = inherit;
	n->eflags = eflags;
	if (eflags & MAP_ENTRY_VN_COUNTS) {
		KASSERT(obj != NULL && obj->type == OBJT_VNODE, "vm_map_insert: counts of no file");
		n->vnode = obj->handle;
		entry_vnode_count(n, 1);
	}
	TAILQ_FOREACH(e, &vm->vm_entries, link)
		if (e->start >= end)
			break;
	if (e)
		TAILQ_INSERT_BEFORE(e, n, link);
	else
		TAILQ_INSERT_TAIL(&vm->vm_entries, n, link);
	return 0;
}

int vm_map_findspace(struct vmspace *vm, size_t len, vaddr_t *addr)
{
	vaddr_t top = USERTOP - USTACKMAX - PAGE_SIZE;   /* a guard page below the stack */
	vaddr_t start = VM_MMAP_BASE;
	struct vm_map_entry *e;
	if (len == 0 || len > top - VM_MMAP_BASE)
		return ENOMEM;
	TAILQ_FOREACH(e, &vm->vm_entries, link) {
		if (e->end <= start)
			continue;
		if (e->start >= start + len)
			break;
		start = e->end;
		if (start > top - len)
			return ENOMEM;
	}
	if (start > top - len)
		return ENOMEM;
	*addr = start;
	return 0;
}

/* Split e at va (e->start < va < e->end): e keeps [start, va), a new entry takes [va, end). */
static void entry_split(struct vmspace *vm, struct vm_map_entry *e, vaddr_t va)
{
	struct vm_map_entry *n = kmalloc(sizeof(*n), M_WAITOK);
	*n = *e;
	n->start = va;
	n->offset = e->offset + (va - e->start);
	e->end = va;
	vm_object_reference(n->object);
	entry_vnode_count(n, 1);
	TAILQ_INSERT_AFTER(&vm->vm_entries, e, n, link);
}

/* Clip the entries overlapping [start, end) so that none straddles either end. */
static void map_clip(struct vmspace *vm, vaddr_t start, vaddr_t end)
{
	struct vm_map_entry *e;
	TAILQ_FOREACH(e, &vm->vm_entries, link) {
		if (e->start < start && start < e->end)
			entry_split(vm, e, start);
		else if (e->start < end && end < e->end)
			entry_split(vm, e, end);
	}
}

/*
 * Unmap [start, end). An anonymous object this entry alone uses loses the pages (and swap) of
 * the range now (FreeBSD's vm_map_delete does the same): nobody can reach them any more, and
 * a part of the object mapped again later (sbrk shrinking, then growing) must be zeros.
 */
void vm_map_delete(struct vmspace *vm, vaddr_t start, vaddr_t end)
{
	struct vm_map_entry *e, *next;
	map_clip(vm, start, end);
	pmap_remove(vm->vm_pmap, start, end);
	TAILQ_FOREACH_SAFE(e, &vm->vm_entries, link, next) {
		if (e->start >= start && e->end <= end) {
			TAILQ_REMOVE(&vm->vm_entries, e, link);
			vm_object_t obj = e->object;
			if (obj != NULL && obj->type != OBJT_VNODE && obj->ref_count == 1 && obj->shadow_count == 0) {
				vm_pindex_t first = OFF_TO_IDX(e->offset);
				vm_object_page_remove(obj, first, first + entry_pages(e), false);
			}
			entry_free(e);
		}
	}
}

int vm_map_protect(struct vmspace *vm, vaddr_t start, vaddr_t end, vm_prot_t prot)
{
	struct vm_map_entry *e;
	vaddr_t next = start;
	/* All of [start, end) must be mapped, and prot within each entry's maximum. */
	TAILQ_FOREACH(e, &vm->vm_entries, link) {
		if (e->end <= start || e->start >= end)
			continue;
		if (e->start > next)
			return ENOMEM;
		if (prot & ~e->max_protection)
			return EACCES;
		next = e->end;
	}
	if (next < end)
		return ENOMEM;
	map_clip(vm, start, end);
	TAILQ_FOREACH(e, &vm->vm_entries, link)
		if (e->start >= start && e->end <= end)
			e->protection = prot;
	/* Lowering takes effect now; raising on the next fault (a COW entry stays read-only). */
	pmap_protect(vm->vm_pmap, start, end, prot);
	return 0;
}

void vmspace_free(struct vmspace *vm)
{
	vm_map_delete(vm, 0, USERTOP);
	pmap_destroy(vm->vm_pmap);
	kfree(vm);
}

/*
 * fork: shared entries share their object; private ones share it copy-on-write (both entries
 * need a copy, the parent's pages are write-protected); the child's page tables start empty
 * and fill on demand.
 */
struct vmspace *vmspace_fork(struct vmspace *vm)
{
	struct vmspace *n = vmspace_alloc();
	n->vm_taddr = vm->vm_taddr;
	n->vm_daddr = vm->vm_daddr;
	n->vm_brk = vm->vm_brk;
	struct vm_map_entry *e;
	TAILQ_FOREACH(e, &vm->vm_entries, link) {
		if (e->inheritance == VM_INHERIT_NONE)
			continue;
		if (e->object == NULL && e->inheritance == VM_INHERIT_SHARE)
			e->object = vm_object_allocate(OBJT_DEFAULT, entry_pages(e));
		int eflags = e->eflags;
		if (e->inheritance == VM_INHERIT_COPY && e->object != NULL) {
			e->eflags |= MAP_ENTRY_NEEDS_COPY;
			eflags = e->eflags;
			pmap_protect(vm->vm_pmap, e->start, e->end, e->protection & ~VM_PROT_WRITE);
		}
		vm_object_reference(e->object);
		vm_map_insert(n, e->object, e->offset, e->start, e->end, e->protection,
		              e->max_protection, e->inheritance, eflags & ~MAP_ENTRY_VN_COUNTS);
		if (eflags & MAP_ENTRY_VN_COUNTS) {
			/* e->object may be a shadow by now: the child counts e's file itself */
			struct vm_map_entry *c = vm_map_lookup_entry(n, e->start);
			c->eflags |= eflags & MAP_ENTRY_VN_COUNTS;
			c->vnode = e->vnode;
			entry_vnode_count(c, 1);
		}
	}
	return n;
}

/* The heap entry ending at `end`, if it can simply grow (its object private, no copy pending). */
static struct vm_map_entry *heap_entry(struct vmspace *vm, vaddr_t end)
{
	struct vm_map_entry *e = vm_map_lookup_entry(vm, end - 1);
	if (e == NULL || e->end != end || (e->eflags & MAP_ENTRY_NEEDS_COPY))
		return NULL;
	if (e->object != NULL && (e->object->ref_count != 1 || e->object->type == OBJT_VNODE))
		return NULL;
	return e;
}

int vm_brk(struct vmspace *vm, intptr_t incr, vaddr_t *oldbrk)
{
	vaddr_t old = vm->vm_brk;
	*oldbrk = old;
	if (incr == 0)
		return 0;
	vaddr_t oend = roundup(old, PAGE_SIZE);
	if (incr < 0) {
		if ((vaddr_t)-incr > old - vm->vm_daddr)
			return EINVAL;
		vaddr_t nbrk = old + incr;
		if (roundup(nbrk, PAGE_SIZE) < oend)
			vm_map_delete(vm, roundup(nbrk, PAGE_SIZE), oend);
		vm->vm_brk = nbrk;
		return 0;
	}
	if ((vaddr_t)incr > VM_MMAP_BASE - old)
		return ENOMEM;
	vaddr_t nbrk = old + incr, nend = roundup(nbrk, PAGE_SIZE);
	if (nend > oend) {
		if (!vm_map_check_free(vm, oend, nend))
			return ENOMEM;
		struct vm_map_entry *e = oend > vm->vm_daddr ? heap_entry(vm, oend) : NULL;
		if (e) {
			e->end = nend;
			if (e->object)
				e->object->size = entry_pages(e) + OFF_TO_IDX(e->offset);
		} else if (vm_map_insert(vm, NULL, 0, oend, nend, VM_PROT_READ | VM_PROT_WRITE,
		                         VM_PROT_ALL, VM_INHERIT_COPY, MAP_ENTRY_COW)) {
			return ENOMEM;
		}
	}
	vm->vm_brk = nbrk;
	return 0;
}

uint32_t vmspace_size(struct vmspace *vm)
{
	return vm->vm_pmap->pm_resident * PAGE_SIZE;
}
