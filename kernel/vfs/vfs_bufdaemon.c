/*
 * vfs_bufdaemon.c - the buf_daemon, FreeBSD's buffer flushing thread, in the two designs of
 * the December 2000 experiment (interface: vfs/bufdaemon.h; docs/bufcache.md).
 *
 * The daemon writes delayed-write (B_DELWRI) buffers so that writers do not run the cache out
 * of clean buffers. A design is the five decisions below, and nothing else differs:
 *   - the daemon's loop: when to flush, how much, and how long to sleep;
 *   - the dirty count at which a buffer being dirtied asks the daemon in (bdirty's bd_wakeup);
 *   - bwillwrite: when write(2) blocks its caller ("flswai");
 *   - what an async write does after it is issued: return (speedup), or wait while more than
 *     hirunningspace bytes are in flight ("wdrain", runningbuf);
 *   - the dirty count at which buffers being cleaned wake the blocked writers.
 * The shared helpers come first, then buf_daemon_speedup() and its four small companions,
 * then buf_daemon_runningbuf() and its, then the table and the switch. A student diffs the two
 * design sections to see the whole difference.
 *
 * Switching (sysctl vfs.bufdaemon_design): the new design's functions are used from the next
 * call on; the daemon finishes its current loop iteration and starts the new design's loop
 * (fresh state: bd_flushto and friends are reset); writers waiting under the old rules are
 * woken to test the new ones.
 *
 * Pure C (bufdaemon.h): the host test tests/unit/test_bufdaemon.c compiles this file with a
 * simulated buffer cache and disk, and checks each design's promises with synthetic counters.
 *
 * Locking: the counters and flags below (bd_request, runningbufreq, needsdirtyflush) are
 * protected by bufcache_lock (bufq_lock). The daemon reads numdirtybuffers without it, as
 * FreeBSD's does: a stale value only shifts a decision by one loop. The speedup state
 * (bd_flushto, bd_flushinc, bd_interval) and the daemon's own counters are the daemon's.
 */
#include "vfs/bufdaemon.h"

struct bd_stats bdstats;
int bd_request;              /* the daemon has been asked to run (sleeps on &bd_request) */
int bd_flushto;              /* speedup: flush while numdirtybuffers is above this */
int bd_flushinc;             /* speedup: how fast bd_flushto climbs back after timeouts */
int bd_interval;             /* speedup: ticks to sleep between flushing rounds */
static int runningbufreq;    /* someone waits in waitrunningbufspace ("wdrain") */
static int needsdirtyflush;  /* someone waits in bwillwrite ("flswai") */

struct bd_design {
	const char *name;
	void (*daemon)(void);            /* runs until the design changes */
	int  (*dirtied_level)(void);     /* bdirty wakes the daemon once numdirty >= this */
	void (*willwrite)(void);         /* bwillwrite */
	void (*async_written)(void);     /* after an async write is issued; 0 = return at once */
	int  (*cleaned_level)(void);     /* bundirty wakes writers once numdirty <= this */
};

enum { BD_SPEEDUP, BD_RUNNINGBUF, BD_NDESIGNS };
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
 * FreeBSD's flushbufqueues body, vfs_bio_awrite). 1 if it found one, 0 if nothing was flushable.
 */
static int flushbufqueues(void)
{
	int nbufs;
	long bytes = buf_flush_oldest(&nbufs);

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
void bd_async_write_issued(void)
{
	const struct bd_design *d = bd_current;

	if (d->async_written != 0)
		d->async_written();
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
			if (flushbufqueues() == 0)
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
			if (flushbufqueues() == 0)
				break;
			waitrunningbufspace();
			bufq_lock();
			numdirtywakeup((lodirtybuffers + hidirtybuffers) / 2);
			bufq_unlock();
		}
		bufq_lock();
		if (numdirtybuffers <= lodirtybuffers) {
			bd_request = 0;
			bdstats.runningbuf_drains++;
			bd_sleep("psleep", bd_hz, &bdstats.sleeps_psleep);
		} else {
			bd_sleep("qsleep", bd_hz / 2, &bdstats.sleeps_qsleep);
		}
		bufq_unlock();
	}
	/* LAB bufdaemon STUB */
	// /*
	//  * A naive daemon, so that the handout works (labs/bufdaemon/README.md): once asked, it
	//  * flushes down to lodirtybuffers as fast as it can and sleeps a second. Nothing limits
	//  * the bytes in flight, and writers blocked in flswai wait for the drain to end.
	//  */
	// while (bd_current == me) {
	// 	bdstats.runningbuf_loops++;
	// 	while (numdirtybuffers > lodirtybuffers && flushbufqueues() != 0)
	// 		;
	// 	bufq_lock();
	// 	bd_request = 0;
	// 	bd_sleep("psleep", bd_hz, &bdstats.sleeps_psleep);
	// 	bufq_unlock();
	// }
	/* LAB bufdaemon END */
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

/* ================================= the designs and the switch ============================= */

static const struct bd_design bd_designs[BD_NDESIGNS] = {
	[BD_SPEEDUP]    = { "speedup", buf_daemon_speedup, dirtied_level_speedup, bwillwrite_speedup, 0,
	                    cleaned_level_speedup },
	[BD_RUNNINGBUF] = { "runningbuf", buf_daemon_runningbuf, dirtied_level_runningbuf,
	                    bwillwrite_runningbuf, waitrunningbufspace, cleaned_level_runningbuf },
};

static bool same_name(const char *a, const char *b)
{
	while (*a != 0 && *a == *b)
		a++, b++;
	return *a == *b;
}

/*
 * bd_set_design: make `name` the current design. The daemon is woken so it leaves the old
 * loop, and every writer waiting in flswai or wdrain re-tests under the new rules.
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
