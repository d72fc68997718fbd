/*
 * The block layer: disks and their I/O requests (FreeBSD's struct bio and disk(9), simplified).
 *
 * A struct bio is one request: op, byte offset, length, data, and a completion callback. A driver's
 * d_strategy queues it and returns at once, never waiting for the hardware; the driver completes it
 * later, usually from its interrupt handler, with disk_iodone(bp), which updates the devstat counters
 * and calls bp->bio_done(bp). bio_done may run in interrupt context: it must not sleep.
 *
 * The data comes in one of two forms (FreeBSD 10's unmapped I/O, which FreeBSD 4 did not have):
 *   - mapped: bio_data is a direct-mapped kernel address, so V2P(bio_data + i) is valid for
 *     every byte (kmalloc'd memory, a page of the direct map);
 *   - unmapped (bio_flags & BIO_UNMAPPED): the data is a list of pages, bio_ma[0..bio_ma_n-1],
 *     starting bio_ma_offset bytes into the first page. A 128 KB cluster of a file's VMIO pages
 *     is one request although the pages are scattered in physical memory.
 * Drivers never look at either form themselves: bio_segments() gives the physical segments
 * (physically adjacent pages merged), which is all a DMA engine or a copy loop needs.
 *
 * Disks register with disk_register(); each appears as /dev/<d_name> (raw access) and can hold a
 * file system. Requests must be multiples of d_sectorsize and within d_mediasize; d_strategy
 * rejects others with EINVAL (and a request past the end with ENXIO... see disk_check_bio()).
 *
 * Opening: whoever uses a disk opens it first. disk_open(dp, 0) is a shared open (a descriptor on
 * /dev/<name>, a mounted file system); disk_open(dp, DISK_EXCL) takes the disk for one user
 * alone (a ccd component). A shared open fails with EBUSY while the disk is held exclusively, an
 * exclusive one while anyone has it open. Every successful open is paired with a disk_close with
 * the same flags. I/O does not check opens: the block layer trusts its callers.
 *
 * Where a request goes: disk_map(dp, off, len, pieces, max) names the disks bytes [off, off+len)
 * of dp reach and how many bytes each - dp itself, or for a disk that passes its requests on
 * (ccd: d_map) the disks below it. The buffer cache charges a write to those disks' budgets
 * (vfs/rundev.h: the perdevice design). disk_watch(fn) has fn called for every disk registered
 * so far and for each one registered later (the buffer cache gives each its struct rundev,
 * d_rundev, which the block layer only carries).
 *
 * Synchronous requests (BIO_SYNC, set by whoever will wait for the request): every disk counts
 * them and their latency (kern.devstat.<disk>.syncs, sync_ns), and disk_sync_watch(fn) has
 * fn(dp, ns) called as each completes, ns after it arrived (the syncfirst buf_daemon design's
 * measure). disk_wait_watch(fn) has fn(dp, off, len, true) called as a thread starts waiting in
 * disk_io_sync for bytes [off, off+len) of dp (a flush: the whole disk) and fn(..., false) as the
 * wait ends (the wanted buf_daemon design's "who is waiting"). disk_set_syncfirst(dp, on) gives a disk with a queue the synchronous class in front
 * of its elevator (dev/bio_queue.h: synchronous requests first, asynchronous ones held back while
 * one is at the device), and disk_set_depth(dp, n) the most asynchronous requests it hands the
 * device at once under that class; both act from the next request started or completed.
 */
#ifndef _DEV_DISK_H_
#define _DEV_DISK_H_

#include "kern/types.h"
#include "kern/lock.h"
#include "dev/disk_seg.h"
#include "dev/bio_queue.h"

#define BIO_READ   1
#define BIO_WRITE  2
#define BIO_FLUSH  3    /* write the device's cache to stable storage; offset/length ignored */

#define BIO_UNMAPPED 0x0001   /* bio_flags: the data is the page list bio_ma, not bio_data */
#define BIO_SYNC     0x0002   /* bio_flags: a process waits for it (a read it needs, a synchronous
                                 write, fsync's writes and flush): the disk queue's synchronous
                                 class when the queue has one (disk_set_syncfirst) */

#define DISK_EXCL  0x0001    /* disk_open/disk_close: exclusive use */

/*
 * The most tagged commands FreeBSD 4's CAM gave a disk that did not say otherwise (the default
 * entry of cam_xpt.c's quirk table: mintags 2, maxtags 255; [@fbsd-cam_xpt]); xpt_start_tags opened
 * min(maxtags, the host adapter's max_tagged_dev_openings). The drivers start d_openings so.
 */
#define CAM_MAXTAGS 255

struct disk;
struct vm_page;
struct rundev;

#define DISK_MAXPIECES 8     /* most disks disk_map names for one range (a ccd's components) */

/* One disk a range of another reaches, and how many of its bytes: disk_map's answer. */
struct disk_piece {
	struct disk *dp_disk;
	uint32_t     dp_bytes;
};

struct bio {
	int          bio_cmd;       /* BIO_READ, BIO_WRITE, BIO_FLUSH */
	int          bio_flags;     /* BIO_UNMAPPED */
	struct disk *bio_disk;
	uint64_t     bio_offset;    /* byte offset on the disk */
	uint32_t     bio_length;    /* bytes */
	void        *bio_data;      /* mapped form: kernel virtual, direct-mapped */
	struct vm_page **bio_ma;    /* unmapped form: the pages holding the data */
	int          bio_ma_n;      /* how many */
	uint32_t     bio_ma_offset; /* byte offset of the data in bio_ma[0] (< PAGE_SIZE) */
	int          bio_error;     /* 0 or errno, set by the driver */
	uint32_t     bio_resid;     /* bytes not transferred */
	void       (*bio_done)(struct bio *);
	void        *bio_caller1;   /* for the issuer (e.g. the struct buf) */
	void        *bio_caller2;
	uint64_t     bio_t0;        /* nanouptime() when queued, for devstat */
	int          bio_qahead;    /* requests waiting or active at the disk when it arrived (for
	                               a split request, the most any piece found) */
	struct bioq_link bio_qlink; /* the disk queue's link (dev/bio_queue.h) */
	struct bio  *bio_next;      /* driver queue link */
};

/* devstat-style counters, read by iostat through sysctl (kern.devstat.<name>.*). */
struct devstat {
	uint64_t ops[4];            /* indexed by BIO_* */
	uint64_t bytes[4];
	uint64_t busy_ns;           /* time with at least one request outstanding */
	uint64_t busy_since;        /* nanouptime() when it last became busy */
	int      queued;            /* requests issued and not yet completed */
	int      max_queued;        /* high-water mark of `queued` */
	uint64_t depth_ns;          /* the integral of `queued` over time (ns x requests) */
	uint64_t depth_since;       /* nanouptime() when depth_ns was last brought up to date */
	int      active;            /* of those, handed to the device (the rest wait in d_queue) */
	int      max_active;        /* high-water mark of `active` */
	uint64_t active_ns;         /* the integral of `active` over time */
	uint64_t errors;
	uint64_t syncs;             /* BIO_SYNC requests completed */
	uint64_t sync_ns;           /* ... their time from arrival to completion, summed */
	uint64_t write_bytes_queued;      /* bytes of writes issued and not completed */
	uint64_t max_write_bytes_queued;  /* high-water mark of write_bytes_queued */
};

struct disk {
	char             d_name[16];      /* "md0", "da1", "ada0", "ccd0" */
	uint32_t         d_sectorsize;
	uint64_t         d_mediasize;     /* bytes */
	uint32_t         d_maxio;         /* largest single request in bytes */
	void           (*d_strategy)(struct bio *);
	void            *d_softc;         /* driver's state */
	struct spinlock  d_statlock;      /* protects d_stat, d_opens and d_excl */
	struct devstat   d_stat;
	/*
	 * The disk queue (FreeBSD 4's da(4) bufq and CAM's dev_openings): requests wait in d_queue,
	 * in elevator order, until fewer than d_openings are at the device. A driver that wants it
	 * sets d_openings (its default) and d_maxopenings (its limit, at least 1) before
	 * disk_register; d_maxopenings 0 means no queue: requests go to d_strategy at once (ccd,
	 * md). Either way d_strategy must take every request it is given.
	 */
	struct spinlock  d_qlock;         /* protects d_queue, d_openings, d_active, d_dispatch* */
	struct bioq      d_queue;
	int              d_openings;      /* dev.<driver>.<unit>.openings */
	int              d_maxopenings;
	int              d_active;        /* requests handed to d_strategy and not completed */
	int              d_active_sync;   /* of them, handed out by the synchronous class */
	int              d_depth;         /* with the class: most asynchronous ones at the device */
	bool             d_dispatching;   /* a thread is handing requests to d_strategy */
	bool             d_redispatch;    /* openings or requests appeared meanwhile: look again */
	int              d_opens;         /* shared opens (d_statlock) */
	bool             d_excl;          /* held by an exclusive open (d_statlock) */
	/*
	 * d_map (optional, ccd's): the disks bytes [off, off+len) reach, with their bytes, one entry
	 * per disk, at most max (>= DISK_MAXPIECES); returns how many, 0 if it cannot say (then the
	 * disk itself is the answer). Pure arithmetic, no sleeping, any context; only for an open
	 * disk, whose layout cannot change.
	 */
	int            (*d_map)(struct disk *dp, uint64_t off, uint64_t len, struct disk_piece *pieces,
	                        int max);
	struct rundev   *d_rundev;        /* the buffer cache's per-disk budget (disk_watch) */
	struct disk     *d_next;
};

void         disk_register(struct disk *dp);     /* d_name ... d_softc filled in by the driver */
struct disk *disk_lookup(const char *name);      /* NULL if no such disk */
struct disk *disk_first(void);                   /* iteration: disk_first(), dp->d_next */
void         disk_dump(void);                    /* queue depths on the console (^P) */
int          disk_check_bio(struct bio *bp);     /* 0, or the errno for a malformed request */
void         disk_start(struct bio *bp);         /* account, then call the driver's d_strategy */
void         disk_iodone(struct bio *bp);        /* driver: request finished (any context) */
int          disk_io_sync(struct disk *dp, int cmd, uint64_t off, void *data, uint32_t len); /* issue and wait */
/* The same with the data in a page list: ma[], the data starting ma_off bytes into ma[0]. */
int          disk_io_sync_pages(struct disk *dp, int cmd, uint64_t off, struct vm_page **ma,
                                uint32_t ma_off, uint32_t len);
int          disk_map(struct disk *dp, uint64_t off, uint64_t len, struct disk_piece *pieces,
                      int max);                   /* where a range goes (see above); >= 1 */
void         disk_watch(void (*fn)(struct disk *dp));   /* one watcher (see above) */
void         disk_sync_watch(void (*fn)(struct disk *dp, uint64_t ns));  /* one (see above) */
void         disk_wait_watch(void (*fn)(struct disk *dp, uint64_t off, uint64_t len, bool begin));
void         disk_set_syncfirst(struct disk *dp, bool on);  /* the synchronous class (above) */
void         disk_set_depth(struct disk *dp, int depth);    /* >= 1 (above) */
int          disk_open(struct disk *dp, int flags);  /* 0 or EBUSY (see above) */
void         disk_close(struct disk *dp, int flags);
bool         disk_in_use(struct disk *dp);           /* open by anyone, shared or exclusive */
/* bp's data: `len` bytes of whole's data from byte `skip`, mapped or a page list like whole's
 * (a driver or ccd splitting a request; sets bio_length and the data fields only). */
void         bio_set_data(struct bio *bp, const struct bio *whole, uint32_t skip, uint32_t len);
/* The physical segments of bytes [off, off+len) of bp's data (disk_seg_build's contract). */
int          bio_segments(const struct bio *bp, uint32_t off, uint32_t len, struct disk_seg *segs,
                          int max, uint32_t maxseg);

#endif
