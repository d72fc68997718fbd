/*
 * Host unit tests of the perdevice buf_daemon design (kernel/vfs/vfs_bufdaemon.c's third
 * section and vfs_rundev.c's accounting, compiled in), in the simulation of bufdaemon_sim.h
 * with two disks: a slow one (disk 0, 1.6 MB/s) and a fast one (disk 1, 13 MB/s), fixed
 * budgets of 512 KB/256 KB each unless a scene says otherwise, 128 KB clusters.
 *
 * What the design promises, and the scene that checks it:
 *   - the daemon skips a dirty buffer bound for a full disk and flushes those bound for others,
 *     waits for a drain only when every disk with dirty buffers is full, and so never lets the
 *     fast disk idle while buffers bound for it are dirty (a backlog of 240 dirty buffers for
 *     the slow disk, older than 240 for the fast one);
 *   - the daemon takes a cluster of a stripe over both disks only while both have room (a
 *     writer dirtying the stripe: neither disk passes its budget plus one cluster);
 *   - no disk exceeds its budget by more than one cluster, a writer waits only for the disk
 *     it writes to, and the fast disk's writer runs at the fast disk's rate beside a writer to
 *     the slow disk; runningbufspace is always the sum of the disks' counts (two streamers);
 *   - the writers waiting for one disk are let go in the order they came, and one that arrives
 *     while others wait joins the queue even if the disk has room (four streamers, one disk);
 *   - a change of design lets every writer waiting for a disk go (three streamers asleep);
 *   - the self-sized budget converges on the disk's rate times the target delay and follows
 *     a change of rate, between its floor (one cluster) and its ceiling (the checks named
 *     self-sizing: they are this design's formula; lab perdevice grades the others, which
 *     any per-disk design must keep).
 * The first three are also checked to FAIL under runningbuf (the negative control: the
 * patch's global budget lets the slow disk hold everything in flight).
 */
#include "bufdaemon_sim.h"

#define SLOW     16384                 /* bytes per tick: 1.6 MB/s, 8 ticks a cluster */
#define FAST     131072                /* 13.1 MB/s, a cluster a tick */
#define HI       (512 * 1024)
#define LO       (256 * 1024)

static int sum_mismatches;             /* samples where runningbufspace != the disks' sum */

/* runningbufspace against the disks' counts, at every tick the scene is sampled. */
static void check_sum(void)
{
	int sum = 0;

	for (int d = 0; d < ndevs; d++)
		sum += devs[d].rd.rd_running;
	if (sum != runningbufspace)
		sum_mismatches++;
}

/* Run to `until`, sampling the sum every tick. */
static void run_sampled(long until)
{
	for (long t = now + 1; t <= until; t++) {
		run_until(t);
		check_sum();
	}
}

/* Two disks with fixed budgets under `design`. */
static void two_disks(const char *design)
{
	sim_reset(design, 2);
	perdevice_auto = 0;
	dev_setup(0, SLOW, HI, LO, 0);
	dev_setup(1, FAST, HI, LO, 0);
	sum_mismatches = 0;
}

/* The daemon with a backlog for the slow disk older than one for the fast disk. */
static void daemon_checks(const char *design, bool self)
{
	char got[160];

	two_disks(design);
	writer_bufs = 16;
	writer_switch = 15;                  /* 240 buffers for disk 0, then 240 for disk 1 */
	writer_stop = 30;
	spawn(daemon_thread);
	spawn(writer);
	run_until(3000);
	snprintf(got, sizeof(got), "fast disk idle %ld ticks with dirty buffers, daemon armed",
	         devs[1].idle_dirty);
	verdict(design, self, "the fast disk never idles while buffers bound for it are dirty",
	        devs[1].idle_dirty == 0 && devs[1].flushes > 0, "0 ticks", got);
	snprintf(got, sizeof(got), "slow disk max %d, fast disk max %d, bound %d", devs[0].max_running,
	         devs[1].max_running, HI + CLUSTER);
	verdict(design, self, "the daemon never takes a disk past its budget plus one cluster",
	        devs[0].max_running <= HI + CLUSTER && devs[1].max_running <= HI + CLUSTER,
	        "<= bound", got);
	if (!self)
		return;
	snprintf(got, sizeof(got), "slow disk skipped %llu times; fast disk flushed %ld times while "
	         "the slow one was full", (unsigned long long)devs[0].rd.rd_skips,
	         devs[1].flushes_while_other_full);
	verdict(design, self, "a buffer bound for a full disk is skipped, those bound for the other "
	        "flushed", devs[0].rd.rd_skips > 0 && devs[1].flushes_while_other_full > 0,
	        "both > 0", got);
	snprintf(got, sizeof(got), "%d of %d waits for a drain while a disk with dirty buffers had room",
	         drain_sleeps_with_room, drain_sleeps);
	verdict(design, self, "the daemon waits for a drain only when every disk with dirty buffers "
	        "is full", drain_sleeps > 0 && drain_sleeps_with_room == 0, "waits, none with room", got);
	check_int("perdevice: the backlog is written (numdirtybuffers <= lodirtybuffers)",
	          numdirtybuffers <= lodirtybuffers, true);
}

/* A writer dirtying a stripe over the two disks: each cluster is charged to both, half each. */
static void stripe_checks(const char *design, bool self)
{
	char got[160];

	two_disks(design);
	writer_bufs = 16;
	writer_stripe = true;
	writer_stop = 30;
	spawn(daemon_thread);
	spawn(writer);
	run_until(3000);
	snprintf(got, sizeof(got), "slow disk max %d, fast disk max %d, bound %d", devs[0].max_running,
	         devs[1].max_running, HI + CLUSTER);
	verdict(design, self, "a stripe's clusters, charged to both disks, take neither past its budget "
	        "plus one cluster", devs[0].max_running <= HI + CLUSTER && devs[1].max_running <= HI + CLUSTER,
	        "<= bound", got);
}

/* Two streamers for 10 s: one to the slow disk, one to the fast. */
static void writer_checks(const char *design, bool self)
{
	char got[160];
	int a, b;
	long want = (long)FAST * 1000 * 9 / 10;

	two_disks(design);
	spawn(daemon_thread);
	a = spawn_streamer(0, 4, 1, 1000);
	b = spawn_streamer(1, 4, 1, 1000);
	run_sampled(1000);
	snprintf(got, sizeof(got), "%ld bytes in 10 s (the disk's rate: %ld)", devs[1].done_bytes,
	         (long)FAST * 1000);
	verdict(design, self, "the fast disk's writer runs at its disk's rate (>= 90%) beside the "
	        "slow one's", devs[1].done_bytes >= want, ">= 90%", got);
	snprintf(got, sizeof(got), "slow disk max %d, fast disk max %d, bound %d", devs[0].max_running,
	         devs[1].max_running, HI + CLUSTER);
	verdict(design, self, "no disk holds more than its budget plus one cluster",
	        devs[0].max_running <= HI + CLUSTER && devs[1].max_running <= HI + CLUSTER,
	        "<= bound", got);
	if (!self)
		return;
	snprintf(got, sizeof(got), "slow writer waited %ld/%ld times (slow/fast disk), fast writer %ld/%ld",
	         th[a].wdrdev_sleeps[0], th[a].wdrdev_sleeps[1], th[b].wdrdev_sleeps[0],
	         th[b].wdrdev_sleeps[1]);
	verdict(design, self, "each writer waits only for the disk it writes to",
	        th[a].wdrdev_sleeps[0] > 0 && th[a].wdrdev_sleeps[1] == 0 && th[b].wdrdev_sleeps[0] == 0 &&
	        th[b].wdrdev_sleeps[1] > 0, "slow n/0, fast 0/n", got);
	check_int("perdevice: runningbufspace is the sum of the disks' counts at every tick",
	          sum_mismatches, 0);
}

/*
 * Four streamers to one disk of 3.3 MB/s, a cluster each every 5, 7, 11 and 13 ticks (more
 * than the disk takes), a budget of 4 clusters down to 1: some wait while others think, and
 * those arrive at every point of the drain, also while the disk has room.
 */
static void order_checks(void)
{
	static const int think[4] = { 5, 7, 11, 13 };
	char got[160];
	int first_bad = -1;
	long cut_in = 0, overtakes = 0;

	sim_reset("perdevice", 1);
	perdevice_auto = 0;
	dev_setup(0, 32768, 4 * CLUSTER, CLUSTER, 0);
	spawn(daemon_thread);
	for (int i = 0; i < 4; i++)
		spawn_streamer(0, 1, think[i], 2000);
	run_until(2000);
	for (int i = 0; i < nreleased && first_bad < 0; i++)
		if (wdrdev_released[i] != wdrdev_enqueued[i])
			first_bad = i;
	for (int i = 2; i < nthreads; i++) {
		cut_in += th[i].s_cut_in;
		overtakes += th[i].s_overtakes;
	}
	snprintf(got, sizeof(got), "%d releases of %d waits, first out of order at %d", nreleased,
	         nenqueued, first_bad);
	verdict("perdevice", true, "a disk's waiters are let go in the order they came",
	        nreleased > 20 && first_bad < 0, "all in order", got);
	snprintf(got, sizeof(got), "%ld arrivals found others waiting while the disk had room; %ld passed",
	         cut_in, overtakes);
	verdict("perdevice", true, "a newcomer never passes the writers already waiting",
	        cut_in > 0 && overtakes == 0, "some arrivals, 0 passed", got);
}

/* Writers asleep in wdrdev, for the slow disk. How many. */
static int asleep_in_wdrdev(void)
{
	int n = 0;

	for (int i = 0; i < nthreads; i++)
		n += th[i].sleeping && th[i].wmesg != NULL && strcmp(th[i].wmesg, "wdrdev") == 0 &&
		     th[i].chan != &rundevreq;
	return n;
}

/*
 * Three streamers to the slow disk, asleep in its queue when the design changes to the patch's:
 * perdevice_release_all must let every one go (each sees itself released), so none is left
 * asleep in wdrdev, where no one would wake it again.
 */
static void release_checks(void)
{
	char got[160];
	int before, after;

	two_disks("perdevice");
	spawn(daemon_thread);
	for (int i = 0; i < 3; i++)
		spawn_streamer(0, 4, 1, 1000);
	run_until(200);
	before = asleep_in_wdrdev();
	bd_set_design("runningbuf");
	run_until(220);
	after = asleep_in_wdrdev();
	snprintf(got, sizeof(got), "%d asleep in wdrdev before the switch, %d after", before, after);
	verdict("perdevice", true, "a design switch lets every writer waiting for a disk go",
	        before > 0 && after == 0, "some before, 0 after", got);
}

/* Within 5% of want? */
static bool near(int64_t got, int64_t want)
{
	return got * 100 >= want * 95 && got * 100 <= want * 105;
}

/* One streamer on one disk of `rate` bytes per tick, auto budgets: the estimate and budget. */
static void sizing_check(const char *what, long until, int64_t want_bw, int64_t want_hi)
{
	char got[160];
	int64_t bw, hi;

	run_until(until);
	bw = devs[0].rd.rd_bandwidth;
	hi = perdevice_hirunning(&devs[0].rd);
	snprintf(got, sizeof(got), "bandwidth %lld B/s (disk %lld), hirunning %lld (want %lld), lo %d",
	         (long long)bw, (long long)want_bw, (long long)hi, (long long)want_hi,
	         perdevice_lorunning(&devs[0].rd));
	verdict("self-sizing", true, what, near(bw, want_bw) && near(hi, want_hi) &&
	        perdevice_lorunning(&devs[0].rd) == hi / 2, "within 5%, lo = hi / 2", got);
}

static void sizing_scene(int rate, int target_ms, int maxspace)
{
	sim_reset("perdevice", 1);
	dev_setup(0, rate, HI, LO, 20 * 1000 * 1000);
	perdevice_target_ms = target_ms;
	perdevice_maxspace = maxspace;
	spawn(daemon_thread);
	spawn_streamer(0, 4, 1, 1L << 30);
}

static void sizing_checks(void)
{
	sizing_scene(FAST, 50, 4 * 1024 * 1024);
	sizing_check("converges on a 13.1 MB/s disk in 20 s (budget = rate x 50 ms)",
	             2000, (int64_t)FAST * 100, (int64_t)FAST * 100 / 20);
	devs[0].rate = 32768;
	sizing_check("follows the disk down to 3.3 MB/s in 20 s", 4000, 32768LL * 100,
	             32768LL * 100 / 20);
	devs[0].rate = FAST;
	sizing_check("and back up to 13.1 MB/s in 20 s", 6000, (int64_t)FAST * 100,
	             (int64_t)FAST * 100 / 20);

	sizing_scene(8192, 50, 4 * 1024 * 1024);
	sizing_check("floor of one cluster on a 0.8 MB/s disk", 2000, 8192LL * 100,
	             PERDEVICE_MINSPACE);
	sizing_scene(FAST, 200, 1024 * 1024);
	sizing_check("ceiling perdevice_maxspace (1 MB here) at 200 ms", 2000,
	             (int64_t)FAST * 100, 1024 * 1024);
}

/* rundev_estimate's arithmetic, and a window too short to say anything. */
static void estimate_checks(void)
{
	struct rd_charge rc;
	struct rundev rd;

	check_int("estimate: a sample over the whole period replaces the estimate",
	          rundev_estimate(1000, 5000, RD_PERIOD_NS), 5000);
	check_int("estimate: a 200 ms sample weighs 1/15 against a 3 s memory",
	          rundev_estimate(1500000, 0, 200000000ull), 1400000);
	rundev_init(&rd, "t", HI, LO, 777, 0);
	rc.rc_n = 1;
	rc.rc_dev[0].rd = &rd;
	rc.rc_dev[0].bytes = 4096;
	rundev_charge(&rc, 200000000ull);
	rundev_done(&rd, 4096, 210000000ull);
	check_int("estimate: a window with 10 ms of busy time (< 20 ms) leaves the estimate alone",
	          rd.rd_bandwidth, 777);
	rundev_init(&rd, "t", HI, LO, 777, 0);
	rd.rd_running = 100000;
	rd.rd_busy_since = 0;
	rundev_done(&rd, 100000, 250000000ull);
	check_int("estimate: a window of 250 ms busy moves it toward 400 KB/s by 250/3000",
	          rd.rd_bandwidth, (400000LL * 250000 + 777LL * 2750000) / 3000000);
}

int main(void)
{
	estimate_checks();
	daemon_checks("perdevice", true);
	daemon_checks("runningbuf", false);
	stripe_checks("perdevice", true);
	stripe_checks("runningbuf", false);
	writer_checks("perdevice", true);
	writer_checks("runningbuf", false);
	order_checks();
	release_checks();
	sizing_checks();
	return unit_exit();
}
