/*
 * vfs_bio.c - the buffer cache, FreeBSD 4.x's vfs_bio.c in miniature (interface: vfs/buf.h).
 *
 * A fixed array of nbuf buffer headers caches blocks of vnodes. Each header is in exactly one
 * place: busy (B_BUSY, owned by a thread or by an I/O in flight, on no queue) or on one of the
 * queues (FreeBSD 4's names):
 *   QUEUE_CLEAN  valid or invalid data, not dirty: reusable, least recently released first (LRU);
 *   QUEUE_DIRTY  B_DELWRI buffers, oldest release first: the flusher takes them from the head;
 *   QUEUE_EMPTY  no identity and no data: a header waiting for a getnewbuf().
 * Buffer data is kmalloc'd per buffer (b_bufsize bytes, up to MAXBSIZE = 64 KB) and counted in
 * bufspace, which getnewbuf keeps under hibufspace by recycling CLEAN buffers.
 *
 * Dirty accounting: numdirtybuffers counts B_DELWRI buffers. bdirty() wakes the flusher
 * (bd_wakeup) when the count passes the lo/hi midpoint; bwillwrite() blocks writers ("flswai")
 * at hidirtybuffers. getnewbuf() never writes a dirty buffer itself: it wakes the flusher and
 * sleeps ("newbuf"). runningbufspace counts the bytes of write I/O issued and not completed:
 * bwrite adds b_bufsize before the strategy call, biodone subtracts it (FreeBSD 4.3's meaning).
 *
 * The flusher is the kernel thread "bufdaemon" running buf_daemon(); the syncer
 * (vfs_syncer.c) writes buffers that stayed dirty too long through buf_flush_aged().
 *
 * Locking: bufcache_lock (a spinlock, so biodone may run in interrupt context) protects the
 * queues, the hash, every vnode's v_bufhd list and v_numdirty, the counters below, b_flags of
 * every buffer and b_qindex/b_qnext/b_qprev/b_hnext/b_vnext/b_vprev. The other fields of a
 * busy buffer belong to its owner. Nothing here sleeps with the lock held except through
 * msleep, which releases it.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/time.h"
#include "kern/proc.h"
#include "kern/sysctl.h"
#include "vfs/buf.h"
#include "vfs/vnode.h"
#include "vfs/vfs.h"
#include <sys/errno.h>

/* Usable physical pages, counted by the VM code from the multiboot memory map. */
extern uint32_t physmem_pages;

#define BKVASIZE  (16 * 1024)      /* FreeBSD's nominal buffer size, for sizing */
#define MAXBSIZE  (64 * 1024)      /* largest buffer */

/* A write has been issued and not completed (FreeBSD 4's B_WRITEINPROG). Private to this file. */
#define B_WRITEINPROG 0x01000000

static struct spinlock bufcache_lock;

static struct buf *buf;            /* the nbuf headers */
static int nbuf;
static uint32_t *buf_dirtytick;    /* ticks when buf[i] became dirty (struct buf has no field) */

static struct buf **bufhashtbl;    /* (vp, lblkno) -> buffer, chained through b_hnext */
static uint32_t bufhashmask;

struct bqhead {
	struct buf *head, *tail;
};
static struct bqhead bufqueues[BUFFER_QUEUES];

static int numdirtybuffers;
SYSCTL_INT(vfs, numdirtybuffers, CTLFLAG_RD, &numdirtybuffers, "Number of dirty (B_DELWRI) buffers");
static int bufspace;
SYSCTL_INT(vfs, bufspace, CTLFLAG_RD, &bufspace, "Bytes of buffer data allocated");
static int runningbufspace;
SYSCTL_INT(vfs, runningbufspace, CTLFLAG_RD, &runningbufspace, "Bytes of write I/O in flight");
static int maxbufspace;
SYSCTL_INT(vfs, maxbufspace, CTLFLAG_RW, &maxbufspace, "Maximum bytes of buffer data (nbuf * 16 KB)");
static int hidirtybuffers;
SYSCTL_INT(vfs, hidirtybuffers, CTLFLAG_RW, &hidirtybuffers, "Dirty buffers at which writers block");
static int lodirtybuffers;
SYSCTL_INT(vfs, lodirtybuffers, CTLFLAG_RW, &lodirtybuffers, "Dirty buffers the flusher drains down to");
static int hirunningspace;
SYSCTL_INT(vfs, hirunningspace, CTLFLAG_RW, &hirunningspace, "Write bytes in flight above which writes wait");
static int lorunningspace;
SYSCTL_INT(vfs, lorunningspace, CTLFLAG_RW, &lorunningspace, "Write bytes in flight at which waiters resume");
/* The 4.2 ("speedup") buf_daemon's cap on writes per wakeup; read by that design (a later issue). */
static int maxbdrun;
SYSCTL_INT(vfs, maxbdrun, CTLFLAG_RW, &maxbdrun, "Maximum writes the speedup buf_daemon starts per wakeup");
SYSCTL_INT(vfs, nbuf, CTLFLAG_RD, &nbuf, "Number of buffer headers");

static int bd_request;       /* the flusher has been asked to run (sleeps on &bd_request) */
static int needsbuffer;      /* getnewbuf sleepers wait on &needsbuffer */
static int needsdirtyflush;  /* bwillwrite sleepers wait on &needsdirtyflush */

/* ---- sizing --------------------------------------------------------------------------------- */

/* The limit getnewbuf keeps bufspace under: FreeBSD's hibufspace. */
static int hibufspace(void)
{
	return MAX(3 * (maxbufspace / 4), maxbufspace - 10 * MAXBSIZE);
}

/*
 * nbuf from physical memory, as FreeBSD 4's i386 machdep.c: 50, plus a quarter of the first
 * 64 MB as 16 KB buffers (factor = 4 * BKVASIZE / PAGE_SIZE), plus 1/20 of the rest.
 * 64 MB -> 1010 buffers, 128 MB -> about 1480.
 */
static int nbuf_for_memory(int pages)
{
	int factor = 4 * BKVASIZE / PAGE_SIZE;
	int n = 50;

	if (pages > 1024)
		n += MIN((pages - 1024) / factor, 16384 / factor);
	if (pages > 16384)
		n += (pages - 16384) * 2 / (factor * 5);
	return n;
}

/* ---- queues, hash and vnode lists (bufcache_lock held) -------------------------------------- */

static void bq_insert_tail(enum bufqueue q, struct buf *bp)
{
	struct bqhead *h = &bufqueues[q];

	bp->b_qindex = q;
	bp->b_qnext = NULL;
	bp->b_qprev = h->tail;
	if (h->tail != NULL)
		h->tail->b_qnext = bp;
	else
		h->head = bp;
	h->tail = bp;
}

static void bq_insert_head(enum bufqueue q, struct buf *bp)
{
	struct bqhead *h = &bufqueues[q];

	bp->b_qindex = q;
	bp->b_qprev = NULL;
	bp->b_qnext = h->head;
	if (h->head != NULL)
		h->head->b_qprev = bp;
	else
		h->tail = bp;
	h->head = bp;
}

/* Take bp off its queue (FreeBSD's bremfree). */
static void bremfree(struct buf *bp)
{
	struct bqhead *h = &bufqueues[bp->b_qindex];

	KASSERT(bp->b_qindex != QUEUE_NONE, "bremfree: buffer on no queue");
	if (bp->b_qprev != NULL)
		bp->b_qprev->b_qnext = bp->b_qnext;
	else
		h->head = bp->b_qnext;
	if (bp->b_qnext != NULL)
		bp->b_qnext->b_qprev = bp->b_qprev;
	else
		h->tail = bp->b_qprev;
	bp->b_qnext = bp->b_qprev = NULL;
	bp->b_qindex = QUEUE_NONE;
}

static struct buf **bufhash(struct vnode *vp, daddr_t blkno)
{
	uint32_t h = ((uint32_t)(uintptr_t)vp >> 6) ^ (uint32_t)blkno ^ (uint32_t)(blkno >> 32);

	h ^= h >> 16;
	return &bufhashtbl[h & bufhashmask];
}

/* The buffer of (vp, blkno), busy or not, or NULL (FreeBSD's gbincore). */
static struct buf *gbincore(struct vnode *vp, daddr_t blkno)
{
	struct buf *bp;

	for (bp = *bufhash(vp, blkno); bp != NULL; bp = bp->b_hnext)
		if (bp->b_vp == vp && bp->b_lblkno == blkno)
			return bp;
	return NULL;
}

/* Give bp the identity (vp, blkno): hash it and put it on vp's list (FreeBSD's bgetvp). */
static void bgetvp(struct buf *bp, struct vnode *vp, daddr_t blkno)
{
	struct buf **hp = bufhash(vp, blkno);

	bp->b_vp = vp;
	bp->b_lblkno = blkno;
	bp->b_blkno = blkno;
	bp->b_hnext = *hp;
	*hp = bp;
	bp->b_vprev = NULL;
	bp->b_vnext = vp->v_bufhd;
	if (vp->v_bufhd != NULL)
		vp->v_bufhd->b_vprev = bp;
	vp->v_bufhd = bp;
}

/* Remove bp's identity (FreeBSD's brelvp). A clean buffer only: dirty ones count in v_numdirty. */
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
	if (bp->b_vprev != NULL)
		bp->b_vprev->b_vnext = bp->b_vnext;
	else
		vp->v_bufhd = bp->b_vnext;
	if (bp->b_vnext != NULL)
		bp->b_vnext->b_vprev = bp->b_vprev;
	bp->b_hnext = bp->b_vnext = bp->b_vprev = NULL;
	bp->b_vp = NULL;
}

/* ---- dirty accounting and the flusher's wakeups (bufcache_lock held) ------------------------ */

/* Ask the flusher to run if the dirty count reached `level` (FreeBSD's bd_wakeup). */
static void bd_wakeup(int level)
{
	if (bd_request == 0 && numdirtybuffers >= level) {
		bd_request = 1;
		wakeup(&bd_request);
	}
}

/* Wake writers blocked in bwillwrite once the dirty count is down to `level`. */
static void numdirtywakeup(int level)
{
	if (needsdirtyflush && numdirtybuffers <= level) {
		needsdirtyflush = 0;
		wakeup(&needsdirtyflush);
	}
}

/* Mark bp dirty (FreeBSD's bdirty). */
static void bdirty(struct buf *bp)
{
	if (bp->b_flags & B_DELWRI)
		return;
	bp->b_flags |= B_DELWRI;
	numdirtybuffers++;
	bp->b_vp->v_numdirty++;
	buf_dirtytick[bp - buf] = ticks;
	bd_wakeup((lodirtybuffers + hidirtybuffers) / 2);
}

/* Mark bp clean (FreeBSD's bundirty): its write has been issued, or it is being thrown away. */
static void bundirty(struct buf *bp)
{
	if (!(bp->b_flags & B_DELWRI))
		return;
	bp->b_flags &= ~B_DELWRI;
	numdirtybuffers--;
	bp->b_vp->v_numdirty--;
	numdirtywakeup(lodirtybuffers);
}

/*
 * Strip bp of identity and data and put it on QUEUE_EMPTY. Returns the data for the caller to
 * kfree after dropping the lock.
 */
static char *binvalidate(struct buf *bp)
{
	char *data = bp->b_data;

	bundirty(bp);
	brelvp(bp);
	bufspace -= bp->b_bufsize;
	bp->b_data = NULL;
	bp->b_bufsize = bp->b_bcount = 0;
	bp->b_flags &= B_WANTED;
	bq_insert_head(QUEUE_EMPTY, bp);
	return data;
}

/* ---- getting buffers ------------------------------------------------------------------------- */

/*
 * getnewbuf: a busy buffer with no identity and `size` bytes of (stale) data.
 * Takes an EMPTY header while bufspace has room, else recycles the least recently used CLEAN
 * buffer (keeping its data if the size matches). It never writes a dirty buffer: with nothing
 * reusable it wakes the flusher (bd_speedup) and sleeps "newbuf" until a buffer is released.
 * May sleep; called without locks.
 */
static struct buf *getnewbuf(int size)
{
	struct buf *bp;
	char *olddata;
	bool needdata;

	spin_lock(&bufcache_lock);
	for (;;) {
		bp = bufqueues[QUEUE_EMPTY].head;
		if (bp != NULL && bufspace + size <= hibufspace()) {
			bremfree(bp);
			bufspace += size;
			needdata = true;
			break;
		}
		bp = bufqueues[QUEUE_CLEAN].head;
		if (bp != NULL) {
			bremfree(bp);
			brelvp(bp);
			if (bp->b_bufsize == size) {
				needdata = false;
				break;
			}
			olddata = binvalidate(bp);
			spin_unlock(&bufcache_lock);
			kfree(olddata);
			spin_lock(&bufcache_lock);
			continue;
		}
		needsbuffer = 1;
		bd_wakeup(1);
		msleep(&needsbuffer, &bufcache_lock, 0, "newbuf", HZ);
	}
	bp->b_flags = B_BUSY;
	spin_unlock(&bufcache_lock);

	bp->b_bufsize = bp->b_bcount = size;
	bp->b_error = 0;
	bp->b_resid = 0;
	bp->b_iodone = NULL;
	bp->b_runningbufspace = 0;
	if (needdata) {
		bp->b_data = kmalloc(size, M_WAITOK);
		KASSERT(bp->b_data != NULL, "getnewbuf: kmalloc failed");
	}
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
 * buffers. slpflag/slptimeo are FreeBSD's arguments; this cache always waits uninterruptibly.
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
			bremfree(bp);
			bp->b_flags |= B_BUSY;
			spin_unlock(&bufcache_lock);
			if (bp->b_bufsize == size)
				return bp;
			getblk_discard(bp);
			continue;
		}
		spin_unlock(&bufcache_lock);

		bp = getnewbuf(size);
		spin_lock(&bufcache_lock);
		if (gbincore(vp, blkno) != NULL) {
			/* Someone else made the buffer while we slept: recycle ours first. */
			bp->b_flags &= ~B_BUSY;
			bq_insert_head(QUEUE_CLEAN, bp);
			spin_unlock(&bufcache_lock);
			continue;
		}
		bgetvp(bp, vp, blkno);
		spin_unlock(&bufcache_lock);
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

/*
 * bread: getblk, and read the block through VOP_STRATEGY unless it is cached. Returns 0 or the
 * I/O error; *bpp is the busy buffer either way (the caller brelse's it).
 */
int bread(struct vnode *vp, daddr_t blkno, int size, struct buf **bpp)
{
	struct buf *bp = getblk(vp, blkno, size, 0, 0);

	*bpp = bp;
	if (bp->b_flags & B_CACHE)
		return 0;
	spin_lock(&bufcache_lock);
	bp->b_flags &= ~(B_DONE | B_ERROR | B_INVAL | B_ASYNC);
	bp->b_flags |= B_READ;
	spin_unlock(&bufcache_lock);
	bp->b_iocmd = BIO_READ;
	bp->b_error = 0;
	bp->b_resid = 0;
	if (curproc != NULL)
		curproc->p_inblock++;
	VOP_STRATEGY(vp, bp);
	return biowait(bp);
}

/* ---- writing and releasing ------------------------------------------------------------------- */

/*
 * bwrite: write a busy buffer. Synchronous unless B_ASYNC is set: then the completion
 * releases it and the caller must not touch bp again. Returns the I/O error (0 for async).
 * The buffer is no longer dirty once the write is issued; runningbufspace is charged with its
 * size just before the strategy call (FreeBSD 4.3).
 */
int bwrite(struct buf *bp)
{
	bool async;
	int error;

	KASSERT(bp->b_flags & B_BUSY, "bwrite: buffer not busy");
	if (bp->b_flags & B_INVAL) {
		brelse(bp);
		return 0;
	}
	spin_lock(&bufcache_lock);
	bundirty(bp);
	bp->b_flags &= ~(B_DONE | B_ERROR | B_READ);
	bp->b_flags |= B_WRITEINPROG | B_CACHE;
	bp->b_runningbufspace = bp->b_bufsize;
	runningbufspace += bp->b_runningbufspace;
	async = (bp->b_flags & B_ASYNC) != 0;
	spin_unlock(&bufcache_lock);

	bp->b_iocmd = BIO_WRITE;
	bp->b_error = 0;
	bp->b_resid = 0;
	if (curproc != NULL)
		curproc->p_oublock++;
	VOP_STRATEGY(bp->b_vp, bp);
	if (async)
		return 0;
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
 * bdwrite: delayed write. Mark the buffer dirty and valid and release it to QUEUE_DIRTY; the
 * flusher or the syncer writes it later. No I/O is started here.
 */
void bdwrite(struct buf *bp)
{
	KASSERT(bp->b_flags & B_BUSY, "bdwrite: buffer not busy");
	if (bp->b_flags & B_INVAL) {
		brelse(bp);
		return;
	}
	spin_lock(&bufcache_lock);
	bdirty(bp);
	bp->b_flags |= B_CACHE;
	spin_unlock(&bufcache_lock);
	bqrelse(bp);
}

/*
 * brelse: release a busy buffer. B_INVAL or B_ERROR buffers (and clean B_NOCACHE ones) lose
 * identity and data; dirty buffers go to the tail of QUEUE_DIRTY, the rest to the tail of
 * QUEUE_CLEAN (most recently used last). Wakes whoever waits for this buffer or for any buffer.
 * Callable from interrupt context (an async write's completion).
 */
void brelse(struct buf *bp)
{
	char *olddata = NULL;

	spin_lock(&bufcache_lock);
	KASSERT(bp->b_flags & B_BUSY, "brelse: buffer not busy");
	if ((bp->b_flags & (B_INVAL | B_ERROR)) ||
	    (bp->b_flags & (B_NOCACHE | B_DELWRI)) == B_NOCACHE) {
		olddata = binvalidate(bp);
	} else if (bp->b_flags & B_DELWRI) {
		bq_insert_tail(QUEUE_DIRTY, bp);
	} else {
		bq_insert_tail(QUEUE_CLEAN, bp);
	}
	if (bp->b_flags & B_WANTED)
		wakeup(bp);
	bp->b_flags &= ~(B_BUSY | B_ASYNC | B_NOCACHE | B_READ | B_WANTED);
	if (needsbuffer) {
		needsbuffer = 0;
		wakeup(&needsbuffer);
	}
	spin_unlock(&bufcache_lock);
	kfree(olddata);
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

/* vfs_bio_clrbuf: zero a buffer (a newly allocated block); its contents are then valid. */
void vfs_bio_clrbuf(struct buf *bp)
{
	memset(bp->b_data, 0, bp->b_bufsize);
	bp->b_resid = 0;
	spin_lock(&bufcache_lock);
	bp->b_flags |= B_CACHE;
	spin_unlock(&bufcache_lock);
}

/* ---- I/O completion -------------------------------------------------------------------------- */

/*
 * biodone: the I/O on bp is finished (b_error says how). Returns the write's bytes to
 * runningbufspace, marks a successful read B_CACHE and then, in FreeBSD 4's order: calls the
 * b_iodone hook if one is set, else releases an async buffer, else wakes biowait.
 * Any context; never sleeps.
 */
void biodone(struct buf *bp)
{
	void (*hook)(struct buf *);
	bool async, failedwrite;

	spin_lock(&bufcache_lock);
	KASSERT(!(bp->b_flags & B_DONE), "biodone: already done");
	if (bp->b_flags & B_WRITEINPROG) {
		bp->b_flags &= ~B_WRITEINPROG;
		runningbufspace -= bp->b_runningbufspace;
		bp->b_runningbufspace = 0;
		wakeup(&runningbufspace);
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

/* biowait: sleep until the I/O on busy buffer bp is done ("biord"/"biowr"); its error or 0. */
int biowait(struct buf *bp)
{
	spin_lock(&bufcache_lock);
	while (!(bp->b_flags & B_DONE))
		msleep(bp, &bufcache_lock, 0, bp->b_iocmd == BIO_READ ? "biord" : "biowr", 0);
	spin_unlock(&bufcache_lock);
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
	if (bp->b_error == 0 && bp->b_resid != 0)
		bp->b_error = EIO;
	biodone(bp);
}

/* disk_strategy_buf: send busy buffer bp to disk dp at b_blkno (DEV_BSIZE units). */
void disk_strategy_buf(struct disk *dp, struct buf *bp)
{
	struct bio *bio = &bp->b_bio;

	memset(bio, 0, sizeof(*bio));
	bio->bio_cmd = bp->b_iocmd;
	bio->bio_disk = dp;
	bio->bio_offset = (uint64_t)bp->b_blkno * DEV_BSIZE;
	bio->bio_length = bp->b_bcount;
	bio->bio_data = bp->b_data;
	bio->bio_done = bufbio_done;
	bio->bio_caller1 = bp;
	disk_start(bio);
}

/* ---- per-vnode operations -------------------------------------------------------------------- */

/*
 * bufsync: write vp's dirty buffers. MNT_WAIT writes each synchronously and returns the first
 * error, then waits for writes of vp's buffers that others started (fsync's guarantee);
 * MNT_NOWAIT only starts them.
 */
int bufsync(struct vnode *vp, int waitfor)
{
	struct buf *bp;
	int error = 0, e;

	spin_lock(&bufcache_lock);
restart:
	for (bp = vp->v_bufhd; bp != NULL; bp = bp->b_vnext) {
		if ((bp->b_flags & (B_DELWRI | B_BUSY)) != B_DELWRI)
			continue;
		bremfree(bp);
		bp->b_flags |= B_BUSY;
		spin_unlock(&bufcache_lock);
		if (waitfor == MNT_WAIT) {
			e = bwrite(bp);
			if (e != 0 && error == 0)
				error = e;
		} else {
			bawrite(bp);
		}
		spin_lock(&bufcache_lock);
		goto restart;
	}
	if (waitfor == MNT_WAIT) {
wait_inflight:
		for (bp = vp->v_bufhd; bp != NULL; bp = bp->b_vnext) {
			if (bp->b_flags & B_WRITEINPROG) {
				msleep(&runningbufspace, &bufcache_lock, 0, "bufsync", HZ);
				goto wait_inflight;
			}
		}
	}
	spin_unlock(&bufcache_lock);
	return error;
}

/*
 * The common loop of vinvalbuf and vtruncbuf: throw away vp's buffers with b_lblkno >= from,
 * waiting for busy ones. With V_SAVE, dirty buffers are written (synchronously) first.
 */
static int vinvalbuf_from(struct vnode *vp, daddr_t from, int flags)
{
	struct buf *bp;
	int error;

	spin_lock(&bufcache_lock);
restart:
	for (bp = vp->v_bufhd; bp != NULL; bp = bp->b_vnext) {
		if (bp->b_lblkno < from)
			continue;
		if (bp->b_flags & B_BUSY) {
			bp->b_flags |= B_WANTED;
			msleep(bp, &bufcache_lock, 0, "vinval", HZ);
			goto restart;
		}
		bremfree(bp);
		bp->b_flags |= B_BUSY;
		if ((flags & V_SAVE) && (bp->b_flags & B_DELWRI)) {
			spin_unlock(&bufcache_lock);
			error = bwrite(bp);
			if (error != 0)
				return error;
		} else {
			bp->b_flags |= B_INVAL;
			spin_unlock(&bufcache_lock);
			brelse(bp);
		}
		spin_lock(&bufcache_lock);
		goto restart;
	}
	spin_unlock(&bufcache_lock);
	return 0;
}

/* vinvalbuf: discard every buffer of vp, writing dirty ones first with V_SAVE. 0 or the error. */
int vinvalbuf(struct vnode *vp, int flags)
{
	return vinvalbuf_from(vp, INT64_MIN, flags);
}

/* vtruncbuf: discard vp's buffers at or past logical block lblkno, dirty or not (truncate). */
int vtruncbuf(struct vnode *vp, daddr_t lblkno)
{
	return vinvalbuf_from(vp, lblkno, 0);
}

/* ---- system-wide flushing -------------------------------------------------------------------- */

/*
 * Busy up to `max` buffers from QUEUE_DIRTY that have been dirty for at least `age` ticks
 * (all of them for age 0) into out[]. bufcache_lock held.
 */
static int collect_dirty(struct buf **out, int max, uint32_t age)
{
	struct buf *bp, *next;
	int n = 0;

	for (bp = bufqueues[QUEUE_DIRTY].head; bp != NULL && n < max; bp = next) {
		next = bp->b_qnext;
		if (age != 0 && ticks - buf_dirtytick[bp - buf] < age)
			continue;
		bremfree(bp);
		bp->b_flags |= B_BUSY;
		out[n++] = bp;
	}
	return n;
}

/*
 * buf_flush_aged: start writes (bawrite) of every buffer dirty for at least `age` ticks
 * (the syncer's job). Returns how many it started.
 */
int buf_flush_aged(uint32_t age)
{
	struct buf *batch[32];
	int n, i, total = 0;

	for (;;) {
		spin_lock(&bufcache_lock);
		n = collect_dirty(batch, nitems(batch), age);
		spin_unlock(&bufcache_lock);
		if (n == 0)
			return total;
		for (i = 0; i < n; i++)
			bawrite(batch[i]);
		total += n;
	}
}

/*
 * bufsync_all: start writes of every dirty buffer (at most nbuf, so a busy writer cannot keep
 * sync(2) going for ever); with MNT_WAIT, wait until each write in flight has completed.
 */
int bufsync_all(int waitfor)
{
	struct buf *batch[32];
	int n, i, budget = nbuf;

	while (budget > 0) {
		spin_lock(&bufcache_lock);
		n = collect_dirty(batch, MIN((int)nitems(batch), budget), 0);
		spin_unlock(&bufcache_lock);
		if (n == 0)
			break;
		for (i = 0; i < n; i++)
			bawrite(batch[i]);
		budget -= n;
	}
	if (waitfor == MNT_WAIT) {
		spin_lock(&bufcache_lock);
		for (i = 0; i < nbuf; i++)
			while (buf[i].b_flags & B_WRITEINPROG)
				msleep(&runningbufspace, &bufcache_lock, 0, "syncwt", HZ);
		spin_unlock(&bufcache_lock);
	}
	return 0;
}

/*
 * bwillwrite: called by write(2) before it dirties buffers (no locks held). Blocks ("flswai")
 * while numdirtybuffers >= hidirtybuffers, after kicking the flusher, as FreeBSD 4.3 does.
 */
void bwillwrite(void)
{
	spin_lock(&bufcache_lock);
	while (numdirtybuffers >= MAX(hidirtybuffers, 1)) {
		bd_wakeup(1);
		needsdirtyflush = 1;
		msleep(&needsdirtyflush, &bufcache_lock, 0, "flswai", HZ);
	}
	spin_unlock(&bufcache_lock);
}

/* ---- the flusher ----------------------------------------------------------------------------- */

/* Start the write of the oldest dirty buffer (FreeBSD's flushbufqueues). 1 if it found one. */
static int flushbufqueues(void)
{
	struct buf *bp;

	spin_lock(&bufcache_lock);
	bp = bufqueues[QUEUE_DIRTY].head;
	if (bp == NULL) {
		spin_unlock(&bufcache_lock);
		return 0;
	}
	bremfree(bp);
	bp->b_flags |= B_BUSY;
	spin_unlock(&bufcache_lock);
	bawrite(bp);
	return 1;
}

/*
 * ======================== buf_daemon: the flusher ("bufdaemon") ========================
 * This simple design; a later issue replaces this one function with the seed's two
 * (4.2 "speedup" and the patched "runningbuf") behind vfs.bufdaemon_design.
 *
 * Woken by bd_wakeup() (the dirty count passed the lo/hi midpoint, or getnewbuf/bwillwrite
 * need buffers) or once a second, it starts writes of the oldest dirty buffers until
 * numdirtybuffers <= lodirtybuffers, waking bwillwrite sleepers once the count is at or below
 * the midpoint. It disarms (bd_request = 0) only at the low-water mark. If dirty buffers remain
 * that it cannot take (all busy), it retries after half a second ("qsleep").
 */
static void buf_daemon(void *arg __unused)
{
	for (;;) {
		while (numdirtybuffers > lodirtybuffers) {
			if (flushbufqueues() == 0)
				break;
			spin_lock(&bufcache_lock);
			numdirtywakeup((lodirtybuffers + hidirtybuffers) / 2);
			spin_unlock(&bufcache_lock);
		}
		spin_lock(&bufcache_lock);
		if (numdirtybuffers <= lodirtybuffers) {
			bd_request = 0;
			msleep(&bd_request, &bufcache_lock, 0, "psleep", HZ);
		} else {
			msleep(&bd_request, &bufcache_lock, 0, "qsleep", HZ / 2);
		}
		spin_unlock(&bufcache_lock);
	}
}
/* ======================== end of buf_daemon ======================== */

/*
 * bufinit: size the cache from physical memory (design-notes §1.1), set the tunables' defaults,
 * put every header on QUEUE_EMPTY and start the "bufdaemon" thread.
 */
void bufinit(void)
{
	uint32_t hsize;
	int i;

	spin_init(&bufcache_lock, "bufcache");
	nbuf = nbuf_for_memory((int)physmem_pages);
	maxbufspace = nbuf * BKVASIZE;
	hidirtybuffers = nbuf / 4 + 20;
	while (hidirtybuffers * BKVASIZE > 3 * (hibufspace() / 4))
		hidirtybuffers >>= 1;
	lodirtybuffers = hidirtybuffers / 2;
	hirunningspace = 1024 * 1024;
	lorunningspace = 512 * 1024;
	maxbdrun = 16;

	buf = kmalloc(nbuf * sizeof(struct buf), M_WAITOK | M_ZERO);
	buf_dirtytick = kmalloc(nbuf * sizeof(uint32_t), M_WAITOK | M_ZERO);
	for (hsize = 64; hsize < (uint32_t)nbuf; hsize <<= 1)
		continue;
	bufhashtbl = kmalloc(hsize * sizeof(struct buf *), M_WAITOK | M_ZERO);
	if (buf == NULL || buf_dirtytick == NULL || bufhashtbl == NULL)
		panic("bufinit: cannot allocate %d buffer headers", nbuf);
	bufhashmask = hsize - 1;
	for (i = 0; i < nbuf; i++)
		bq_insert_tail(QUEUE_EMPTY, &buf[i]);

	kprintf("bufinit: nbuf %d, maxbufspace %d KB, hidirtybuffers %d, lodirtybuffers %d\n",
	        nbuf, maxbufspace / 1024, hidirtybuffers, lodirtybuffers);
	if (kproc_create(buf_daemon, NULL, NULL, "bufdaemon") != 0)
		panic("bufinit: cannot start bufdaemon");
}
