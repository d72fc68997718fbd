/*
 * vfs_bio.c - the buffer cache, FreeBSD 4.x's vfs_bio.c in miniature (interface: vfs/buf.h;
 * the buf_daemon's designs: vfs/vfs_bufdaemon.c; clustering: vfs/vfs_cluster.c; the chapter:
 * docs/bufcache.md). Checked against FreeBSD's sys/kern/vfs_bio.c right after the December
 * 2000 patch ([@fbsd-vfs_bio-2001] in docs/sources.md).
 *
 * nbuf headers (sized from memory as FreeBSD's cpu_startup of 2000 does) cache blocks of vnodes.
 * Each header is in exactly one place: busy (B_BUSY, owned by a thread or by an I/O in flight,
 * on no queue) or on one of the queues:
 *   QUEUE_CLEAN     valid or invalid data, not dirty: reusable, least recently released first;
 *   QUEUE_DIRTY     B_DELWRI buffers, oldest release first: the flusher takes them from the head;
 *   QUEUE_EMPTYKVA  no identity, but still holding a kmalloc'd data block (wdrain's stand-in for
 *                   FreeBSD's reserved buffer KVA): getnewbuf reuses the block when it fits;
 *   QUEUE_EMPTY     no identity and no memory.
 * bufspace counts the memory buffers hold (kmalloc'd blocks, and VMIO buffers' wired pages);
 * getnewbuf keeps it under hibufspace, recycling CLEAN buffers once it passes lobufspace.
 *
 * Dirty accounting: numdirtybuffers counts B_DELWRI buffers. bdirty() wakes the flusher
 * (bd_wakeup) when the count reaches the design's level; bwillwrite() throttles writers
 * ("flswai") as the current design says. getnewbuf() never writes a dirty buffer itself: it
 * wakes the flusher (bd_speedup) and sleeps ("newbuf"). runningbufspace counts the bytes of
 * write I/O issued and not completed: charged in bwrite just before the strategy call (a
 * cluster: the whole cluster), credited in biodone (FreeBSD 4.3's meaning). After an async
 * write is issued, the design decides whether the writer waits ("wdrain").
 *
 * Each vnode keeps its buffers on two lists, clean and dirty (FreeBSD's v_cleanblkhd and
 * v_dirtyblkhd, kept right by reassignbuf), so fsync walks only dirty buffers; the operations
 * on one vnode's buffers (bufsync, vinvalbuf, ...) are in vfs_bio_vnode.c.
 *
 * Locking: bufcache_lock (a spinlock, so biodone may run in interrupt context) protects the
 * queues, the hash, every vnode's buffer lists and v_numoutput, the counters, b_flags of every
 * buffer, b_qindex, b_freelist, b_vnbufs and b_hnext. The other fields of a busy buffer belong
 * to its owner. Nothing sleeps with the lock held except through msleep, which releases it; no
 * scan holds it across a write (dirty buffers are collected in batches, then written unlocked).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/time.h"
#include "kern/proc.h"
#include "kern/sysctl.h"
#include "arch/memlayout.h"
#include "vm/vm_page.h"
#include "vm/vm_object.h"
#include "vfs/buf.h"
#include "vfs/buf_internal.h"
#include "vfs/bufdaemon.h"
#include "vfs/vnode.h"
#include "vfs/syncio.h"
#include "vfs/mount.h"
#include "vfs/vfs.h"
#include <sys/errno.h>

/* A write has been issued and not completed (FreeBSD 4's B_WRITEINPROG). Private to the cache. */
#define B_WRITEINPROG 0x01000000

struct spinlock bufcache_lock;
struct bio_stats bstats;

static struct buf *buf;            /* the nbuf headers */

static struct buf **bufhashtbl;    /* (vp, lblkno) -> buffer, chained through b_hnext */
static uint32_t bufhashmask;

static struct buflists bufqueues[BUFFER_QUEUES];

static int needsbuffer;      /* getnewbuf sleepers wait on &needsbuffer */
static struct proc *bufdaemonproc;   /* the "bufdaemon" thread (set once, at bufinit) */

/* ---- sizing --------------------------------------------------------------------------------- */

/* The lower limit getnewbuf works with (FreeBSD's lobufspace; hibufspace: vfs_bufstat.c). */
static int lobufspace(void)
{
	return hibufspace() - MAXBSIZE;
}

/* ---- queues, hash and vnode lists (bufcache_lock held) -------------------------------------- */

static void bq_insert(enum bufqueue q, struct buf *bp, bool head)
{
	bp->b_qindex = q;
	if (head)
		TAILQ_INSERT_HEAD(&bufqueues[q], bp, b_freelist);
	else
		TAILQ_INSERT_TAIL(&bufqueues[q], bp, b_freelist);
}

/* bremfree: take bp off its queue (see buf_internal.h). */
void bremfree(struct buf *bp)
{
	KASSERT(bp->b_qindex != QUEUE_NONE, "bremfree: buffer on no queue");
	TAILQ_REMOVE(&bufqueues[bp->b_qindex], bp, b_freelist);
	bp->b_qindex = QUEUE_NONE;
}

/*
 * buf_dump: the console's ^P - the levels, each queue's length, and the busy buffers (on no
 * queue: someone owns them, or their I/O is in flight), at most BUFDUMP_BUSY of them. Read
 * without bufcache_lock, which a hung CPU may hold; a racing change shows as a stale number.
 */
#define BUFDUMP_BUSY 24
void buf_dump(void)
{
	static const char *qname[BUFFER_QUEUES] = { "none", "clean", "dirty", "emptykva", "empty" };
	int count[BUFFER_QUEUES] = { 0 };
	for (int i = 0; i < nbuf; i++)
		count[buf[i].b_qindex]++;
	kprintf("^P bufs: %d dirty (hi %d, lo %d), runningbufspace %d (hi %d, lo %d), bufspace %d (max %d), "
	        "needsbuffer %d\n", numdirtybuffers, hidirtybuffers, lodirtybuffers, runningbufspace,
	        hirunningspace, lorunningspace, bufspace, maxbufspace, needsbuffer);
	for (int q = 0; q < BUFFER_QUEUES; q++)
		kprintf("^P bufs: queue %s %d\n", qname[q], count[q]);
	int shown = 0;
	for (int i = 0; i < nbuf && shown < BUFDUMP_BUSY; i++) {
		struct buf *bp = &buf[i];
		if (bp->b_qindex != QUEUE_NONE || !(bp->b_flags & B_BUSY))
			continue;
		kprintf("^P buf %p vp %p lblk %d blk %d size %d flags %x%s\n", bp, bp->b_vp, (int)bp->b_lblkno,
		        (int)bp->b_blkno, bp->b_bufsize, bp->b_flags,
		        (bp->b_flags & B_WRITEINPROG) ? " writing" : "");
		shown++;
	}
}

/* buf_busy: a buffer found on a queue becomes its caller's. */
void buf_busy(struct buf *bp)
{
	bremfree(bp);
	bp->b_flags |= B_BUSY;
}

static struct buf **bufhash(struct vnode *vp, daddr_t blkno)
{
	uint32_t h = ((uint32_t)(uintptr_t)vp >> 6) ^ (uint32_t)blkno ^ (uint32_t)(blkno >> 32);

	h ^= h >> 16;
	return &bufhashtbl[h & bufhashmask];
}

/* gbincore: see buf_internal.h (FreeBSD's gbincore). */
struct buf *gbincore(struct vnode *vp, daddr_t blkno)
{
	struct buf *bp;

	for (bp = *bufhash(vp, blkno); bp != NULL; bp = bp->b_hnext)
		if (bp->b_vp == vp && bp->b_lblkno == blkno)
			return bp;
	return NULL;
}

/* The byte offset of block blkno of vp: DEV_BSIZE units on a device, bsize blocks in a file. */
static off_t blk_offset(struct vnode *vp, daddr_t blkno, int size)
{
	return vp->v_disk != NULL ? (off_t)blkno * DEV_BSIZE : (off_t)blkno * size;
}

/* Give bp the identity (vp, blkno): hash it and put it on vp's clean list (FreeBSD's bgetvp). */
static void bgetvp(struct buf *bp, struct vnode *vp, daddr_t blkno, int size)
{
	struct buf **hp = bufhash(vp, blkno);

	bp->b_vp = vp;
	bp->b_lblkno = blkno;
	bp->b_blkno = blkno;
	bp->b_offset = blk_offset(vp, blkno, size);
	bp->b_hnext = *hp;
	*hp = bp;
	TAILQ_INSERT_TAIL(&vp->v_cleanblkhd, bp, b_vnbufs);
}

/* Remove bp's identity (FreeBSD's brelvp). A clean buffer only. */
static void brelvp(struct buf *bp)
{
	struct vnode *vp = bp->b_vp;
	struct buf **hp;

	if (vp == NULL)
		return;
	KASSERT(!(bp->b_flags & B_DELWRI), "brelvp: dirty buffer");
	for (hp = bufhash(vp, bp->b_lblkno); *hp != bp; hp = &(*hp)->b_hnext)
		KASSERT(*hp != NULL, "brelvp: buffer not in hash");
	*hp = bp->b_hnext;
	bp->b_hnext = NULL;
	TAILQ_REMOVE(&vp->v_cleanblkhd, bp, b_vnbufs);
	bp->b_vp = NULL;
}

/* Move bp to the vnode list its B_DELWRI flag says (FreeBSD's reassignbuf). */
static void reassignbuf(struct buf *bp, bool was_dirty)
{
	struct vnode *vp = bp->b_vp;

	TAILQ_REMOVE(was_dirty ? &vp->v_dirtyblkhd : &vp->v_cleanblkhd, bp, b_vnbufs);
	TAILQ_INSERT_TAIL((bp->b_flags & B_DELWRI) ? &vp->v_dirtyblkhd : &vp->v_cleanblkhd, bp,
	                  b_vnbufs);
}

/* ---- dirty accounting (bufcache_lock held) -------------------------------------------------- */

/* Mark bp dirty (FreeBSD's bdirty): count it, and ask the flusher in at the design's level. */
static void bdirty(struct buf *bp)
{
	if (bp->b_flags & B_DELWRI)
		return;
	bp->b_flags |= B_DELWRI;
	reassignbuf(bp, false);
	numdirtybuffers++;
	bp->b_dirtytick = ticks;
	bd_buffer_dirtied();
}

/* Mark bp clean (FreeBSD's bundirty): its write has been issued, or it is being thrown away. */
static void bundirty(struct buf *bp)
{
	if (!(bp->b_flags & B_DELWRI))
		return;
	bp->b_flags &= ~B_DELWRI;
	reassignbuf(bp, true);
	numdirtybuffers--;
	bd_buffer_cleaned();
}

/* buf_dirty_count_severe: too many dirty buffers (FreeBSD 4.3, [@fbsd-vfs_bio-2001]). */
bool buf_dirty_count_severe(void)
{
	return numdirtybuffers >= hidirtybuffers;
}

/* ---- buffer memory -------------------------------------------------------------------------- */

/*
 * Strip bp of its identity; keep its data block (it goes to QUEUE_EMPTYKVA) or, without one, go
 * to QUEUE_EMPTY. A VMIO buffer's pages are detached into *pages, for the caller to
 * vmio_release once it has dropped the lock. bufcache_lock held, bp busy.
 */
static void binvalidate(struct buf *bp, struct vmio_pages *pages)
{
	bundirty(bp);
	brelvp(bp);
	vmio_detach(bp, pages);
	bp->b_bufsize = bp->b_bcount = 0;
	bp->b_flags &= B_WANTED;
	bq_insert(bp->b_kvasize > 0 ? QUEUE_EMPTYKVA : QUEUE_EMPTY, bp, true);
}

/* buf_data_pages: see buf_internal.h. A kmalloc'd block of a page or more is page-aligned. */
int buf_data_pages(struct buf *bp, struct vm_page **ma)
{
	int n = (int)howmany(bp->b_bufsize, PAGE_SIZE);

	if (bp->b_flags & B_VMIO) {
		for (int i = 0; i < bp->b_npages; i++)
			ma[i] = bp->b_iopages[i];
		return bp->b_npages;
	}
	for (int i = 0; i < n; i++)
		ma[i] = PHYS_TO_VM_PAGE(V2P(bp->b_data + i * PAGE_SIZE));
	return n;
}

/* buf_disk: see buf_internal.h. */
struct disk *buf_disk(struct vnode *vp)
{
	if (vp->v_disk != NULL)
		return vp->v_disk;
	if (vp->v_mount != NULL && vp->v_mount->mnt_devvp != NULL)
		return vp->v_mount->mnt_devvp->v_disk;
	return NULL;
}

/* ---- getting buffers ------------------------------------------------------------------------- */

/* What a reused header gave up, for getnewbuf to free once it has dropped the lock. */
struct oldmem {
	char             *data;     /* a kmalloc'd block the new buffer cannot use, or NULL */
	struct vmio_pages pages;    /* a VMIO buffer's pages */
};

/*
 * Take a reusable header for a `size`-byte buffer, or NULL (bufcache_lock held). FreeBSD 4's
 * getnewbuf order: an EMPTYKVA header first; then, once bufspace has passed lobufspace, the
 * least recently used CLEAN buffer; an EMPTY header while bufspace leaves room for the new
 * block; last, a CLEAN buffer even below lobufspace. The header keeps a kmalloc'd block of
 * exactly `size` bytes for a non-VMIO buffer; anything else it held goes to *old, out of
 * bufspace. A non-VMIO buffer's new block is counted in bufspace now, a VMIO buffer's pages
 * when vmio_alloc wires them.
 */
static struct buf *getnewbuf_pick(int size, bool vmio, struct oldmem *old)
{
	struct buf *bp;

	bp = TAILQ_FIRST(&bufqueues[QUEUE_EMPTYKVA]);
	if (bp == NULL && bufspace >= lobufspace())
		bp = TAILQ_FIRST(&bufqueues[QUEUE_CLEAN]);
	if (bp == NULL && bufspace + size <= hibufspace())
		bp = TAILQ_FIRST(&bufqueues[QUEUE_EMPTY]);
	if (bp == NULL)
		bp = TAILQ_FIRST(&bufqueues[QUEUE_CLEAN]);
	if (bp == NULL)
		return NULL;
	buf_busy(bp);
	brelvp(bp);
	vmio_detach(bp, &old->pages);
	old->data = NULL;
	if (bp->b_kvasize > 0 && (vmio || bp->b_kvasize != size)) {
		old->data = bp->b_data;
		bufspace -= bp->b_kvasize;
		bp->b_data = NULL;
		bp->b_kvasize = 0;
	}
	if (!vmio && bp->b_kvasize == 0)
		bufspace += size;
	return bp;
}

/*
 * getnewbuf: a busy buffer with no identity and `size` bytes of (stale) data - a kmalloc'd
 * block, or for a VMIO buffer (vmio) none yet: getblk gives it its pages once it has its
 * identity. It never writes a dirty buffer: with nothing reusable it wakes the flusher
 * (bd_speedup) and sleeps "newbuf" until a buffer is released. May sleep; called without locks.
 */
static struct buf *getnewbuf(int size, bool vmio)
{
	struct buf *bp;
	struct oldmem old;

	spin_lock(&bufcache_lock);
	while ((bp = getnewbuf_pick(size, vmio, &old)) == NULL) {
		needsbuffer = 1;
		bd_speedup();
		bstats.sleeps_newbuf++;
		msleep(&needsbuffer, &bufcache_lock, 0, "newbuf", HZ);
	}
	bp->b_flags = B_BUSY | (vmio ? B_VMIO : 0);
	spin_unlock(&bufcache_lock);

	vmio_release(&old.pages);
	kfree(old.data);
	if (!vmio && bp->b_kvasize == 0) {
		bp->b_data = kmalloc((size_t)size, M_WAITOK);
		bp->b_kvasize = size;
	}
	bp->b_bufsize = bp->b_bcount = size;
	bp->b_error = 0;
	bp->b_resid = 0;
	bp->b_iodone = NULL;
	bp->b_runningbufspace = 0;
	bp->b_rdcharge.rc_n = 0;
	return bp;
}

/* A cached buffer has the wrong size for getblk: write it if dirty, then let it go. */
static void getblk_discard(struct buf *bp)
{
	bool dirty;

	spin_lock(&bufcache_lock);
	dirty = (bp->b_flags & B_DELWRI) != 0;
	bp->b_flags |= dirty ? B_NOCACHE : B_INVAL;
	spin_unlock(&bufcache_lock);
	if (dirty)
		bwrite(bp);
	else
		brelse(bp);
}

/*
 * getblk: the buffer for (vp, blkno), busy. B_CACHE is set if its data is valid.
 * Sleeps ("getblk") while another owner has it busy. A cached buffer of a different size is
 * written (if dirty) or discarded, and a fresh one is made, as FreeBSD 4 does for non-VMIO
 * buffers. A regular file's buffer is VMIO (vfs_bio_vmio.c): a new one takes the file's pages
 * once it is hashed (so a second getblk of the block waits for it, not for the pages), a cached
 * one has them checked. slpflag/slptimeo are FreeBSD's arguments; this cache always waits
 * uninterruptibly.
 */
struct buf *getblk(struct vnode *vp, daddr_t blkno, int size, int slpflag __unused,
                   int slptimeo __unused)
{
	struct buf *bp;

	KASSERT(size > 0 && size <= MAXBSIZE, "getblk: bad size");
	for (;;) {
		spin_lock(&bufcache_lock);
		bp = gbincore(vp, blkno);
		if (bp != NULL) {
			if (bp->b_flags & B_BUSY) {
				bp->b_flags |= B_WANTED;
				msleep(bp, &bufcache_lock, 0, "getblk", HZ);
				spin_unlock(&bufcache_lock);
				continue;
			}
			buf_busy(bp);
			spin_unlock(&bufcache_lock);
			if (bp->b_bufsize != size) {
				getblk_discard(bp);
				continue;
			}
			if (bp->b_flags & B_VMIO)
				vmio_recheck(bp);
			return bp;
		}
		spin_unlock(&bufcache_lock);

		bool vmio = vmio_wanted(vp);
		bp = getnewbuf(size, vmio);
		spin_lock(&bufcache_lock);
		if (gbincore(vp, blkno) != NULL) {
			/* Someone else made the buffer while we slept: give ours back first. */
			bp->b_flags = 0;
			bp->b_bufsize = bp->b_bcount = 0;
			bq_insert(bp->b_kvasize > 0 ? QUEUE_EMPTYKVA : QUEUE_EMPTY, bp, true);
			spin_unlock(&bufcache_lock);
			continue;
		}
		bgetvp(bp, vp, blkno, size);
		spin_unlock(&bufcache_lock);
		if (vmio)
			vmio_alloc(bp);
		return bp;
	}
}

/* incore: the buffer of (vp, blkno) if cached (not locked: only a hint), else NULL. */
struct buf *incore(struct vnode *vp, daddr_t blkno)
{
	struct buf *bp;

	spin_lock(&bufcache_lock);
	bp = gbincore(vp, blkno);
	spin_unlock(&bufcache_lock);
	return bp;
}

/* buf_read_begin: see buf_internal.h. */
void buf_read_begin(struct buf *bp, bool async)
{
	spin_lock(&bufcache_lock);
	bp->b_flags &= ~(B_DONE | B_ERROR | B_INVAL | B_ASYNC);
	bp->b_flags |= B_READ | (async ? B_ASYNC : 0);
	spin_unlock(&bufcache_lock);
	bp->b_iocmd = BIO_READ;
	bp->b_error = 0;
	bp->b_resid = 0;
	bp->b_qahead = 0;
	if (bp->b_flags & B_VMIO)
		vmio_read_prep(bp);
	bstats.breads++;
	if (curproc != NULL)
		curproc->p_inblock++;
}

/* Start a read of busy, uncached bp through VOP_STRATEGY (async: released when done). */
static void bread_start(struct buf *bp, bool async)
{
	buf_read_begin(bp, async);
	VOP_STRATEGY(bp->b_vp, bp);
}

/*
 * bread: getblk, and read the block through VOP_STRATEGY unless it is cached. Returns 0 or the
 * I/O error; *bpp is the busy buffer either way (the caller brelse's it).
 */
int bread(struct vnode *vp, daddr_t blkno, int size, struct buf **bpp)
{
	return breadn(vp, blkno, size, NULL, NULL, 0, bpp);
}

/* breadn: bread, plus async reads of the uncached blocks rablkno[0..cnt-1] (FreeBSD's breadn). */
int breadn(struct vnode *vp, daddr_t blkno, int size, const daddr_t *rablkno, const int *rabsize,
           int cnt, struct buf **bpp)
{
	struct buf *bp = getblk(vp, blkno, size, 0, 0), *rabp;
	bool wait = false;

	*bpp = bp;
	if (!(bp->b_flags & B_CACHE)) {
		bread_start(bp, false);
		wait = true;
	}
	for (int i = 0; i < cnt; i++) {
		if (incore(vp, rablkno[i]) != NULL)
			continue;
		rabp = getblk(vp, rablkno[i], rabsize[i], 0, 0);
		if (rabp->b_flags & B_CACHE) {
			brelse(rabp);
			continue;
		}
		bstats.readaheads++;
		bread_start(rabp, true);
	}
	return wait ? biowait(bp) : 0;
}

/* ---- writing --------------------------------------------------------------------------------- */

/* buf_write_begin: see buf_internal.h. */
void buf_write_begin(struct buf *bp)
{
	bundirty(bp);
	bp->b_flags &= ~(B_DONE | B_ERROR | B_READ);
	bp->b_flags |= B_WRITEINPROG | B_CACHE;
	bp->b_vp->v_numoutput++;
	bp->b_qahead = 0;
}

/*
 * bwrite: write a busy buffer. Synchronous unless B_ASYNC is set: then the completion
 * releases it and the caller must not touch bp again, and the design may make the caller wait
 * for earlier writes (bd_async_write_issued: "wdrain" in the runningbuf design, "wdrdev" for
 * the disks the write went to in perdevice). Returns the I/O error (0 for async).
 * runningbufspace is charged with the buffer's size just before the strategy call (FreeBSD
 * 4.3), and so are the disks it goes to (buf_charge: their shares, kept in b_rdcharge).
 */
int bwrite(struct buf *bp)
{
	struct rd_charge rc;
	bool async;
	int error;

	KASSERT(bp->b_flags & B_BUSY, "bwrite: buffer not busy");
	if (bp->b_flags & B_INVAL) {
		brelse(bp);
		return 0;
	}
	spin_lock(&bufcache_lock);
	buf_write_begin(bp);
	/* LAB bufdaemon BEGIN */
	bp->b_runningbufspace = bp->b_bufsize;
	runningbufspace += bp->b_runningbufspace;
	/* LAB bufdaemon STUB */
	// /* Charge the write's bytes to runningbufspace here (biodone gives b_runningbufspace back). */
	/* LAB bufdaemon END */
	buf_charge(&bp->b_rdcharge, buf_disk(bp->b_vp), bp->b_blkno, bp->b_bufsize);
	rc = bp->b_rdcharge;                  /* the async step's: bp is not ours once issued */
	rc.rc_waited = (bp->b_flags & B_FSYNC) != 0;
	async = (bp->b_flags & B_ASYNC) != 0;
	spin_unlock(&bufcache_lock);

	if (bp->b_flags & B_VMIO)
		vmio_write_prep(bp);
	bp->b_iocmd = BIO_WRITE;
	bp->b_error = 0;
	bp->b_resid = 0;
	if (curproc != NULL)
		curproc->p_oublock++;
	if (async)
		bstats.bawrites++;
	else
		bstats.bwrites++;
	VOP_STRATEGY(bp->b_vp, bp);
	if (async) {
		bd_async_write_issued(&rc);
		return 0;
	}
	error = biowait(bp);
	brelse(bp);
	return error;
}

/* bawrite: start the write and return; the completion releases the buffer. */
void bawrite(struct buf *bp)
{
	spin_lock(&bufcache_lock);
	bp->b_flags |= B_ASYNC;
	spin_unlock(&bufcache_lock);
	bwrite(bp);
}

/*
 * bdwrite: delayed write. Mark the buffer dirty and valid, map its block now if it is not yet
 * mapped (FreeBSD's "this bmap keeps the system from needing to do the bmap later, perhaps
 * when the system is attempting to do a sync": a flush never reads an indirect block), and
 * release it to QUEUE_DIRTY. No I/O is started here.
 */
void bdwrite(struct buf *bp)
{
	daddr_t blkno;

	KASSERT(bp->b_flags & B_BUSY, "bdwrite: buffer not busy");
	if (bp->b_flags & B_INVAL) {
		brelse(bp);
		return;
	}
	if (bp->b_blkno == bp->b_lblkno && bp->b_vp->v_disk == NULL &&
	    VOP_BMAP(bp->b_vp, bp->b_lblkno, &blkno) == 0 && blkno != -1)
		bp->b_blkno = blkno;
	if (bp->b_flags & B_VMIO)
		vmio_clean(bp);
	spin_lock(&bufcache_lock);
	bdirty(bp);
	bp->b_flags |= B_CACHE;
	if (bp->b_vp->v_type == VREG)
		bp->b_flags |= B_CLUSTEROK;       /* file data: the flushers may cluster it (FFS's) */
	spin_unlock(&bufcache_lock);
	bstats.bdwrites++;
	bqrelse(bp);
}

/* ---- releasing ------------------------------------------------------------------------------- */

/*
 * Should brelse take bp's identity (and memory) away? B_INVAL or B_ERROR, or clean and
 * B_NOCACHE; a clean VMIO buffer also when it still holds pages that are not valid (nothing may
 * hold them wired and unbusy) or when memory is short (FreeBSD 4.3's B_RELBUF "if we are low
 * on pages": wired pages are beyond the pageout daemon's reach). bufcache_lock held.
 */
static bool brelse_invalidates(struct buf *bp)
{
	if (bp->b_flags & (B_INVAL | B_ERROR))
		return true;
	if (bp->b_flags & B_DELWRI)
		return false;
	return (bp->b_flags & B_NOCACHE) ||
	       ((bp->b_flags & B_VMIO) && (bp->b_pgbusy != 0 || vm_page_count_severe()));
}

/*
 * brelse: release a busy buffer. A buffer brelse_invalidates loses its identity (keeping a
 * kmalloc'd block, on QUEUE_EMPTYKVA; VMIO pages go back to the VM); dirty buffers go to the
 * tail of QUEUE_DIRTY, the rest to the tail of QUEUE_CLEAN (most recently used last). Wakes
 * whoever waits for this buffer or for any buffer. Callable from interrupt context (an async
 * write's completion).
 */
void brelse(struct buf *bp)
{
	struct vmio_pages pages = { .n = 0 };

	spin_lock(&bufcache_lock);
	KASSERT(bp->b_flags & B_BUSY, "brelse: buffer not busy");
	if (brelse_invalidates(bp))
		binvalidate(bp, &pages);
	else
		bq_insert((bp->b_flags & B_DELWRI) ? QUEUE_DIRTY : QUEUE_CLEAN, bp, false);
	if (bp->b_flags & B_WANTED)
		wakeup(bp);
	bp->b_flags &= ~(B_BUSY | B_ASYNC | B_NOCACHE | B_READ | B_WANTED | B_FSYNC);
	if (needsbuffer) {
		needsbuffer = 0;
		wakeup(&needsbuffer);
	}
	spin_unlock(&bufcache_lock);
	vmio_release(&pages);
}

/* bdiscard: drop a busy buffer's identity and data (see buf.h). */
void bdiscard(struct buf *bp)
{
	spin_lock(&bufcache_lock);
	bp->b_flags |= B_INVAL;
	spin_unlock(&bufcache_lock);
	brelse(bp);
}

/*
 * bqrelse: release a buffer the caller expects to be reused soon. FreeBSD 4 keeps such buffers
 * off the aging queue; with one LRU queue here that is exactly what brelse does.
 */
void bqrelse(struct buf *bp)
{
	brelse(bp);
}

/* buf_setflags: see buf.h (b_flags change under the lock, even the owner's). */
void buf_setflags(struct buf *bp, int flags)
{
	spin_lock(&bufcache_lock);
	bp->b_flags |= flags;
	spin_unlock(&bufcache_lock);
}

/* ---- I/O completion -------------------------------------------------------------------------- */

/*
 * A write of one of vp's buffers failed with `error` (bufcache_lock held). Counted on the vnode
 * (fsync reports it: vn_writeerror_take) and on its mount (the console: vfs_writeerr_report).
 * The write is not retried: the caller drops the buffer (docs/bufcache.md, "Write errors").
 */
static void count_write_error(struct vnode *vp, int error)
{
	vp->v_writeerrs++;
	vp->v_lastwriteerr = error;
	if (vp->v_mount != NULL)
		vp->v_mount->mnt_writeerrs++;
}

/*
 * biodone: the I/O on bp is finished (b_error says how). Returns the write's bytes to
 * runningbufspace (runningbufwakeup) and to the disks it was charged to (rundevwakeup), counts
 * the vnode's write done, marks a successful read
 * B_CACHE and then, in FreeBSD 4's order: calls the b_iodone hook if one is set, else
 * releases an async buffer, else wakes biowait. Any context; never sleeps.
 */
void biodone(struct buf *bp)
{
	void (*hook)(struct buf *);
	bool async, failedwrite;

	if (bp->b_flags & B_VMIO)
		vmio_io_done(bp, bp->b_error == 0 && !(bp->b_flags & B_ERROR));
	spin_lock(&bufcache_lock);
	KASSERT(!(bp->b_flags & B_DONE), "biodone: already done");
	if (bp->b_flags & B_WRITEINPROG) {
		bp->b_flags &= ~B_WRITEINPROG;
		/* LAB tour BEGIN */
		bstats.writes_done++;
		/* LAB tour END */
		/* LAB bufdaemon BEGIN */
		runningbufwakeup(bp->b_runningbufspace);
		bp->b_runningbufspace = 0;
		/* LAB bufdaemon STUB */
		// /* Give the write's bytes back to runningbufspace here (runningbufwakeup). */
		/* LAB bufdaemon END */
		rundevwakeup(&bp->b_rdcharge);
		bp->b_rdcharge.rc_n = 0;
		if (bp->b_error != 0 || (bp->b_flags & B_ERROR))
			count_write_error(bp->b_vp, bp->b_error != 0 ? bp->b_error : EIO);
		if (--bp->b_vp->v_numoutput == 0)
			wakeup(&bp->b_vp->v_numoutput);
	}
	if (bp->b_error != 0 || (bp->b_flags & B_ERROR)) {
		bp->b_flags |= B_ERROR;
		if (bp->b_error == 0)
			bp->b_error = EIO;
		bp->b_flags &= ~B_CACHE;
	} else if (bp->b_iocmd == BIO_READ) {
		bp->b_flags |= B_CACHE;
	}
	bp->b_flags |= B_DONE;
	failedwrite = (bp->b_flags & B_ERROR) && bp->b_iocmd == BIO_WRITE;
	hook = bp->b_iodone;
	bp->b_iodone = NULL;
	async = (bp->b_flags & B_ASYNC) != 0;
	if (hook == NULL && !async)
		wakeup(bp);
	spin_unlock(&bufcache_lock);

	if (failedwrite)
		kprintf("vfs_bio: write error %d on block %lld (disk block %lld): data lost\n",
		        bp->b_error, (long long)bp->b_lblkno, (long long)bp->b_blkno);
	if (hook != NULL)
		hook(bp);
	else if (async)
		brelse(bp);
}

/* The kind of synchronous I/O a wait for bp is (vfs.syncio): file data, or file system blocks. */
static int syncio_kind(struct buf *bp)
{
	bool data = bp->b_vp != NULL && bp->b_vp->v_type == VREG;

	if (bp->b_iocmd == BIO_READ)
		return data ? SYNCIO_DATAREAD : SYNCIO_METAREAD;
	return data ? SYNCIO_DATAWRITE : SYNCIO_METAWRITE;
}

/*
 * biowait: sleep until the I/O on busy buffer bp is done ("biord"/"biowr"); its error or 0.
 * The wait is counted in vfs.syncio (user processes only), and bp's disks are wanted while it
 * lasts (buf_wait_begin; the wanted buf_daemon design acts on it).
 */
int biowait(struct buf *bp)
{
	uint64_t t0 = nanouptime();

	buf_wait_begin(bp);
	spin_lock(&bufcache_lock);
	while (!(bp->b_flags & B_DONE))
		msleep(bp, &bufcache_lock, 0, bp->b_iocmd == BIO_READ ? "biord" : "biowr", 0);
	spin_unlock(&bufcache_lock);
	bd_wait_end();
	syncio_record(syncio_kind(bp), t0, bp->b_qahead);
	if (bp->b_flags & B_ERROR)
		return bp->b_error != 0 ? bp->b_error : EIO;
	return 0;
}

/* The disk finished the bio embedded in a buffer: pass the result on to biodone. */
static void bufbio_done(struct bio *bio)
{
	struct buf *bp = bio->bio_caller1;

	bp->b_error = bio->bio_error;
	bp->b_resid = bio->bio_resid;
	bp->b_qahead = bio->bio_qahead;
	if (bp->b_error == 0 && bp->b_resid != 0)
		bp->b_error = EIO;
	biodone(bp);
}

/*
 * disk_strategy_buf: send busy buffer bp to disk dp at b_blkno (DEV_BSIZE units); a request
 * someone will wait for (not B_ASYNC, or fsync's) is BIO_SYNC.
 */
void disk_strategy_buf(struct disk *dp, struct buf *bp)
{
	struct bio *bio = &bp->b_bio;

	memset(bio, 0, sizeof(*bio));
	if (!(bp->b_flags & B_ASYNC) || (bp->b_flags & B_FSYNC))
		bio->bio_flags = BIO_SYNC;
	bio->bio_cmd = bp->b_iocmd;
	bio->bio_disk = dp;
	bio->bio_offset = (uint64_t)bp->b_blkno * DEV_BSIZE;
	bio->bio_length = bp->b_bcount;
	if (bp->b_flags & B_VMIO) {
		bio->bio_flags |= BIO_UNMAPPED;
		bio->bio_ma = bp->b_iopages;
		bio->bio_ma_n = bp->b_npages;
	} else {
		bio->bio_data = bp->b_data;
	}
	bio->bio_done = bufbio_done;
	bio->bio_caller1 = bp;
	disk_start(bio);
}

/* ---- system-wide flushing -------------------------------------------------------------------- */

/*
 * The oldest buffer on QUEUE_DIRTY that has been dirty for at least `age` ticks (any, for age
 * 0), made busy, or NULL. bufcache_lock held.
 */
static struct buf *take_dirty(uint32_t age)
{
	struct buf *bp;

	TAILQ_FOREACH(bp, &bufqueues[QUEUE_DIRTY], b_freelist) {
		if (age == 0 || ticks - bp->b_dirtytick >= age) {
			buf_busy(bp);
			return bp;
		}
	}
	return NULL;
}

/*
 * Start clustered writes of the buffers dirty for at least `age` ticks, oldest first, at most
 * nbuf buffers (so a busy writer cannot keep the caller going for ever). How many it wrote.
 */
static int flush_dirty(uint32_t age)
{
	struct buf *bp;
	int nbufs, total = 0;

	while (total < nbuf) {
		spin_lock(&bufcache_lock);
		bp = take_dirty(age);
		spin_unlock(&bufcache_lock);
		if (bp == NULL)
			break;
		vfs_bio_awrite(bp, &nbufs);
		total += nbufs;
	}
	return total;
}

/* buf_flush_aged: the syncer's job, writes of every buffer dirty for `age` ticks or more. */
int buf_flush_aged(uint32_t age)
{
	return flush_dirty(age == 0 ? 1 : age);
}

/* A buffer with a write in flight, or NULL (bufcache_lock held). */
static struct buf *any_write_in_flight(void)
{
	for (int i = 0; i < nbuf; i++)
		if (buf[i].b_flags & B_WRITEINPROG)
			return &buf[i];
	return NULL;
}

/*
 * bufsync_all: start writes of every dirty buffer; with MNT_WAIT, wait until no write is in
 * flight (each sleep is on the vnode of a write still going, woken when its last one ends).
 */
int bufsync_all(int waitfor)
{
	struct buf *bp;

	flush_dirty(0);
	if (waitfor == MNT_WAIT) {
		spin_lock(&bufcache_lock);
		while ((bp = any_write_in_flight()) != NULL)
			msleep(&bp->b_vp->v_numoutput, &bufcache_lock, 0, "syncwt", HZ);
		spin_unlock(&bufcache_lock);
	}
	return 0;
}

/* ---- what the buf_daemon's designs need (vfs/bufdaemon.h) ------------------------------------ */

void bufq_lock(void)
{
	spin_lock(&bufcache_lock);
}

void bufq_unlock(void)
{
	spin_unlock(&bufcache_lock);
}

bool bufq_sleep(void *chan, const char *wmesg, int timo)
{
	return msleep(chan, &bufcache_lock, 0, wmesg, timo) == 0;
}

void bufq_wakeup(void *chan)
{
	wakeup(chan);
}

uint64_t bd_nanouptime(void)
{
	return nanouptime();
}

bool bd_curthread_is_daemon(void)
{
	return curproc != NULL && curproc == bufdaemonproc;
}

/*
 * The oldest buffer on QUEUE_DIRTY, or with ok the oldest whose cluster's disks (buf_reach)
 * ok() accepts, counting those it refused in *blocked; NULL if none. [lock held]
 */
static struct buf *dirty_oldest(bool (*ok)(const struct rd_charge *), int *blocked)
{
	struct rd_charge rc;
	struct buf *bp;

	*blocked = 0;
	TAILQ_FOREACH(bp, &bufqueues[QUEUE_DIRTY], b_freelist) {
		if (ok == NULL || (bp->b_flags & B_INVAL))
			return bp;
		buf_reach(bp, &rc);
		if (ok(&rc))
			return bp;
		(*blocked)++;
	}
	return NULL;
}

/*
 * buf_flush_oldest: the body of FreeBSD's flushbufqueues. The oldest buffer on QUEUE_DIRTY
 * (with ok: the oldest ok() accepts, dirty_oldest) is written with vfs_bio_awrite, which
 * gathers its contiguous dirty neighbours into one cluster; a B_INVAL buffer found on the way
 * is released instead (it is not worth a write).
 */
long buf_flush_oldest(bool (*ok)(const struct rd_charge *), int *nbufs, int *nblocked)
{
	struct buf *bp;
	int blocked;

	*nbufs = 0;
	spin_lock(&bufcache_lock);
	while ((bp = dirty_oldest(ok, &blocked)) != NULL) {
		buf_busy(bp);
		if (!(bp->b_flags & B_INVAL))
			break;
		spin_unlock(&bufcache_lock);
		brelse(bp);
		spin_lock(&bufcache_lock);
	}
	spin_unlock(&bufcache_lock);
	if (nblocked != NULL)
		*nblocked = blocked;
	if (bp == NULL)
		return 0;
	return vfs_bio_awrite(bp, nbufs);
}

/* ---- start-up -------------------------------------------------------------------------------- */

/* The buf_daemon's thread: vfs_bufdaemon.c's loop. */
static void bufdaemon_thread(void *arg __unused)
{
	buf_daemon();
}

/*
 * bufinit: size the cache from physical memory (vfs_bufstat.c), set the tunables' defaults
 * (FreeBSD's bufinit, [@fbsd-vfs_bio-2001]), put every header on QUEUE_EMPTY and start the
 * "bufdaemon" thread.
 */
void bufinit(void)
{
	uint32_t hsize;
	int i;

	spin_init(&bufcache_lock, "bufcache");
	bufparam_init();

	buf = kmalloc(nbuf * sizeof(struct buf), M_WAITOK | M_ZERO);
	for (hsize = 64; hsize < (uint32_t)nbuf; hsize <<= 1)
		continue;
	bufhashtbl = kmalloc(hsize * sizeof(struct buf *), M_WAITOK | M_ZERO);
	bufhashmask = hsize - 1;
	for (i = 0; i < BUFFER_QUEUES; i++)
		TAILQ_INIT(&bufqueues[i]);
	for (i = 0; i < nbuf; i++)
		bq_insert(QUEUE_EMPTY, &buf[i], false);
	cluster_init();
	rundev_boot();
	syncio_init();
	vmio_init();
	bufstat_init();

	kprintf("bufinit: nbuf %d, maxbufspace %d KB, hidirtybuffers %d, lodirtybuffers %d\n",
	        nbuf, maxbufspace / 1024, hidirtybuffers, lodirtybuffers);
	if (kproc_create(bufdaemon_thread, NULL, &bufdaemonproc, "bufdaemon") != 0)
		panic("bufinit: cannot start bufdaemon");
}
