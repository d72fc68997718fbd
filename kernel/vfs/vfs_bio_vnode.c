/*
 * vfs_bio_vnode.c - the buffer cache's operations on one vnode's buffers (interface: vfs/buf.h;
 * the cache itself: vfs_bio.c; docs/bufcache.md): fsync's writes (bufsync), the
 * write errors fsync reports (vn_writeerror_take), and throwing buffers away (vinvalbuf,
 * vtruncbuf). Each vnode keeps its buffers on two lists, clean and dirty (FreeBSD's
 * v_cleanblkhd and v_dirtyblkhd), so these walk only what they need.
 *
 * Locking: bufcache_lock (vfs/buf.h) over the lists, v_numoutput and the error counters; never
 * held across a write: a buffer is taken busy under it, then written without it.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/time.h"
#include "vm/vm_object.h"
#include "vfs/buf.h"
#include "vfs/buf_internal.h"
#include "vfs/vnode.h"
#include <sys/errno.h>

/* The first not-busy dirty buffer of vp, made busy, or NULL (bufcache_lock held). */
static struct buf *take_vnode_dirty(struct vnode *vp)
{
	struct buf *bp;

	TAILQ_FOREACH(bp, &vp->v_dirtyblkhd, b_vnbufs) {
		if (!(bp->b_flags & B_BUSY)) {
			buf_busy(bp);
			return bp;
		}
	}
	return NULL;
}

/*
 * bufsync: write vp's dirty buffers, clustered (vfs_bio_awrite), so the disk sees them together.
 * MNT_WAIT marks them B_FSYNC (their requests are synchronous: it waits for them) and then waits until every write of vp in flight has finished and returns an error if
 * any write of vp failed meanwhile (its own or one already in flight; earlier failures are
 * vn_writeerror_take's); MNT_NOWAIT only starts them. Each buffer written leaves the dirty
 * list, so the scans only meet busy buffers again; a buffer dirtied again meanwhile is written
 * again, at most nbuf writes in all.
 */
int bufsync(struct vnode *vp, int waitfor)
{
	struct buf *bp;
	int error, nbufs, budget = nbuf;
	uint32_t errs0;

	spin_lock(&bufcache_lock);
	errs0 = vp->v_writeerrs;
	while (budget > 0 && (bp = take_vnode_dirty(vp)) != NULL) {
		if (waitfor == MNT_WAIT)
			bp->b_flags |= B_FSYNC;
		spin_unlock(&bufcache_lock);
		vfs_bio_awrite(bp, &nbufs);
		budget -= nbufs;
		spin_lock(&bufcache_lock);
	}
	if (waitfor == MNT_WAIT)
		while (vp->v_numoutput > 0)
			msleep(&vp->v_numoutput, &bufcache_lock, 0, "bufsync", HZ);
	error = waitfor == MNT_WAIT && vp->v_writeerrs != errs0 ? vp->v_lastwriteerr : 0;
	spin_unlock(&bufcache_lock);
	return error;
}

/*
 * vn_writeerror_take: the error of vp's writes that failed since the last call (the last one's
 * error), or 0; each failure is reported once. fsync calls it, so a failed async, delayed,
 * clustered or pageout write of a file reaches the program at its next fsync, whoever issued
 * the write (Linux's errseq does the same job; FreeBSD 4 re-dirtied the buffer instead).
 */
int vn_writeerror_take(struct vnode *vp)
{
	int error = 0;

	spin_lock(&bufcache_lock);
	if (vp->v_writeerrs != vp->v_writeerrs_seen) {
		vp->v_writeerrs_seen = vp->v_writeerrs;
		error = vp->v_lastwriteerr;
	}
	spin_unlock(&bufcache_lock);
	return error;
}

/* The first buffer of vp with b_lblkno >= from, on either list, or NULL (bufcache_lock held). */
static struct buf *first_buf_from(struct vnode *vp, daddr_t from)
{
	struct buf *bp;

	TAILQ_FOREACH(bp, &vp->v_dirtyblkhd, b_vnbufs)
		if (bp->b_lblkno >= from)
			return bp;
	TAILQ_FOREACH(bp, &vp->v_cleanblkhd, b_vnbufs)
		if (bp->b_lblkno >= from)
			return bp;
	return NULL;
}

/*
 * The common loop of vinvalbuf and vtruncbuf: throw away vp's buffers with b_lblkno >= from,
 * waiting for busy ones. With V_SAVE, dirty buffers are written (synchronously) first. Each
 * buffer handled leaves vp's lists, so the scans never revisit it.
 */
static int vinvalbuf_from(struct vnode *vp, daddr_t from, int flags)
{
	struct buf *bp;
	int error;

	spin_lock(&bufcache_lock);
	while ((bp = first_buf_from(vp, from)) != NULL) {
		if (bp->b_flags & B_BUSY) {
			bp->b_flags |= B_WANTED;
			msleep(bp, &bufcache_lock, 0, "vinval", HZ);
			continue;
		}
		buf_busy(bp);
		if ((flags & V_SAVE) && (bp->b_flags & B_DELWRI)) {
			spin_unlock(&bufcache_lock);
			error = bwrite(bp);
			if (error != 0)
				return error;
			spin_lock(&bufcache_lock);
			continue;
		}
		bp->b_flags |= B_INVAL;
		spin_unlock(&bufcache_lock);
		brelse(bp);
		spin_lock(&bufcache_lock);
	}
	spin_unlock(&bufcache_lock);
	return 0;
}

/*
 * vinvalbuf: discard every buffer of vp, writing dirty ones first with V_SAVE. 0 or the error.
 * With V_SAVE a file's pages dirtied through mappings are written first (through buffers: the
 * pager's writes are buffer writes), so no buffer appears after the sweep and the VM object can
 * be freed right after it.
 */
int vinvalbuf(struct vnode *vp, int flags)
{
	int error = 0;

	if ((flags & V_SAVE) && vp->v_object != NULL)
		error = vm_object_page_clean(vp->v_object, 0, 0, OBJPC_SYNC);
	if (error != 0)
		return error;
	return vinvalbuf_from(vp, INT64_MIN, flags);
}

/* vtruncbuf: discard vp's buffers at or past logical block lblkno, dirty or not (truncate). */
int vtruncbuf(struct vnode *vp, daddr_t lblkno)
{
	return vinvalbuf_from(vp, lblkno, 0);
}
