/*
 * wdfs file data: VOP_READ, VOP_WRITE and the vnode pager's VOP_GETPAGES / VOP_PUTPAGES (FFS's
 * ufs_readwrite.c; the vop_vector is in wdfs_vnops.c). Each is entered with no vnode lock held
 * and takes the file's v_lock.
 *
 * Data goes through buffers on the file's own vnode, keyed by logical block, as FFS 4.x's
 * ffs_read/ffs_write (ufs_readwrite.c 1.47) do it: VOP_READ reads them with
 * cluster_read (read-ahead for a sequential reader; bread on an MNT_NOCLUSTERR mount), VOP_WRITE
 * allocates the block (wdfs_balloc), records its disk address in the buffer and fills it; a
 * block written in full goes to cluster_write (delayed until its run is complete, then written
 * as one request), or is bawrite'n on an MNT_NOCLUSTERW mount; a partial one is bdwrite'n.
 * A write records the block's disk address in its buffer, so VOP_STRATEGY (wdfs_vnops.c)
 * never has to read to map a flush.
 * Whether FFS also wrote at once when memory or clean buffers ran short (later 4.x's
 * "vm_page_count_severe() || buf_dirty_count_severe()") is discussed in docs/bufcache.md:
 * wdfs does not, in either preset.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/time.h"
#include "kern/uio.h"
#include "kern/file.h"
#include "dev/disk.h"
#include "fs/wdfs/wdfs.h"
#include "vm/vnode_pager.h"
#include "vm/vm_pager.h"
#include "arch/memlayout.h"
#include <sys/mount.h>
#include <sys/errno.h>
#include <sys/stat.h>

int wdfs_read(struct vnode *vp, struct uio *uio, int ioflag)
{
	struct wdfs_inode *ip = VTOI(vp);
	uint32_t bs = ip->i_wm->wm_bsize;
	int seqcount = ioflag >> IO_SEQSHIFT;
	bool cluster = !(vp->v_mount->mnt_flag & MNT_NOCLUSTERR);
	struct buf *bp;
	int error = 0;

	if (vp->v_type == VDIR)
		return EISDIR;
	if (uio->uio_offset < 0)
		return EINVAL;
	ILOCK(ip);
	while (uio->uio_resid > 0 && (uint64_t)uio->uio_offset < ip->i_din.di_size) {
		daddr_t lbn = uio->uio_offset / bs;
		uint32_t on = (uint32_t)(uio->uio_offset % bs);
		uint64_t n = MIN((uint64_t)(bs - on), (uint64_t)uio->uio_resid);

		n = MIN(n, ip->i_din.di_size - (uint64_t)uio->uio_offset);
		if (cluster)
			error = cluster_read(vp, (off_t)ip->i_din.di_size, lbn, (int)bs,
			                     (long)(on + uio->uio_resid), seqcount, &bp);
		else
			error = bread(vp, lbn, (int)bs, &bp);
		if (error) {
			brelse(bp);
			break;
		}
		error = buf_uiomove(bp, (int)on, (int)n, uio);
		bqrelse(bp);
		if (error)
			break;
	}
	IUNLOCK(ip);
	return error;
}

/*
 * Write n bytes at offset `on` of logical block lbn from the uio. A block written in full is
 * not read first; a new block written in part is zeroed first (FFS's B_CLRBUF), one written
 * in full is not (FFS's ffs_write: only a partial write asks balloc for a cleared buffer).
 */
static int write_block(struct wdfs_inode *ip, daddr_t lbn, uint32_t on, size_t n, struct uio *uio,
                       int ioflag)
{
	struct vnode *vp = ip->i_vnode;
	uint32_t bs = ip->i_wm->wm_bsize, blk;
	struct buf *bp;
	bool isnew, whole = (n == bs);
	size_t before = uio->uio_resid;
	int error;

	error = wdfs_balloc(ip, lbn, &blk, &isnew);
	if (error)
		return error;
	if (isnew || whole) {
		bp = getblk(vp, lbn, (int)bs, 0, 0);
		if (isnew && !whole)
			vfs_bio_clrbuf(bp);
	} else {
		error = bread(vp, lbn, (int)bs, &bp);
		if (error) {
			brelse(bp);
			return error;
		}
	}
	bp->b_blkno = wdfs_fsbtodb(ip->i_wm, blk);      /* mapped now: a flush never bmaps */
	error = buf_uiomove(bp, (int)on, (int)n, uio);
	if (error && !(bp->b_flags & B_CACHE)) {
		if (!isnew) {
			/* The buffer holds neither the old contents nor the new: forget it. */
			bdiscard(bp);
			return error;
		}
		/* A new block: what the copy did not reach reads as zeros. */
		buf_zero(bp, (int)(before - uio->uio_resid), (int)(bs - (before - uio->uio_resid)));
	}
	if (ioflag & IO_SYNC) {
		int e = wdfs_bwrite(ip->i_wm, bp);
		return error ? error : e;
	}
	if (ioflag & IO_ASYNC)
		bawrite(bp);
	else if (on + n != bs)
		bdwrite(bp);
	else if (vp->v_mount->mnt_flag & MNT_NOCLUSTERW)
		bawrite(bp);
	else
		cluster_write(bp);
	return error;
}

/*
 * wdfs_write (FFS's ffs_write): allocate each block before dirtying its buffer, so ENOSPC is
 * found before any data is accepted for it. A short write returns what was written; blocks
 * allocated for the failed part are freed again. wdfs_write_locked is the body, with the
 * inode locked (wdfs_putpages calls it so). IO_SYNC writes each block and waits, IO_ASYNC
 * starts each block's write at once (the vnode pager's page-outs).
 */
int wdfs_write_locked(struct wdfs_inode *ip, struct uio *uio, int ioflag)
{
	struct vnode *vp = ip->i_vnode;
	struct wdfs_mount *wm = ip->i_wm;
	uint32_t bs = wm->wm_bsize;
	size_t resid0 = uio->uio_resid;
	int error = 0;

	if (ioflag & IO_APPEND)
		uio->uio_offset = (off_t)ip->i_din.di_size;
	if (uio->uio_offset < 0)
		error = EINVAL;
	else if (uio->uio_resid > 0 &&
	         (uint64_t)uio->uio_offset + uio->uio_resid > (uint64_t)wdfs_maxfilesize(wm))
		error = EFBIG;
	while (!error && uio->uio_resid > 0) {
		daddr_t lbn = uio->uio_offset / bs;
		uint32_t on = (uint32_t)(uio->uio_offset % bs);
		size_t n = MIN((size_t)(bs - on), uio->uio_resid);
		size_t before = uio->uio_resid;

		/* The VM learns the new size before the data are in (FFS's order): it zeroes the old
		 * last page's tail first, and never takes the new data for bytes past EOF. */
		if ((uint64_t)uio->uio_offset + n > ip->i_din.di_size)
			vnode_pager_setsize(vp, uio->uio_offset + (off_t)n);
		error = write_block(ip, lbn, on, n, uio, ioflag);
		if (before != uio->uio_resid &&
		    (uint64_t)uio->uio_offset > ip->i_din.di_size)
			ip->i_din.di_size = (uint64_t)uio->uio_offset;
	}
	if (error)
		wdfs_itrunc(ip, (off_t)ip->i_din.di_size);   /* free blocks past the end; the VM's size back */
	if (uio->uio_resid != resid0) {
		wdfs_settimes(ip, true, true);
		error = 0;                                     /* a short write is not an error */
	}
	if (!error || uio->uio_resid != resid0) {
		int e = wdfs_iupdate(ip, (ioflag & IO_SYNC) != 0);
		if (!error)
			error = e;
	}
	return error;
}

/*
 * Anyone but root who changes a file's contents takes away its set-user-ID and set-group-ID
 * bits, so that a program cannot be altered and keep running as its owner: FreeBSD 4's
 * ffs_write does it for write(2) (ufs_readwrite.c 1.65.2.14); wdfs also for a truncation
 * (truncate, ftruncate, O_TRUNC), as Linux's do_truncate does (fs/open.c), and for a writable
 * shared mapping (VOP_CLEARSETID), which FreeBSD 4 did not guard. True if the mode changed (the
 * caller writes the inode). Called with the inode locked.
 */
bool wdfs_clearsetid(struct wdfs_inode *ip)
{
	if (cred_cur()->cr_uid == 0 || !(ip->i_din.di_mode & (S_ISUID | S_ISGID)))
		return false;
	ip->i_din.di_mode &= (uint16_t)~(S_ISUID | S_ISGID);
	return true;
}

/* wdfs_write: VOP_WRITE; a write that changed the file clears the set-ID bits (above). */
int wdfs_write(struct vnode *vp, struct uio *uio, int ioflag)
{
	struct wdfs_inode *ip = VTOI(vp);
	size_t resid = uio->uio_resid;
	int error;

	if (vp->v_type == VDIR)
		return EISDIR;
	error = wdfs_wbegin(ip->i_wm, 0);
	if (error)
		return error;
	ILOCK(ip);
	error = wdfs_write_locked(ip, uio, ioflag);
	if (uio->uio_resid != resid && wdfs_clearsetid(ip))
		wdfs_iupdate(ip, false);
	IUNLOCK(ip);
	wdfs_wend(ip->i_wm);
	return error;
}

/*
 * wdfs_putpages (FreeBSD's vnode_pager_generic_putpages): write the soft-busy pages m[] of vp's
 * object to the file through the buffer cache, as a write(2) of their bytes up to EOF with
 * UIO_NOCOPY: the buffers of those blocks hold these very pages (VMIO), so nothing is copied,
 * and the buffer write marks them clean. VM_PAGER_PUT_SYNC writes and waits; otherwise the
 * writes are started at once (IO_ASYNC: the pageout daemon wants the pages clean). Runs of
 * consecutive pages go as one write. Called with v_lock held (the inode lock). It enters the
 * write gate without waiting (WDFS_WB_NOWAIT): a page-out may be part of an operation already
 * inside; on a read-only mount every page fails.
 */
int wdfs_putpages(struct vnode *vp, struct vm_page **m, int count, int flags, int *rtvals)
{
	struct wdfs_inode *ip = VTOI(vp);
	int ioflag = (flags & VM_PAGER_PUT_SYNC) ? IO_SYNC : IO_ASYNC;
	int result = VM_PAGER_OK;
	bool rdonly = wdfs_wbegin(ip->i_wm, WDFS_WB_NOWAIT) != 0;

	for (int i = 0, n; i < count; i += n) {
		off_t off = IDX_TO_OFF(m[i]->pindex);
		int rv = VM_PAGER_OK;

		for (n = 1; i + n < count && m[i + n]->pindex == m[i]->pindex + (vm_pindex_t)n; n++)
			continue;
		if ((uint64_t)off < ip->i_din.di_size) {
			size_t len = (size_t)MIN((uint64_t)n * PAGE_SIZE, ip->i_din.di_size - (uint64_t)off);
			struct iovec iov = { NULL, len };
			struct uio uio = { &iov, 1, off, len, UIO_NOCOPY, UIO_WRITE };

			if (rdonly || wdfs_write_locked(ip, &uio, ioflag) != 0 ||
			    uio.uio_resid != 0)
				rv = result = VM_PAGER_ERROR;
		}
		for (int j = i; j < i + n; j++) {
			rtvals[j] = rv;
			if (rv == VM_PAGER_OK)
				vm_page_undirty(m[j]);     /* also a page wholly past EOF: nothing of the file */
		}
	}
	if (!rdonly)
		wdfs_wend(ip->i_wm);
	return result;
}

/* Where the page at byte `off` of the file lies on the device (bytes), or -1: a hole or past EOF. */
static int page_disk_offset(struct wdfs_inode *ip, off_t off, off_t size, int64_t *devp)
{
	uint32_t bs = ip->i_wm->wm_bsize, blk;
	int error;

	*devp = -1;
	if (off >= size)
		return 0;
	error = wdfs_bmap_blk(ip, off / bs, &blk);
	if (error == 0 && blk != 0)
		*devp = (int64_t)wdfs_fsbtodb(ip->i_wm, blk) * DEV_BSIZE + off % bs;
	return error;
}

/*
 * Whether page m, k pages from the faulting page whose data is at device byte `dev` (-1: a hole),
 * can come in with it: its data lies k pages further on the disk, or, beside a hole, it is a
 * hole too.
 */
static bool page_follows(struct wdfs_inode *ip, struct vm_page *m, off_t size, int64_t dev, int k)
{
	int64_t at;

	if (page_disk_offset(ip, IDX_TO_OFF(m->pindex), size, &at) != 0)
		return false;
	return dev < 0 ? at < 0 : at == dev + (int64_t)k * PAGE_SIZE;
}

/*
 * wdfs_getpages (FreeBSD's ffs_getpages and vnode_pager_generic_getpages): make the busy page
 * m[reqpage] of vp's object valid, with those of its neighbours m[0..count) (consecutive
 * pindexes, a fault's read-ahead cluster) that lie next to it on the disk: one read, straight
 * from the disk blocks wdfs_bmap_blk names into the pages themselves; holes and the part past
 * EOF are zeroed. The other pages are left not valid, for the caller to free: as in FreeBSD's
 * generic getpages, a read-ahead that would cost another seek is not done. Never through a
 * buffer: a block that a buffer caches has its data in this object's pages (VMIO), so a page
 * missing from the object has no newer copy anywhere. Called without the vnode lock
 * (wdfs_bmap_blk takes none). VM_PAGER_OK, or VM_PAGER_ERROR if m[reqpage] could not be read.
 */
int wdfs_getpages(struct vnode *vp, struct vm_page **m, int count, int reqpage)
{
	struct wdfs_inode *ip = VTOI(vp);
	struct disk *dp = ip->i_wm->wm_devvp->v_disk;
	off_t size = vp->v_object->un_pager.vnp.vnp_size;
	int64_t dev;
	int first = reqpage, last = reqpage + 1;

	if (page_disk_offset(ip, IDX_TO_OFF(m[reqpage]->pindex), size, &dev) != 0)
		return VM_PAGER_ERROR;
	while (first > 0 && page_follows(ip, m[first - 1], size, dev, first - 1 - reqpage))
		first--;
	while (last < count && page_follows(ip, m[last], size, dev, last - reqpage))
		last++;
	if (dev >= 0 &&
	    disk_io_sync_pages(dp, BIO_READ, (uint64_t)(dev + (int64_t)(first - reqpage) * PAGE_SIZE),
	                       &m[first], 0, (uint32_t)(last - first) * PAGE_SIZE) != 0)
		return VM_PAGER_ERROR;
	for (int i = first; i < last; i++) {
		off_t poff = IDX_TO_OFF(m[i]->pindex);

		if (dev < 0)
			vm_page_zero_fill(m[i]);
		else if (size - poff < PAGE_SIZE)         /* the file ends inside this page */
			memset((char *)P2V(VM_PAGE_TO_PHYS(m[i])) + (size - poff), 0,
			       (size_t)(PAGE_SIZE - (size - poff)));
		vm_page_set_validclean(m[i]);
	}
	return VM_PAGER_OK;
}
