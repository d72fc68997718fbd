/*
 * vfs_syncer.c - the "syncer" kernel thread: writes data that has stayed dirty too long.
 *
 * FreeBSD 4's syncer (kern/vfs_subr.c sched_sync) keeps a wheel of vnodes with dirty buffers
 * and, once a second, fsyncs the vnodes whose turn came, so nothing stays dirty much longer
 * than syncdelay (30 s; kern.filedelay/dirdelay/metadelay refine it per kind of vnode).
 * wdrain's syncer keeps the same promise more simply:
 *   - every second it starts the writes (bawrite) of the buffers dirty for syncdelay seconds
 *     or more (buf_flush_aged);
 *   - every syncdelay seconds it asks each mounted file system to sync its metadata
 *     (VFS_SYNC, MNT_NOWAIT), as FreeBSD's per-mount syncer vnode does.
 * sync(2) does not go through this thread: it calls vfs_sync_all() directly.
 * speedup_syncer() is FreeBSD 4's (kern/vfs_subr.c; the pageout daemon calls it when it had to
 * pass over dirty pages of locked vnodes and memory is at its minimum): it wakes the syncer and
 * makes it run up to syncdelay/2 one-second steps ahead without sleeping (rushjob), so the
 * next VFS_SYNC, and vm_object_sync_all with it, comes that much sooner.
 *
 * Locking: rushjob is changed with atomic operations; syncdelay is a plain tunable.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/sleep.h"
#include "kern/time.h"
#include "kern/sysctl.h"
#include "vfs/vfs.h"

static int syncdelay = 30;
SYSCTL_INT(kern, syncdelay, CTLFLAG_RW, &syncdelay, "Seconds data may stay dirty before the syncer writes it");

static int syncer_chan;     /* the syncer's sleep channel (speedup_syncer wakes it) */
static int rushjob;         /* steps to run ahead without sleeping (atomic) */
static int rush_requests;   /* speedup_syncer calls that added a step */
SYSCTL_INT(debug, rush_requests, CTLFLAG_RD, &rush_requests, "Times the syncer was asked to run ahead (speedup_syncer)");

int speedup_syncer(void)
{
	wakeup(&syncer_chan);
	int r = __atomic_load_n(&rushjob, __ATOMIC_RELAXED);
	while (r < syncdelay / 2) {
		if (__atomic_compare_exchange_n(&rushjob, &r, r + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
			__atomic_add_fetch(&rush_requests, 1, __ATOMIC_RELAXED);
			return 1;
		}
	}
	return 0;
}

/* Whether to skip the next second's sleep: a step of rushjob is due. */
static bool syncer_rush(void)
{
	int r = __atomic_load_n(&rushjob, __ATOMIC_RELAXED);
	while (r > 0)
		if (__atomic_compare_exchange_n(&rushjob, &r, r - 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			return true;
	return false;
}

static void sched_sync(void *arg __unused)
{
	int seconds = 0;
	int delay;

	for (;;) {
		if (!syncer_rush())
			tsleep(&syncer_chan, 0, "syncer", HZ);
		delay = MAX(syncdelay, 1);
		buf_flush_aged((uint32_t)delay * HZ);
		if (++seconds >= delay) {
			seconds = 0;
			vfs_sync_lazy();
		}
	}
}

/* syncer_start: start the "syncer" kernel thread. */
void syncer_start(void)
{
	if (kproc_create(sched_sync, NULL, NULL, "syncer") != 0)
		panic("syncer_start: cannot create the syncer thread");
}
