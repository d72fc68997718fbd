/*
 * bufdaemon.h - the buf_daemon's designs (vfs/vfs_bufdaemon.c) and what they need from the
 * buffer cache. Pure C: only <stdint.h>/<stdbool.h> (and vfs/rundev.h, pure too), so
 * tests/unit/bufdaemon_sim.h compiles vfs_bufdaemon.c on the host and drives it with a simulated
 * cache and disks (test_bufdaemon.c, test_perdevice.c).
 *
 * What vfs_bufdaemon.c provides (to vfs_bio.c and the sysctls):
 *   buf_daemon()                 - the "bufdaemon" thread: runs the current design's loop, and
 *                                  another's after vfs.bufdaemon_design changes.
 *   bd_wakeup(level), bd_speedup() - ask the daemon to run (FreeBSD's names).      [lock held]
 *   numdirtywakeup(level)        - wake writers in bwillwrite once numdirty <= level. [lock held]
 *   runningbufwakeup(bytes)      - a write of `bytes` finished (biodone).          [lock held]
 *   bd_buffer_dirtied()          - a buffer became dirty (bdirty): wake the daemon at the
 *                                  design's level.                                  [lock held]
 *   bd_buffer_cleaned()          - a dirty buffer stopped being dirty (bundirty).  [lock held]
 *   bd_async_write_issued(rc)    - an async write charged as rc says was handed to the disk.
 *                                                                                  [no lock]
 *   waitrunningbufspace()        - block ("wdrain") while too many write bytes are in flight.
 *   rundevwakeup(rc)             - a write charged as rc says finished (biodone): each disk's
 *                                  count falls, its rate is measured, and its waiters are let
 *                                  go at its lo (the perdevice design).             [lock held]
 *   perdevice_hirunning(rd), perdevice_lorunning(rd) - a disk's budget now (its
 *                                  vfs.perdevice.<disk>.hirunningspace/lorunningspace). [lock]
 *   perdevice_release_all()      - let every "wdrdev" waiter go (vfs.perdevice.auto changed). [lock]
 *   bd_sync_done(rd, ns)         - a synchronous request completed at rd's disk, ns after it
 *                                  arrived (the block layer's watcher): counted, and the
 *                                  design's queue rule sees it.                      [lock held]
 *   bd_disk_requeue(rd)          - rd's disk queue takes the current design's discipline at
 *                                  rd's depth (a disk registered, the tunables changed). [lock]
 *   bd_wait_begin(rc), bd_wait_end() - the current process starts / ends a wait for I/O on
 *                                  rc's disks (rc NULL: fsync's, whose writes name them); a
 *                                  disk is "wanted" while some process waits on it.  [no lock]
 *   bwillwrite()                 - write(2)'s throttle ("flswai"), as the design says.
 *   bd_set_design(name)          - switch designs ("speedup" | "runningbuf" | "perdevice" |
 *                                  "syncfirst" | "wanted");
 *                                  false if unknown.
 *   bd_design_name()
 *
 * What the buffer cache provides (vfs_bio.c in the kernel; the simulation in the host test):
 *   the counters and tunables below (written under the lock by vfs_bio.c);
 *   bufq_lock()/bufq_unlock()    - bufcache_lock, which protects every counter and flag here;
 *   bufq_sleep(chan, wmesg, timo) - msleep on bufcache_lock (held): true if woken before the
 *                                  timeout (timo in ticks, 0 = none);
 *   bufq_wakeup(chan);
 *   bd_nanouptime();
 *   bd_curthread_is_daemon()     - the caller is the "bufdaemon" thread;
 *   bd_curwait()                 - the current process's wait record, NULL for a kernel thread;
 *   bd_disk_queue(rd, syncfirst, depth) - rd's disk queue: the synchronous class on or off, and
 *                                  the most asynchronous requests it hands the drive at once
 *                                  with it (dev/disk.h disk_set_syncfirst, disk_set_depth; a
 *                                  disk without a queue ignores it); never sleeps.  [lock held]
 *   buf_flush_oldest(ok, &nbufs, &nblocked) - start a clustered async write of the oldest
 *                                  flushable dirty buffer (FreeBSD's flushbufqueues body:
 *                                  vfs_bio_awrite); returns its bytes and buffers, 0 if nothing
 *                                  was flushable. With ok, only a buffer whose cluster's disks
 *                                  (an rd_charge of them) ok() accepts is taken; *nblocked counts
 *                                  the dirty buffers ok() refused (nblocked may be NULL without
 *                                  ok). ok() is called with the lock held; buf_flush_oldest
 *                                  itself without.
 * The per-disk accounting behind the perdevice design is vfs/rundev.h.
 */
#ifndef _VFS_BUFDAEMON_H_
#define _VFS_BUFDAEMON_H_

#include <stdint.h>
#include <stdbool.h>
#include "vfs/rundev.h"

/* Counters and tunables, owned by vfs_bio.c (sysctls vfs.<name>). */
extern int numdirtybuffers;     /* B_DELWRI buffers */
extern int hidirtybuffers;      /* writers block here */
extern int lodirtybuffers;      /* the daemon drains to here */
extern int runningbufspace;     /* bytes of write I/O issued and not completed */
extern int hirunningspace;      /* the runningbuf design waits above this ... */
extern int lorunningspace;      /* ... until in-flight bytes fall to this */
extern int maxbdrun;            /* the speedup design's cap on flushes per wakeup */
extern int bd_hz;               /* clock ticks per second */
extern int perdevice_auto;      /* perdevice: budgets follow each disk's measured rate (1) or
                                   are fixed per disk (0) */
extern int perdevice_target_ms; /* perdevice: the queueing delay a self-sized budget stands for */
extern int perdevice_maxspace;  /* perdevice: the self-sized budgets' ceiling (bytes) */

#define PERDEVICE_MINSPACE (128 * 1024)  /* the self-sized budgets' floor: one MAXPHYS cluster */

extern int syncfirst_target_ms; /* syncfirst: the synchronous latency a disk's depth is held to */
extern int syncfirst_maxdepth;  /* syncfirst: a disk's depth while only writes are seen */
extern int syncfirst_mindepth;  /* syncfirst: the least depth a cut leaves */

#define SYNCFIRST_WINDOW_NS 100000000ull   /* syncfirst: a latency window (Linux wbt's 100 ms) */
#define SYNCFIRST_MINSYNC   2              /* syncfirst: synchronous requests a window must see
                                              to judge their latency */
#define SYNCFIRST_QUIET     5              /* syncfirst: windows without one before the depth
                                              grows back (wbt's RWB_UNKNOWN_BUMP) */

extern int wanted_depth;        /* wanted: async writes a drive may hold while someone waits */
extern int wanted_linger_ms;    /* wanted: how long a disk stays cut after a non-writer's wait */
extern int wanted_budget;       /* wanted: perdevice's budget binds while a disk is cut (1) */

#define WANTED_ALLOPENINGS 256             /* wanted: the depth while no one waits (the disk
                                              gives the drive as many as it has openings) */

/* The environment. */
void     bufq_lock(void);
void     bufq_unlock(void);
bool     bufq_sleep(void *chan, const char *wmesg, int timo);
void     bufq_wakeup(void *chan);
uint64_t bd_nanouptime(void);
bool     bd_curthread_is_daemon(void);
struct rd_wait *bd_curwait(void);
void     bd_disk_queue(struct rundev *rd, bool syncfirst, int depth);
long     buf_flush_oldest(bool (*ok)(const struct rd_charge *), int *nbufs, int *nblocked);

/* The daemon's counters (vfs.bufdaemon.*; docs/bufcache.md). Updated under the lock, except
 * the daemon's own (wakeups, flushes, loops, speedup state), which only the daemon writes. */
struct bd_stats {
	uint64_t wakeups;             /* the daemon's sleeps that ended early (bd_wakeup) */
	uint64_t timeouts;            /* ... that ran their full time */
	uint64_t flushes;             /* writes flushbufqueues started */
	uint64_t flush_bytes;         /* bytes they carried */
	uint64_t flush_bufs;          /* buffers they carried */
	uint64_t sleeps_psleep, sleeps_qsleep, sleeps_wdrain, sleeps_flswai;  /* by wmesg */
	uint64_t wdrain_ns;           /* time spent blocked in waitrunningbufspace */
	uint64_t flswai_ns;           /* time writers spent blocked in bwillwrite */
	uint64_t speedup_loops;       /* iterations of buf_daemon_speedup */
	uint64_t speedup_faster;      /* its speed-ups (woken early) */
	uint64_t speedup_slower;      /* its slow-downs (slept the whole interval) */
	uint64_t runningbuf_loops;    /* iterations of buf_daemon_runningbuf */
	uint64_t runningbuf_drains;   /* times it drained to lodirtybuffers and disarmed */
	uint64_t perdevice_loops;     /* iterations of buf_daemon_perdevice */
	uint64_t perdevice_drains;    /* times it drained to lodirtybuffers and disarmed */
	uint64_t perdevice_blocked;   /* times every dirty buffer it could take was bound for a full
	                                 disk, so it waited for one to drain */
	uint64_t syncfirst_loops;     /* iterations of buf_daemon_syncfirst */
	uint64_t syncfirst_drains;    /* times it drained to lodirtybuffers and disarmed */
	uint64_t syncfirst_blocked;   /* times every dirty buffer it could take was bound for a full
	                                 disk, so it waited for one to drain */
	uint64_t wanted_loops;        /* iterations of buf_daemon_wanted */
	uint64_t wanted_drains;       /* times it drained to lodirtybuffers and disarmed */
	uint64_t wanted_blocked;      /* times every dirty buffer it could take was bound for a full
	                                 (wanted) disk, so it waited for one to drain */
	uint64_t sleeps_wdrdev;       /* sleeps for a disk's budget, wmesg wdrdev (writers, daemon) */
	uint64_t wdrdev_ns;           /* time spent in them */
	uint64_t design_switches;
};
extern struct bd_stats bdstats;

/* The speedup design's state (read-only sysctls vfs.bufdaemon.bd_*). */
extern int bd_flushto, bd_flushinc, bd_interval;
extern int bd_request;          /* the daemon has been asked to run (lock) */

void        buf_daemon(void);
void        bd_wakeup(int level);
void        bd_speedup(void);
void        numdirtywakeup(int level);
void        runningbufwakeup(int bytes);
void        rundevwakeup(const struct rd_charge *rc);
int         perdevice_hirunning(const struct rundev *rd);
int         perdevice_lorunning(const struct rundev *rd);
void        perdevice_release_all(void);
void        bd_sync_done(struct rundev *rd, uint64_t ns);
void        bd_disk_requeue(struct rundev *rd);
void        bd_buffer_dirtied(void);
void        bd_buffer_cleaned(void);
void        bd_async_write_issued(const struct rd_charge *rc);
void        waitrunningbufspace(void);
void        bwillwrite(void);
void        bd_wait_begin(const struct rd_charge *rc);
void        bd_wait_end(void);
bool        bd_set_design(const char *name);
const char *bd_design_name(void);

#endif
