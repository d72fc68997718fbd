/*
 * VM objects: a container of pages indexed by pindex, with a pager behind it (FreeBSD's
 * vm_object(9)). OBJT_DEFAULT is anonymous memory (zero-filled on first touch; becomes OBJT_SWAP
 * when the swap pager first writes one of its pages), OBJT_VNODE is a regular file's pages: each
 * such vnode has exactly one, vp->v_object (vnode_pager.c).
 *
 *   vm_object_init()                       - at boot, after vm_page_startup
 *   vm_object_allocate(type, size)         - a new object with one reference (size in pages)
 *   vm_object_reference(obj)               - another reference (a vnode object also vrefs its vnode)
 *   vm_object_deallocate(obj)              - drop one; an anonymous object's last reference frees
 *                                            its pages and the object; a vnode object lives on
 *                                            with its vnode (vnode_pager_dealloc ends it)
 *   vm_object_page_remove(obj, start, end, clean_only) - unmap and free the pages with
 *                                            start <= pindex < end (end 0: to the end), and their
 *                                            swap copies; wired pages are invalidated and left to
 *                                            their owner; with clean_only, dirty pages are kept
 *                                            (and swap). Sleeps on busy pages.
 *   vm_object_terminate(obj)               - free every page and the object (no references left)
 *   vm_object_shadow(&obj, &offset, size)  - copy-on-write: put a new anonymous object of `size`
 *                                            pages in front of *obj (which it takes over the
 *                                            caller's reference on), unless *obj is anonymous and
 *                                            referenced only by the caller (FreeBSD 4's rule:
 *                                            "don't create the new object if the old object
 *                                            isn't shared"), then no copy is needed
 *   vm_object_collapse(obj)                - merge obj's backing objects into it while each is
 *                                            anonymous and referenced by obj alone, so chains of
 *                                            shadows do not grow without bound under fork
 *   vm_object_page_clean(obj, start, end, flags) - write the dirty pages of [start, end) (end 0:
 *                                            all) through the pager (msync, fsync, sync);
 *                                            OBJPC_SYNC waits. Takes the vnode lock itself.
 *   vm_object_sync_all()                   - page_clean every vnode object (sync(2), syncer)
 * Locking: the page list, resident_page_count and ref_count are protected by vm_page_queue_lock;
 * type, size and the pager fields by the object's user (the vnode's lock for vnode objects).
 */
#ifndef _VM_VM_OBJECT_H_
#define _VM_VM_OBJECT_H_

#include "vm/vm_page.h"

struct swblock;

enum obj_type { OBJT_DEFAULT, OBJT_SWAP, OBJT_VNODE };

struct vm_object {
	TAILQ_ENTRY(vm_object) object_list; /* every object (vm_page_queue_lock) */
	struct pglist      memq;            /* resident pages (vm_page_queue_lock) */
	enum obj_type      type;
	vm_pindex_t        size;            /* pages */
	int                ref_count;       /* vm_page_queue_lock */
	int                resident_page_count; /* vm_page_queue_lock */
	int                flags;           /* OBJ_* (vm_page_queue_lock) */
	int                paging_in_progress; /* pager I/Os outstanding (vm_page_queue_lock) */
	void              *handle;          /* OBJT_VNODE: the vnode */
	struct vm_object  *backing_object;  /* the object this one shadows (vm_page_queue_lock) */
	vm_ooffset_t       backing_object_offset; /* where this object starts in it */
	LIST_HEAD(, vm_object) shadow_head; /* objects shadowing this one (vm_page_queue_lock) */
	LIST_ENTRY(vm_object) shadow_list;  /* on backing_object's shadow_head */
	int                shadow_count;
	union {
		struct {
			off_t vnp_size;             /* the file's size as the VM knows it */
		} vnp;
		struct {
			LIST_HEAD(, swblock) swp_blocks; /* OBJT_SWAP: where its pages are on swap */
		} swp;
	} un_pager;
};

#define OBJ_DEAD 0x0001                 /* being terminated */
#define OBJ_MIGHTBEDIRTY 0x0002         /* a page was mapped writable since the last clean */

#define OBJPC_SYNC 0x1                  /* vm_object_page_clean: wait for the writes */

TAILQ_HEAD(object_q, vm_object);
extern struct object_q vm_object_list;  /* vm_page_queue_lock */
extern int vm_object_count;             /* objects on vm_object_list (vm_page_queue_lock) */
extern u_int vm_object_collapses;       /* backing objects merged into their shadow */

void        vm_object_init(void);
vm_object_t vm_object_allocate(enum obj_type type, vm_pindex_t size);
void        vm_object_reference(vm_object_t obj);
void        vm_object_deallocate(vm_object_t obj);
void        vm_object_page_remove(vm_object_t obj, vm_pindex_t start, vm_pindex_t end, bool clean_only);
void        vm_object_terminate(vm_object_t obj);
void        vm_object_shadow(vm_object_t *obj, vm_ooffset_t *offset, vm_pindex_t size);
void        vm_object_collapse(vm_object_t obj);
int         vm_object_page_clean(vm_object_t obj, vm_pindex_t start, vm_pindex_t end, int flags);
void        vm_object_sync_all(void);

#endif
