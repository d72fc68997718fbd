/*
 * vfs_bio_vmio.c - VMIO buffers: a regular file's buffers are made of the file's own pages
 * (FreeBSD 4.x vfs_bio.c: allocbuf, vfs_busy_pages, biodone's page loop, vfs_clean_pages,
 * vfs_bio_clrbuf, vfs_vmio_release; checked against [@fbsd-vfs_bio-2001] in docs/sources.md).
 * docs/bufcache.md "VMIO". Interface: vfs/buf_internal.h (the vmio_* calls) and vfs/buf.h
 * (buf_uiomove, buf_zero, vfs_bio_clrbuf).
 *
 * A VMIO buffer of (vp, lblkno) holds the pages of vp->v_object at pindex
 * b_offset / PAGE_SIZE + i, wired (the pageout daemon leaves wired pages alone), from vmio_alloc
 * until vmio_detach takes them off it. The buffer's data *is* those pages: read(2) copies out of
 * them, write(2) into them, a mapping of the file maps them, and the vnode pager writes them
 * back through the buffer. FreeBSD 4.2 mapped them into buffer_map (pmap_qenter); wdrain's
 * direct map reaches every frame, so the buffers stay unmapped (b_data NULL) as FreeBSD's
 * unmapped buffers (10.0) are, and the data is copied with uiomove_fromphys and zeroed page by
 * page.
 *
 * Each page of a busy buffer is either
 *   valid      its data is good; the VM may map it (a fault) while the buffer holds it; or
 *   not valid  (its b_pgbusy bit) held soft-busy (vm_page_io_start) by the buffer until its data
 *              is complete: a read finished, vfs_bio_clrbuf zeroed it, or a write covered it
 *              (vmio_validate, when the buffer is written or delayed). A fault that finds it
 *              waits. FreeBSD 4's fault would page such a page in from the disk underneath the
 *              buffer's owner, racing with it; waiting loses no data. (The price: a write(2)
 *              whose source is a mapping of the very block it overwrites, not resident, waits
 *              for itself - docs/bufcache.md "Known limits".)
 * I/O: a read reads only the pages that are not valid: the valid ones are replaced by bogus_page
 * in the I/O's page list (b_iopages), so the disk's older copy cannot overwrite them (FreeBSD's
 * vfs_busy_pages); completion makes the others valid. A write soft-busies every page,
 * write-protects its mappings (a store through one faults and waits for the write) and marks it
 * clean: the buffer carries the write from then on. bdwrite marks the pages valid and clean the
 * same way without I/O (vfs_clean_pages). A page dirtied later through a mapping is the pager's
 * to write (VOP_PUTPAGES, through the buffer again).
 * Release: the pages are unwired onto INACTIVE, still in the object and still valid if they
 * were, so a later getblk, read or fault finds them without I/O. A page that never became valid
 * goes there too; the pageout daemon, a fault or a truncation frees it (a free needs the page
 * exclusively; the buffer only holds a wire).
 *
 * Locking: the VM calls take the VM lock themselves. b_pages, b_npages, b_pgbusy and b_iopages
 * belong to the buffer's owner (whoever holds it B_BUSY, or its I/O); B_CACHE and bufspace
 * change under bufcache_lock. vmio_detach runs with bufcache_lock held and only moves pointers;
 * the page calls happen in vmio_release, with no lock held. Where both locks are held the order
 * is bufcache_lock, then the VM lock (the VM never calls the buffer cache with its lock held).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/uio.h"
#include "arch/memlayout.h"
#include "vm/vm_page.h"
#include "vm/vm_object.h"
#include "vm/vnode_pager.h"
#include "vfs/buf.h"
#include "vfs/buf_internal.h"
#include "vfs/vnode.h"

/* The page a read's list carries in place of a page that is already valid (FreeBSD's). */
static struct vm_page *bogus_page;

/* vmio_init: allocate bogus_page (bufinit). Its contents are garbage that reads land in. */
void vmio_init(void)
{
	bogus_page = vm_page_alloc(NULL, 0, VM_ALLOC_SYSTEM);
	KASSERT(bogus_page != NULL, "vmio_init: no page for bogus_page");
	vm_page_wire(bogus_page);
	vm_page_wakeup(bogus_page);
}

/* vmio_wanted: vp's buffers are VMIO (a regular file with its VM object). */
bool vmio_wanted(struct vnode *vp)
{
	return vp->v_type == VREG && vp->v_object != NULL;
}

/* B_CACHE exactly when no page is held not-valid. */
static void vmio_set_cache(struct buf *bp)
{
	spin_lock(&bufcache_lock);
	if (bp->b_pgbusy == 0)
		bp->b_flags |= B_CACHE;
	else
		bp->b_flags &= ~B_CACHE;
	spin_unlock(&bufcache_lock);
}

/*
 * vmio_alloc: give busy, hashed VMIO buffer bp (b_vp, b_offset, b_bufsize set) its pages, looked
 * up in the file's object or allocated there (FreeBSD's allocbuf: VM_ALLOC_SYSTEM, "since
 * blocking here could interfere with paging I/O, no matter which process we are"; VM_WAIT when
 * there is none). vm_page_grab waits only for an exclusively busy page (one being paged in), not
 * a soft-busy one: the pager writing a page back may itself be the caller, through
 * VOP_PUTPAGES. Sets B_CACHE if every page is valid. Sleeps.
 */
void vmio_alloc(struct buf *bp)
{
	vm_object_t obj = bp->b_vp->v_object;
	vm_pindex_t first = (vm_pindex_t)(bp->b_offset / PAGE_SIZE);
	int n = bp->b_bufsize / PAGE_SIZE;

	KASSERT(bp->b_bufsize % PAGE_SIZE == 0 && bp->b_offset % PAGE_SIZE == 0,
	        "vmio_alloc: buffer not page-aligned");
	bp->b_pgbusy = 0;
	for (int i = 0; i < n; i++) {
		vm_page_t m = vm_page_grab(obj, first + i, VM_ALLOC_SYSTEM | VM_ALLOC_RETRY);

		vm_page_wire(m);
		if (m->valid != VM_PAGE_BITS_ALL) {
			vm_page_io_start(m);
			bp->b_pgbusy |= 1u << i;
		}
		vm_page_wakeup(m);
		bp->b_pages[i] = m;
	}
	spin_lock(&bufcache_lock);
	bp->b_npages = n;
	bufspace += n * PAGE_SIZE;
	vmio_pages += n;
	spin_unlock(&bufcache_lock);
	vmio_set_cache(bp);
}

/*
 * vmio_recheck: a cached VMIO buffer was found by getblk. Its pages are valid unless the VM
 * invalidated one under it (a truncation frees the pages past the new end, wired ones only
 * lose their validity); such a page is held soft-busy from now on and B_CACHE cleared, so the
 * caller reads it again (FreeBSD's getblk tests the pages the same way).
 */
void vmio_recheck(struct buf *bp)
{
	for (int i = 0; i < bp->b_npages; i++) {
		vm_page_t m = bp->b_pages[i];

		if (m->valid != VM_PAGE_BITS_ALL && !(bp->b_pgbusy & (1u << i))) {
			vm_page_io_start(m);
			bp->b_pgbusy |= 1u << i;
		}
	}
	vmio_set_cache(bp);
}

/* vmio_read_prep: the page list for a read: the pages not valid yet, bogus_page for the rest. */
void vmio_read_prep(struct buf *bp)
{
	for (int i = 0; i < bp->b_npages; i++)
		bp->b_iopages[i] = (bp->b_pgbusy & (1u << i)) ? bp->b_pages[i] : bogus_page;
	bstats.vmio_bogus += (uint64_t)(bp->b_npages - __builtin_popcount(bp->b_pgbusy));
}

/* vmio_validate: the buffer's data is complete: the pages held not-valid become valid, clean. */
void vmio_validate(struct buf *bp)
{
	for (int i = 0; i < bp->b_npages; i++) {
		if (!(bp->b_pgbusy & (1u << i)))
			continue;
		vm_page_set_validclean(bp->b_pages[i]);
		vm_page_io_finish(bp->b_pages[i]);
	}
	bp->b_pgbusy = 0;
}

/* vmio_clean: bdwrite's vfs_clean_pages: every page valid and clean (the buffer is dirty). */
void vmio_clean(struct buf *bp)
{
	vmio_validate(bp);
	for (int i = 0; i < bp->b_npages; i++)
		vm_page_set_validclean(bp->b_pages[i]);
}

/*
 * vmio_write_prep: a write is about to start: every page soft-busy for the I/O, its mappings
 * write-protected (a dirty bit they hold goes to the page, and the write takes it), its bytes
 * past EOF zeroed (what a mapping stored there is not the file's: vnode_pager_zero_eof), valid
 * and clean. The I/O's page list is the buffer's pages.
 */
void vmio_write_prep(struct buf *bp)
{
	vmio_validate(bp);
	for (int i = 0; i < bp->b_npages; i++) {
		vm_page_t m = bp->b_pages[i];

		vm_page_io_start(m);
		vm_page_protect(m, VM_PROT_READ);
		vnode_pager_zero_eof(m);
		vm_page_set_validclean(m);
		bp->b_iopages[i] = m;
	}
}

/*
 * vmio_io_done: the I/O on bp finished (any context; biodone). A write's pages are unbusied. A
 * read that succeeded made the pages it read valid; after a failed one they stay not-valid and
 * soft-busy until the buffer is released.
 */
void vmio_io_done(struct buf *bp, bool ok)
{
	if (bp->b_iocmd == BIO_WRITE) {
		for (int i = 0; i < bp->b_npages; i++)
			vm_page_io_finish(bp->b_pages[i]);
		return;
	}
	if (ok)
		vmio_validate(bp);
}

/* vmio_detach: take bp's pages off it into *p for vmio_release (bufcache_lock held). */
void vmio_detach(struct buf *bp, struct vmio_pages *p)
{
	p->n = bp->b_npages;
	p->busy = bp->b_pgbusy;
	for (int i = 0; i < p->n; i++)
		p->m[i] = bp->b_pages[i];
	bufspace -= p->n * PAGE_SIZE;
	vmio_pages -= p->n;
	bp->b_npages = 0;
	bp->b_pgbusy = 0;
}

/*
 * vmio_release: give detached pages back to the VM (FreeBSD's vfs_vmio_release): unwired onto
 * INACTIVE ("to keep page LRU ordering consistent"); one still held not-valid is unbusied only
 * after it is unwired, so nobody meets it wired, not valid and not busy. Any context.
 */
void vmio_release(struct vmio_pages *p)
{
	for (int i = 0; i < p->n; i++) {
		vm_page_unwire(p->m[i], false);
		if (p->busy & (1u << i))
			vm_page_io_finish(p->m[i]);
	}
	p->n = 0;
}

/* ---- the data --------------------------------------------------------------------------------- */

/* buf_uiomove: see vfs/buf.h. */
int buf_uiomove(struct buf *bp, int off, int n, struct uio *uio)
{
	KASSERT(off >= 0 && n >= 0 && off + n <= bp->b_bufsize, "buf_uiomove: outside the buffer");
	if (bp->b_flags & B_VMIO)
		return uiomove_fromphys(bp->b_pages, (size_t)off, (size_t)n, uio);
	return uiomove(bp->b_data + off, (size_t)n, uio);
}

/* Zero [off, off+len) of bp's data, in the pages `mask` selects (VMIO; all pages: ~0u). */
static void zero_pages(struct buf *bp, int off, int len, uint32_t mask)
{
	while (len > 0) {
		int i = off / PAGE_SIZE, po = off % PAGE_SIZE, cnt = MIN(len, PAGE_SIZE - po);

		if (mask & (1u << i))
			memset((char *)P2V(VM_PAGE_TO_PHYS(bp->b_pages[i])) + po, 0, (size_t)cnt);
		off += cnt;
		len -= cnt;
	}
}

/* buf_zero: see vfs/buf.h. */
void buf_zero(struct buf *bp, int off, int len)
{
	KASSERT(off >= 0 && len >= 0 && off + len <= bp->b_bufsize, "buf_zero: outside the buffer");
	if (bp->b_flags & B_VMIO)
		zero_pages(bp, off, len, ~0u);
	else
		memset(bp->b_data + off, 0, (size_t)len);
}

/*
 * vfs_bio_clrbuf: zero a buffer whose block was just allocated; its contents are then valid.
 * A VMIO buffer zeroes only its pages that are not valid (FreeBSD's): a valid page already
 * holds the block's data - zeros read from the hole, or a mapping's stores that the pager is
 * writing back into the new block.
 */
void vfs_bio_clrbuf(struct buf *bp)
{
	if (bp->b_flags & B_VMIO) {
		zero_pages(bp, 0, bp->b_bufsize, bp->b_pgbusy);
		vmio_validate(bp);
	} else {
		memset(bp->b_data, 0, (size_t)bp->b_bufsize);
	}
	bp->b_resid = 0;
	spin_lock(&bufcache_lock);
	bp->b_flags |= B_CACHE;
	spin_unlock(&bufcache_lock);
}
