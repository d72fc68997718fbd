/*
 * vfs_bufdaemon.c - the buf_daemon, FreeBSD's buffer flushing thread, in the two designs of
 * the December 2000 experiment, a third, the per-disk pipelining the experiment's author
 * named as his next step, a fourth that keeps the disks' queues out of the way of
 * synchronous I/O, and a fifth that does it while a process waits on the disk (interface:
 * vfs/bufdaemon.h; docs/bufcache.md).
 *
 * The daemon writes delayed-write (B_DELWRI) buffers so that writers do not run the cache out
 * of clean buffers. A design is the decisions below, and nothing else differs:
 *   - the daemon's loop: when to flush, how much, and how long to sleep;
 *   - the dirty count at which a buffer being dirtied asks the daemon in (bdirty's bd_wakeup);
 *   - bwillwrite: when write(2) blocks its caller ("flswai");
 *   - what an async write does after it is issued: return (speedup), wait while more than
 *     hirunningspace bytes are in flight ("wdrain", runningbuf), or wait while a disk it was
 *     charged to is over its own budget ("wdrdev", perdevice);
 *   - the dirty count at which buffers being cleaned wake the blocked writers;
 *   - the disks' queues: FreeBSD 4's elevator alone, or a synchronous class in front of it with
 *     a limit on the asynchronous writes at each drive that the design moves (syncfirst).
 * The shared helpers come first, then buf_daemon_speedup() and its four small companions,
 * then buf_daemon_runningbuf() and its, then buf_daemon_perdevice() and its budgets, then
 * buf_daemon_syncfirst() and its queue rule, then buf_daemon_wanted() and its rule for who is
 * waiting, then the table and the switch. A student diffs two
 * design sections to see the whole difference.
 *
 * Switching (sysctl vfs.bufdaemon_design): the new design's functions are used from the next
 * call on; the daemon finishes its current loop iteration and starts the new design's loop
 * (fresh state: bd_flushto and friends are reset); writers waiting under the old rules are
 * woken to test the new ones; every disk's queue takes the new design's discipline.
 *
 * Pure C (bufdaemon.h): the host tests tests/unit/test_bufdaemon.c, test_perdevice.c and
 * test_syncfirst.c compile this file with a simulated buffer cache and disks (bufdaemon_sim.h),
 * and check each design's promises with synthetic counters.
 *
 * Locking: the counters and flags below (bd_request, runningbufreq, needsdirtyflush,
 * rundevreq, rundev_drains) and every disk's struct rundev are protected by bufcache_lock
 * (bufq_lock). The daemon reads numdirtybuffers without it, as FreeBSD's does: a stale value
 * only shifts a decision by one loop. The speedup state (bd_flushto, bd_flushinc, bd_interval)
 * and the daemon's own counters are the daemon's.
 */
#include "vfs/bufdaemon.h"

struct bd_stats bdstats;
int bd_request;              /* the daemon has been asked to run (sleeps on &bd_request) */
int bd_flushto;              /* speedup: flush while numdirtybuffers is above this */
int bd_flushinc;             /* speedup: how fast bd_flushto climbs back after timeouts */
int bd_interval;             /* speedup: ticks to sleep between flushing rounds */
/* Not static: the host simulation (tests/unit/bufdaemon_sim.h), which links this file as an
 * object of its own, resets them between scenes and tells the channels' sleepers apart. */
int runningbufreq;           /* someone waits in waitrunningbufspace ("wdrain") */
int needsdirtyflush;         /* someone waits in bwillwrite ("flswai") */
int rundevreq;               /* the perdevice daemon waits for a full disk to drain ("wdrdev") */
static unsigned rundev_drains;  /* credits that left a disk at or below its lo (a generation) */

struct bd_design {
	const char *name;
	void (*daemon)(void);            /* runs until the design changes */
	int  (*dirtied_level)(void);     /* bdirty wakes the daemon once numdirty >= this */
	void (*willwrite)(void);         /* bwillwrite */
	void (*async_written)(const struct rd_charge *);  /* after an async write is issued, with
	                                    the disks it was charged to; 0 = return at once */
	int  (*cleaned_level)(void);     /* bundirty wakes writers once numdirty <= this */
	void (*disk_event)(struct rundev *rd, uint64_t now);  /* a write or a synchronous request
	                                    completed at rd: the queue rule; 0 = none */
	bool syncfirst;                  /* the disks' queues have the synchronous class */
	int  (*depth)(const struct rundev *rd);  /* with the class: rd's depth now; 0 = rd_depth */
	void (*wanted)(struct rundev *rd, const struct rd_wait *w, bool ended);  /* w's wait began
	                                    (ended: ended) on rd; 0 = none */
};

enum { BD_SPEEDUP, BD_RUNNINGBUF, BD_PERDEVICE, BD_SYNCFIRST, BD_WANTED, BD_NDESIGNS };
static const struct bd_design bd_designs[BD_NDESIGNS];
static const struct bd_design *volatile bd_current = &bd_designs[BD_RUNNINGBUF];

#define BD_MIN(a, b) ((a) < (b) ? (a) : (b))
#define BD_MAX(a, b) ((a) > (b) ? (a) : (b))

/* ===================================== shared helpers ===================================== */

/* bd_wakeup: ask the daemon in if it is not already asked and numdirty >= level. [lock held] */
void bd_wakeup(int level)
{
	if (bd_request == 0 && numdirtybuffers >= level) {
		bd_request = 1;
		bufq_wakeup(&bd_request);
	}
}

/* bd_speedup: "heeeelp" (getnewbuf found nothing reusable). [lock held] */
void bd_speedup(void)
{
	bd_wakeup(1);
}

/* numdirtywakeup: wake writers blocked in bwillwrite once numdirty <= level. [lock held] */
void numdirtywakeup(int level)
{
	if (needsdirtyflush && numdirtybuffers <= level) {
		needsdirtyflush = 0;
		bufq_wakeup(&needsdirtyflush);
	}
}

/* runningbufwakeup: a write of `bytes` completed; wake wdrain waiters at lorunningspace. */
void runningbufwakeup(int bytes)
{
	/* LAB bufdaemon BEGIN */
	if (bytes == 0)
		return;
	runningbufspace -= bytes;
	if (runningbufreq && runningbufspace <= lorunningspace) {
		runningbufreq = 0;
		bufq_wakeup(&runningbufreq);
	}
	/* LAB bufdaemon STUB */
	// /* The bytes go back to runningbufspace, and the wdrain sleepers go at lorunningspace. */
	/* LAB bufdaemon END */
}

/* Let rd's waiting writers go, oldest first. [lock held] */
static void rundev_release(struct rundev *rd)
{
	struct rd_waiter *w;

	while ((w = rundev_dequeue(rd)) != 0) {
		w->rw_released = true;
		bufq_wakeup(w);
	}
}

/*
 * rundevwakeup: a write charged as rc says completed (every design counts it; perdevice and
 * syncfirst look). Each disk's count falls and its completion rate is measured (rundev_done),
 * and the design's queue rule sees the disk; a disk at or below its lo lets its waiting writers
 * go, oldest first, and wakes the daemon if it waits for a disk to drain. [lock held]
 */
void rundevwakeup(const struct rd_charge *rc)
{
	uint64_t now = bd_nanouptime();

	for (int i = 0; i < rc->rc_n; i++) {
		struct rundev *rd = rc->rc_dev[i].rd;

		rundev_done(rd, rc->rc_dev[i].bytes, now);
		if (bd_current->disk_event != 0)
			bd_current->disk_event(rd, now);
		if (rd->rd_running > perdevice_lorunning(rd))
			continue;
		rundev_drains++;
		rundev_release(rd);
		if (rundevreq) {
			rundevreq = 0;
			bufq_wakeup(&rundevreq);
		}
	}
}

/*
 * bd_sync_done: a synchronous request completed at rd, ns after it arrived there: it joins the
 * disk's latency window (every design keeps it: rundev_sync), and the design's queue rule sees
 * the disk. [lock held]
 */
void bd_sync_done(struct rundev *rd, uint64_t ns)
{
	rundev_sync(rd, ns);
	if (bd_current->disk_event != 0)
		bd_current->disk_event(rd, bd_nanouptime());
}

/* bd_disk_requeue: rd's disk queue takes the current design's discipline at its depth. [lock] */
void bd_disk_requeue(struct rundev *rd)
{
	const struct bd_design *d = bd_current;

	bd_disk_queue(rd, d->syncfirst, d->depth != 0 ? d->depth(rd) : rd->rd_depth);
}

/*
 * Who waits for I/O on which disk (every design keeps it; the wanted design acts on it). A
 * process's wait is one, however many requests it takes: bd_wait_begin opens it (biowait, the
 * block layer's disk_io_sync, fsync(2) around all of its work), each disk it waits on is marked
 * once, and bd_wait_end of the outermost wait lets them all go; the design's wanted() sees each
 * wait begin and end on each disk.
 */
static void bd_want(struct rd_wait *w, struct rundev *rd, uint64_t now)
{
	for (int i = 0; i < w->wt_n; i++)
		if (w->wt_dev[i] == rd)
			return;
	if (w->wt_n == RD_MAXDEV)
		return;
	w->wt_dev[w->wt_n++] = rd;
	rd->rd_waits++;
	if (rd->rd_wanted++ == 0)
		rd->rd_wanted_since = now;
	if (bd_current->wanted != 0)
		bd_current->wanted(rd, w, false);
}

static void bd_unwant(const struct rd_wait *w, struct rundev *rd, uint64_t now)
{
	if (--rd->rd_wanted == 0)
		rd->rd_wanted_ns += now - rd->rd_wanted_since;
	if (bd_current->wanted != 0)
		bd_current->wanted(rd, w, true);
}

/* Mark rc's disks wanted by w, if w has a wait open. [lock held] */
static void bd_want_charge(struct rd_wait *w, const struct rd_charge *rc)
{
	uint64_t now = bd_nanouptime();

	for (int i = 0; rc != 0 && w->wt_depth > 0 && i < rc->rc_n; i++)
		bd_want(w, rc->rc_dev[i].rd, now);
}

/*
 * bd_wait_begin: the current process starts waiting for I/O on rc's disks (rc 0: a wait whose
 * disks its requests will name, fsync's). Kernel threads are not counted. [no lock]
 */
void bd_wait_begin(const struct rd_charge *rc)
{
	struct rd_wait *w = bd_curwait();

	if (w == 0)
		return;
	bufq_lock();
	if (w->wt_depth++ == 0)
		w->wt_began = bd_nanouptime();
	bd_want_charge(w, rc);
	bufq_unlock();
}

/* bd_wait_end: its wait ends; the outermost lets every disk it marked go. [no lock] */
void bd_wait_end(void)
{
	struct rd_wait *w = bd_curwait();
	uint64_t now;

	if (w == 0 || w->wt_depth == 0)
		return;
	bufq_lock();
	if (--w->wt_depth == 0) {
		now = bd_nanouptime();
		while (w->wt_n > 0)
			bd_unwant(w, w->wt_dev[--w->wt_n], now);
	}
	bufq_unlock();
}

/*
 * waitrunningbufspace (FreeBSD 4.3, docs/sources.md [@fbsd-vfs_bio-2001]): while more than
 * hirunningspace bytes of writes are in flight, sleep "wdrain" until they drain to
 * lorunningspace. It waits for earlier writes only: the caller's own write is already issued,
 * and is not made synchronous.
 */
void waitrunningbufspace(void)
{
	/* LAB bufdaemon BEGIN */
	uint64_t t0;

	bufq_lock();
	if (runningbufspace > hirunningspace) {
		t0 = bd_nanouptime();
		while (runningbufspace > hirunningspace) {
			runningbufreq = 1;
			bdstats.sleeps_wdrain++;
			bufq_sleep(&runningbufreq, "wdrain", 0);
		}
		bdstats.wdrain_ns += bd_nanouptime() - t0;
	}
	bufq_unlock();
	/* LAB bufdaemon STUB */
	// /* Returns at once: nothing limits the bytes of writes in flight yet. */
	/* LAB bufdaemon END */
}

/*
 * Block a writer ("flswai") while numdirtybuffers > limit, kicking the daemon at `kick` first.
 * The sleep has no timeout, in both FreeBSD texts: the writer is woken by numdirtywakeup as
 * buffers are cleaned, or by a design switch. The time spent goes to vfs.bufdaemon.flswai_ns.
 * The bwillwrite of both designs. [no lock]
 */
static void bwillwrite_wait(int limit, int kick)
{
	uint64_t t0 = bd_nanouptime();

	bufq_lock();
	while (numdirtybuffers > limit) {
		bd_wakeup(kick);
		needsdirtyflush = 1;
		bdstats.sleeps_flswai++;
		bufq_sleep(&needsdirtyflush, "flswai", 0);
	}
	bdstats.flswai_ns += bd_nanouptime() - t0;
	bufq_unlock();
}

/*
 * flushbufqueues: start one (clustered) write of the oldest dirty buffer (buf_flush_oldest:
 * FreeBSD's flushbufqueues body, vfs_bio_awrite), or with `ok` of the oldest whose disks ok()
 * accepts (*nblocked: how many it refused). 1 if it found one, 0 if nothing was flushable.
 */
static int flushbufqueues(bool (*ok)(const struct rd_charge *), int *nblocked)
{
	int nbufs;
	long bytes = buf_flush_oldest(ok, &nbufs, nblocked);

	if (bytes == 0)
		return 0;
	bdstats.flushes++;
	bdstats.flush_bytes += (uint64_t)bytes;
	bdstats.flush_bufs += (uint64_t)nbufs;
	return 1;
}

/* The daemon's sleep on &bd_request, counted by wmesg and outcome. true if woken early. [lock] */
static bool bd_sleep(const char *wmesg, int timo, uint64_t *counter)
{
	bool woken;

	(*counter)++;
	woken = bufq_sleep(&bd_request, wmesg, timo);
	if (woken)
		bdstats.wakeups++;
	else
		bdstats.timeouts++;
	return woken;
}

/* bd_buffer_dirtied: a buffer became dirty; ask the daemon in at the design's level. [lock] */
void bd_buffer_dirtied(void)
{
	bd_wakeup(bd_current->dirtied_level());
}

/* bd_buffer_cleaned: a dirty buffer was cleaned; wake writers at the design's level. [lock] */
void bd_buffer_cleaned(void)
{
	numdirtywakeup(bd_current->cleaned_level());
}

/* bd_async_write_issued: the design's pipelining step after an async write. [no lock] */
void bd_async_write_issued(const struct rd_charge *rc)
{
	const struct bd_design *d = bd_current;
	struct rd_wait *w = bd_curwait();

	if (w != 0 && !rc->rc_waited)
		w->wt_wrote = bd_nanouptime();     /* the process's own record: no lock */
	if (w != 0 && rc->rc_waited) {     /* fsync's write: its disks join the fsync's wait */
		bufq_lock();
		bd_want_charge(w, rc);
		bufq_unlock();
	}
	if (d->async_written != 0)
		d->async_written(rc);
}

/*
 * The end of a round of the patch's daemon (runningbuf, and perdevice after it): drained to
 * lodirtybuffers, disarm and sleep a second ("psleep": real hysteresis); else dirty buffers
 * remain that it could not take (all busy): retry in half a second ("qsleep"), still armed.
 */
static void bd_round_end(uint64_t *drains)
{
	bufq_lock();
	if (numdirtybuffers <= lodirtybuffers) {
		bd_request = 0;
		(*drains)++;
		bd_sleep("psleep", bd_hz, &bdstats.sleeps_psleep);
	} else {
		bd_sleep("qsleep", bd_hz / 2, &bdstats.sleeps_qsleep);
	}
	bufq_unlock();
}

/* bwillwrite: write(2)'s throttle, called before any vnode lock is taken. [no lock] */
void bwillwrite(void)
{
	bd_current->willwrite();
}

/* ============================ the 4.2-STABLE design: "speedup" ============================ */

/*
 * buf_daemon_speedup: FreeBSD 4.2-STABLE's buf_daemon (November-December 2000), the loop the
 * December 2000 patch removed ("I ripped out the dynamic speedup / slowdown code because it
 * just wasn't working", the seed's post).
 *
 * Checked against the -current sys/kern/vfs_bio.c of late 2000, before the patch
 * ([@fbsd-vfs_bio-2000]): the loop, bd_flushto /
 * bd_flushinc / bd_interval and their arithmetic (the 5-of-numdirty window, the -10, the
 * hidirty/20+1 cap, 5 s scaled by bd_flushto/hidirty with a 100 ms floor), maxbdrun =
 * nswbuf / 4 (at least 4; vfs_bufstat.c), bdirty's bd_wakeup(hidirtybuffers), and bwillwrite's
 * 10% slop and untimed "flswai" sleep are that text's. RECONSTRUCTION: that 4.2-STABLE ran
 * exactly this text is inferred (RELENG_4 and -current shared vfs_bio.c's buffer-cache code
 * then; no 4.2 vfs_bio.c is in the sources we could read). The text clears bd_request at the
 * top of each round; clearing it after the sleep, as here, takes the same decisions.
 *
 * Each round: start at most maxbdrun flushes while numdirtybuffers > bd_flushto. Then sleep
 * bd_interval on &bd_request, unless a request is already pending. Woken early (or asked
 * already): the flushing fell behind, so speed up - lower bd_flushto. Slept the whole interval:
 * slow down - raise bd_flushto towards hidirtybuffers by a growing step. The interval follows
 * bd_flushto. Nothing looks at bytes in flight: 16 clustered writes can be 2 MB at once, and
 * the only brake on a flush is the cluster header pool (a flush sleeps in "wswbuf0" when all
 * nswbuf / 2 headers are out: vfs_cluster.c).
 */
static void buf_daemon_speedup(void)
{
	const struct bd_design *me = &bd_designs[BD_SPEEDUP];
	bool early;
	int runs;

	bd_flushto = hidirtybuffers;
	bd_flushinc = 1;
	bd_interval = 5 * bd_hz;
	while (bd_current == me) {
		bdstats.speedup_loops++;
		for (runs = 0; runs < maxbdrun && numdirtybuffers > bd_flushto; runs++)
			if (flushbufqueues(0, 0) == 0)
				break;
		bufq_lock();
		early = bd_request != 0 || bd_sleep("psleep", bd_interval, &bdstats.sleeps_psleep);
		bd_request = 0;
		bufq_unlock();
		if (early) {
			bdstats.speedup_faster++;
			bd_flushto--;
			if (bd_flushto >= numdirtybuffers - 5) {
				bd_flushto = numdirtybuffers - 10;
				bd_flushinc = 1;
			}
			bd_flushto = BD_MAX(bd_flushto, 2);
		} else {
			bdstats.speedup_slower++;
			bd_flushto = BD_MIN(bd_flushto + bd_flushinc, hidirtybuffers);
			bd_flushinc = BD_MIN(bd_flushinc + 1, hidirtybuffers / 20 + 1);
		}
		bd_interval = BD_MAX(5 * bd_hz * bd_flushto / BD_MAX(hidirtybuffers, 1), bd_hz / 10);
	}
}

/* 4.2's bdirty: bd_wakeup(hidirtybuffers), the daemon is asked in only at the high-water mark. */
static int dirtied_level_speedup(void)
{
	return hidirtybuffers;
}

/* 4.2's bwillwrite: block only above hidirtybuffers plus a 10% slop; wait until down to hi. */
static void bwillwrite_speedup(void)
{
	if (numdirtybuffers > hidirtybuffers + hidirtybuffers / 10)
		bwillwrite_wait(hidirtybuffers, hidirtybuffers);
}

/* 4.2's numdirtywakeup() had no level: writers were woken once below hidirtybuffers. */
static int cleaned_level_speedup(void)
{
	return hidirtybuffers - 1;
}

/* ========================== the December 2000 patch: "runningbuf" ========================= */

/*
 * buf_daemon_runningbuf: the buf_daemon of the December 2000 patch (the seed: posted for
 * -stable on 2000-12-15, committed to -current on 2000-12-26 as "This implements a better
 * launder limiting solution...", [@fbsd-2b6b0df712]). Checked against FreeBSD's
 * sys/kern/vfs_bio.c right after the commit ([@fbsd-vfs_bio-2001]); nothing here is reconstructed.
 *
 * Once armed (bd_wakeup set bd_request), flush one (clustered) buffer at a time until
 * numdirtybuffers <= lodirtybuffers; after each, wait while more than hirunningspace bytes of
 * writes are in flight ("wdrain", until lorunningspace), and wake the writers blocked in
 * bwillwrite once the count is at or below the lo/hi midpoint, so they run in parallel with the
 * drain. Only at the low-water mark does it disarm and sleep a second ("psleep": real
 * hysteresis). If dirty buffers remain that it cannot take (all busy), it retries in half a
 * second ("qsleep") without disarming. No cap on flushes per wakeup: bytes in flight limit it.
 */
static void buf_daemon_runningbuf(void)
{
	const struct bd_design *me = &bd_designs[BD_RUNNINGBUF];

	/* LAB bufdaemon BEGIN */
	while (bd_current == me) {
		bdstats.runningbuf_loops++;
		while (numdirtybuffers > lodirtybuffers) {
			if (flushbufqueues(0, 0) == 0)
				break;
			waitrunningbufspace();
			bufq_lock();
			numdirtywakeup((lodirtybuffers + hidirtybuffers) / 2);
			bufq_unlock();
		}
		bd_round_end(&bdstats.runningbuf_drains);
	}
	/* LAB bufdaemon STUB */
	// /*
	//  * A naive daemon, so that the handout works (labs/bufdaemon/README.md): once asked, it
	//  * flushes down to lodirtybuffers as fast as it can. Nothing limits the bytes in flight,
	//  * and writers blocked in flswai wait for the whole drain.
	//  */
	// while (bd_current == me) {
	// 	bdstats.runningbuf_loops++;
	// 	while (numdirtybuffers > lodirtybuffers && flushbufqueues(0, 0) != 0)
	// 		;
	// 	bd_round_end(&bdstats.runningbuf_drains);
	// }
	/* LAB bufdaemon END */
}

/* The patch's async step: wait in "wdrain" for earlier writes (the disks do not matter). */
static void async_written_runningbuf(const struct rd_charge *rc)
{
	(void)rc;
	waitrunningbufspace();
}

/* The patch's bdirty and bdwrite: bd_wakeup at the lo/hi midpoint. */
static int dirtied_level_runningbuf(void)
{
	return (lodirtybuffers + hidirtybuffers) / 2;
}

/* The patch's bwillwrite ([@fbsd-vfs_bio-2001]): block at hidirtybuffers, kicking the daemon at once. */
static void bwillwrite_runningbuf(void)
{
	if (numdirtybuffers >= hidirtybuffers)
		bwillwrite_wait(BD_MAX(hidirtybuffers, 1) - 1, 1);
}

/* The patch's bundirty: numdirtywakeup(lodirtybuffers) (the daemon wakes at the midpoint). */
static int cleaned_level_runningbuf(void)
{
	return lodirtybuffers;
}

/* ============================ the next step: "perdevice" ================================= */

/* LAB perdevice BEGIN */
static bool perdevice_flushable(const struct rd_charge *rc);
static void perdevice_wait_drain(unsigned gen);

/*
 * buf_daemon_perdevice: the patch's pipelining with a write budget per disk - the step the
 * patch's author named next ("I am slowly making my way to per-(disk)-device I/O pipelining.
 * At the moment the pipelining is system-wide", [@dillon-post]). No FreeBSD ever had it; this
 * design is wdrain's, and each part says where it comes from:
 *   - From the patch [@fbsd-vfs_bio-2001], unchanged: when the daemon is armed and disarmed,
 *     its hysteresis between lodirtybuffers and hidirtybuffers, the writers woken at the
 *     midpoint, bdirty's and bwillwrite's levels (the table shares runningbuf's functions),
 *     and an async write that waits after it is issued, for earlier writes only.
 *   - From Linux 2.6.32's per-device flushers [@linux-per-bdi]: one disk's backlog must not
 *     hold up another's writeback. wdrain keeps one daemon; when the oldest dirty buffer is
 *     bound for a full disk, it flushes the oldest one bound for disks with room instead of
 *     sleeping, and sleeps only when every dirty buffer it could take is bound for a full disk.
 *   - From Linux 3.2's IO-less throttling [@linux-ioless] [@linux-page-writeback]: a
 *     device's write bandwidth measured from its completions (200 ms windows, a 3 s memory:
 *     vfs/rundev.h), and a writer held back in proportion to what its device can absorb.
 *   - From DragonFly [@dragonfly-vfs_bio]: fairness among the writers held back - its
 *     waitrunningbufspace blocks a newcomer while others wait; here each disk keeps a queue
 *     and lets its waiters go in the order they came - and its note that hirunningspace
 *     "needs to be per-mount".
 *   - wdrain's own: the budget of a disk is its measured completion rate times a target
 *     queueing delay, vfs.perdevice.target_ms (Little's law: the bytes a disk holds in flight
 *     are the time a newly queued synchronous read waits behind them, times its rate), at
 *     least one MAXPHYS cluster and at most perdevice_maxspace (the bytes the cluster headers
 *     can have in flight); the rate is measured over the disk's busy time; lo is half of hi.
 *     docs/bufcache.md "The perdevice design" derives the default delay.
 * A write is charged to the disks its pieces go to (vfs/rundev.h), so a writer to one disk
 * never waits for another disk's writes, and the global runningbufspace is their sum.
 *
 * The loop: once armed, flush until numdirtybuffers <= lodirtybuffers, each time the oldest
 * dirty buffer whose disks all have room (perdevice_flushable); never wait after a flush. If
 * every dirty buffer it could take is bound for a full disk, sleep ("wdrdev") until some disk
 * drains to its lo. Then disarm or retry as the patch does (bd_round_end).
 */
static void buf_daemon_perdevice(void)
{
	const struct bd_design *me = &bd_designs[BD_PERDEVICE];
	int blocked;

	while (bd_current == me) {
		bdstats.perdevice_loops++;
		while (numdirtybuffers > lodirtybuffers && bd_current == me) {
			unsigned gen = rundev_drains;

			if (flushbufqueues(perdevice_flushable, &blocked) != 0) {
				bufq_lock();
				numdirtywakeup((lodirtybuffers + hidirtybuffers) / 2);
				bufq_unlock();
				continue;
			}
			if (blocked == 0)
				break;
			perdevice_wait_drain(gen);
		}
		bd_round_end(&bdstats.perdevice_drains);
	}
}

/*
 * A disk's budget now: with vfs.perdevice.auto, its measured rate times the target delay,
 * between one cluster and perdevice_maxspace; without, the fixed value set for it.
 * The low-water mark is half of the high one, as the patch's lorunningspace. [lock held]
 */
int perdevice_hirunning(const struct rundev *rd)
{
	int64_t b = rd->rd_bandwidth * perdevice_target_ms / 1000;

	if (!perdevice_auto)
		return rd->rd_hirunning;
	return (int)BD_MAX(BD_MIN(b, (int64_t)perdevice_maxspace), (int64_t)PERDEVICE_MINSPACE);
}

int perdevice_lorunning(const struct rundev *rd)
{
	return perdevice_auto ? perdevice_hirunning(rd) / 2 : rd->rd_lorunning;
}

/* A disk is full when it holds more than its budget, or writers already wait for it. [lock] */
static bool perdevice_full(const struct rundev *rd)
{
	return rd->rd_running > perdevice_hirunning(rd) || rd->rd_nwait > 0;
}

/* May the daemon start a write to these disks? Only if none is full (skips counted). [lock] */
static bool perdevice_flushable(const struct rd_charge *rc)
{
	for (int i = 0; i < rc->rc_n; i++) {
		if (perdevice_full(rc->rc_dev[i].rd)) {
			rc->rc_dev[i].rd->rd_skips++;
			return false;
		}
	}
	return true;
}

/*
 * Every dirty buffer the daemon could take is bound for a full disk: sleep until some disk
 * drains to its lo - unless one already did since `gen` was read, before the scan (the
 * generation closes the window between the scan and the sleep). [no lock]
 */
static void perdevice_wait_drain(unsigned gen)
{
	uint64_t t0 = bd_nanouptime();

	bufq_lock();
	bdstats.perdevice_blocked++;
	if (rundev_drains == gen) {
		rundevreq = 1;
		bdstats.sleeps_wdrdev++;
		bufq_sleep(&rundevreq, "wdrdev", 0);
	}
	bdstats.wdrdev_ns += bd_nanouptime() - t0;
	bufq_unlock();
}

/*
 * waitrundevspace: the perdevice design's step after an async write. For each disk the write
 * was charged to that is full (over its budget, or others wait for it and go first), join its
 * queue and sleep "wdrdev" until rundevwakeup lets the queue go at the disk's lo. It waits
 * for earlier writes only, and only for these disks. The daemon's own flushes never wait here:
 * it chose a disk with room, and waiting for it would idle the others (it waits for a drain
 * only when every disk it could write to is full). [no lock]
 */
static void waitrundevspace(const struct rd_charge *rc)
{
	const struct bd_design *me = &bd_designs[BD_PERDEVICE];
	struct rd_waiter w;
	uint64_t t0, ns;

	if (bd_curthread_is_daemon())
		return;
	bufq_lock();
	for (int i = 0; i < rc->rc_n && bd_current == me; i++) {
		struct rundev *rd = rc->rc_dev[i].rd;

		if (!perdevice_full(rd))
			continue;
		t0 = bd_nanouptime();
		rundev_enqueue(rd, &w);
		rd->rd_sleeps++;
		bdstats.sleeps_wdrdev++;
		while (!w.rw_released)
			bufq_sleep(&w, "wdrdev", 0);
		ns = bd_nanouptime() - t0;
		rd->rd_wait_ns += ns;
		bdstats.wdrdev_ns += ns;
	}
	bufq_unlock();
}

/* Let every writer waiting for a disk's budget, and the daemon, go (the rules changed). [lock] */
void perdevice_release_all(void)
{
	struct rd_waiter *w;

	for (struct rundev *rd = rundev_first(); rd != 0; rd = rd->rd_next) {
		while ((w = rundev_dequeue(rd)) != 0) {
			w->rw_released = true;
			bufq_wakeup(w);
		}
	}
	rundevreq = 0;
	bufq_wakeup(&rundevreq);
}
/* LAB perdevice STUB labs/perdevice/stubs/buf_daemon_perdevice.c */
/* LAB perdevice END */

/* ========================= out of the way of synchronous I/O: "syncfirst" ================== */

static bool syncfirst_flushable(const struct rd_charge *rc);
static void bd_flush_budgeted(const struct bd_design *me, bool (*ok)(const struct rd_charge *),
                              uint64_t *blocked);

/*
 * buf_daemon_syncfirst: perdevice's per-disk budgets, with each disk's queue kept deep where a
 * synchronous request can pass it and short where it cannot. A process that waits for a block
 * (a read it needs, a new indirect block written synchronously, fsync's writes and its cache
 * flush) waits behind whatever its drive holds; a drive without a write cache streams only with
 * writes queued. So the writes in flight wait in the host's queue, behind whatever someone
 * waits for, and the drive gets few enough of them that a waited-for request is next soon.
 * Each rule says where it comes from:
 *   - perdevice's, unchanged (above; [@dillon-post] named the step): every write charged to the
 *     disks it goes to, each disk's budget of bytes in flight (its measured rate times
 *     vfs.perdevice.target_ms: perdevice_hirunning), a writer's wait after an async write for
 *     the full disks it went to ("wdrdev", oldest first), the daemon that flushes the oldest
 *     dirty buffer bound for disks with room; and the patch's arming, hysteresis and levels
 *     [@fbsd-vfs_bio-2001] (the table shares runningbuf's functions).
 *   - The deadline schedulers' [@linux-deadline]: requests a process waits for go to the device
 *     ahead of asynchronous writes - the disk queue's synchronous class (dev/bio_queue.h), in
 *     front of FreeBSD 4's elevator, which keeps ordering the writes.
 *   - Kyber's [@linux-kyber]: a limit on the asynchronous requests at the device, moved by the
 *     latency of the synchronous ones against a target (vfs.syncfirst.target_ms): each disk's
 *     depth, rd_depth, the most asynchronous writes its drive may hold; raised by one while the
 *     latency is well within the target.
 *   - Linux's writeback throttling [@linux-blk-wbt]: the latency judged per 100 ms window by
 *     its least synchronous latency, a lone request outstanding for a whole window counting by
 *     itself; over the target the depth is halved; after windows without news it doubles,
 *     back up to the deep queue (vfs.syncfirst.maxdepth); writes someone waits for (fsync's)
 *     are not held back by the budget.
 *   - wdrain's own: while a synchronous request is at a disk's device, only one asynchronous
 *     request at a time is handed to it (the class's hold): a drive orders its tagged queue by
 *     position (the disk model's SPTF, docs/diskmodel.md) and serves the sequential writes
 *     beside its head before a request elsewhere, up to its age limit (250 ms in the model), so
 *     writes refilled as they complete would pass the waiting request again and again. The
 *     floor of the depth (vfs.syncfirst.mindepth), its ceiling, the two requests a window needs
 *     and the default target are wdrain's too (docs/bufcache.md "The syncfirst design" says
 *     why).
 * The daemon's loop is perdevice's: once armed, flush until numdirtybuffers <= lodirtybuffers,
 * each time the oldest dirty buffer whose disks all have room; if every one it could take is
 * bound for a full disk, sleep ("wdrdev") until some disk drains to its lo; then disarm or retry
 * as the patch does.
 */
static void buf_daemon_syncfirst(void)
{
	const struct bd_design *me = &bd_designs[BD_SYNCFIRST];

	while (bd_current == me) {
		bdstats.syncfirst_loops++;
		bd_flush_budgeted(me, syncfirst_flushable, &bdstats.syncfirst_blocked);
		bd_round_end(&bdstats.syncfirst_drains);
	}
}

/*
 * The queue rule, at each write or synchronous request completed at rd: once a window of
 * SYNCFIRST_WINDOW_NS has passed, judge it, as Linux's writeback throttling does [@linux-blk-wbt]:
 *   - at least SYNCFIRST_MINSYNC synchronous requests, and even the least latency among them
 *     over the target; or a single one that took longer than the window itself (wbt counts a
 *     synchronous request outstanding for a whole window as a violation): halve the depth, not
 *     below mindepth;
 *   - enough, and the least within half the target: one more (Kyber raises a depth by one while
 *     the latencies are good [@linux-kyber]), not above maxdepth;
 *   - fewer than SYNCFIRST_MINSYNC, none too long (writes alone, or the writer's own rare
 *     synchronous request): no news; after SYNCFIRST_QUIET such windows in a row (wbt waits
 *     RWB_UNKNOWN_BUMP windows without news before it moves back) double it, not above maxdepth;
 *   - otherwise (enough, within the target but not half of it) keep it. [lock held]
 */
static void syncfirst_disk_event(struct rundev *rd, uint64_t now)
{
	uint64_t least, target = (uint64_t)syncfirst_target_ms * 1000000;
	int n, depth = rd->rd_depth;
	bool over;

	if (now - rd->rd_swin_start < SYNCFIRST_WINDOW_NS)
		return;
	n = rundev_sync_window(rd, now, &least);
	over = (n >= SYNCFIRST_MINSYNC && least > target) || (n == 1 && least > SYNCFIRST_WINDOW_NS);
	rd->rd_swin_quiet = n < SYNCFIRST_MINSYNC && !over ? rd->rd_swin_quiet + 1 : 0;
	if (over)
		depth = BD_MAX(depth / 2, syncfirst_mindepth);
	else if (n >= SYNCFIRST_MINSYNC && least <= target / 2)
		depth = BD_MIN(depth + 1, syncfirst_maxdepth);
	else if (rd->rd_swin_quiet >= SYNCFIRST_QUIET)
		depth = BD_MIN(depth * 2, syncfirst_maxdepth);
	if (depth == rd->rd_depth)
		return;
	if (depth < rd->rd_depth)
		rd->rd_cuts++;
	else
		rd->rd_raises++;
	rd->rd_depth = depth;
	bd_disk_queue(rd, true, depth);
}

/*
 * The budget's rules are perdevice's, and so is their code below (perdevice's section is
 * handed out as a stub, so syncfirst cannot call its static functions); the budgeted daemon and
 * the writer's wait, shared with wanted, are a region of lab perdevice too, whose stub is the
 * patch's global wait: a handout carries no complete per-disk design to call instead.
 * A disk is full when it holds more than perdevice's budget, or writers wait for it. [lock]
 */
static bool syncfirst_full(const struct rundev *rd)
{
	return rd->rd_running > perdevice_hirunning(rd) || rd->rd_nwait > 0;
}

/* The daemon may start a write to these disks only if none is full (skips counted). [lock] */
static bool syncfirst_flushable(const struct rd_charge *rc)
{
	for (int i = 0; i < rc->rc_n; i++) {
		if (syncfirst_full(rc->rc_dev[i].rd)) {
			rc->rc_dev[i].rd->rd_skips++;
			return false;
		}
	}
	return true;
}

/* LAB perdevice BEGIN */
/* Every dirty buffer the daemon could take is bound for a full disk: sleep until one drains to
 * its lo, unless one did since `gen` was read (counted in *blocked). [no lock] */
static void bd_wait_drain(unsigned gen, uint64_t *blocked)
{
	uint64_t t0 = bd_nanouptime();

	bufq_lock();
	(*blocked)++;
	if (rundev_drains == gen) {
		rundevreq = 1;
		bdstats.sleeps_wdrdev++;
		bufq_sleep(&rundevreq, "wdrdev", 0);
	}
	bdstats.wdrdev_ns += bd_nanouptime() - t0;
	bufq_unlock();
}

/*
 * The budgeted daemon's flushing, syncfirst's and wanted's: flush until numdirtybuffers <=
 * lodirtybuffers, each time the oldest dirty buffer whose disks ok() accepts; if every one it
 * could take is bound for a full disk, sleep ("wdrdev") until some disk drains to its lo.
 */
static void bd_flush_budgeted(const struct bd_design *me, bool (*ok)(const struct rd_charge *),
                              uint64_t *blocked)
{
	int nblocked;

	while (numdirtybuffers > lodirtybuffers && bd_current == me) {
		unsigned gen = rundev_drains;

		if (flushbufqueues(ok, &nblocked) == 0) {
			if (nblocked == 0)
				break;
			bd_wait_drain(gen, blocked);
			continue;
		}
		bufq_lock();
		numdirtywakeup((lodirtybuffers + hidirtybuffers) / 2);
		bufq_unlock();
	}
}

/*
 * A writer's wait after its async write, syncfirst's and wanted's: for each disk it was
 * charged to that full() finds full, wait in that disk's queue ("wdrdev") until rundevwakeup
 * (or the design) lets the queue go. [no lock]
 */
static void bd_wait_full(const struct rd_charge *rc, const struct bd_design *me,
                         bool (*full)(const struct rundev *))
{
	struct rd_waiter w;
	uint64_t t0, ns;

	bufq_lock();
	for (int i = 0; i < rc->rc_n && bd_current == me; i++) {
		struct rundev *rd = rc->rc_dev[i].rd;

		if (!full(rd))
			continue;
		t0 = bd_nanouptime();
		rundev_enqueue(rd, &w);
		rd->rd_sleeps++;
		bdstats.sleeps_wdrdev++;
		while (!w.rw_released)
			bufq_sleep(&w, "wdrdev", 0);
		ns = bd_nanouptime() - t0;
		rd->rd_wait_ns += ns;
		bdstats.wdrdev_ns += ns;
	}
	bufq_unlock();
}
/* LAB perdevice STUB */
// /* The patch's flushing, whatever disks the buffers are bound for (the budgets are lab
// * perdevice's: a handout's syncfirst and wanted keep only their queue rules). */
// static void bd_flush_budgeted(const struct bd_design *me, bool (*ok)(const struct rd_charge *),
//                               uint64_t *blocked)
// {
// 	while (numdirtybuffers > lodirtybuffers && bd_current == me && flushbufqueues(0, 0) != 0)
// 		waitrunningbufspace();
// }
//
// /* After an async write: the patch's global wait, whatever disks the write went to. */
// static void bd_wait_full(const struct rd_charge *rc, const struct bd_design *me,
//                          bool (*full)(const struct rundev *))
// {
// 	waitrunningbufspace();
// }
/* LAB perdevice END */

/*
 * After an async write (not the daemon's, nor one someone waits for: fsync's writes are
 * synchronous in all but name, and Linux's writeback throttling lets such writes, REQ_SYNC,
 * use its whole depth [@linux-blk-wbt]): wait for each full disk it went to. [no lock]
 */
static void async_written_syncfirst(const struct rd_charge *rc)
{
	if (bd_curthread_is_daemon() || rc->rc_waited)
		return;
	bd_wait_full(rc, &bd_designs[BD_SYNCFIRST], syncfirst_full);
}

/* ============================ driven by who is waiting: "wanted" ========================== */

static bool wanted_flushable(const struct rd_charge *rc);

/*
 * buf_daemon_wanted: syncfirst's queues and perdevice's budgets, moved by who waits instead of
 * by a latency window. syncfirst judged the least synchronous latency of 100 ms windows, and an
 * fsync is several dependent requests (its data, the inode, an indirect block, the cache
 * flush), one of them short: the window seldom looked bad, and each request of the fsync found
 * the drive full of writes again. Here the whole wait is one event. The contract, per disk:
 *   - a disk is WANTED from the moment a process starts waiting for I/O on it (bd_wait_begin:
 *     biowait, disk_io_sync - reads it needs, page-ins, synchronous metadata writes, the cache
 *     flush - and every write of an fsync, the fsync being one wait from its start to its end)
 *     until the last such wait on it ends (bd_wait_end), and vfs.wanted.linger_ms after the end
 *     of each wait of a process that is not writing (no async write of its own within the
 *     linger before its wait began): a process whose waits follow closely (a stat, a read, an
 *     fsync) keeps the drive short between them, while the writer's own waits (a new indirect
 *     block) do not; the disk is let go at the first request completed or write issued after
 *     the linger;
 *   - while wanted, the drive is handed at most vfs.wanted.depth asynchronous writes (and one at
 *     a time while a synchronous request is at it: the class's hold, syncfirst's), so the writes
 *     already there drain and each next request of the wait finds at most that few ahead of it;
 *   - while no one waits, the drive gets every opening at once (the depth stable42's and
 *     perdevice's queues give it);
 *   - a disk's budget of bytes in flight (perdevice's) binds only while it is cut, and only
 *     with vfs.wanted.budget 1 (by default 0: never, the depth alone holds the drive short,
 *     docs/bufcache.md says why): a writer alone never waits "wdrdev", and the daemon flushes
 *     to it as freely as stable42's; when the cut ends, the writers waiting for its budget go;
 *   - fsync's own writes never wait for a budget (syncfirst's rule).
 * Where each rule comes from:
 *   - the synchronous class, the hold and the budgeted daemon are syncfirst's and perdevice's
 *     (above; [@linux-deadline], [@linux-kyber], [@dillon-post]);
 *   - a limit on asynchronous writes at the device that depends on whether other I/O is going
 *     on, and no limit for the writes someone waits for: Linux's writeback throttling
 *     [@linux-blk-wbt] (get_limit: writes marked REQ_SYNC or REQ_META get the whole depth,
 *     background writes half of it while close_io() saw other I/O issued or completed in the
 *     last 100 ms, the normal depth otherwise; REQ_SYNC|REQ_IDLE writes, O_DIRECT's, are not
 *     throttled at all; wb_recent_wait gives the whole depth for a second after a writer was
 *     throttled in balance_dirty_pages, so that a writer that itself waits is not slowed);
 *   - holding the device for a process between its dependent synchronous requests, and for the
 *     linger after them: BFQ's (and before it CFQ's) slice_idle, idling a synchronous queue
 *     that has just become empty for its next request, and BFQ's strict_guarantees, one request
 *     at the device at a time because drives reorder what they hold [@linux-bfq]; the linger's
 *     default, 100 ms, is wbt's close_io() window [@linux-blk-wbt];
 *   - the writer's own waits not lingering: wbt's wb_recent_wait(), the whole depth for a writer
 *     that was itself throttled in the last second [@linux-blk-wbt];
 *   - wdrain's own: the trigger is the wait of a process (bio_queue's BIO_SYNC marks the
 *     requests; here the wait spans them), not a request or a recent latency; one wait per
 *     fsync; the small depth rather than none (a drive without a write cache streams poorly
 *     from an empty queue once the wait ends); the budget bound to the cut (and off by default);
 *     and the disks of a stripe judged one by one (a wait reaches only the components its
 *     requests map to).
 * No latency target is kept (docs/bufcache.md "The wanted design" says what that leaves out:
 * a process asleep on a buffer whose write was already issued, in getblk, is not a wait here).
 */
static void buf_daemon_wanted(void)
{
	const struct bd_design *me = &bd_designs[BD_WANTED];

	while (bd_current == me) {
		bdstats.wanted_loops++;
		bd_flush_budgeted(me, wanted_flushable, &bdstats.wanted_blocked);
		bd_round_end(&bdstats.wanted_drains);
	}
}

/* Is rd wanted now? While a process waits on it, or a linger after a wait is running. */
static bool wanted_now(const struct rundev *rd, uint64_t now)
{
	return rd->rd_wanted > 0 || now < rd->rd_linger_until;
}

/* The depth of rd's drive: the small one while it is cut, every opening otherwise. */
static int wanted_depth_of(const struct rundev *rd)
{
	return rd->rd_cut ? wanted_depth : WANTED_ALLOPENINGS;
}

/*
 * rd's waiters changed, or a request completed there: cut or let go as wanted_now() says. Its
 * queue takes the new depth; once let go, the writers waiting for its budget go and the daemon,
 * if it waits for a drain, looks again. [lock]
 */
static void wanted_update(struct rundev *rd, uint64_t now)
{
	int cut = wanted_now(rd, now);

	if (cut == rd->rd_cut)
		return;
	rd->rd_cut = cut;
	bd_disk_requeue(rd);
	if (cut) {
		rd->rd_wcuts++;
		return;
	}
	rundev_release(rd);
	if (rundevreq) {
		rundevreq = 0;
		bufq_wakeup(&rundevreq);
	}
}

/*
 * w's wait began or ended on rd. An ended wait of a process that is not writing (no async write
 * of its own within the linger before its wait began) keeps rd cut for vfs.wanted.linger_ms
 * more: a process whose waits follow closely (a stat, a read, an fsync) keeps the drive short
 * between them, while the writer's own waits (a new indirect block) do not. [lock]
 */
static void wanted_changed(struct rundev *rd, const struct rd_wait *w, bool ended)
{
	uint64_t now = bd_nanouptime(), linger = (uint64_t)wanted_linger_ms * 1000000;

	if (ended && w->wt_wrote + linger <= w->wt_began)
		rd->rd_linger_until = BD_MAX(rd->rd_linger_until, now + linger);
	wanted_update(rd, now);
}

/*
 * A disk is full only while it is cut and vfs.wanted.budget is 1, and then as perdevice's
 * budget says (with 0 no budget binds: the depth alone holds the drive short). [lock]
 */
static bool wanted_full(const struct rundev *rd)
{
	return rd->rd_cut && wanted_budget &&
	       (rd->rd_running > perdevice_hirunning(rd) || rd->rd_nwait > 0);
}

/*
 * The daemon may start a write to these disks only if none is full (skips counted); a linger
 * that ended with no completion since lets its disk go first. [lock]
 */
static bool wanted_flushable(const struct rd_charge *rc)
{
	uint64_t now = bd_nanouptime();

	for (int i = 0; i < rc->rc_n; i++) {
		wanted_update(rc->rc_dev[i].rd, now);
		if (wanted_full(rc->rc_dev[i].rd)) {
			rc->rc_dev[i].rd->rd_skips++;
			return false;
		}
	}
	return true;
}

/* After an async write (not the daemon's, nor fsync's): wait for each full disk. [no lock] */
static void async_written_wanted(const struct rd_charge *rc)
{
	uint64_t now = bd_nanouptime();

	bufq_lock();
	for (int i = 0; i < rc->rc_n; i++)     /* a linger may have ended with no completion since */
		wanted_update(rc->rc_dev[i].rd, now);
	bufq_unlock();
	if (bd_curthread_is_daemon() || rc->rc_waited)
		return;
	bd_wait_full(rc, &bd_designs[BD_WANTED], wanted_full);
}

/* ================================= the designs and the switch ============================= */

static const struct bd_design bd_designs[BD_NDESIGNS] = {
	[BD_SPEEDUP]    = { "speedup", buf_daemon_speedup, dirtied_level_speedup, bwillwrite_speedup, 0,
	                    cleaned_level_speedup },
	[BD_RUNNINGBUF] = { "runningbuf", buf_daemon_runningbuf, dirtied_level_runningbuf,
	                    bwillwrite_runningbuf, async_written_runningbuf, cleaned_level_runningbuf },
	[BD_PERDEVICE]  = { "perdevice", buf_daemon_perdevice, dirtied_level_runningbuf,
	                    bwillwrite_runningbuf, waitrundevspace, cleaned_level_runningbuf },
	[BD_SYNCFIRST]  = { "syncfirst", buf_daemon_syncfirst, dirtied_level_runningbuf,
	                    bwillwrite_runningbuf, async_written_syncfirst, cleaned_level_runningbuf,
	                    syncfirst_disk_event, true },
	[BD_WANTED]     = { "wanted", buf_daemon_wanted, dirtied_level_runningbuf,
	                    bwillwrite_runningbuf, async_written_wanted, cleaned_level_runningbuf,
	                    wanted_update, true, wanted_depth_of, wanted_changed },
};

static bool same_name(const char *a, const char *b)
{
	while (*a != 0 && *a == *b)
		a++, b++;
	return *a == *b;
}

/*
 * bd_set_design: make `name` the current design. The daemon is woken so it leaves the old
 * loop, every writer waiting in flswai, wdrain or wdrdev re-tests under the new rules, and every
 * disk's queue takes the new design's discipline (syncfirst's starts at the deep queue).
 */
bool bd_set_design(const char *name)
{
	for (int i = 0; i < BD_NDESIGNS; i++) {
		if (!same_name(name, bd_designs[i].name))
			continue;
		bufq_lock();
		if (bd_current != &bd_designs[i]) {
			bd_current = &bd_designs[i];
			bdstats.design_switches++;
			bufq_wakeup(&bd_request);
			needsdirtyflush = 0;
			bufq_wakeup(&needsdirtyflush);
			runningbufreq = 0;
			bufq_wakeup(&runningbufreq);
			perdevice_release_all();
			for (struct rundev *rd = rundev_first(); rd != 0; rd = rd->rd_next) {
				rundev_release(rd);       /* syncfirst's waiters too, whatever the
				                             perdevice lab's perdevice_release_all does */
				rd->rd_depth = syncfirst_maxdepth;
				rd->rd_cut = 0;
				rd->rd_linger_until = 0;
				bd_disk_requeue(rd);
			}
		}
		bufq_unlock();
		return true;
	}
	return false;
}

const char *bd_design_name(void)
{
	return bd_current->name;
}

/* buf_daemon: the "bufdaemon" thread. Runs the current design until it changes, for ever. */
void buf_daemon(void)
{
	for (;;)
		bd_current->daemon();
}
