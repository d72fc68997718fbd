/*
 * Host unit tests of the buf_daemon's two designs of December 2000 (kernel/vfs/vfs_bufdaemon.c,
 * compiled in), driven by the discrete-event simulation of tests/unit/bufdaemon_sim.h: a writer
 * that dirties buffers faster than the disk can take them (and calls bwillwrite first, as
 * write(2) does), a disk that completes writes in order at a fixed rate, and the daemon itself.
 * The counters are synthetic: 390/195 dirty buffers (128 MB's hi/lo), 1 MB/512 KB in flight,
 * maxbdrun 16, 8 KB buffers, a 4 MB/s disk. The third design, perdevice, has its own file
 * (test_perdevice.c).
 *
 * What each design promises, checked on itself - and checked to FAIL on the other design (the
 * "negative control" lines), so the tests tell the designs apart:
 *   runningbuf: runningbufspace never above hirunningspace plus one cluster; six writers
 *               streaming clusters, woken together, leave wdrain only at or below
 *               hirunningspace (each tests the bound again after its wakeup); the daemon never
 *               disarms (bd_request 0) while numdirtybuffers > lodirtybuffers, not even when a
 *               flush finds nothing it may take (it retries, "qsleep", and drains once it can);
 *               writers blocked in flswai are woken by the midpoint (before the drain reaches
 *               lodirtybuffers).
 *   speedup:    at most maxbdrun flushes between two sleeps of the daemon; after an early
 *               wakeup bd_flushto falls (or stays at its floor, 2) and so does bd_interval; after
 *               a full sleep they rise (bd_flushto up to hidirtybuffers).
 * And the switch between designs at run time.
 */
#include "bufdaemon_sim.h"

/* ---- the checks ---------------------------------------------------------------------------- */

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

	/* Six writers streaming bursts of 4 clusters to one disk for 2 s: all are woken together at
	   lorunningspace, and each must test the bound again before it goes on (the others may have
	   filled it). */
	sim_reset(design, 1);
	spawn(daemon_thread);
	for (int i = 0; i < 6; i++)
		spawn_streamer(0, 4, 1, 200);      /* at most 4800 clusters: the sim's disk holds 8192 */
	run_until(600);
	snprintf(got, sizeof(got), "%d of %d left wdrain above hirunningspace", wdrain_left_above_hi, wdrain_leaves);
	verdict(design, self, "six streaming writers wait in wdrain and leave it only at or below hirunningspace",
	        wdrain_leaves > 0 && wdrain_left_above_hi == 0, "waits, none left above hi", got);

	/* No dirty buffer may be taken for the first 5 s (a flush finds nothing, above lo): the
	   daemon must stay armed, retrying, and drain to lo once they can be taken. */
	sim_reset(design, 1);
	writer_bufs = 16;
	writer_stop = 300;
	pinned_until = 500;
	spawn(daemon_thread);
	spawn(writer);
	run_until(3000);
	snprintf(got, sizeof(got), "%d of %d daemon sleeps disarmed above lo; %d dirty at the end (lo %d)",
	         disarmed_above_lo, daemon_sleeps, numdirtybuffers, lodirtybuffers);
	verdict(design, self, "finding nothing to flush above lodirtybuffers, it stays armed and drains later",
	        disarmed_above_lo == 0 && numdirtybuffers <= lodirtybuffers, "0 disarmed above lo, drained", got);
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
	check_int("switch: unknown design refused", bd_set_design("nosuchdesign"), false);
	check_int("switch: to runningbuf accepted", bd_set_design("runningbuf"), true);
	run_until(1500);
	check_int("switch: speedup's loop stopped (at most its current round after)",
	          (long long)(bdstats.speedup_loops - sl) <= 1, true);
	check_int("switch: runningbuf's loop runs", bdstats.runningbuf_loops > rl, true);
	check_int("switch: counted once", (long long)bdstats.design_switches, 2);
	/* runningbuf's round ends only once it has drained to lo: after the writer stops (3000). */
	check_int("switch: to perdevice accepted", bd_set_design("perdevice"), true);
	run_until(3500);
	rl = bdstats.runningbuf_loops;
	run_until(4500);
	check_int("switch: runningbuf's loop stopped",
	          (long long)(bdstats.runningbuf_loops - rl), 0);
	check_int("switch: perdevice's loop runs", bdstats.perdevice_loops > 0, true);
	check_str("switch: the design's name", bd_design_name(), "perdevice");
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
