/*
 * The vnode pager: a regular file's pages (FreeBSD's vm/vnode_pager.c).
 *   vnode_pager_alloc(vp, size)   - vp->v_object, created if it has none (OBJT_VNODE, handle vp,
 *                                   vnp_size = size). The file system calls it when it makes a
 *                                   VREG vnode (wdfs_vget, wdfs_create). No reference is taken:
 *                                   the object lives as long as the vnode; each mapping holds a
 *                                   reference that also holds the vnode (vm_object_reference).
 *   vnode_pager_dealloc(vp)       - write the dirty pages, then free them and the object, from
 *                                   VOP_RECLAIM (no mapping can remain: each holds the vnode).
 *   vnode_pager_setsize(vp, size) - the file's size changes: on a shrink the pages past the new
 *                                   end are freed and the tail of a partial last page is zeroed;
 *                                   on a growth the old last page's tail is zeroed. Called before
 *                                   a write's data go past the old end.
 *   vnode_pager_zero_eof(m)       - a page about to go to the disk: its bytes past EOF zeroed
 *   vnode_pager_haspage(obj, pindex)  - the file has data (or a hole) there: pindex < size
 *   vnode_pager_getpages(obj, m, count, reqpage) - VOP_GETPAGES; VM_PAGER_OK (m[reqpage] read;
 *                                   the others may stay not valid) or _ERROR
 *   vnode_pager_putpages(obj, m, count, flags, rtvals) - VOP_PUTPAGES; vnode lock held
 *   (the file system reads the pages straight from its disk blocks and writes them through its
 *   VMIO buffers: wdfs_getpages / wdfs_putpages, docs/bufcache.md "VMIO")
 * Locking: alloc/dealloc/setsize with the vnode's lock held (or the vnode not yet visible /
 * being reclaimed); getpages and zero_eof without it; putpages with it.
 */
#ifndef _VM_VNODE_PAGER_H_
#define _VM_VNODE_PAGER_H_

#include "vm/vm_object.h"

struct vnode;

vm_object_t vnode_pager_alloc(struct vnode *vp, off_t size);
void        vnode_pager_dealloc(struct vnode *vp);
void        vnode_pager_setsize(struct vnode *vp, off_t size);
void        vnode_pager_zero_eof(vm_page_t m);
bool        vnode_pager_haspage(vm_object_t obj, vm_pindex_t pindex);
int         vnode_pager_getpages(vm_object_t obj, vm_page_t *m, int count, int reqpage);
void        vnode_pager_putpages(vm_object_t obj, vm_page_t *m, int count, int flags, int *rtvals);

#endif
