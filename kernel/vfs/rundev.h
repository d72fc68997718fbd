/*
 * rundev.h - write bytes in flight per disk: the accounting behind the perdevice buf_daemon
 * design (vfs/vfs_rundev.c; the design's decisions are in vfs/vfs_bufdaemon.c; docs/bufcache.md
 * "The perdevice design"). Pure C: only <stdint.h>/<stdbool.h>, so tests/unit/test_bufdaemon.c
 * compiles vfs_rundev.c with vfs_bufdaemon.c and a simulated cache and disks.
 *
 * Every disk has a struct rundev (the buffer cache attaches one when the disk registers: its
 * d_rundev). A write is charged to the disks its pieces go to (disk_map: a ccd answers with
 * its components), with how many bytes each, in a struct rd_charge kept with the write, and
 * the same record is credited when the write completes. So each disk's rd_running is its
 * share of the global runningbufspace, and their sum is runningbufspace itself.
 *
 *   rundev_init(rd, name, hi, lo, bw, now)  a disk's record: fixed budget hi/lo, starting
 *                                 bandwidth estimate bw (bytes/s).
 *   rundev_register(rd), rundev_first(), rd->rd_next   the list of every record.
 *   rundev_charge(rc, now)        a write of rc's bytes is issued to rc's disks.   [lock held]
 *   rundev_done(rd, bytes, now)   `bytes` of rd's charge completed: the count falls, and the
 *                                 completion rate is measured (below).             [lock held]
 *   rundev_enqueue(rd, w), rundev_dequeue(rd)   rd's queue of waiting writers, first come
 *                                 first served (the sleeping and waking is the design's).
 *   rundev_estimate(bw, sample, busy_ns)   the bandwidth estimate's smoothing step.
 *   rundev_sync(rd, ns)           a synchronous request (one a process waits for: the block
 *                                 layer's BIO_SYNC) completed at rd, ns after it arrived: kept
 *                                 in the current latency window (below).           [lock held]
 *   rundev_sync_window(rd, now, &least)  close the latency window: how many synchronous
 *                                 requests it saw and the least latency among them; a new
 *                                 window starts now.                               [lock held]
 *
 * Synchronous latency (the syncfirst design's measure; every design keeps it). Each disk keeps
 * the synchronous requests that completed since its window began and the least latency among
 * them, as Linux's writeback throttling keeps the least read latency of its window
 * [@linux-blk-wbt]. The least, not the mean: the mean of a burst of synchronous writes (fsync
 * issues several at once) grows with the burst, as each waits for the ones before it, which no
 * limit on the asynchronous writes can shorten; the least is the request that found the fewest
 * ahead of it, and it is long only when the writes at the drive were in its way.
 *
 * Measuring the completion rate (rd_bandwidth, bytes/s). The bytes that complete are counted
 * in windows of RD_INTERVAL_NS of wall time (Linux's BANDWIDTH_INTERVAL, 200 ms); a window's
 * sample is its bytes over the time in it during which the disk had writes charged to it (busy
 * time, not wall time: a disk that idles for lack of work is not slow). A window with less
 * than RD_MINBUSY_NS of busy time tells too little and is dropped. The sample joins the
 * estimate weighted by its busy time over a period of RD_PERIOD_NS (Linux's 3 s:
 * bw = (sample * busy + bw * (period - busy)) / period), so the estimate follows a change of
 * the disk's speed within a few seconds and ignores one slow window. Linux's
 * bdi_update_write_bandwidth does the same over elapsed time [@linux-page-writeback]; measuring
 * over busy time is wdrain's.
 *
 * Locking: every field is protected by the buffer cache's lock (bufcache_lock), which the
 * callers hold; rd_name and rd_next never change once the record is registered.
 */
#ifndef _VFS_RUNDEV_H_
#define _VFS_RUNDEV_H_

#include <stdint.h>
#include <stdbool.h>

#define RD_MAXDEV       8                      /* disks one write can reach (a ccd's components) */
#define RD_INTERVAL_NS  200000000ull           /* a measuring window */
#define RD_PERIOD_NS    3000000000ull          /* the estimate's memory */
#define RD_MINBUSY_NS   20000000ull            /* less busy time than this: no sample */

/* A writer waiting for a disk's budget (on its stack, linked while it waits). */
struct rd_waiter {
	struct rd_waiter *rw_next;
	bool              rw_released;     /* set by the design when it lets the writer go */
};

struct rundev {
	const char       *rd_name;         /* the disk's name ("da1") */
	int               rd_running;      /* bytes of writes charged here and not completed */
	int               rd_hirunning;    /* the fixed budget (vfs.perdevice.auto=0): wait above */
	int               rd_lorunning;    /* ... until down to this */
	int64_t           rd_bandwidth;    /* estimated completion rate, bytes/s */
	/* the measuring window */
	uint64_t          rd_win_start;    /* when it began (ns) */
	uint64_t          rd_win_busy;     /* busy time in it so far (ns) */
	int64_t           rd_win_bytes;    /* bytes completed in it */
	uint64_t          rd_busy_since;   /* when rd_win_busy was last brought up to date */
	/* writers waiting for this budget, oldest first */
	struct rd_waiter *rd_whead, *rd_wtail;
	int               rd_nwait;
	/* counters (vfs.perdevice.<disk>.*) */
	uint64_t          rd_charged;      /* bytes charged since boot */
	uint64_t          rd_sleeps;       /* writers that waited for this budget */
	uint64_t          rd_wait_ns;      /* ... and how long */
	uint64_t          rd_skips;        /* dirty buffers the daemon passed over: budget full */
	uint64_t          rd_samples;      /* windows that changed the estimate */
	/* the synchronous-latency window (rundev_sync_window) */
	uint64_t          rd_swin_start;   /* when it began (ns) */
	int               rd_swin_n;       /* synchronous requests completed in it */
	uint64_t          rd_swin_least;   /* the least latency among them (ns) */
	int               rd_swin_quiet;   /* windows in a row with no news (the design's) */
	/* who waits for I/O on the disk (every design keeps it: bd_wait_begin; the wanted design
	   acts on it) */
	int               rd_wanted;       /* processes waiting for I/O on this disk now */
	uint64_t          rd_wanted_since; /* when the first of them began (ns) */
	uint64_t          rd_waits;        /* process waits that reached this disk */
	uint64_t          rd_wanted_ns;    /* time with at least one of them (ns) */
	/* the wanted design's (vfs_bufdaemon.c) */
	int               rd_cut;          /* 1: its queue is at the small depth, its budget binds */
	uint64_t          rd_linger_until; /* it stays cut until then after a wait ended (ns) */
	uint64_t          rd_wcuts;        /* times it was cut */
	/* the syncfirst design's (vfs_bufdaemon.c) */
	int               rd_depth;        /* asynchronous writes the disk may have at the drive */
	uint64_t          rd_cuts;         /* windows that cut rd_depth (latency over the target) */
	uint64_t          rd_raises;       /* windows that raised it again */
	void             *rd_disk;         /* the disk itself, for the environment (opaque here) */
	struct rundev    *rd_next;
};

/* What one write is charged to: bytes per disk; and whether someone waits for it (fsync). */
struct rd_charge {
	bool rc_waited;       /* set by the issuer for the design's async step: fsync's write */
	int rc_n;
	struct {
		struct rundev *rd;
		int            bytes;
	} rc_dev[RD_MAXDEV];
};

/*
 * One process's wait for I/O (in its struct proc): the disks it waits on, each counted once in
 * their rd_wanted however many of its requests go there, until the wait ends. Waits nest (an
 * fsync holds one open across the bwrites, biowaits and the cache flush inside it), and the
 * disks are let go only when the outermost ends. More than RD_MAXDEV disks in one wait: the
 * rest are not marked.
 */
struct rd_wait {
	int            wt_depth;           /* waits open (nested) */
	uint64_t       wt_began;           /* when the outermost began (ns) */
	uint64_t       wt_wrote;           /* when the process last issued an async write (ns) */
	int            wt_n;
	struct rundev *wt_dev[RD_MAXDEV];
};

void           rundev_init(struct rundev *rd, const char *name, int hi, int lo, int64_t bw,
                           uint64_t now);
void           rundev_register(struct rundev *rd);
struct rundev *rundev_first(void);
void           rundev_charge(const struct rd_charge *rc, uint64_t now);
void           rundev_done(struct rundev *rd, int bytes, uint64_t now);
void           rundev_enqueue(struct rundev *rd, struct rd_waiter *w);
struct rd_waiter *rundev_dequeue(struct rundev *rd);
int64_t        rundev_estimate(int64_t bw, int64_t sample, uint64_t busy_ns);
void           rundev_sync(struct rundev *rd, uint64_t ns);
int            rundev_sync_window(struct rundev *rd, uint64_t now, uint64_t *least_ns);

#endif
