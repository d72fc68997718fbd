/*
 * Host unit tests of the syncfirst buf_daemon design (kernel/vfs/vfs_bufdaemon.c's fourth
 * section, compiled in), in the simulation of bufdaemon_sim.h: a disk of 3.3 MB/s (a 128 KB
 * cluster takes 4 ticks), a fixed budget of 4 MB (32 clusters) so that the writes in flight are
 * many more than the drive may hold, a streamer that keeps the budget full, and syncers: a
 * process that writes a block synchronously and waits for it (one tick of the drive's time).
 * The target is 100 ms (10 ticks) here, so that one depth is within it and twice that is not:
 * a synchronous request behind two clusters waits 9 ticks, behind four 17.
 *
 * What the design promises, and the scene that checks it:
 *   - a synchronous request waits only for the writes at the drive, never for the host queue
 *     (the rest of the budget): its latency is at most the depth's clusters plus its own cost;
 *   - the drive never holds more asynchronous writes than the disk's depth;
 *   - under a synchronous load whose latency is over the target, the depth is cut (halved per
 *     window) until the latency is within it, never below mindepth;
 *   - when only writes are seen again, the depth comes back to maxdepth (doubled per window);
 *   - the writer's own rare synchronous requests (one in a window, shorter than it) never cut
 *     it, while a single one longer than the window does (the control for this promise: no
 *     other design cuts anything to fail it);
 *   - fsync's writes (rc_waited) never wait for a disk's budget;
 *   - perdevice's budget holds: the disk never has more than its budget plus one cluster;
 *   - a design switch gives the disks' queues the new design's discipline.
 * Each is also checked to FAIL under perdevice (the negative control: the same budgets, FreeBSD
 * 4's queue, nothing that moves), except the switch and the budget, which are perdevice's too.
 */
#include "bufdaemon_sim.h"

#define RATE     32768                 /* bytes per tick: 3.3 MB/s, 4 ticks a cluster */
#define BUDGET   (32 * CLUSTER)
#define CL_TICKS (CLUSTER / RATE)
#define TARGET   100                   /* ms: 10 ticks */

/* One disk with a fixed budget of BUDGET, the target TARGET, under `design`. */
static void one_disk(const char *design)
{
	sim_reset(design, 1);
	perdevice_auto = 0;
	syncfirst_target_ms = TARGET;
	dev_setup(0, RATE, BUDGET, BUDGET / 2, 0);
}

/* A maxdepth of `depth`, disk 0 at it. */
static void set_maxdepth(int depth)
{
	syncfirst_maxdepth = depth;
	devs[0].rd.rd_depth = depth;
	bufq_lock();
	bd_disk_requeue(&devs[0].rd);
	bufq_unlock();
}

/* The depth of disk 0 sampled every tick from now to `until`: its least and greatest. */
static void run_depth(long until, int *least, int *most)
{
	*least = *most = devs[0].rd.rd_depth;
	for (long t = now + 1; t <= until; t++) {
		run_until(t);
		if (devs[0].rd.rd_depth < *least)
			*least = devs[0].rd.rd_depth;
		if (devs[0].rd.rd_depth > *most)
			*most = devs[0].rd.rd_depth;
	}
}

/*
 * A streamer and a syncer every 50 ticks (never two in a window: the depth stays at maxdepth,
 * 8 here): the synchronous requests' longest wait, and the drive's fullest.
 */
static void wait_checks(const char *design, bool self)
{
	char got[160];
	long bound = 8 * CL_TICKS + sync_cost + 1;
	int y;

	one_disk(design);
	set_maxdepth(8);
	spawn(daemon_thread);
	spawn_streamer(0, 4, 1, 2000);
	y = spawn_syncer(0, 50, 2000);
	run_until(2000);
	snprintf(got, sizeof(got), "%ld requests, the longest waited %ld ticks (bound %ld; the budget "
	         "is %d ticks of writes)", th[y].y_n, th[y].y_max, bound, BUDGET / RATE);
	verdict(design, self, "a synchronous request waits only for the writes at the drive (its depth)",
	        th[y].y_n > 10 && th[y].y_max <= bound, "<= bound", got);
	if (!self)
		return;
	snprintf(got, sizeof(got), "at most %d async writes at the drive (depth 8)", devs[0].max_async);
	verdict(design, self, "the drive never holds more asynchronous writes than the depth",
	        devs[0].max_async > 0 && devs[0].max_async <= 8, "1 .. 8", got);
	snprintf(got, sizeof(got), "disk max %d, bound %d", devs[0].max_running, BUDGET + CLUSTER);
	verdict(design, self, "the disk never holds more than perdevice's budget plus one cluster",
	        devs[0].max_running <= BUDGET + CLUSTER, "<= bound", got);
}

/*
 * The writer alone, with a synchronous request of its own now and then (a new indirect block:
 * one every 25 ticks, never two in a window), on a disk of 13 MB/s (a cluster a tick) at a
 * maxdepth of 6: each waits 7 ticks, within the window, and the depth is never cut. The
 * control: on the slow disk (4 ticks a cluster) the same request waits 25 ticks, longer than
 * the window, which counts as a violation even alone (wbt's rule), and the depth is cut.
 */
static void alone_checks(void)
{
	char got[160];
	int least, most, y;

	for (int rate = 4 * RATE; rate >= RATE; rate /= 4) {
		one_disk("syncfirst");
		devs[0].rate = rate;
		set_maxdepth(6);
		spawn(daemon_thread);
		spawn_streamer(0, 4, 1, 2000);
		y = spawn_syncer(0, 25, 2000);
		run_depth(2000, &least, &most);
		snprintf(got, sizeof(got), "%ld requests, the longest waited %ld ticks; depth %d .. %d, %llu cuts",
		         th[y].y_n, th[y].y_max, least, most, (unsigned long long)devs[0].rd.rd_cuts);
		if (rate != RATE)
			verdict("syncfirst", true, "a writer alone, whose own synchronous requests are rare and "
			        "shorter than the window, never has its depth cut", th[y].y_n > 20 && least == 6,
			        "depth 6 throughout", got);
		else
			verdict("syncfirst", true, "control: the same request longer than the window (a slow "
			        "disk) counts alone, and cuts the depth", devs[0].rd.rd_cuts > 0, "cuts", got);
	}
}

/*
 * A streamer and a syncer every 3 ticks (a synchronous load) for 10 s, then the streamer alone
 * for 2 s: the depth falls while the latency is over the target and comes back after.
 */
static void cut_checks(const char *design, bool self)
{
	char got[200];
	int least, most, back_least, back_most, y;
	long n0, sum0, n, mean;

	one_disk(design);
	spawn(daemon_thread);
	spawn_streamer(0, 4, 1, 1600);
	y = spawn_syncer(0, 3, 1000);
	run_depth(500, &least, &most);
	n0 = th[y].y_n;
	sum0 = th[y].y_sum;
	run_until(1000);
	n = th[y].y_n - n0;
	mean = n > 0 ? (th[y].y_sum - sum0) / n : -1;
	snprintf(got, sizeof(got), "depth %d .. %d from %d, %llu cuts; the last 5 s' %ld synchronous requests "
	         "waited %ld ticks on average (target %d)", least, most, syncfirst_maxdepth,
	         (unsigned long long)devs[0].rd.rd_cuts, n, mean, TARGET / 10);
	verdict(design, self, "a synchronous load over the target cuts the depth until it is within it",
	        devs[0].rd.rd_cuts > 0 && least >= syncfirst_mindepth && n > 0 && mean <= TARGET / 10,
	        "cut, mean within target", got);
	run_depth(1300, &back_least, &back_most);
	snprintf(got, sizeof(got), "depth %d 3 s after the synchronous load stopped (maxdepth %d), %llu raises",
	         devs[0].rd.rd_depth, syncfirst_maxdepth, (unsigned long long)devs[0].rd.rd_raises);
	verdict(design, self, "with writes alone the depth comes back to maxdepth",
	        devs[0].rd.rd_raises > 0 && devs[0].rd.rd_depth == syncfirst_maxdepth, "back at maxdepth", got);
	if (self)
		check_int("syncfirst: the depth never falls below mindepth", least >= syncfirst_mindepth, true);
}

/*
 * A streamer whose writes are fsync's (rc_waited) beside one that keeps the budget full: the
 * first never waits in wdrdev.
 */
static void waited_checks(const char *design, bool self)
{
	char got[120];
	int f;

	one_disk(design);
	spawn(daemon_thread);
	spawn_streamer(0, 4, 1, 1000);
	f = spawn_streamer(0, 1, 5, 1000);
	th[f].s_waited = true;
	run_until(1000);
	snprintf(got, sizeof(got), "it slept %ld times in wdrdev, the other writer %ld",
	         th[f].wdrdev_sleeps[0], th[f - 1].wdrdev_sleeps[0]);
	verdict(design, self, "fsync's writes never wait for a disk's budget",
	        th[f].wdrdev_sleeps[0] == 0 && th[f - 1].wdrdev_sleeps[0] > 0, "0, the other > 0", got);
}

/* The design switch: to the patch's and back, with writes held in the host queue. */
static void switch_checks(void)
{
	one_disk("syncfirst");
	spawn(daemon_thread);
	spawn_streamer(0, 4, 1, 1000);
	run_until(100);
	check_int("syncfirst: its disks' queues have the synchronous class", devs[0].syncfirst, true);
	check_int("syncfirst: writes wait in the host queue beyond the depth",
	          devs[0].qtail - devs[0].qhead > 0, true);
	check_int("syncfirst: switch to runningbuf accepted", bd_set_design("runningbuf"), true);
	check_int("syncfirst: after the switch the queues are FreeBSD 4's", devs[0].syncfirst, false);
	check_int("syncfirst: ... and the host queue's writes went to the drive",
	          devs[0].qtail - devs[0].qhead, 0);
	run_until(300);
	check_int("syncfirst: switch back accepted", bd_set_design("syncfirst"), true);
	check_int("syncfirst: the class is on again at maxdepth",
	          devs[0].syncfirst && devs[0].depth == syncfirst_maxdepth, true);
	run_until(400);
	check_int("syncfirst: its daemon's loop runs", bdstats.syncfirst_loops > 0, true);
}

int main(void)
{
	wait_checks("syncfirst", true);
	wait_checks("perdevice", false);
	alone_checks();
	cut_checks("syncfirst", true);
	cut_checks("perdevice", false);
	waited_checks("syncfirst", true);
	waited_checks("perdevice", false);
	switch_checks();
	return unit_exit();
}
