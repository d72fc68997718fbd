/*
 * buf_internal.h - what the buffer cache's own files share (vfs_bio.c, vfs_cluster.c); nothing
 * outside vfs/vfs_*.c of the buffer cache includes it.
 *
 *   bufcache_lock            - the buffer cache's spinlock (see vfs/buf.h "Locking").
 *   gbincore(vp, blkno)      - the buffer of (vp, blkno), busy or not, or NULL.     [lock held]
 *   bremfree(bp)             - take a buffer off its queue.                         [lock held]
 *   buf_busy(bp)             - take a buffer on a queue off it and make it busy.    [lock held]
 *   buf_write_begin(bp)      - the bookkeeping of a write about to be issued: bundirty, the
 *                              write-in-progress flags, the vnode's v_numoutput. It charges no
 *                              runningbufspace: bwrite charges the buffer, a cluster the whole
 *                              cluster.                                             [lock held]
 *   buf_read_begin(bp, async) - the bookkeeping of a read about to be issued (flags, counters);
 *                              the caller then sends it (VOP_STRATEGY, or as part of a cluster).
 *   buf_data_pages(bp, ma)   - the pages holding bp's data (VMIO: b_pages; else the direct-map
 *                              pages of its kmalloc'd block); returns how many.
 *   buf_disk(vp)             - the disk a vnode's buffers go to (a device vnode's own disk, a
 *                              file's file system device), or NULL.
 * The disks' budgets (vfs_bio_rundev.c; vfs/rundev.h):
 *   buf_charge(rc, dp, blkno, bytes) - a write of `bytes` at block blkno of dp is issued: rc
 *                              becomes the disks it goes to and their shares, each charged.
 *                                                                                   [lock held]
 *   buf_reach(bp, rc)        - the disks a cluster written through dirty buffer bp could reach
 *                              (the flusher's test of their budgets).               [lock held]
 *   buf_wait_begin(bp)       - the current process starts waiting for bp's I/O (biowait):
 *                              the disks it maps to are "wanted" until bd_wait_end(). [no lock]
 *   rundev_boot()            - the budgets' ceiling, and a budget for every disk (bufinit).
 *   cluster_init()           - set up vfs_cluster.c's pool of cluster I/O headers (bufinit).
 *   bufparam_init()          - nbuf and the tunables from memory size and command line
 *                              (vfs_bufstat.c; bufinit).
 *   bufstat_init()           - register the counters' sysctls (vfs_bufstat.c; bufinit).
 *   bstats                   - the cache's event counters (vfs.bio.*, vfs.cluster.*).
 *   nbuf, bufspace, maxbufspace - headers; bytes of memory buffers hold (kmalloc'd blocks and
 *                              VMIO pages); its limit (bufcache_lock).
 *   hibufspace()             - the most bufspace getnewbuf allows itself.
 *   vmio_pages               - file pages VMIO buffers hold wired (bufcache_lock).
 * VMIO (vfs_bio_vmio.c; the rules are in its top comment):
 *   vmio_init()              - bogus_page (bufinit).
 *   vmio_wanted(vp)          - vp's buffers are VMIO.
 *   vmio_alloc(bp)           - give a new, hashed, busy VMIO buffer its pages; sets B_CACHE if
 *                              all are valid. Sleeps.
 *   vmio_recheck(bp)         - a cached VMIO buffer found by getblk: B_CACHE again from its pages.
 *   vmio_read_prep(bp)       - the page list (b_iopages) of a read about to start.
 *   vmio_write_prep(bp)      - pages busy, write-protected and clean for a write about to start.
 *   vmio_clean(bp)           - bdwrite: pages valid and clean, the buffer carries the write.
 *   vmio_validate(bp)        - the data is complete: the not-valid pages become valid.
 *   vmio_io_done(bp, ok)     - the I/O finished (biodone; any context).
 *   vmio_detach(bp, &pages)  - take the pages off bp (bufcache_lock held) ...
 *   vmio_release(&pages)     - ... and give them back to the VM (no lock held; any context).
 */
#ifndef _VFS_BUF_INTERNAL_H_
#define _VFS_BUF_INTERNAL_H_

#include "kern/lock.h"
#include "vfs/buf.h"

extern struct spinlock bufcache_lock;

extern int nbuf;
extern int nswbuf;        /* kern.nswbuf: I/O headers, half of them for clusters (FreeBSD 4's) */
extern int bufspace;
extern int maxbufspace;
extern int vmio_pages;

int         hibufspace(void);
struct buf *gbincore(struct vnode *vp, daddr_t blkno);
void        bremfree(struct buf *bp);
void        buf_busy(struct buf *bp);
void        buf_write_begin(struct buf *bp);
void        buf_read_begin(struct buf *bp, bool async);
void        cluster_init(void);
void        bufparam_init(void);
void        bufstat_init(void);
int         buf_data_pages(struct buf *bp, struct vm_page **ma);
struct disk *buf_disk(struct vnode *vp);
void        buf_charge(struct rd_charge *rc, struct disk *dp, daddr_t blkno, int bytes);
void        buf_reach(struct buf *bp, struct rd_charge *rc);
void        buf_wait_begin(struct buf *bp);
void        rundev_boot(void);

/* Event counters (vfs.bio.*, vfs.cluster.*; docs/bufcache.md). */
#define CLUSTER_HIST 17          /* cluster sizes 1 .. 16 blocks, and 17+ */
struct bio_stats {
	uint64_t breads;             /* reads issued for bread/breadn/cluster_read */
	uint64_t bdwrites;           /* bdwrite calls */
	uint64_t bawrites;           /* async writes issued (bawrite, bwrite with B_ASYNC) */
	uint64_t bwrites;            /* synchronous writes */
	/* LAB tour BEGIN */
	uint64_t writes_done;        /* buffer writes completed: biodone, once per buffer */
	/* LAB tour END */
	uint64_t sleeps_newbuf;      /* getnewbuf found nothing reusable and slept */
	uint64_t cluster_writes;     /* clustered writes issued (2 or more blocks) */
	uint64_t cluster_write_bufs; /* buffers they carried */
	uint64_t cluster_write_bytes;
	uint64_t cluster_hist[CLUSTER_HIST];  /* clustered writes by size in blocks */
	uint64_t cluster_reads;      /* clustered reads issued */
	uint64_t cluster_read_bufs;
	uint64_t readaheads;         /* blocks read ahead */
	uint64_t sleeps_wswbuf0;     /* cluster writes that waited for a header ("wswbuf0") */
	uint64_t wswbuf0_ns;         /* time they waited */
	uint64_t vmio_bogus;         /* valid pages a read skipped (bogus_page in their place) */
};
extern struct bio_stats bstats;

/* VMIO (vfs_bio_vmio.c). */
struct vmio_pages {              /* pages detached from a buffer, on their way back to the VM */
	struct vm_page *m[MAXBSIZE / PAGE_SIZE];
	int             n;
	uint32_t        busy;        /* those the buffer held soft-busy (not valid) */
};
void vmio_init(void);
bool vmio_wanted(struct vnode *vp);
void vmio_alloc(struct buf *bp);
void vmio_recheck(struct buf *bp);
void vmio_read_prep(struct buf *bp);
void vmio_write_prep(struct buf *bp);
void vmio_clean(struct buf *bp);
void vmio_validate(struct buf *bp);
void vmio_io_done(struct buf *bp, bool ok);
void vmio_detach(struct buf *bp, struct vmio_pages *p);
void vmio_release(struct vmio_pages *p);

#endif
