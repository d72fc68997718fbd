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
 *
 * Locking: none of its own; syncdelay is a plain tunable.
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

static int syncer_chan;     /* the syncer's sleep channel (no one wakes it: it is periodic) */

static void sched_sync(void *arg __unused)
{
	int seconds = 0;
	int delay;

	for (;;) {
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
