/*
 * vfs_rundev.c - write bytes in flight per disk, and each disk's measured completion rate
 * (interface and contract: vfs/rundev.h). Pure C; every function but rundev_estimate is
 * called with the buffer cache's lock held. What a budget is and who waits for it is the
 * perdevice design's (vfs/vfs_bufdaemon.c).
 */
#include <stddef.h>
#include "vfs/rundev.h"

static struct rundev *rundev_list, *rundev_tail;

void rundev_init(struct rundev *rd, const char *name, int hi, int lo, int64_t bw, uint64_t now)
{
	*rd = (struct rundev){ .rd_name = name, .rd_hirunning = hi, .rd_lorunning = lo,
	                       .rd_bandwidth = bw, .rd_win_start = now, .rd_busy_since = now,
	                       .rd_swin_start = now, .rd_swin_least = UINT64_MAX };
}

/* Records are never removed: disks are never unregistered. */
void rundev_register(struct rundev *rd)
{
	rd->rd_next = NULL;
	if (rundev_tail != NULL)
		rundev_tail->rd_next = rd;
	else
		rundev_list = rd;
	rundev_tail = rd;
}

struct rundev *rundev_first(void)
{
	return rundev_list;
}

/* Add the time since rd_busy_since to the window if the disk had writes in flight. */
static void rundev_busy_tick(struct rundev *rd, uint64_t now)
{
	if (rd->rd_running > 0 && now > rd->rd_busy_since)
		rd->rd_win_busy += now - rd->rd_busy_since;
	rd->rd_busy_since = now;
}

void rundev_charge(const struct rd_charge *rc, uint64_t now)
{
	for (int i = 0; i < rc->rc_n; i++) {
		struct rundev *rd = rc->rc_dev[i].rd;

		rundev_busy_tick(rd, now);
		rd->rd_running += rc->rc_dev[i].bytes;
		rd->rd_charged += (uint64_t)rc->rc_dev[i].bytes;
	}
}

/*
 * rundev_estimate: the estimate after a window whose sample (bytes/s) was measured over
 * busy_ns of busy time: a weighted mean with the old estimate over RD_PERIOD_NS (the sample
 * alone if it covers the whole period). Weights in microseconds, so nothing overflows below
 * 2^63 / 3e6 bytes/s.
 */
int64_t rundev_estimate(int64_t bw, int64_t sample, uint64_t busy_ns)
{
	int64_t busy_us = (int64_t)(busy_ns / 1000), period_us = (int64_t)(RD_PERIOD_NS / 1000);

	if (busy_us >= period_us)
		return sample;
	return (sample * busy_us + bw * (period_us - busy_us)) / period_us;
}

/* Close the window that began at rd_win_start: one sample, if it had busy time enough. */
static void rundev_window(struct rundev *rd, uint64_t now)
{
	if (rd->rd_win_busy >= RD_MINBUSY_NS) {
		int64_t sample = (int64_t)((uint64_t)rd->rd_win_bytes * 1000000000ull / rd->rd_win_busy);

		rd->rd_bandwidth = rundev_estimate(rd->rd_bandwidth, sample, rd->rd_win_busy);
		rd->rd_samples++;
	}
	rd->rd_win_start = now;
	rd->rd_win_busy = 0;
	rd->rd_win_bytes = 0;
}

void rundev_done(struct rundev *rd, int bytes, uint64_t now)
{
	rundev_busy_tick(rd, now);
	rd->rd_running -= bytes;
	rd->rd_win_bytes += bytes;
	if (now - rd->rd_win_start >= RD_INTERVAL_NS)
		rundev_window(rd, now);
}

void rundev_enqueue(struct rundev *rd, struct rd_waiter *w)
{
	w->rw_next = NULL;
	w->rw_released = false;
	if (rd->rd_wtail != NULL)
		rd->rd_wtail->rw_next = w;
	else
		rd->rd_whead = w;
	rd->rd_wtail = w;
	rd->rd_nwait++;
}

struct rd_waiter *rundev_dequeue(struct rundev *rd)
{
	struct rd_waiter *w = rd->rd_whead;

	if (w == NULL)
		return NULL;
	rd->rd_whead = w->rw_next;
	if (rd->rd_whead == NULL)
		rd->rd_wtail = NULL;
	rd->rd_nwait--;
	return w;
}

void rundev_sync(struct rundev *rd, uint64_t ns)
{
	rd->rd_swin_n++;
	if (ns < rd->rd_swin_least)
		rd->rd_swin_least = ns;
}

/* How many synchronous requests the window saw (*least_ns: the least latency, if any). */
int rundev_sync_window(struct rundev *rd, uint64_t now, uint64_t *least_ns)
{
	int n = rd->rd_swin_n;

	*least_ns = rd->rd_swin_least;
	rd->rd_swin_start = now;
	rd->rd_swin_n = 0;
	rd->rd_swin_least = UINT64_MAX;
	return n;
}
