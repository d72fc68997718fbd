/*
 * Host unit tests of the buf_daemon's two designs (kernel/vfs/vfs_bufdaemon.c, compiled in),
 * driven by a discrete-event simulation of the buffer cache around them: a writer that dirties
 * buffers faster than the disk can take them (and calls bwillwrite first, as write(2) does), a
 * disk that completes writes in order at a fixed rate, and the daemon itself. The three run as
 * coroutines on a simulated clock in ticks; each sleep of vfs_bufdaemon.c is a switch to the
 * scheduler, which runs whoever was woken, or moves the clock to the next timeout or I/O
 * completion. The counters are synthetic: 390/195 dirty buffers (128 MB's hi/lo), 1 MB/512 KB
 * in flight, maxbdrun 16, 8 KB buffers.
 *
 * What each design promises, checked on itself - and checked to FAIL on the other design (the
 * "negative control" lines), so the tests tell the designs apart:
 *   runningbuf: runningbufspace never above hirunningspace plus one cluster; the daemon never
 *               disarms (bd_request 0) while numdirtybuffers > lodirtybuffers; writers blocked in
 *               flswai are woken by the midpoint (before the drain reaches lodirtybuffers).
 *   speedup:    at most maxbdrun flushes between two sleeps of the daemon; after an early
 *               wakeup bd_flushto falls (or stays at its floor, 2) and so does bd_interval; after
 *               a full sleep they rise (bd_flushto up to hidirtybuffers).
 */
#include "unit.h"
#include <ucontext.h>
#include <stdlib.h>
#include "vfs/vfs_bufdaemon.c"

/* The buffer cache's counters (vfs_bio.c in the kernel). */
int numdirtybuffers, hidirtybuffers, lodirtybuffers, runningbufspace, hirunningspace,
    lorunningspace, maxbdrun;
int bd_hz = 100;

#define BUFSZ     8192
#define NTHREADS  3
#define STACKSZ   (256 * 1024)
#define MAXIO     8192

enum { T_DAEMON, T_WRITER };

/* ---- the simulation ------------------------------------------------------------------------ */

struct sim_thread {
	ucontext_t  ctx;
	char       *stack;
	bool        sleeping;
	void       *chan;
	long        deadline;      /* tick its sleep times out at; 0 = never */
	bool        woken;
};

static struct sim_thread th[NTHREADS];
static int nthreads, cur = -1;
static ucontext_t sched_ctx;
static long now;                     /* ticks */
static int lock_depth;

static struct { long done_at; int bytes; } ios[MAXIO];
static int io_head, io_tail;
static long disk_busy_until;
static int disk_rate;                /* bytes per tick */

/* The scenario's knobs. */
static int flush_bufs;               /* buffers per flush (a cluster) */
static int writer_bufs;              /* buffers the writer dirties per tick */
static long writer_stop;             /* the writer stops at this tick */

/* What the checks look at. */
static int max_running;              /* highest runningbufspace right after a write was issued */
static int flushes_now, max_flushes_per_round;
static int disarmed_above_lo;        /* daemon sleeps with bd_request 0 and numdirty > lo */
static int daemon_sleeps;
static int flswai_wakes, flswai_wakes_above_mid, flswai_wakes_above_lo;
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
		}
}

uint64_t bd_nanouptime(void)
{
	return (uint64_t)now * 10000000ull;
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

bool bufq_sleep(void *chan, const char *wmesg, int timo)
{
	struct sim_thread *t = &th[cur];

	if (lock_depth != 1)
		fail("sleep_under_lock", "bufq_sleep with the lock held", "not held");
	if (cur == T_DAEMON && chan == &bd_request)
		note_daemon_sleep();
	t->sleeping = true;
	t->chan = chan;
	t->deadline = timo > 0 ? now + timo : 0;
	t->woken = false;
	lock_depth = 0;
	swapcontext(&t->ctx, &sched_ctx);
	lock_depth = 1;
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

/* The flush: a write of the oldest flush_bufs dirty buffers, issued as bwrite would. */
long buf_flush_oldest(int *nbufs)
{
	int n, bytes;
	long start;

	bufq_lock();
	n = numdirtybuffers < flush_bufs ? numdirtybuffers : flush_bufs;
	if (n == 0 || io_tail == MAXIO) {
		bufq_unlock();
		return 0;
	}
	for (int i = 0; i < n; i++) {
		numdirtybuffers--;
		bd_buffer_cleaned();
	}
	bytes = n * BUFSZ;
	runningbufspace += bytes;
	if (runningbufspace > max_running)
		max_running = runningbufspace;
	start = disk_busy_until > now ? disk_busy_until : now;
	disk_busy_until = start + (bytes + disk_rate - 1) / disk_rate;
	ios[io_tail].done_at = disk_busy_until;
	ios[io_tail].bytes = bytes;
	io_tail++;
	flushes_now++;
	bufq_unlock();
	bd_async_write_issued();
	*nbufs = n;
	return bytes;
}

/* The writer: bwillwrite, dirty writer_bufs buffers (bdirty's wakeup), a tick of CPU. */
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
		for (int i = 0; i < writer_bufs; i++) {
			numdirtybuffers++;
			bd_wakeup((lodirtybuffers + hidirtybuffers) / 2);
		}
		bufq_sleep(&writer_chan, "cpu", 1);
		bufq_unlock();
	}
}

static void daemon_thread(void)
{
	buf_daemon();
}

static void spawn(void (*fn)(void))
{
	struct sim_thread *t = &th[nthreads++];

	if (t->stack == NULL)
		t->stack = malloc(STACKSZ);
	getcontext(&t->ctx);
	t->ctx.uc_stack.ss_sp = t->stack;
	t->ctx.uc_stack.ss_size = STACKSZ;
	t->ctx.uc_link = &sched_ctx;
	makecontext(&t->ctx, fn, 0);
	t->sleeping = false;
}

/* Run every coroutine until nobody is runnable, then move the clock; stop at `until`. */
static void run_until(long until)
{
	for (;;) {
		bool ran = false;
		long next = -1;

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
			if (th[i].deadline > 0 && (next < 0 || th[i].deadline < next))
				next = th[i].deadline;
		if (io_head < io_tail && (next < 0 || ios[io_head].done_at < next))
			next = ios[io_head].done_at;
		if (next < 0 || next > until)
			return;
		now = next;
		lock_depth = 1;
		while (io_head < io_tail && ios[io_head].done_at <= now)
			runningbufwakeup(ios[io_head++].bytes);
		lock_depth = 0;
		for (int i = 0; i < nthreads; i++)
			if (th[i].sleeping && th[i].deadline > 0 && th[i].deadline <= now)
				th[i].sleeping = false;
	}
}

/* A fresh cache, disk and daemon running `design`; the writer as configured. */
static void scenario(const char *design, int fbufs, int wbufs, long stop, long until)
{
	numdirtybuffers = runningbufspace = 0;
	hidirtybuffers = 390;
	lodirtybuffers = 195;
	hirunningspace = 1024 * 1024;
	lorunningspace = 512 * 1024;
	maxbdrun = 16;
	memset(&bdstats, 0, sizeof(bdstats));
	bd_request = runningbufreq = needsdirtyflush = 0;
	now = 0;
	io_head = io_tail = 0;
	disk_busy_until = 0;
	disk_rate = 40 * 1024;               /* 4 MB/s */
	flush_bufs = fbufs;
	writer_bufs = wbufs;
	writer_stop = stop;
	max_running = flushes_now = max_flushes_per_round = 0;
	disarmed_above_lo = daemon_sleeps = 0;
	flswai_wakes = flswai_wakes_above_mid = flswai_wakes_above_lo = 0;
	nrounds = 0;
	lock_depth = 0;
	nthreads = 0;
	bd_set_design(design);
	spawn(daemon_thread);
	spawn(writer);
	run_until(until);
}

/* ---- the checks ---------------------------------------------------------------------------- */

/*
 * One promise checked on `design`: it must hold when the promise is the design's own (self),
 * and must NOT hold on the other design (a negative control: the test tells them apart).
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

/* runningbuf's promises on `design`; `self` says whether they must hold or must fail. */
static void runningbuf_checks(const char *design, bool self)
{
	char got[96];
	int bound;

	scenario(design, 16, 16, 3000, 3000);
	bound = hirunningspace + 16 * BUFSZ;
	snprintf(got, sizeof(got), "max %d, bound %d", max_running, bound);
	verdict(design, self, "runningbufspace stays <= hirunningspace + one 128 KB cluster",
	        max_running <= bound, "<= bound", got);

	/* The writer floods for 10 s (the daemon must stay armed), then stops (it drains and sleeps). */
	scenario(design, 2, 16, 1000, 3000);
	snprintf(got, sizeof(got), "%d of %d daemon sleeps disarmed above lo", disarmed_above_lo,
	         daemon_sleeps);
	verdict(design, self, "never disarms above lodirtybuffers",
	        disarmed_above_lo == 0 && daemon_sleeps > 10, "0 disarmed above lo", got);
	snprintf(got, sizeof(got), "%d wakes, %d above mid, %d above lo", flswai_wakes,
	         flswai_wakes_above_mid, flswai_wakes_above_lo);
	verdict(design, self, "flswai sleepers are woken at the lo/hi midpoint",
	        flswai_wakes > 0 && flswai_wakes_above_mid == 0 && flswai_wakes_above_lo > 0,
	        "wakes, none above mid, some above lo", got);
}

/* Consecutive daemon rounds with one adjustment between them: does each move the right way? */
static void flushto_moves(int *early_ok, int *early_n, int *late_ok, int *late_n)
{
	*early_ok = *early_n = *late_ok = *late_n = 0;
	for (int i = 0; i + 1 < nrounds; i++) {
		struct round *a = &rounds[i], *b = &rounds[i + 1];

		if (b->loops != a->loops + 1)
			continue;
		if (a->early) {
			(*early_n)++;
			if (b->flushto <= (a->flushto - 1 > 2 ? a->flushto - 1 : 2) && b->interval <= a->interval)
				(*early_ok)++;
		} else {
			(*late_n)++;
			if (b->flushto >= a->flushto && b->flushto <= hidirtybuffers &&
			    b->interval >= a->interval && (b->flushto > a->flushto || a->flushto == hidirtybuffers))
				(*late_ok)++;
		}
	}
}

/* speedup's promises on `design`; `self` says whether they must hold or must fail. */
static void speedup_checks(const char *design, bool self)
{
	char got[96];
	int eok, en, lok, ln;

	scenario(design, 2, 16, 3000, 3000);
	snprintf(got, sizeof(got), "at most %d per round, %d rounds", max_flushes_per_round,
	         daemon_sleeps);
	verdict(design, self, "at most maxbdrun (16) flushes per wakeup",
	        max_flushes_per_round <= maxbdrun && daemon_sleeps > 10, "<= 16", got);

	/* The writer floods for 10 s, then stops: early wakeups, then full sleeps. */
	scenario(design, 2, 16, 1000, 20000);
	flushto_moves(&eok, &en, &lok, &ln);
	snprintf(got, sizeof(got), "%d of %d early rounds moved down", eok, en);
	verdict(design, self, "an early wakeup lowers bd_flushto and bd_interval", en > 0 && eok == en,
	        "all early rounds down", got);
	snprintf(got, sizeof(got), "%d of %d timed-out rounds moved up, last bd_flushto %d", lok, ln,
	         nrounds > 0 ? rounds[nrounds - 1].flushto : -1);
	verdict(design, self, "a full sleep raises bd_flushto (to hidirtybuffers) and bd_interval",
	        ln > 0 && lok == ln && rounds[nrounds - 1].flushto == hidirtybuffers,
	        "all up, ending at hidirtybuffers", got);
}

/* Switching designs: the daemon leaves the old loop at its next round and runs the new one. */
static void switch_checks(void)
{
	uint64_t sl, rl;

	scenario("speedup", 2, 16, 3000, 500);
	sl = bdstats.speedup_loops;
	rl = bdstats.runningbuf_loops;
	check_str("switch: starts in speedup", bd_design_name(), "speedup");
	check_int("switch: unknown design refused", bd_set_design("perdevice"), false);
	check_int("switch: to runningbuf accepted", bd_set_design("runningbuf"), true);
	run_until(1500);
	check_int("switch: speedup's loop stopped (at most its current round after)",
	          (long long)(bdstats.speedup_loops - sl) <= 1, true);
	check_int("switch: runningbuf's loop runs", bdstats.runningbuf_loops > rl, true);
	check_int("switch: counted once", (long long)bdstats.design_switches, 2);
}

int main(void)
{
	runningbuf_checks("runningbuf", true);
	runningbuf_checks("speedup", false);
	speedup_checks("speedup", true);
	speedup_checks("runningbuf", false);
	switch_checks();
	return unit_exit();
}
