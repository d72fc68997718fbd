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
 *                                            start <= pindex < end (end 0: to the end); wired
 *                                            pages are invalidated and left to their owner; with
 *                                            clean_only, dirty pages are kept. Sleeps on busy pages.
 *   vm_object_terminate(obj)               - free every page and the object (no references left)
 * Locking: the page list, resident_page_count and ref_count are protected by vm_page_queue_lock;
 * type, size and the pager fields by the object's user (the vnode's lock for vnode objects).
 */
#ifndef _VM_VM_OBJECT_H_
#define _VM_VM_OBJECT_H_

#include "vm/vm_page.h"

enum obj_type { OBJT_DEFAULT, OBJT_SWAP, OBJT_VNODE };

struct vm_object {
	TAILQ_ENTRY(vm_object) object_list; /* every object (vm_page_queue_lock) */
	struct pglist      memq;            /* resident pages (vm_page_queue_lock) */
	enum obj_type      type;
	vm_pindex_t        size;            /* pages */
	int                ref_count;       /* vm_page_queue_lock */
	int                resident_page_count; /* vm_page_queue_lock */
	int                flags;           /* OBJ_* */
	int                paging_in_progress; /* pager I/Os outstanding (vm_page_queue_lock) */
	void              *handle;          /* OBJT_VNODE: the vnode */
	union {
		struct {
			off_t vnp_size;             /* the file's size as the VM knows it */
		} vnp;
	} un_pager;
};

#define OBJ_DEAD 0x0001                 /* being terminated */

TAILQ_HEAD(object_q, vm_object);
extern struct object_q vm_object_list;  /* vm_page_queue_lock */
extern int vm_object_count;             /* objects on vm_object_list (vm_page_queue_lock) */

void        vm_object_init(void);
vm_object_t vm_object_allocate(enum obj_type type, vm_pindex_t size);
void        vm_object_reference(vm_object_t obj);
void        vm_object_deallocate(vm_object_t obj);
void        vm_object_page_remove(vm_object_t obj, vm_pindex_t start, vm_pindex_t end, bool clean_only);
void        vm_object_terminate(vm_object_t obj);

#endif
