/*
 * bufdaemon_sim.h - a discrete-event simulation of the buffer cache and its disks around the
 * buf_daemon's designs (kernel/vfs/vfs_rundev.c compiled in, vfs_bufdaemon.c, a lab's file,
 * linked as an object of its own: tests/tests.mk), for the
 * host tests test_bufdaemon.c (speedup, runningbuf), test_perdevice.c (perdevice) and
 * test_syncfirst.c (syncfirst).
 *
 * Threads are coroutines on a simulated clock in ticks (100 per second): the daemon, a dirtier
 * (write(2) into the cache: bwillwrite, then buffers dirtied) and streamers (cluster_write's
 * write-behind: 128 KB async writes issued at once, each followed by the design's async step).
 * Each sleep of vfs_bufdaemon.c is a switch to the scheduler, which runs whoever was woken, or
 * moves the clock to the next timeout or I/O completion. Disks complete their writes in order,
 * each at its own rate in bytes per tick, and credit them as biodone does (runningbufwakeup,
 * rundevwakeup). Dirty buffers are a FIFO of the disks they are bound for (or of STRIPE, a ccd
 * over both disks, whose writes are charged half to each); a flush takes up to flush_bufs
 * buffers of one disk (a cluster), the oldest first, or with the design's ok() the oldest whose
 * disks it accepts.
 *
 * Synchronous requests (syncers: a process that writes a block and waits for it, as a new
 * indirect block or fsync's writes) cost a disk sync_cost ticks of positioning. Each disk's queue
 * follows what the design asks (bd_disk_queue): without the synchronous class, every request
 * goes to the drive at once and is served in order, so a synchronous one waits for every write
 * in flight; with it, at most `depth` asynchronous writes are at the drive and the rest wait in
 * the host queue, a synchronous request goes to the drive at once, and only one asynchronous
 * write at a time is while it is there (the kernel's dev/bio_queue.h rules; the drive here
 * serves in order, so that one is behind it). Its latency goes to the design as the block
 * layer's watcher hands it (bd_sync_done).
 *
 * A test sets the scene with sim_reset() and dev_setup(), spawns threads, and run_until()s;
 * what happened is in the counters below.
 */
#include "unit.h"
#include <ucontext.h>
#include <stdlib.h>
#include "vfs/vfs_rundev.c"
#include "vfs/bufdaemon.h"

/* vfs_bufdaemon.c's sleep channels, which the scheduler below tells apart (not in its header:
 * nothing else in the kernel sleeps on them). */
extern int runningbufreq, needsdirtyflush, rundevreq;

/* The buffer cache's counters and tunables (vfs_bio.c and vfs_bio_rundev.c in the kernel). */
int numdirtybuffers, hidirtybuffers, lodirtybuffers, runningbufspace, hirunningspace,
    lorunningspace, maxbdrun;
int bd_hz = 100;
int perdevice_auto = 1, perdevice_target_ms = 50, perdevice_maxspace = 4 * 1024 * 1024;
int syncfirst_target_ms = 20, syncfirst_maxdepth = 16, syncfirst_mindepth = 2;
int wanted_depth = 2, wanted_linger_ms = 100, wanted_budget = 1;

#define BUFSZ      8192
#define CLUSTER    (16 * BUFSZ)
#define NTHREADS   8
#define STACKSZ    (256 * 1024)
#define MAXIO      8192
#define NDEVS      2
#define STRIPE     NDEVS             /* a dirty buffer's "disk": a stripe over disks 0 and 1 */
#define MAXDIRTY   4096
#define TICK_NS    10000000ull
#define OPENINGS   32                /* with the class, the most requests a drive takes (a depth
                                        above it is clamped, as disk_set_depth does) */

enum { T_DAEMON, T_WRITER };

/* ---- threads -------------------------------------------------------------------------------- */

struct sim_thread {
	ucontext_t  ctx;
	char       *stack;
	bool        sleeping;
	void       *chan;
	const char *wmesg;
	long        deadline;      /* tick its sleep times out at; 0 = never */
	bool        woken;
	int         wdrdev_dev;    /* the disk it last waited for in wdrdev (-1: none) */
	bool        in_wdrain;     /* it slept in wdrain since its last write was issued */
	long        wdrdev_sleeps[NDEVS];
	/* a streamer's */
	int         s_dev, s_burst, s_think;
	long        s_stop, s_issued, s_overtakes, s_cut_in;
	bool        s_waited;      /* its writes are fsync's (rc_waited) */
	/* a syncer's */
	bool        y_done;        /* its request completed */
	long        y_n, y_max, y_sum;   /* requests, the longest and total latency (ticks) */
	int         y_chain;       /* dependent requests per wait (an fsync's: data, inode, flush) */
	bool        y_waits;       /* it tells the design of its waits (bd_wait_begin/end) */
	bool        y_writer;      /* before each wait it issues an async write of its own */
	int         y_ahead_first; /* most async writes at the drive a wait's first request found */
	int         y_ahead_next;  /* ... and any later request of the same wait */
	struct rd_wait wait;       /* its wait record (bd_curwait) */
};

static struct sim_thread th[NTHREADS];
static int nthreads, cur = -1;
static ucontext_t sched_ctx;
static long now;                     /* ticks */
static int lock_depth;

/* ---- disks ---------------------------------------------------------------------------------- */

struct simio {
	long             done_at;      /* at the drive: when it completes */
	long             issued;       /* when it was issued */
	int              bytes;        /* 0: a synchronous request */
	int              waiter;       /* a synchronous request's thread */
	struct rd_charge rc;
};

struct simdev {
	struct simio  ios[MAXIO];    /* at the drive, served in order */
	int           head, tail;
	struct simio  hostq[MAXIO];  /* async writes waiting for the drive (the synchronous class) */
	int           qhead, qtail;
	bool          syncfirst;     /* the queue has the synchronous class (bd_disk_queue) */
	int           depth;         /* ... and the most async writes at the drive */
	int           sync_active;   /* synchronous requests at the drive */
	int           max_async;     /* most async writes at the drive at once with the class */
	long          busy_until;    /* tick the last write issued completes */
	int           rate;          /* bytes per tick */
	struct rundev rd;
	int           ndirty;        /* dirty buffers bound for it */
	int           max_running;   /* highest rd_running right after a write was issued */
	long          done_bytes;
	long          idle_dirty;    /* ticks idle while it had dirty buffers and the daemon was armed */
	long          flushes_while_other_full;   /* daemon flushes to it while the other disk was full */
	long          flushes;
};

static struct simdev devs[NDEVS];
static int ndevs;
static int sync_cost = 1;            /* ticks a synchronous request costs the drive */
static int dirtyq[MAXDIRTY];         /* the dirty buffers' disks, oldest first */
static bool writer_stripe;           /* the dirtier dirties a stripe over disks 0 and 1 */

/* The scenario's knobs. */
static int flush_bufs;               /* buffers per flush (a cluster) */
static long pinned_until;            /* before this tick no dirty buffer may be taken (as
                                        flushbufqueues skips buffers it cannot lock): a flush
                                        finds nothing */
static int writer_bufs;              /* buffers the dirtier dirties per tick */
static long writer_stop;             /* the dirtier stops at this tick */
static long writer_switch;           /* from this tick on it dirties for disk 1, before for disk 0 */

/* What the checks look at. */
static int max_running;              /* highest runningbufspace right after a write was issued */
static int flushes_now, max_flushes_per_round;
static int disarmed_above_lo;        /* daemon sleeps with bd_request 0 and numdirty > lo */
static int wdrain_leaves, wdrain_left_above_hi;    /* a streamer's async step after it slept in
                                        wdrain: all of them, and those that left above hi */
static int daemon_sleeps;
static int flswai_wakes, flswai_wakes_above_mid, flswai_wakes_above_lo;
static int drain_sleeps, drain_sleeps_with_room;   /* perdevice daemon: waits for a drain, and
                                                      those taken while a disk with dirty buffers had room */
static int wdrdev_enqueued[4096], wdrdev_released[4096];   /* thread ids, in order */
static int nenqueued, nreleased;
struct round { bool early; int flushto, interval; uint64_t loops; };
static struct round rounds[4096];
static int nrounds;
static int writer_chan;

void bufq_lock(void)
{
	if (lock_depth != 0)
		fail("lock_not_recursive", "bufq_lock without the lock held", "held");
	lock_depth = 1;
}

void bufq_unlock(void)
{
	lock_depth = 0;
}

void bufq_wakeup(void *chan)
{
	if (lock_depth != 1)
		fail("wakeup_under_lock", "bufq_wakeup with the lock held", "not held");
	for (int i = 0; i < nthreads; i++)
		if (th[i].sleeping && th[i].chan == chan) {
			th[i].sleeping = false;
			th[i].woken = true;
			if (strcmp(th[i].wmesg, "wdrdev") == 0 && chan != &rundevreq && nreleased < 4096)
				wdrdev_released[nreleased++] = i;
		}
}

uint64_t bd_nanouptime(void)
{
	return (uint64_t)now * TICK_NS;
}

bool bd_curthread_is_daemon(void)
{
	return cur == T_DAEMON;
}

/* A thread's wait record (the daemon, a kernel thread, has none). */
struct rd_wait *bd_curwait(void)
{
	return cur >= 0 && cur != T_DAEMON ? &th[cur].wait : NULL;
}

/* What the daemon's sleeps on &bd_request tell: its round just ended. */
static void note_daemon_sleep(void)
{
	daemon_sleeps++;
	if (bd_request == 0 && numdirtybuffers > lodirtybuffers)
		disarmed_above_lo++;
	if (flushes_now > max_flushes_per_round)
		max_flushes_per_round = flushes_now;
	flushes_now = 0;
	if (nrounds < (int)(sizeof(rounds) / sizeof(rounds[0])))
		rounds[nrounds++] = (struct round){ false, bd_flushto, bd_interval, bdstats.speedup_loops };
}

/* The disk a waiter record belongs to: the queue it is on. */
static int waiter_dev(void *chan)
{
	for (int d = 0; d < ndevs; d++)
		for (struct rd_waiter *w = devs[d].rd.rd_whead; w != NULL; w = w->rw_next)
			if ((void *)w == chan)
				return d;
	return -1;
}

/*
 * Is a disk full? The checks' own definition (lab perdevice's invariants, so a design of one's
 * own is judged by the same rule as the reference): more than its budget in flight, or writers
 * waiting for it.
 */
static bool sim_full(const struct rundev *rd)
{
	return rd->rd_running > perdevice_hirunning(rd) || rd->rd_nwait > 0;
}

/* The perdevice daemon waits for a drain: had a disk with dirty buffers room? */
static void note_drain_sleep(void)
{
	drain_sleeps++;
	for (int d = 0; d < ndevs; d++)
		if (devs[d].ndirty > 0 && !sim_full(&devs[d].rd)) {
			drain_sleeps_with_room++;
			return;
		}
}

bool bufq_sleep(void *chan, const char *wmesg, int timo)
{
	struct sim_thread *t = &th[cur];

	if (lock_depth != 1)
		fail("sleep_under_lock", "bufq_sleep with the lock held", "not held");
	if (cur == T_DAEMON && chan == &bd_request)
		note_daemon_sleep();
	if (cur == T_DAEMON && chan == &rundevreq)
		note_drain_sleep();
	if (strcmp(wmesg, "wdrdev") == 0 && chan != &rundevreq) {
		t->wdrdev_dev = waiter_dev(chan);
		if (t->wdrdev_dev >= 0)
			t->wdrdev_sleeps[t->wdrdev_dev]++;
		if (nenqueued < 4096)
			wdrdev_enqueued[nenqueued++] = cur;
	}
	t->sleeping = true;
	t->chan = chan;
	t->wmesg = wmesg;
	t->deadline = timo > 0 ? now + timo : 0;
	t->woken = false;
	lock_depth = 0;
	swapcontext(&t->ctx, &sched_ctx);
	lock_depth = 1;
	if (strcmp(wmesg, "wdrain") == 0)
		t->in_wdrain = true;
	if (cur == T_DAEMON && chan == &bd_request && nrounds > 0)
		rounds[nrounds - 1].early = t->woken;
	if (cur == T_WRITER && t->woken && strcmp(wmesg, "flswai") == 0) {
		flswai_wakes++;
		if (numdirtybuffers > (lodirtybuffers + hidirtybuffers) / 2)
			flswai_wakes_above_mid++;
		if (numdirtybuffers > lodirtybuffers)
			flswai_wakes_above_lo++;
	}
	return t->woken;
}

/*
 * What a write of `bytes` bound for d is charged: disk d, or for STRIPE (a ccd over disks 0
 * and 1, as a cluster of a stripe is) half to each, the fast disk 1 first: a design must look
 * at every disk of a charge, not its first.
 */
static void charge_of(int d, int bytes, struct rd_charge *rc)
{
	rc->rc_waited = false;
	if (d == STRIPE) {
		rc->rc_n = 2;
		rc->rc_dev[0].rd = &devs[1].rd;
		rc->rc_dev[0].bytes = bytes / 2;
		rc->rc_dev[1].rd = &devs[0].rd;
		rc->rc_dev[1].bytes = bytes - bytes / 2;
		return;
	}
	rc->rc_n = 1;
	rc->rc_dev[0].rd = &devs[d].rd;
	rc->rc_dev[0].bytes = bytes;
}

static struct simdev *dev_of(const struct rundev *rd)
{
	return &devs[rd == &devs[1].rd];
}

/* Async writes at dv's drive now. */
static int drive_async(const struct simdev *dv)
{
	return dv->tail - dv->head - dv->sync_active;
}

/* Start io at dv's drive, after everything there: it completes `ticks` after the drive is free. */
static void drive_start(struct simdev *dv, struct simio io, long ticks)
{
	long start = dv->busy_until > now ? dv->busy_until : now;

	dv->busy_until = start + ticks;
	io.done_at = dv->busy_until;
	dv->ios[dv->tail++] = io;
	if (dv->syncfirst && drive_async(dv) > dv->max_async)
		dv->max_async = drive_async(dv);
}

/* Hand the drive the waiting async writes the class allows (one while a synchronous one is there). */
static void drive_refill(struct simdev *dv)
{
	while (dv->qhead < dv->qtail && drive_async(dv) < (dv->sync_active > 0 ? 1 : dv->depth)) {
		struct simio io = dv->hostq[dv->qhead++];

		drive_start(dv, io, (io.bytes + dv->rate - 1) / dv->rate);
	}
}

/* A write of `bytes` to d (a disk or STRIPE), issued as bwrite does (lock held); rc is its charge. */
static void sim_issue(int d, int bytes, struct rd_charge *rc)
{
	charge_of(d, bytes, rc);
	runningbufspace += bytes;
	rundev_charge(rc, bd_nanouptime());
	if (runningbufspace > max_running)
		max_running = runningbufspace;
	for (int k = 0; k < rc->rc_n; k++) {
		struct simdev *dv = dev_of(rc->rc_dev[k].rd);
		struct simio io = { .issued = now, .bytes = rc->rc_dev[k].bytes,
		                    .rc = { .rc_n = 1, .rc_dev = { rc->rc_dev[k] } } };

		if (dv->rd.rd_running > dv->max_running)
			dv->max_running = dv->rd.rd_running;
		if (dv->syncfirst)
			dv->hostq[dv->qtail++] = io;
		else
			drive_start(dv, io, (io.bytes + dv->rate - 1) / dv->rate);
		drive_refill(dv);
	}
}

/* The environment's bd_disk_queue: the design's discipline for a disk's queue. [lock held] */
void bd_disk_queue(struct rundev *rd, bool syncfirst, int depth)
{
	struct simdev *dv = dev_of(rd);

	if (lock_depth != 1)
		fail("disk_queue_under_lock", "bd_disk_queue with the lock held", "not held");
	dv->syncfirst = syncfirst;
	dv->depth = depth < OPENINGS ? depth : OPENINGS;
	if (!syncfirst) {
		while (dv->qhead < dv->qtail) {
			struct simio io = dv->hostq[dv->qhead++];

			drive_start(dv, io, (io.bytes + dv->rate - 1) / dv->rate);
		}
	}
}

/* Take up to n dirty buffers of disk d off the queue, oldest first. How many. */
static int take_dirty(int d, int n)
{
	int kept = 0, taken = 0;

	for (int i = 0; i < numdirtybuffers; i++) {
		if (dirtyq[i] == d && taken < n)
			taken++;
		else
			dirtyq[kept++] = dirtyq[i];
	}
	for (int i = 0; i < taken; i++) {
		numdirtybuffers--;
		if (d != STRIPE)
			devs[d].ndirty--;
		bd_buffer_cleaned();
	}
	return taken;
}

/* The flush: the oldest dirty buffer (that ok() accepts) and up to flush_bufs of its disk's. */
long buf_flush_oldest(bool (*ok)(const struct rd_charge *), int *nbufs, int *nblocked)
{
	struct rd_charge rc;
	int n, d = -1, blocked = 0, bytes;

	bufq_lock();
	for (int i = 0; i < numdirtybuffers && d < 0 && now >= pinned_until; i++) {
		charge_of(dirtyq[i], BUFSZ, &rc);
		if (ok == NULL || ok(&rc))
			d = dirtyq[i];
		else
			blocked++;
	}
	if (nblocked != NULL)
		*nblocked = blocked;
	if (d < 0 || devs[d == STRIPE ? 0 : d].tail == MAXIO || devs[d == STRIPE ? 1 : d].tail == MAXIO) {
		bufq_unlock();
		return 0;
	}
	for (int o = 0; o < ndevs && d != STRIPE; o++)
		if (o != d && sim_full(&devs[o].rd))
			devs[d].flushes_while_other_full++;
	if (d != STRIPE)
		devs[d].flushes++;
	n = take_dirty(d, flush_bufs);
	bytes = n * BUFSZ;
	sim_issue(d, bytes, &rc);
	flushes_now++;
	bufq_unlock();
	bd_async_write_issued(&rc);
	*nbufs = n;
	return bytes;
}

/* The dirtier: bwillwrite, then writer_bufs buffers dirtied (bdirty's wakeup), a tick of CPU. */
static void writer(void)
{
	for (;;) {
		if (now >= writer_stop) {
			bufq_lock();
			bufq_sleep(&writer_chan, "done", 0);
			bufq_unlock();
			continue;
		}
		bwillwrite();
		bufq_lock();
		for (int i = 0; i < writer_bufs && numdirtybuffers < MAXDIRTY; i++) {
			int d = writer_stripe ? STRIPE : now >= writer_switch ? 1 : 0;

			dirtyq[numdirtybuffers++] = d;
			if (d != STRIPE)
				devs[d].ndirty++;
			bd_wakeup((lodirtybuffers + hidirtybuffers) / 2);
		}
		bufq_sleep(&writer_chan, "cpu", 1);
		bufq_unlock();
	}
}

/* A streamer or syncer past its s_stop: sleep for good ("done") and unlock; false if not past it. */
static bool stopped(struct sim_thread *t)
{
	if (now < t->s_stop)
		return false;
	bufq_sleep(&writer_chan, "done", 0);
	bufq_unlock();
	return true;
}

/*
 * A streamer: every s_think ticks, s_burst 128 KB writes to its disk, each issued and then handed to
 * the design's async step (cluster_write's write-behind). Counts arrivals that found others
 * waiting for its disk while there was room (s_cut_in), and those that then passed without
 * waiting (s_overtakes).
 */
static void streamer(void)
{
	struct sim_thread *t = &th[cur];
	struct simdev *dv = &devs[t->s_dev];
	struct rd_charge rc;

	for (;;) {
		bufq_lock();
		if (stopped(t))
			continue;
		bufq_unlock();
		for (int i = 0; i < t->s_burst; i++) {
			long sleeps = t->wdrdev_sleeps[t->s_dev];
			bool queued;

			bufq_lock();
			queued = dv->rd.rd_nwait > 0;
			if (queued && dv->rd.rd_running + CLUSTER <= perdevice_hirunning(&dv->rd))
				t->s_cut_in++;
			sim_issue(t->s_dev, CLUSTER, &rc);
			rc.rc_waited = t->s_waited;
			t->s_issued += CLUSTER;
			bufq_unlock();
			t->in_wdrain = false;
			bd_async_write_issued(&rc);
			if (t->in_wdrain) {
				wdrain_leaves++;
				if (runningbufspace > hirunningspace)
					wdrain_left_above_hi++;
			}
			if (queued && t->wdrdev_sleeps[t->s_dev] == sleeps)
				t->s_overtakes++;
		}
		bufq_lock();
		bufq_sleep(&writer_chan, "cpu", t->s_think);
		bufq_unlock();
	}
}

/*
 * A syncer: every s_think ticks until s_stop, a synchronous request to disk s_dev, waited for
 * (biowait); its latencies are counted. With the class the request goes to the drive at once
 * (dev/bio_queue.h); without, behind everything there. With y_chain > 1 each wait is that many
 * dependent requests, one after the other (an fsync's); with y_waits, the wait is told to the
 * design as the kernel's biowait and fsync tell it (bd_wait_begin/bd_wait_end), and the async
 * writes each request finds at the drive are counted; with y_writer it issues an async write of
 * its own before each wait (a writer's own wait: a new indirect block).
 */
static void syncer(void)
{
	struct sim_thread *t = &th[cur];
	struct simdev *dv = &devs[t->s_dev];
	long t0;

	for (;;) {
		bufq_lock();
		if (stopped(t))
			continue;
		if (t->y_writer) {
			struct rd_charge rc;

			sim_issue(t->s_dev, CLUSTER, &rc);
			bufq_unlock();
			bd_async_write_issued(&rc);
			bufq_lock();
		}
		bufq_unlock();
		if (t->y_waits)
			bd_wait_begin(&(struct rd_charge){ .rc_n = 1, .rc_dev = { { &dv->rd, 0 } } });
		bufq_lock();
		for (int k = 0; k < t->y_chain; k++) {
			int *ahead = k == 0 ? &t->y_ahead_first : &t->y_ahead_next;

			if (drive_async(dv) > *ahead)
				*ahead = drive_async(dv);
			t0 = now;
			t->y_done = false;
			dv->sync_active++;
			drive_start(dv, (struct simio){ .issued = now, .bytes = 0, .waiter = cur }, sync_cost);
			while (!t->y_done)
				bufq_sleep(&t->y_done, "biowr", 0);
			t->y_n++;
			t->y_sum += now - t0;
			if (now - t0 > t->y_max)
				t->y_max = now - t0;
		}
		bufq_unlock();
		if (t->y_waits)
			bd_wait_end();
		bufq_lock();
		bufq_sleep(&writer_chan, "cpu", t->s_think);
		bufq_unlock();
	}
}

static void daemon_thread(void)
{
	buf_daemon();
}

static int spawn(void (*fn)(void))
{
	struct sim_thread *t = &th[nthreads];

	if (t->stack == NULL)
		t->stack = malloc(STACKSZ);
	getcontext(&t->ctx);
	t->ctx.uc_stack.ss_sp = t->stack;
	t->ctx.uc_stack.ss_size = STACKSZ;
	t->ctx.uc_link = &sched_ctx;
	makecontext(&t->ctx, fn, 0);
	t->sleeping = false;
	t->wdrdev_dev = -1;
	memset(t->wdrdev_sleeps, 0, sizeof(t->wdrdev_sleeps));
	t->s_issued = t->s_overtakes = t->s_cut_in = 0;
	t->s_waited = false;
	t->y_n = t->y_max = t->y_sum = 0;
	t->y_chain = 1;
	t->y_waits = t->y_writer = false;
	t->y_ahead_first = t->y_ahead_next = 0;
	memset(&t->wait, 0, sizeof(t->wait));
	return nthreads++;
}

/* A streamer writing `burst` clusters to disk d every `think` ticks until tick `stop`. */
__attribute__((unused)) static int spawn_streamer(int d, int burst, int think, long stop)
{
	int i = nthreads;

	th[i].s_dev = d;
	th[i].s_burst = burst;
	th[i].s_think = think;
	th[i].s_stop = stop;
	return spawn(streamer);
}

/* A syncer: a synchronous request to disk d every `think` ticks until tick `stop`. */
__attribute__((unused)) static int spawn_syncer(int d, int think, long stop)
{
	int i = nthreads;

	th[i].s_dev = d;
	th[i].s_think = think;
	th[i].s_stop = stop;
	return spawn(syncer);
}

/*
 * The disks' completions due by now: a write credited as biodone does, a synchronous request's
 * latency handed to the design as the block layer's watcher does (and its thread woken); then
 * the drive takes what the class allows. [no lock]
 */
static void complete_ios(void)
{
	lock_depth = 1;
	for (int d = 0; d < ndevs; d++) {
		struct simdev *dv = &devs[d];

		while (dv->head < dv->tail && dv->ios[dv->head].done_at <= now) {
			struct simio *io = &dv->ios[dv->head++];

			if (io->bytes == 0) {
				struct sim_thread *t = &th[io->waiter];

				dv->sync_active--;
				t->y_done = true;
				bd_sync_done(&dv->rd, (uint64_t)(now - io->issued) * TICK_NS);
				bufq_wakeup(&t->y_done);
				continue;
			}
			runningbufwakeup(io->bytes);
			rundevwakeup(&io->rc);
			dv->done_bytes += io->bytes;
		}
		drive_refill(dv);
	}
	lock_depth = 0;
}

/* Idle disks with dirty buffers while the daemon is armed, over [from, now). */
static void note_idle(long from)
{
	for (int d = 0; d < ndevs; d++)
		if (devs[d].busy_until <= from && devs[d].ndirty > 0 && bd_request)
			devs[d].idle_dirty += now - from;
}

/* Run every coroutine until nobody is runnable, then move the clock; stop at `until`. */
static void run_until(long until)
{
	for (;;) {
		bool ran = false;
		long next = -1, from;

		for (int i = 0; i < nthreads; i++) {
			if (th[i].sleeping)
				continue;
			cur = i;
			swapcontext(&sched_ctx, &th[i].ctx);
			cur = -1;
			ran = true;
		}
		if (ran)
			continue;
		for (int i = 0; i < nthreads; i++)
			if (th[i].sleeping && th[i].deadline > 0 && (next < 0 || th[i].deadline < next))
				next = th[i].deadline;
		for (int d = 0; d < ndevs; d++)
			if (devs[d].head < devs[d].tail && (next < 0 || devs[d].ios[devs[d].head].done_at < next))
				next = devs[d].ios[devs[d].head].done_at;
		if (next < 0 || next > until)
			return;
		from = now;
		now = next;
		note_idle(from);
		complete_ios();
		for (int i = 0; i < nthreads; i++)
			if (th[i].sleeping && th[i].deadline > 0 && th[i].deadline <= now)
				th[i].sleeping = false;
	}
}

/* Disk d: `rate` bytes per tick, a fixed budget hi/lo, a starting estimate of bw bytes/s. */
static void dev_setup(int d, int rate, int hi, int lo, int64_t bw)
{
	struct simdev *dv = &devs[d];
	struct rundev *next = dv->rd.rd_next;    /* registered once: keep its place in the list */

	dv->head = dv->tail = dv->qhead = dv->qtail = 0;
	dv->sync_active = dv->max_async = 0;
	dv->busy_until = 0;
	dv->rate = rate;
	dv->ndirty = dv->max_running = 0;
	dv->done_bytes = dv->idle_dirty = dv->flushes_while_other_full = dv->flushes = 0;
	rundev_init(&dv->rd, d == 0 ? "sim0" : "sim1", hi, lo, bw, 0);
	dv->rd.rd_next = next;
	dv->rd.rd_depth = syncfirst_maxdepth;
	bufq_lock();
	bd_disk_requeue(&dv->rd);
	bufq_unlock();
}

/* A fresh cache, `n` disks of 4 MB/s and the counters zeroed, running `design`. No threads. */
static void sim_reset(const char *design, int n)
{
	static bool registered;

	if (!registered) {
		for (int d = 0; d < NDEVS; d++)
			rundev_register(&devs[d].rd);
		registered = true;
	}
	numdirtybuffers = runningbufspace = 0;
	hidirtybuffers = 390;
	lodirtybuffers = 195;
	hirunningspace = 1024 * 1024;
	lorunningspace = 512 * 1024;
	maxbdrun = 16;
	perdevice_auto = 1;
	perdevice_target_ms = 50;
	perdevice_maxspace = 4 * 1024 * 1024;
	syncfirst_target_ms = 20;
	syncfirst_maxdepth = 16;
	syncfirst_mindepth = 2;
	wanted_depth = 2;
	wanted_linger_ms = 100;
	wanted_budget = 1;
	sync_cost = 1;
	memset(&bdstats, 0, sizeof(bdstats));
	bd_request = runningbufreq = needsdirtyflush = rundevreq = 0;
	now = 0;
	ndevs = n;
	for (int d = 0; d < NDEVS; d++)
		dev_setup(d, 40 * 1024, hirunningspace, lorunningspace, 20 * 1024 * 1024);
	flush_bufs = 16;
	pinned_until = 0;
	writer_stripe = false;
	writer_bufs = 0;
	writer_stop = 0;
	writer_switch = 1L << 30;
	max_running = flushes_now = max_flushes_per_round = 0;
	disarmed_above_lo = daemon_sleeps = 0;
	wdrain_leaves = wdrain_left_above_hi = 0;
	flswai_wakes = flswai_wakes_above_mid = flswai_wakes_above_lo = 0;
	drain_sleeps = drain_sleeps_with_room = 0;
	nenqueued = nreleased = 0;
	nrounds = 0;
	lock_depth = 0;
	nthreads = 0;
	bd_set_design(design);
}

/* The scenes of test_bufdaemon.c: one 4 MB/s disk, the daemon and the dirtier as configured. */
__attribute__((unused)) static void scenario(const char *design, int fbufs, int wbufs, long stop,
                                             long until)
{
	sim_reset(design, 1);
	flush_bufs = fbufs;
	writer_bufs = wbufs;
	writer_stop = stop;
	spawn(daemon_thread);
	spawn(writer);
	run_until(until);
}

/*
 * One promise checked on `design`: it must hold when the promise is the design's own (self),
 * and must NOT hold on another design (a negative control: the test tells them apart).
 */
static void verdict(const char *design, bool self, const char *what, bool held, const char *want,
                    const char *got)
{
	char name[200], expected[96];

	snprintf(name, sizeof(name), "%s: %s%s", design, what,
	         self ? "" : " - must NOT hold (negative control)");
	snprintf(expected, sizeof(expected), "%s%s", self ? "" : "not ", want);
	if (held == self)
		pass(name);
	else
		fail(name, expected, got);
}
