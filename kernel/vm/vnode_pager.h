/*
 * The vnode pager: a regular file's pages (FreeBSD's vm/vnode_pager.c).
 *   vnode_pager_alloc(vp, size)   - vp->v_object, created if it has none (OBJT_VNODE, handle vp,
 *                                   vnp_size = size). The file system calls it when it makes a
 *                                   VREG vnode (wdfs_vget, wdfs_create). No reference is taken:
 *                                   the object lives as long as the vnode; each mapping holds a
 *                                   reference that also holds the vnode (vm_object_reference).
 *   vnode_pager_dealloc(vp)       - free the pages and the object, from VOP_RECLAIM (so no
 *                                   mapping can remain: each would hold a vnode reference).
 *   vnode_pager_setsize(vp, size) - the file's size changed: on a shrink the pages past the new
 *                                   end are freed and the tail of a partial last page is zeroed.
 * Locking: called with the vnode's lock held (or the vnode not yet visible / being reclaimed).
 */
#ifndef _VM_VNODE_PAGER_H_
#define _VM_VNODE_PAGER_H_

#include "vm/vm_object.h"

struct vnode;

vm_object_t vnode_pager_alloc(struct vnode *vp, off_t size);
void        vnode_pager_dealloc(struct vnode *vp);
void        vnode_pager_setsize(struct vnode *vp, off_t size);

#endif
