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
 *   cluster_init()           - set up vfs_cluster.c's pool of cluster I/O headers (bufinit).
 *   bufstat_init()           - register the counters' sysctls (vfs_bufstat.c; bufinit).
 *   bstats                   - the cache's event counters (vfs.bio.*, vfs.cluster.*).
 */
#ifndef _VFS_BUF_INTERNAL_H_
#define _VFS_BUF_INTERNAL_H_

#include "kern/lock.h"
#include "vfs/buf.h"

extern struct spinlock bufcache_lock;

struct buf *gbincore(struct vnode *vp, daddr_t blkno);
void        bremfree(struct buf *bp);
void        buf_busy(struct buf *bp);
void        buf_write_begin(struct buf *bp);
void        buf_read_begin(struct buf *bp, bool async);
void        cluster_init(void);
void        bufstat_init(void);
int         buf_data_pages(struct buf *bp, struct vm_page **ma);
struct disk *buf_disk(struct vnode *vp);

/* Event counters (vfs.bio.*, vfs.cluster.*; docs/bufcache.md). */
#define CLUSTER_HIST 17          /* cluster sizes 1 .. 16 blocks, and 17+ */
struct bio_stats {
	uint64_t breads;             /* reads issued for bread/breadn/cluster_read */
	uint64_t bdwrites;           /* bdwrite calls */
	uint64_t bawrites;           /* async writes issued (bawrite, bwrite with B_ASYNC) */
	uint64_t bwrites;            /* synchronous writes */
	uint64_t sleeps_newbuf;      /* getnewbuf found nothing reusable and slept */
	uint64_t cluster_writes;     /* clustered writes issued (2 or more blocks) */
	uint64_t cluster_write_bufs; /* buffers they carried */
	uint64_t cluster_write_bytes;
	uint64_t cluster_hist[CLUSTER_HIST];  /* clustered writes by size in blocks */
	uint64_t cluster_reads;      /* clustered reads issued */
	uint64_t cluster_read_bufs;
	uint64_t readaheads;         /* blocks read ahead */
};
extern struct bio_stats bstats;

#endif
