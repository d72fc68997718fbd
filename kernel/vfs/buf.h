/*
 * The buffer cache (FreeBSD 4.x's vfs_bio API and vocabulary; docs/bufcache.md).
 *
 * A buffer caches one block of a vnode: (b_vp, b_lblkno). For a device vnode (file system
 * metadata) b_lblkno is in DEV_BSIZE units; for a file it is the file system's logical block
 * number and the file system's VOP_BMAP maps it to the disk address b_blkno. A file buffer is
 * "not yet mapped" while b_blkno == b_lblkno (FreeBSD 4's convention): bdwrite maps it, so a
 * flush never has to read an indirect block.
 *
 *   getblk(vp, blkno, size, slpflag, slptimeo) - the buffer for that block, locked (B_BUSY),
 *       B_CACHE set if its contents are valid. Never fails for a valid vp (sleeps for memory).
 *   bread(vp, blkno, size, &bp) - getblk plus a read if not cached; returns 0 or the I/O error
 *       (bp is returned locked either way; brelse it).
 *   breadn(vp, blkno, size, rablkno[], rabsize[], cnt, &bp) - bread, and start async reads of
 *       the cnt blocks rablkno[] that are not cached (read-ahead).
 *   bwrite(bp)  - write now and wait (unless B_ASYNC is set, then like bawrite). Releases bp.
 *   bawrite(bp) - start the write, don't wait for it. Releases bp (the I/O completion does).
 *       In the patched design the caller then waits while too many write bytes are in flight
 *       ("wdrain"; vfs/bufdaemon.h).
 *   bdwrite(bp) - delayed write: mark B_DELWRI and release; the buf_daemon, cluster code or
 *       syncer writes it later.
 *   brelse(bp)  - release a locked buffer (B_INVAL/B_ERROR buffers are discarded).
 *   bdiscard(bp) - mark a locked buffer B_INVAL and brelse it: its contents are not to be kept
 *       or written (the block was freed, or a copy into it failed half-way).
 *   bqrelse(bp) - release, keeping it cached (likely reused soon).
 *   biodone(bp) - the I/O on bp finished (called from the completion path, may be interrupt context).
 *   biowait(bp) - wait for the I/O on a locked buffer; returns its error.
 *   vinvalbuf(vp, flags) - write (V_SAVE) and/or discard every buffer of vp.
 *   vtruncbuf(vp, lblkno) - discard vp's buffers at or past logical block lblkno (truncate).
 *   bufsync(vp, waitfor) - write vp's dirty buffers (MNT_WAIT: and wait; an error if one of
 *       vp's writes failed meanwhile) - for fsync.
 *   vn_writeerror_take(vp) - the error of vp's writes that failed since the last call, or 0
 *       (fsync reports every failed write of a file once, whoever issued it).
 *   bufsync_all(waitfor) - the same for every vnode (sync(2)).
 *   buf_flush_aged(age) - start writes of the buffers dirty for `age` ticks (the syncer).
 *   bwillwrite() - called by write(2) before it dirties buffers: may block ("flswai") while
 *       there are too many dirty buffers (vfs/bufdaemon.h, per design).
 *   buf_dirty_count_severe() - numdirtybuffers >= hidirtybuffers (FreeBSD 4.3's).
 *   vfs_bio_clrbuf(bp) - zero the buffer's data (a newly allocated block); in a VMIO buffer only
 *       the pages that are not valid yet (a page being written back from a mapping keeps its data).
 *   buf_uiomove(bp, off, n, uio) - uiomove between bytes [off, off+n) of the buffer's data and uio
 *       (a VMIO buffer's pages through uiomove_fromphys).
 *   buf_zero(bp, off, len) - zero bytes [off, off+len) of the buffer's data.
 *   buf_setflags(bp, flags) - set b_flags bits (B_NOCACHE) on a buffer the caller holds busy.
 *   vfs_bio_awrite(bp, &nbufs), cluster_write(bp), cluster_read(...) - clustering
 *       (vfs/vfs_cluster.c).
 *
 * Locking: bufcache_lock (spinlock) protects the queues, hash, every vnode's buffer lists and
 * v_numoutput, the counters and every b_flags (getblk sets B_WANTED on a buffer someone else
 * holds, so even its owner changes flags only in here); the other fields and the contents of a
 * buffer are owned by whoever holds it busy (B_BUSY).
 *
 * VMIO (vfs/vfs_bio_vmio.c): a regular file's buffers hold the file's own pages (b_pages, pages
 * of vp->v_object, wired), so read/write, mmap and the vnode pager share one copy of the data.
 * They are unmapped: b_data is NULL, and the data is reached page by page (buf_uiomove,
 * buf_zero). Other buffers (directories, metadata on the device vnode) have a kmalloc'd b_data.
 */
#ifndef _VFS_BUF_H_
#define _VFS_BUF_H_

#include "kern/types.h"
#include "dev/disk.h"
#include "vfs/rundev.h"
#include <sys/queue.h>

struct vnode;
struct vm_page;
struct uio;

#define MAXBSIZE  (64 * 1024)      /* largest buffer */
#define MAXPHYS   (128 * 1024)     /* largest transfer the cluster code builds (FreeBSD's) */

/* b_flags: FreeBSD 4.x's names and meanings. */
#define B_ASYNC     0x00000004   /* start I/O, do not wait */
#define B_BUSY      0x00000010   /* locked by an owner */
#define B_CACHE     0x00000020   /* contents valid */
#define B_DELWRI    0x00000080   /* dirty: write before reuse */
#define B_DONE      0x00000200   /* I/O completed */
#define B_ERROR     0x00000800   /* I/O error occurred (b_error) */
#define B_INVAL     0x00002000   /* does not contain valid info, discard on release */
#define B_NOCACHE   0x00008000   /* do not cache block after use */
#define B_CLUSTEROK 0x00020000   /* may be written as part of a cluster */
#define B_FSYNC     0x00040000   /* written by fsync, which waits for it: its request is
                                    synchronous (BIO_SYNC) though the write is async. wdrain's */
#define B_READ      0x00100000   /* the current I/O is a read (b_iocmd says the same) */
#define B_WANTED    0x00800000   /* someone sleeps waiting for B_BUSY to clear */
#define B_RAM       0x10000000   /* read-ahead mark: reading this block starts more read-ahead */
#define B_VMIO      0x20000000   /* the data is b_pages[], pages of the file's vm_object */

/*
 * Queues (FreeBSD 4's QUEUE_*; docs/bufcache.md says what each holds here). FreeBSD's
 * QUEUE_LOCKED held B_LOCKED buffers, which only soft updates' background writes made; wdfs has
 * neither, so the queue would always be empty and wdrain leaves it out.
 */
enum bufqueue { QUEUE_NONE, QUEUE_CLEAN, QUEUE_DIRTY, QUEUE_EMPTYKVA, QUEUE_EMPTY, BUFFER_QUEUES };

struct buf {
	int           b_flags;
	int           b_iocmd;        /* BIO_READ / BIO_WRITE */
	int           b_error;
	struct vnode *b_vp;
	daddr_t       b_lblkno;       /* logical block (cache key) */
	daddr_t       b_blkno;        /* disk address in DEV_BSIZE units (b_lblkno: not yet mapped) */
	off_t         b_offset;       /* byte offset of the block in its vnode */
	int           b_bcount;       /* valid bytes (== b_bufsize here) */
	int           b_bufsize;      /* bytes of data */
	int           b_resid;
	char         *b_data;         /* non-VMIO: kmalloc'd, direct-mapped; NULL for VMIO */
	int           b_kvasize;      /* non-VMIO: size of the kmalloc'd block at b_data */
	struct vm_page *b_pages[MAXBSIZE / PAGE_SIZE];   /* VMIO: the file's pages, wired */
	int           b_npages;
	uint32_t      b_pgbusy;       /* VMIO: pages not valid yet, held soft-busy by the buffer */
	struct vm_page *b_iopages[MAXBSIZE / PAGE_SIZE]; /* VMIO: page list of the I/O in flight */
	enum bufqueue b_qindex;
	TAILQ_ENTRY(buf) b_freelist;  /* its queue */
	TAILQ_ENTRY(buf) b_vnbufs;    /* its vnode's clean or dirty list */
	struct buf   *b_hnext;        /* hash chain */
	void        (*b_iodone)(struct buf *); /* optional completion hook (replaces the default) */
	struct bio    b_bio;          /* the request sent to the disk */
	int           b_runningbufspace; /* bytes charged to runningbufspace while writing */
	struct rd_charge b_rdcharge;  /* ... and to each disk the write goes to (vfs/rundev.h) */
	uint32_t      b_dirtytick;    /* ticks when it became dirty (the syncer's age) */
	int           b_qahead;       /* its last I/O: requests the disk had outstanding when it
	                                 arrived (bio_qahead), for vfs.syncio */
};

struct buf *getblk(struct vnode *vp, daddr_t blkno, int size, int slpflag, int slptimeo);
struct buf *incore(struct vnode *vp, daddr_t blkno);   /* cached? (not locked) */
int   bread(struct vnode *vp, daddr_t blkno, int size, struct buf **bpp);
int   breadn(struct vnode *vp, daddr_t blkno, int size, const daddr_t *rablkno,
             const int *rabsize, int cnt, struct buf **bpp);
int   bwrite(struct buf *bp);
void  bawrite(struct buf *bp);
void  bdwrite(struct buf *bp);
void  brelse(struct buf *bp);
void  bdiscard(struct buf *bp);
void  bqrelse(struct buf *bp);
void  biodone(struct buf *bp);
int   biowait(struct buf *bp);
void  bwillwrite(void);
bool  buf_dirty_count_severe(void);
void  vfs_bio_clrbuf(struct buf *bp);
int   buf_uiomove(struct buf *bp, int off, int n, struct uio *uio);
void  buf_zero(struct buf *bp, int off, int len);
void  buf_setflags(struct buf *bp, int flags);
int   vinvalbuf(struct vnode *vp, int flags);
int   vtruncbuf(struct vnode *vp, daddr_t lblkno);
int   bufsync(struct vnode *vp, int waitfor);
int   vn_writeerror_take(struct vnode *vp);
int   bufsync_all(int waitfor);
void  bufinit(void);
void  buf_dump(void);         /* the cache's state on the console (^P) */

/* vfs_cluster.c */
int   vfs_bio_awrite(struct buf *bp, int *nbufs);
void  cluster_write(struct buf *bp);
int   cluster_read(struct vnode *vp, off_t filesize, daddr_t lblkno, int size, long totread,
                   int seqcount, struct buf **bpp);

/* Send a locked buffer to disk at b_blkno (a VOP_STRATEGY ends here). Completion calls biodone. */
void  disk_strategy_buf(struct disk *dp, struct buf *bp);

#define V_SAVE    0x0001     /* vinvalbuf: write dirty buffers first */
#define MNT_WAIT   1
#define MNT_NOWAIT 2

#endif
