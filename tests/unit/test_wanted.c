/*
 * Host unit tests of the wanted buf_daemon design (kernel/vfs/vfs_bufdaemon.c's fifth section,
 * compiled in), in the simulation of bufdaemon_sim.h: disks of 3.3 MB/s (a 128 KB cluster takes
 * 4 ticks) whose drives take at most OPENINGS (32) requests, a fixed budget of 4 MB (32
 * clusters) so that the writes a writer keeps in flight are many more than the small depth,
 * streamers, and waiters: syncers that tell the design of their waits as biowait and fsync do
 * (bd_wait_begin/bd_wait_end), each wait of three dependent synchronous requests (an fsync's
 * data, inode and cache flush).
 *
 * What the design promises, and the scene that checks it:
 *   - a writer alone is never cut: its disk keeps every opening and it never waits for the
 *     disk's budget ("wdrdev");
 *   - a waiter's requests after the first of its wait find at most vfs.wanted.depth async
 *     writes at the drive (the first finds what was there when the wait began);
 *   - the disk is back at every opening when the wait ends (after vfs.wanted.linger_ms for a
 *     process that does not write, at once for a writer's own wait), and its writers go;
 *   - many waiters: the disk stays wanted until the last wait ends, and is then let go; a
 *     writer's own waits ending do not end another waiter's linger;
 *   - a wait on one disk does not cut the other (a stripe's components are judged one by one);
 *   - fsync's writes never wait for a disk's budget (with vfs.wanted.budget 1, the scenes'
 *     setting; with 0, the kernel's default, no writer does);
 *   - a design switch gives the disks' queues the new design's discipline.
 * The negative control is syncfirst (the same class, its depth moved by a latency window): its
 * writer alone waits for the budget, and a waiter's later requests find the deep queue.
 */
#include "bufdaemon_sim.h"

#define RATE     32768                 /* bytes per tick: 3.3 MB/s, 4 ticks a cluster */
#define BUDGET   (32 * CLUSTER)
#define CHAIN    3                     /* requests per wait */

/* `n` disks with a fixed budget of BUDGET each under `design`, syncfirst's maxdepth at 8. */
static void disks(const char *design, int n)
{
	sim_reset(design, n);
	perdevice_auto = 0;
	syncfirst_maxdepth = 8;
	for (int d = 0; d < n; d++)
		dev_setup(d, RATE, BUDGET, BUDGET / 2, 0);
}

/* A waiter on disk d: a wait of CHAIN requests every `think` ticks until `stop`. */
static int spawn_waiter(int d, int think, long stop)
{
	int y = spawn_syncer(d, think, stop);

	th[y].y_chain = CHAIN;
	th[y].y_waits = true;
	return y;
}

/* The least depth disk d's queue had, sampled every tick from now to `until`. */
static int run_least_depth(int d, long until)
{
	int least = devs[d].depth;

	for (long t = now + 1; t <= until; t++) {
		run_until(t);
		if (devs[d].depth < least)
			least = devs[d].depth;
	}
	return least;
}

/* A writer alone, 4 clusters a tick for 2 s (twice the disk's rate): never cut, never waits. */
static void alone_checks(const char *design, bool self)
{
	char got[160];
	int s, least;

	disks(design, 1);
	spawn(daemon_thread);
	s = spawn_streamer(0, 4, 1, 200);
	least = run_least_depth(0, 300);
	snprintf(got, sizeof(got), "the depth at least %d, %ld sleeps in wdrdev", least,
	         th[s].wdrdev_sleeps[0]);
	verdict(design, self, "a writer alone keeps every opening and never waits for the budget",
	        least == OPENINGS && th[s].wdrdev_sleeps[0] == 0, "32, 0 sleeps", got);
}

/*
 * A streamer and a waiter (a wait every 30 ticks): the waiter's later requests find at most
 * the small depth ahead; the disk is back at every opening once the waits stop.
 */
static void wait_checks(const char *design, bool self)
{
	char got[200];
	int y;

	disks(design, 1);
	spawn(daemon_thread);
	spawn_streamer(0, 4, 1, 1200);
	y = spawn_waiter(0, 30, 1000);
	run_until(1000);
	snprintf(got, sizeof(got), "%ld requests; a wait's first found %d async writes at the drive, "
	         "the later ones at most %d (depth %d)", th[y].y_n, th[y].y_ahead_first,
	         th[y].y_ahead_next, wanted_depth);
	verdict(design, self, "a waiter's later requests find at most the small depth ahead",
	        th[y].y_n >= 5 * CHAIN && th[y].y_ahead_next <= wanted_depth, "<= depth", got);
	if (!self)
		return;
	run_until(1100);
	snprintf(got, sizeof(got), "depth %d, %d waiters, %llu waits counted", devs[0].depth,
	         devs[0].rd.rd_wanted, (unsigned long long)devs[0].rd.rd_waits);
	verdict(design, self, "the disk is back at every opening when the waits end",
	        devs[0].depth == OPENINGS && devs[0].rd.rd_wanted == 0 &&
	        devs[0].rd.rd_waits > 0, "32, 0 waiters", got);
	check_int("wanted: no writer is left waiting for the budget once no one waits",
	          devs[0].rd.rd_nwait, 0);
	check_int("wanted: the disk was wanted for some time", devs[0].rd.rd_wanted_ns > 0, true);
}

/*
 * After a wait ends: a waiter that does not write keeps its disk cut for the linger (10 ticks),
 * and the disk is let go at the first completion after it; a writer's own waits (it issued an
 * async write just before) let the disk go at the first completion after the wait.
 */
static void linger_checks(bool writer)
{
	char got[160];
	long linger = wanted_linger_ms / 10, late = 0, early = 0, samples = 0, end = -1;
	int y, waiting = 0;

	disks("wanted", 1);
	spawn(daemon_thread);
	spawn_streamer(0, 1, 4, 1000);
	y = spawn_waiter(0, 60, 1000);
	th[y].y_writer = writer;
	for (long t = 1; t <= 1000; t++) {
		long age;

		run_until(t);
		if (waiting > 0 && devs[0].rd.rd_wanted == 0)
			end = t;           /* a wait ended at this tick (events happen on ticks) */
		waiting = devs[0].rd.rd_wanted;
		if (waiting > 0 || end < 2 * linger)
			continue;          /* (the first wait, begun within the linger of time 0, looks a writer's) */
		age = t - end;
		samples++;
		if (age < linger && devs[0].depth != wanted_depth)
			early++;
		if (age > (writer ? 0 : linger) + 2 * CLUSTER / RATE && devs[0].depth != OPENINGS)
			late++;
	}
	snprintf(got, sizeof(got), "%ld ticks after waits: %ld let go within the linger, %ld still cut "
	         "after it", samples, early, late);
	if (writer)
		verdict("wanted", true, "a writer's own wait lets the disk go as soon as it ends",
		        samples > 100 && late == 0, "0 still cut", got);
	else
		verdict("wanted", true, "a waiter that does not write keeps the disk cut for the linger, "
		        "then lets it go", samples > 100 && early == 0 && late == 0, "0 and 0", got);
}

/*
 * A waiter that does not write and the writer's own waits on the same disk: the writer's waits
 * ending do not end the other's linger.
 */
static void mixed_linger_checks(void)
{
	char got[160];
	long linger = wanted_linger_ms / 10, end = -1, seen = 0, samples = 0, early = 0;
	int y, w;

	disks("wanted", 1);
	spawn(daemon_thread);
	spawn_streamer(0, 1, 4, 1000);
	y = spawn_waiter(0, 60, 1000);
	w = spawn_waiter(0, 5, 1000);
	th[w].y_writer = true;
	for (long t = 1; t <= 1000; t++) {
		run_until(t);
		if (th[y].y_n > seen && th[y].y_n % CHAIN == 0)
			end = t;           /* the waiter's wait ended at this tick */
		seen = th[y].y_n;
		if (end < 2 * linger || t - end >= linger)
			continue;
		samples++;
		if (devs[0].depth != wanted_depth)
			early++;
	}
	snprintf(got, sizeof(got), "%ld ticks within the waiter's lingers (the writer waited %ld times): "
	         "%ld not cut", samples, th[w].y_n / CHAIN, early);
	verdict("wanted", true, "the writer's own waits ending do not end another waiter's linger",
	        samples > 50 && th[w].y_n > 30 && early == 0, "0 not cut", got);
}

/* Three waiters whose waits overlap: the disk stays cut while any waits, then is let go. */
static void many_checks(void)
{
	int y[3], most = 0, uncut = 0;

	disks("wanted", 1);
	spawn(daemon_thread);
	spawn_streamer(0, 4, 1, 700);
	for (int i = 0; i < 3; i++)
		y[i] = spawn_waiter(0, 7 + i, 500);
	for (long t = 1; t <= 500; t++) {
		run_until(t);
		if (devs[0].rd.rd_wanted > most)
			most = devs[0].rd.rd_wanted;
		if (devs[0].rd.rd_wanted > 0 && devs[0].depth != wanted_depth)
			uncut++;
	}
	check_int("wanted: many waiters: more than one waited at once", most > 1, true);
	check_int("wanted: many waiters: ticks some waited with the disk not cut", uncut, 0);
	for (int i = 0; i < 3; i++)
		check_int("wanted: many waiters: later requests find at most the depth",
		          th[y[i]].y_ahead_next <= wanted_depth, true);
	run_until(700);
	check_int("wanted: many waiters: back at every opening after the last wait",
	          devs[0].rd.rd_wanted == 0 && devs[0].depth == OPENINGS, true);
}

/* Two disks, a writer on each, a waiter on disk 0 only: disk 1 is never cut. */
static void other_disk_checks(void)
{
	char got[160];
	int least0, least1 = OPENINGS, s1;

	disks("wanted", 2);
	spawn(daemon_thread);
	spawn_streamer(0, 4, 1, 500);
	s1 = spawn_streamer(1, 4, 1, 500);
	spawn_waiter(0, 20, 500);
	least0 = devs[0].depth;
	for (long t = 1; t <= 500; t++) {
		run_until(t);
		least0 = devs[0].depth < least0 ? devs[0].depth : least0;
		least1 = devs[1].depth < least1 ? devs[1].depth : least1;
	}
	snprintf(got, sizeof(got), "disk 0 at least %d, disk 1 at least %d; disk 1's writer slept %ld "
	         "times in wdrdev", least0, least1, th[s1].wdrdev_sleeps[1]);
	verdict("wanted", true, "a wait on one disk cuts that disk and not the other",
	        least0 == wanted_depth && least1 == OPENINGS && th[s1].wdrdev_sleeps[1] == 0,
	        "2 and 32, 0 sleeps", got);
}

/* fsync's writes (rc_waited) beside a writer, while a waiter keeps the disk wanted. */
static void waited_checks(void)
{
	char got[120];
	int f, w;

	disks("wanted", 1);
	spawn(daemon_thread);
	w = spawn_streamer(0, 4, 1, 1000);
	f = spawn_streamer(0, 1, 5, 1000);
	th[f].s_waited = true;
	spawn_waiter(0, 2, 1000);
	run_until(1000);
	snprintf(got, sizeof(got), "it slept %ld times in wdrdev, the other writer %ld",
	         th[f].wdrdev_sleeps[0], th[w].wdrdev_sleeps[0]);
	verdict("wanted", true, "fsync's writes never wait for a disk's budget (while it is wanted, "
	        "the other writer does)", th[f].wdrdev_sleeps[0] == 0 && th[w].wdrdev_sleeps[0] > 0,
	        "0, the other > 0", got);
}

/* With vfs.wanted.budget 0 a writer beside a waiter never waits for the budget, cut or not. */
static void no_budget_checks(void)
{
	char got[120];
	int w;

	disks("wanted", 1);
	wanted_budget = 0;
	spawn(daemon_thread);
	w = spawn_streamer(0, 4, 1, 1000);
	spawn_waiter(0, 2, 1000);
	run_until(1000);
	snprintf(got, sizeof(got), "it slept %ld times in wdrdev; the disk was cut %llu times",
	         th[w].wdrdev_sleeps[0], (unsigned long long)devs[0].rd.rd_wcuts);
	verdict("wanted", true, "with the budget off a writer beside a waiter never waits for it",
	        th[w].wdrdev_sleeps[0] == 0 && devs[0].rd.rd_wcuts > 0, "0 sleeps, cut", got);
}

/* The design switch: from syncfirst to wanted and back, and to the patch's. */
static void switch_checks(void)
{
	disks("syncfirst", 1);
	spawn(daemon_thread);
	spawn_streamer(0, 4, 1, 1000);
	run_until(100);
	check_int("wanted: switch from syncfirst accepted", bd_set_design("wanted"), true);
	check_int("wanted: its queue has the class at every opening",
	          devs[0].syncfirst && devs[0].depth == OPENINGS, true);
	run_until(300);
	check_int("wanted: its daemon's loop runs", bdstats.wanted_loops > 0, true);
	check_int("wanted: switch to runningbuf accepted", bd_set_design("runningbuf"), true);
	check_int("wanted: after the switch the queues are FreeBSD 4's", devs[0].syncfirst, false);
	check_int("wanted: switch back to syncfirst accepted", bd_set_design("syncfirst"), true);
	check_int("wanted: syncfirst's queue is at its maxdepth again",
	          devs[0].syncfirst && devs[0].depth == syncfirst_maxdepth, true);
}

int main(void)
{
	alone_checks("wanted", true);
	alone_checks("syncfirst", false);
	wait_checks("wanted", true);
	wait_checks("syncfirst", false);
	linger_checks(false);
	linger_checks(true);
	mixed_linger_checks();
	many_checks();
	other_disk_checks();
	waited_checks();
	no_budget_checks();
	switch_checks();
	return unit_exit();
}
