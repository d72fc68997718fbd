/*
 * vfs_cluster.c - clustered reads and writes of file blocks, FreeBSD 4's sys/kern/vfs_cluster.c
 * (checked against RELENG_4's revision 1.92.2.9 [@fbsd-vfs_cluster-r4] and the 1996 revision
 * 1.37 [@fbsd-vfs_cluster-1.37]; the decisions are pure functions in vfs/cluster_plan.c).
 * docs/bufcache.md, docs/sources.md.
 *
 * A cluster is one disk request for a run of file blocks that are contiguous on disk, up to
 * the device's largest request (d_maxio, at most MAXPHYS = 128 KB). Its data is the page list
 * of all its buffers (BIO_UNMAPPED: VMIO buffers' own pages, or the pages of the others'
 * kmalloc'd blocks), so the blocks need not be adjacent in memory.
 *
 *   cluster_write(bp)          - the file system wrote block bp in full (ffs_write's full-block
 *                                case): delay it while a sequential run grows, write the run
 *                                when it is complete (write-behind), or write the block alone
 *                                when it is not contiguous with the run. Releases bp.
 *   vfs_bio_awrite(bp, &nbufs) - write busy dirty buffer bp together with its contiguous dirty
 *                                neighbours, searching both ways (the flushers' write). Releases
 *                                bp; returns the bytes written, *nbufs the buffers.
 *   cluster_read(vp, filesize, lbn, size, totread, seqcount, &bp) - bread that reads the blocks
 *                                the caller will want next in the same request, and, for a
 *                                sequential reader, starts reading the next run ahead (B_RAM
 *                                marks the block whose use starts the next read-ahead).
 * A cluster write is one async write: runningbufspace, and the disks it goes to, are charged
 * with the whole cluster and credited when it completes, and the design's wait after an async
 * write applies to it.
 *
 * The I/O headers of clusters come from a fixed pool of nswbuf / 2 (FreeBSD 4's
 * cluster_pbuf_freecnt, set in vm_pager.c's vm_pager_bufferinit; nswbuf from machdep.c
 * [@fbsd-machdep-2000]: max(min(nbuf / 4, 64), 16), so 32 headers from 64 MB up). As in FreeBSD 4's cluster_wbuild,
 * a writer that finds the pool empty sleeps until a cluster completes (getpbuf, wait message
 * "wswbuf0"; vfs.cluster.sleeps_wswbuf0 and wswbuf0_ns count it), and is served in the order
 * it came (vfs/pbuf_pool.c). Only the 1996 revision 1.37 wrote the blocks one by one when no
 * header was free; from 1997 on (trypbuf gave way to getpbuf) the writer waits. A read-ahead
 * never waits: without a header its blocks are read one by one (cluster_rbuild's trypbuf).
 *
 * Locking: bufcache_lock for the buffers' flags and the header pool; the per-vnode cluster
 * state (v_lastw, v_cstart, v_lasta, v_clen) is the vnode's, under the file system's v_lock.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/proc.h"
#include "kern/kmalloc.h"
#include "kern/sleep.h"
#include "kern/sysctl.h"
#include "vm/vm_page.h"
#include "vfs/buf.h"
#include "vfs/buf_internal.h"
#include "vfs/bufdaemon.h"
#include "vfs/cluster_plan.h"
#include "vfs/pbuf_pool.h"
#include "vfs/vnode.h"
#include <sys/errno.h>

#define MAXCLBLKS    (MAXPHYS / PAGE_SIZE)    /* most blocks in a cluster (4 KB blocks) */
#define MAXRA        32                       /* most blocks read ahead (FreeBSD's MAXRA) */

struct cluster_io {
	struct bio         cl_bio;
	int                cl_nbufs;
	int                cl_bytes;
	struct rd_charge   cl_rdcharge;       /* a write's charge to its disks (buf_charge) */
	struct buf        *cl_bufs[MAXCLBLKS];
	struct vm_page    *cl_pages[MAXPHYS / PAGE_SIZE];
};

static struct pbuf_pool cluster_pbufs;        /* (bufcache_lock) */
static int cluster_npbufs;                    /* vfs.cluster.pbufs: nswbuf / 2 */
SYSCTL_DECL_OID(sysctl_vfs_cluster_pbufs, "vfs.cluster.pbufs", CTLTYPE_INT | CTLFLAG_RD,
                &cluster_npbufs, 0, NULL, "I",
                "Cluster I/O headers (FreeBSD's cluster_pbuf_freecnt: kern.nswbuf / 2)");

/* cluster_init: allocate nswbuf / 2 headers and put them in the pool (bufinit, one CPU). */
void cluster_init(void)
{
	void **slots;

	cluster_npbufs = MAX(nswbuf / 2, 1);
	slots = kmalloc(cluster_npbufs * sizeof(void *), M_WAITOK);
	pbuf_pool_init(&cluster_pbufs, slots);
	for (int i = 0; i < cluster_npbufs; i++)
		pbuf_pool_add(&cluster_pbufs, kmalloc(sizeof(struct cluster_io), M_WAITOK | M_ZERO));
}

/*
 * getpbuf: a header for a cluster write, sleeping "wswbuf0" until one is handed over if the
 * pool is empty (FreeBSD 4's getpbuf(&cluster_pbuf_freecnt)). May sleep: call with no lock held.
 */
static struct cluster_io *cluster_getpbuf(void)
{
	struct pbuf_waiter w;
	struct cluster_io *cl;
	uint64_t t0;

	spin_lock(&bufcache_lock);
	cl = pbuf_take(&cluster_pbufs, &w);
	if (cl == NULL) {
		t0 = bd_nanouptime();
		bstats.sleeps_wswbuf0++;
		while (w.pw_got == NULL)
			msleep(&w, &bufcache_lock, 0, "wswbuf0", 0);
		cl = w.pw_got;
		bstats.wswbuf0_ns += bd_nanouptime() - t0;
	}
	spin_unlock(&bufcache_lock);
	return cl;
}

/* trypbuf: a header if one is free and no writer waits for one, else NULL (reads). */
static struct cluster_io *cluster_trypbuf(void)
{
	struct cluster_io *cl;

	spin_lock(&bufcache_lock);
	cl = pbuf_try(&cluster_pbufs);
	spin_unlock(&bufcache_lock);
	return cl;
}

/* relpbuf: give a header back: to the longest waiter, or to the pool. Any context. */
static void cluster_relpbuf(struct cluster_io *cl)
{
	struct pbuf_waiter *w;

	spin_lock(&bufcache_lock);
	w = pbuf_give(&cluster_pbufs, cl);
	if (w != NULL)
		wakeup(w);
	spin_unlock(&bufcache_lock);
}

/* The most blocks of `size` bytes one request to vp's disk may carry (at least 1). */
static int cluster_maxcl(struct vnode *vp, int size)
{
	struct disk *dp = buf_disk(vp);
	uint32_t maxio = dp != NULL ? MIN((uint32_t)MAXPHYS, dp->d_maxio) : (uint32_t)MAXPHYS;

	return MAX((int)(maxio / (uint32_t)size), 1);
}

/* ---- issuing a cluster ----------------------------------------------------------------------- */

/*
 * A cluster is done: credit a write's bytes to runningbufspace, pass the result to every
 * buffer (biodone: releases the async ones, wakes a reader waiting on the first), give the
 * header back. Any context.
 */
static void cluster_done(struct bio *bio)
{
	struct cluster_io *cl = bio->bio_caller1;
	int error = bio->bio_error != 0 ? bio->bio_error : bio->bio_resid != 0 ? EIO : 0;

	if (bio->bio_cmd == BIO_WRITE) {
		spin_lock(&bufcache_lock);
		/* LAB bufdaemon BEGIN */
		runningbufwakeup(cl->cl_bytes);
		/* LAB bufdaemon STUB */
		// /* A cluster write is done: give its bytes back to runningbufspace here. */
		/* LAB bufdaemon END */
		rundevwakeup(&cl->cl_rdcharge);
		cl->cl_rdcharge.rc_n = 0;
		spin_unlock(&bufcache_lock);
	}
	for (int i = 0; i < cl->cl_nbufs; i++) {
		cl->cl_bufs[i]->b_error = error;
		cl->cl_bufs[i]->b_resid = error != 0 ? cl->cl_bufs[i]->b_bcount : 0;
		cl->cl_bufs[i]->b_qahead = bio->bio_qahead;
		biodone(cl->cl_bufs[i]);
	}
	cluster_relpbuf(cl);
}

/* Does someone wait for one of cl's buffers (not B_ASYNC, or fsync's)? */
static bool cluster_waited(const struct cluster_io *cl)
{
	for (int i = 0; i < cl->cl_nbufs; i++)
		if (!(cl->cl_bufs[i]->b_flags & B_ASYNC) || (cl->cl_bufs[i]->b_flags & B_FSYNC))
			return true;
	return false;
}

/*
 * Send cluster cl of cmd (its buffers set up) to disk dp at the first buffer's b_blkno; it is
 * synchronous (BIO_SYNC) if someone waits for one of its buffers.
 */
static void cluster_start(struct cluster_io *cl, struct disk *dp, int cmd)
{
	struct bio *bio = &cl->cl_bio;
	int npages = 0;

	for (int i = 0; i < cl->cl_nbufs; i++)
		npages += buf_data_pages(cl->cl_bufs[i], &cl->cl_pages[npages]);
	memset(bio, 0, sizeof(*bio));
	bio->bio_cmd = cmd;
	bio->bio_flags = BIO_UNMAPPED | (cluster_waited(cl) ? BIO_SYNC : 0);
	bio->bio_disk = dp;
	bio->bio_offset = (uint64_t)cl->cl_bufs[0]->b_blkno * DEV_BSIZE;
	bio->bio_length = (uint32_t)cl->cl_bytes;
	bio->bio_ma = cl->cl_pages;
	bio->bio_ma_n = npages;
	bio->bio_done = cluster_done;
	bio->bio_caller1 = cl;
	disk_start(bio);
}

/* Count a cluster of n blocks and `bytes` in vfs.cluster.* (writes) or the read counters. */
static void cluster_count(bool write, int n, int bytes)
{
	if (!write) {
		bstats.cluster_reads++;
		bstats.cluster_read_bufs += (uint64_t)n;
		return;
	}
	bstats.cluster_writes++;
	bstats.cluster_write_bufs += (uint64_t)n;
	bstats.cluster_write_bytes += (uint64_t)bytes;
	bstats.cluster_hist[MIN(n, CLUSTER_HIST) - 1]++;
}

/*
 * Write the n busy, dirty, contiguous buffers bufs[] of vp: as one cluster with header cl when
 * n > 1 (cl is then used up), or with bawrite when n is 1. Returns the bytes.
 */
static int cluster_issue_write(struct vnode *vp, struct buf **bufs, int n, struct cluster_io *cl)
{
	struct rd_charge rc;
	int bytes = 0;

	if (n == 1) {
		bytes = bufs[0]->b_bufsize;
		bawrite(bufs[0]);
		return bytes;
	}
	cl->cl_nbufs = n;
	spin_lock(&bufcache_lock);
	for (int i = 0; i < n; i++) {
		struct buf *tbp = bufs[i];

		buf_write_begin(tbp);
		tbp->b_flags |= B_ASYNC;
		tbp->b_runningbufspace = 0;     /* the cluster carries the charge */
		tbp->b_rdcharge.rc_n = 0;
		tbp->b_iocmd = BIO_WRITE;
		tbp->b_error = tbp->b_resid = 0;
		cl->cl_bufs[i] = tbp;
		bytes += tbp->b_bufsize;
	}
	cl->cl_bytes = bytes;
	/* LAB bufdaemon BEGIN */
	runningbufspace += bytes;
	/* LAB bufdaemon STUB */
	// /* Charge the cluster's bytes to runningbufspace here (cluster_done gives them back). */
	/* LAB bufdaemon END */
	buf_charge(&cl->cl_rdcharge, buf_disk(vp), bufs[0]->b_blkno, bytes);
	rc = cl->cl_rdcharge;                 /* the async step's: cl may complete at once */
	rc.rc_waited = cluster_waited(cl);
	spin_unlock(&bufcache_lock);
	for (int i = 0; i < n; i++)
		if (bufs[i]->b_flags & B_VMIO)
			vmio_write_prep(bufs[i]);
	if (curproc != NULL)
		curproc->p_oublock++;
	bstats.bawrites++;
	cluster_count(true, n, bytes);
	cluster_start(cl, buf_disk(vp), BIO_WRITE);
	bd_async_write_issued(&rc);
	return bytes;
}

/* ---- finding runs (bufcache_lock held) ------------------------------------------------------- */

struct wprobe {
	struct vnode *vp;
	int           size;
};

/*
 * May block lbn of w->vp join a cluster write? In core, not busy, dirty, clusterable, valid,
 * of the cluster's block size and mapped to disk (FreeBSD's vfs_bio_awrite tests).
 */
static bool write_probe(void *arg, int64_t lbn, int64_t *blkno)
{
	struct wprobe *w = arg;
	struct buf *bp = gbincore(w->vp, lbn);

	if (bp == NULL || (bp->b_flags & (B_BUSY | B_DELWRI | B_CLUSTEROK | B_INVAL)) !=
	                  (B_DELWRI | B_CLUSTEROK) ||
	    bp->b_bufsize != w->size || bp->b_blkno == bp->b_lblkno)
		return false;
	*blkno = bp->b_blkno;
	return true;
}

/* Make blocks [start, start+n) of vp busy into bufs[], except `own` (already the caller's). */
static void busy_run(struct vnode *vp, int64_t start, int n, struct buf *own, struct buf **bufs)
{
	for (int i = 0; i < n; i++) {
		struct buf *bp = gbincore(vp, start + i);

		if (bp != own)
			buf_busy(bp);
		bufs[i] = bp;
	}
}

/*
 * cluster_wbuild: write the dirty blocks in [start, start+len) of vp, each maximal contiguous
 * run as one cluster (FreeBSD's cluster_wbuild). Blocks that cannot join are skipped: they
 * are busy, clean, or somebody else's to write. A run of two blocks or more needs a header:
 * the writer sleeps for one when the pool is empty (wswbuf0), then looks at the run again, as
 * the blocks may have been written or dirtied meanwhile. Returns the bytes written.
 */
static int cluster_wbuild(struct vnode *vp, int size, int64_t start, int len)
{
	struct wprobe w = { vp, size };
	struct buf *bufs[MAXCLBLKS];
	struct cluster_io *cl = NULL;
	int64_t lbn = start, end = start + len, blkno;
	int n, total = 0, maxcl = MIN(cluster_maxcl(vp, size), MAXCLBLKS);

	if (buf_disk(vp) == NULL)
		maxcl = 1;                          /* no disk to send a cluster to: one by one */
	while (lbn < end) {
		spin_lock(&bufcache_lock);
		if (!write_probe(&w, lbn, &blkno)) {
			spin_unlock(&bufcache_lock);
			lbn++;
			continue;
		}
		n = cluster_run(write_probe, &w, lbn, blkno, size / DEV_BSIZE, (int)MIN(maxcl, end - lbn));
		if (n > 1 && cl == NULL) {
			spin_unlock(&bufcache_lock);
			cl = cluster_getpbuf();
			continue;
		}
		busy_run(vp, lbn, n, NULL, bufs);
		spin_unlock(&bufcache_lock);
		total += cluster_issue_write(vp, bufs, n, cl);
		if (n > 1)
			cl = NULL;
		lbn += n;
	}
	if (cl != NULL)
		cluster_relpbuf(cl);
	return total;
}

/* ---- the write paths ------------------------------------------------------------------------- */

/*
 * cluster_write: FreeBSD 4.2's cluster_write(bp, filesize) as ffs_write calls it for a block
 * written in full (the decisions: cluster_write_plan). bp is busy, dirty or about to be, and
 * mapped (the file system set b_blkno when it allocated the block). The caller holds the
 * vnode's lock, which protects the vnode's cluster state.
 */
void cluster_write(struct buf *bp)
{
	struct vnode *vp = bp->b_vp;
	int size = bp->b_bufsize;
	struct cluster_wstate cs = { vp->v_lastw, vp->v_cstart, vp->v_lasta, vp->v_clen };
	struct cluster_wplan plan;

	cluster_write_plan(&cs, bp->b_lblkno, bp->b_blkno, size / DEV_BSIZE,
	                   MIN(cluster_maxcl(vp, size), MAXCLBLKS) - 1, &plan);
	vp->v_lastw = cs.cw_lastw;
	vp->v_cstart = cs.cw_cstart;
	vp->v_lasta = cs.cw_lasta;
	vp->v_clen = cs.cw_clen;
	if (plan.push)
		cluster_wbuild(vp, size, plan.push_start, plan.push_len);
	switch (plan.act) {
	case CW_WRITE_NOW:
		bawrite(bp);
		break;
	case CW_DELAY:
		bdwrite(bp);
		break;
	case CW_DELAY_AND_BUILD:
		bdwrite(bp);
		cluster_wbuild(vp, size, plan.build_start, plan.build_len);
		break;
	}
}

/*
 * vfs_bio_awrite: write busy dirty buffer bp, with the dirty clusterable buffers contiguous with
 * it on both sides (FreeBSD's vfs_bio_awrite: "we may not be presented with the buffers in the
 * correct order, so we search for the cluster in both directions"). Only regular files'
 * buffers on a disk cluster; others are written alone. A cluster needs a header: without one
 * the caller sleeps (wswbuf0) holding bp, as FreeBSD 4's did, and then looks again.
 */
int vfs_bio_awrite(struct buf *bp, int *nbufs)
{
	struct vnode *vp = bp->b_vp;
	struct wprobe w = { vp, bp->b_bufsize };
	struct buf *bufs[MAXCLBLKS];
	struct cluster_io *cl = NULL;
	int64_t start;
	int n = 1, bytes = bp->b_bufsize;

	while (vp->v_type == VREG && buf_disk(vp) != NULL &&
	       (bp->b_flags & (B_CLUSTEROK | B_INVAL)) == B_CLUSTEROK && bp->b_blkno != bp->b_lblkno) {
		spin_lock(&bufcache_lock);
		n = cluster_span(write_probe, &w, bp->b_lblkno, bp->b_blkno, bp->b_bufsize / DEV_BSIZE,
		                 MIN(cluster_maxcl(vp, bp->b_bufsize), MAXCLBLKS), &start);
		if (n > 1 && cl == NULL) {
			spin_unlock(&bufcache_lock);
			cl = cluster_getpbuf();
			continue;
		}
		if (n > 1)
			busy_run(vp, start, n, bp, bufs);
		spin_unlock(&bufcache_lock);
		break;
	}
	*nbufs = n;
	if (n > 1)
		return cluster_issue_write(vp, bufs, n, cl);
	if (cl != NULL)
		cluster_relpbuf(cl);
	bawrite(bp);
	return bytes;
}

/* ---- reading --------------------------------------------------------------------------------- */

/*
 * Read block lbn of vp with the uncached, contiguous blocks after it, up to `run` blocks, as
 * one request (FreeBSD's cluster_rbuild). fbp is the first block's busy buffer, or NULL to get
 * it here (a read-ahead: then it is skipped if already cached). Every buffer but a caller-given
 * fbp is read async and released when done; `ram` marks the last one B_RAM. Returns the
 * number of blocks read.
 */
static int cluster_rbuild(struct vnode *vp, daddr_t lbn, int size, int run, struct buf *fbp,
                          bool ram)
{
	struct disk *dp = buf_disk(vp);
	struct buf *bufs[MAXCLBLKS], *tbp;
	struct cluster_io *cl;
	daddr_t blkno, b;
	int n = 0, dblks = size / DEV_BSIZE;

	tbp = fbp != NULL ? fbp : getblk(vp, lbn, size, 0, 0);
	if (fbp == NULL && (tbp->b_flags & B_CACHE)) {
		bqrelse(tbp);
		return 0;
	}
	if (VOP_BMAP(vp, lbn, &blkno) != 0 || blkno == -1 || dp == NULL)
		run = 1;                                   /* a hole or no disk: strategy alone */
	else
		tbp->b_blkno = blkno;
	bufs[n++] = tbp;
	while (n < run && incore(vp, lbn + n) == NULL && VOP_BMAP(vp, lbn + n, &b) == 0 &&
	       b == blkno + n * dblks) {
		tbp = getblk(vp, lbn + n, size, 0, 0);
		if (tbp->b_flags & B_CACHE) {
			bqrelse(tbp);
			break;
		}
		tbp->b_blkno = b;
		bufs[n++] = tbp;
	}
	if (ram) {
		spin_lock(&bufcache_lock);
		bufs[n - 1]->b_flags |= B_RAM;
		spin_unlock(&bufcache_lock);
	}
	cl = n > 1 ? cluster_trypbuf() : NULL;
	for (int i = 0; i < n; i++) {
		buf_read_begin(bufs[i], bufs[i] != fbp);
		if (cl == NULL)
			VOP_STRATEGY(vp, bufs[i]);
		else
			cl->cl_bufs[i] = bufs[i];
		if (bufs[i] != fbp)
			bstats.readaheads++;
	}
	if (cl != NULL) {
		cl->cl_nbufs = n;
		cl->cl_bytes = n * size;
		cluster_count(false, n, n * size);
		cluster_start(cl, dp, BIO_READ);
	}
	return n;
}

/*
 * cluster_read: bread of block lblkno of vp (a file of `filesize` bytes) for a reader that wants
 * `totread` bytes from it on and has read sequentially `seqcount` times (FreeBSD's ffs_read and
 * cluster_read). An uncached block is read together with the following blocks the request
 * covers. A sequential reader also gets the next run read ahead, its last block marked B_RAM:
 * when the reader reaches a cached B_RAM block, the run after it is started. Returns 0 or the
 * error; *bpp is the busy buffer either way.
 */
int cluster_read(struct vnode *vp, off_t filesize, daddr_t lblkno, int size, long totread,
                 int seqcount, struct buf **bpp)
{
	int maxcl = MIN(cluster_maxcl(vp, size), MAXCLBLKS);
	daddr_t lastblk = (daddr_t)((filesize + size - 1) / size);    /* one past the last block */
	daddr_t next = lblkno + 1;
	struct buf *bp = getblk(vp, lblkno, size, 0, 0);
	bool ram, wait = false;
	int want;

	*bpp = bp;
	spin_lock(&bufcache_lock);
	ram = (bp->b_flags & (B_CACHE | B_RAM)) == (B_CACHE | B_RAM);
	bp->b_flags &= ~B_RAM;
	spin_unlock(&bufcache_lock);
	if (!(bp->b_flags & B_CACHE)) {
		want = (int)MIN((long)maxcl, howmany(totread, size));
		want = (int)MIN((daddr_t)MAX(want, 1), lastblk - lblkno);
		next = lblkno + cluster_rbuild(vp, lblkno, size, want, bp, false);
		wait = true;
	} else if (ram) {
		while (next < lastblk && next < lblkno + MAXRA && incore(vp, next) != NULL)
			next++;
	}
	if (seqcount > 1 && (wait || ram) && next < lastblk)
		cluster_rbuild(vp, next, size, (int)MIN((daddr_t)maxcl, lastblk - next), NULL, true);
	return wait ? biowait(bp) : 0;
}
