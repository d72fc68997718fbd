/*
 * vfs_bio_rundev.c - the buffer cache's side of the per-disk write budgets (the accounting is
 * vfs/vfs_rundev.c, the perdevice design's decisions vfs/vfs_bufdaemon.c; docs/bufcache.md
 * "The perdevice design"):
 *   rundev_boot()                 bufinit: the budgets' ceiling, and a struct rundev with its
 *                                 sysctls for every disk, now and as disks register (disk_watch).
 *   buf_charge(rc, dp, blkno, n)  a write of n bytes at block blkno of dp: rc becomes the disks
 *                                 it goes to (disk_map: a ccd's components) with their shares,
 *                                 and each is charged.                              [lock held]
 *   buf_reach(bp, rc)             the disks a cluster written through dirty buffer bp could
 *                                 reach: the daemon tests their budgets before it takes bp.
 *                                                                                   [lock held]
 *   bd_disk_queue(rd, syncfirst, depth)   the design's discipline for rd's disk queue.
 *                                                                                   [lock held]
 *   bd_curwait(), buf_wait_begin(bp)  the current process's wait record, and the start of its
 *                                 wait for bp's I/O (biowait) on the disks bp maps to. [no lock]
 * Sysctls: vfs.perdevice.auto, vfs.perdevice.target_ms (read-write), vfs.perdevice.maxspace
 * (read-only), and for each disk vfs.perdevice.<disk>.{runningbufspace, hirunningspace,
 * lorunningspace, bandwidth, charged, sleeps, wait_ns, skips, samples}. A disk's hi/lo read as
 * the budget in effect; they are read-only while vfs.perdevice.auto is 1 (EPERM: the kernel
 * sizes them), settable while it is 0. The syncfirst design's: vfs.syncfirst.{target_ms,
 * maxdepth, mindepth} (read-write) and for each disk vfs.syncfirst.<disk>.{depth, cuts, raises}.
 * The block layer's watcher of synchronous requests (disk_sync_watch) hands each to the design,
 * and its watcher of waits (disk_wait_watch) each disk_io_sync wait. The wanted design's:
 * vfs.wanted.depth (read-write) and for each disk vfs.wanted.<disk>.{waiters, waits, wanted_ns}.
 *
 * Locking: bufcache_lock protects every struct rundev, perdevice_auto, perdevice_target_ms and
 * the syncfirst tunables (a sysctl write takes it).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/proc.h"
#include "kern/sysctl.h"
#include "kern/time.h"
#include "vfs/buf.h"
#include "vfs/buf_internal.h"
#include "vfs/bufdaemon.h"
#include "vfs/vnode.h"
#include <sys/errno.h>

#define TARGET_MS_MAX 10000
#define DEPTH_MAX     256          /* the most openings a driver offers (virtio-SCSI's ring) */

int perdevice_auto = 1;
int perdevice_target_ms = 50;      /* docs/bufcache.md "The perdevice design" says why */
int perdevice_maxspace;            /* rundev_boot: the cluster headers' bytes */
int syncfirst_target_ms = 20;      /* docs/bufcache.md "The syncfirst design" says why */
int syncfirst_maxdepth = 32;
int syncfirst_mindepth = 2;
int wanted_depth = 8;              /* docs/bufcache.md "The wanted design" says why */
int wanted_linger_ms = 100;        /* likewise */
int wanted_budget = 0;             /* likewise */

/* vfs.perdevice.auto: 1 or 0. Going to 0 freezes every budget where the sizing left it. */
static int sysctl_perdevice_auto(struct sysctl_req *req)
{
	int v = perdevice_auto, error = sysctl_handle_int(req, &v);

	if (error != 0 || req->newptr == NULL)
		return error;
	if (v != 0 && v != 1)
		return EINVAL;
	spin_lock(&bufcache_lock);
	if (perdevice_auto && !v) {
		for (struct rundev *rd = rundev_first(); rd != NULL; rd = rd->rd_next) {
			rd->rd_hirunning = perdevice_hirunning(rd);
			rd->rd_lorunning = perdevice_lorunning(rd);
		}
	}
	perdevice_auto = v;
	perdevice_release_all();
	spin_unlock(&bufcache_lock);
	return 0;
}
SYSCTL_PROC(vfs_perdevice_auto, "vfs.perdevice.auto", CTLTYPE_INT | CTLFLAG_RW, NULL, 0,
            sysctl_perdevice_auto, "I",
            "perdevice design: 1 = each disk's budget follows its measured rate, 0 = fixed budgets");

/* vfs.perdevice.target_ms: 1 .. TARGET_MS_MAX. */
static int sysctl_perdevice_target(struct sysctl_req *req)
{
	int v = perdevice_target_ms, error = sysctl_handle_int(req, &v);

	if (error != 0 || req->newptr == NULL)
		return error;
	if (v < 1 || v > TARGET_MS_MAX)
		return EINVAL;
	spin_lock(&bufcache_lock);
	perdevice_target_ms = v;
	spin_unlock(&bufcache_lock);
	return 0;
}
SYSCTL_PROC(vfs_perdevice_target_ms, "vfs.perdevice.target_ms", CTLTYPE_INT | CTLFLAG_RW, NULL, 0,
            sysctl_perdevice_target, "I",
            "perdevice design: queueing delay (ms) a self-sized budget holds at the measured rate");
SYSCTL_DECL_OID(sysctl_vfs_perdevice_maxspace, "vfs.perdevice.maxspace", CTLTYPE_INT | CTLFLAG_RD,
                &perdevice_maxspace, 0, NULL, "I",
                "perdevice design: most bytes a self-sized budget allows (cluster headers x MAXPHYS)");

/*
 * vfs.syncfirst.target_ms (1 .. TARGET_MS_MAX), maxdepth and mindepth (1 .. DEPTH_MAX, min <=
 * max): arg1 is the variable. A new range takes every disk's depth into it.
 */
static int sysctl_syncfirst(struct sysctl_req *req)
{
	int *var = req->oid->oid_arg1, v = *var, error = sysctl_handle_int(req, &v);
	int lo = var == &syncfirst_mindepth ? v : syncfirst_mindepth;
	int hi = var == &syncfirst_maxdepth ? v : syncfirst_maxdepth;

	if (error != 0 || req->newptr == NULL)
		return error;
	if (var == &syncfirst_target_ms ? v < 1 || v > TARGET_MS_MAX : lo < 1 || hi > DEPTH_MAX || lo > hi)
		return EINVAL;
	spin_lock(&bufcache_lock);
	*var = v;
	for (struct rundev *rd = rundev_first(); rd != NULL; rd = rd->rd_next) {
		rd->rd_depth = MAX(lo, MIN(rd->rd_depth, hi));
		bd_disk_requeue(rd);
	}
	spin_unlock(&bufcache_lock);
	return 0;
}
SYSCTL_PROC(vfs_syncfirst_target_ms, "vfs.syncfirst.target_ms", CTLTYPE_INT | CTLFLAG_RW,
            &syncfirst_target_ms, 0, sysctl_syncfirst, "I",
            "syncfirst design: synchronous latency (ms) above which a disk's depth is halved");
SYSCTL_PROC(vfs_syncfirst_maxdepth, "vfs.syncfirst.maxdepth", CTLTYPE_INT | CTLFLAG_RW,
            &syncfirst_maxdepth, 0, sysctl_syncfirst, "I",
            "syncfirst design: async writes a drive may hold while only writes are seen");
SYSCTL_PROC(vfs_syncfirst_mindepth, "vfs.syncfirst.mindepth", CTLTYPE_INT | CTLFLAG_RW,
            &syncfirst_mindepth, 0, sysctl_syncfirst, "I",
            "syncfirst design: the fewest async writes a cut leaves a drive");

/* vfs.wanted.depth: 1 .. DEPTH_MAX; every disk's queue takes it (if the design is wanted). */
static int sysctl_wanted_depth(struct sysctl_req *req)
{
	int v = wanted_depth, error = sysctl_handle_int(req, &v);

	if (error != 0 || req->newptr == NULL)
		return error;
	if (v < 1 || v > DEPTH_MAX)
		return EINVAL;
	spin_lock(&bufcache_lock);
	wanted_depth = v;
	for (struct rundev *rd = rundev_first(); rd != NULL; rd = rd->rd_next)
		bd_disk_requeue(rd);
	spin_unlock(&bufcache_lock);
	return 0;
}
SYSCTL_PROC(vfs_wanted_depth, "vfs.wanted.depth", CTLTYPE_INT | CTLFLAG_RW, NULL, 0,
            sysctl_wanted_depth, "I",
            "wanted design: async writes a drive may hold while a process waits for I/O on it");

/*
 * vfs.wanted.linger_ms (0 .. TARGET_MS_MAX) and vfs.wanted.budget (0 or 1): arg1 is the variable,
 * read at each decision. Turning the budget off lets every writer waiting for one go.
 */
static int sysctl_wanted(struct sysctl_req *req)
{
	int *var = req->oid->oid_arg1, v = *var, error = sysctl_handle_int(req, &v);

	if (error != 0 || req->newptr == NULL)
		return error;
	if (v < 0 || v > (var == &wanted_budget ? 1 : TARGET_MS_MAX))
		return EINVAL;
	spin_lock(&bufcache_lock);
	*var = v;
	perdevice_release_all();
	spin_unlock(&bufcache_lock);
	return 0;
}
SYSCTL_PROC(vfs_wanted_linger_ms, "vfs.wanted.linger_ms", CTLTYPE_INT | CTLFLAG_RW, &wanted_linger_ms, 0,
            sysctl_wanted, "I",
            "wanted design: ms a disk stays cut after the wait of a process that is not writing");
SYSCTL_PROC(vfs_wanted_budget, "vfs.wanted.budget", CTLTYPE_INT | CTLFLAG_RW, &wanted_budget, 0,
            sysctl_wanted, "I",
            "wanted design: 1 = perdevice's budget binds while a disk is cut, 0 = never");

/* bd_disk_queue: see vfs/bufdaemon.h (bufcache_lock, then the disk's d_qlock). */
void bd_disk_queue(struct rundev *rd, bool syncfirst, int depth)
{
	disk_set_syncfirst(rd->rd_disk, syncfirst);
	disk_set_depth(rd->rd_disk, depth);
}

/* The block layer's watcher: a synchronous request completed at dp, ns after it arrived. */
static void rundev_sync_done(struct disk *dp, uint64_t ns)
{
	if (dp->d_rundev == NULL)
		return;
	spin_lock(&bufcache_lock);
	bd_sync_done(dp->d_rundev, ns);
	spin_unlock(&bufcache_lock);
}

/* ---- charging ------------------------------------------------------------------------------ */

/* rc: the disks bytes [off, off+len) of dp reach, with their shares (a disk without a budget,
 * whose rundev could not be allocated, is left out). */
static void rundev_map(struct rd_charge *rc, struct disk *dp, uint64_t off, uint64_t len)
{
	struct disk_piece pieces[DISK_MAXPIECES];
	int n = disk_map(dp, off, len, pieces, DISK_MAXPIECES);

	rc->rc_waited = false;
	rc->rc_n = 0;
	for (int i = 0; i < n && rc->rc_n < RD_MAXDEV; i++) {
		if (pieces[i].dp_disk->d_rundev == NULL)
			continue;
		rc->rc_dev[rc->rc_n].rd = pieces[i].dp_disk->d_rundev;
		rc->rc_dev[rc->rc_n++].bytes = (int)pieces[i].dp_bytes;
	}
}

/* buf_charge: see the top. No disk (a vnode with none): nothing is charged. */
void buf_charge(struct rd_charge *rc, struct disk *dp, daddr_t blkno, int bytes)
{
	if (dp == NULL) {
		*rc = (struct rd_charge){ .rc_n = 0 };
		return;
	}
	rundev_map(rc, dp, (uint64_t)blkno * DEV_BSIZE, (uint64_t)bytes);
	rundev_charge(rc, nanouptime());
}

/*
 * buf_reach: a cluster through bp (vfs_bio_awrite) holds at most MAXPHYS bytes of contiguous
 * blocks and may start up to MAXPHYS - b_bufsize bytes before bp: the disks of that whole span
 * (a ccd may put its ends on other components). A buffer that is not clustered: its own bytes.
 */
void buf_reach(struct buf *bp, struct rd_charge *rc)
{
	struct disk *dp = buf_disk(bp->b_vp);
	uint64_t off = (uint64_t)bp->b_blkno * DEV_BSIZE, len = (uint64_t)bp->b_bufsize, back;

	if (dp == NULL || off >= dp->d_mediasize) {
		*rc = (struct rd_charge){ .rc_n = 0 };
		return;
	}
	if (bp->b_vp->v_type == VREG && (bp->b_flags & B_CLUSTEROK)) {
		back = MIN(off, (uint64_t)(MAXPHYS - bp->b_bufsize));
		off -= back;
		len = back + MAXPHYS;
	}
	rundev_map(rc, dp, off, MIN(len, dp->d_mediasize - off));
}

/* ---- who waits ------------------------------------------------------------------------------ */

/* bd_curwait: the current process's wait record; kernel threads (the daemon, the syncer) none. */
struct rd_wait *bd_curwait(void)
{
	struct proc *p = curproc;

	return p != NULL && !(p->p_flag & P_SYSTEM) ? &p->p_rdwait : NULL;
}

/*
 * The block layer's watcher of its own waits (disk_io_sync): the current process begins or ends
 * a wait for bytes [off, off+len) of dp.
 */
static void rundev_disk_wait(struct disk *dp, uint64_t off, uint64_t len, bool begin)
{
	struct rd_charge rc;

	if (!begin) {
		bd_wait_end();
		return;
	}
	rundev_map(&rc, dp, off, len);
	bd_wait_begin(&rc);
}

/* buf_wait_begin: the current process starts waiting for the I/O of buffer bp (biowait). */
void buf_wait_begin(struct buf *bp)
{
	struct disk *dp = buf_disk(bp->b_vp);
	struct rd_charge rc = { .rc_n = 0 };

	if (dp != NULL && (uint64_t)bp->b_blkno * DEV_BSIZE < dp->d_mediasize)
		rundev_map(&rc, dp, (uint64_t)bp->b_blkno * DEV_BSIZE,
		           MIN((uint64_t)bp->b_bcount, dp->d_mediasize - (uint64_t)bp->b_blkno * DEV_BSIZE));
	bd_wait_begin(&rc);
}

/* ---- the per-disk sysctls ------------------------------------------------------------------ */

enum { RDS_HI, RDS_LO, RDS_BANDWIDTH };

/* hirunningspace, lorunningspace (the budget in effect; settable when fixed) and bandwidth. */
static int sysctl_rundev(struct sysctl_req *req)
{
	struct rundev *rd = req->oid->oid_arg1;
	int which = (int)req->oid->oid_arg2, error;
	int64_t v;
	bool valid;

	spin_lock(&bufcache_lock);
	v = which == RDS_HI ? perdevice_hirunning(rd) : which == RDS_LO ? perdevice_lorunning(rd) :
	    rd->rd_bandwidth;
	spin_unlock(&bufcache_lock);
	error = sysctl_handle_quad(req, &v);
	if (error != 0 || req->newptr == NULL)
		return error;
	spin_lock(&bufcache_lock);
	if (perdevice_auto) {
		spin_unlock(&bufcache_lock);
		return EPERM;
	}
	valid = which == RDS_HI ? v > 0 && v <= INT32_MAX && v >= rd->rd_lorunning :
	        v >= 0 && v <= rd->rd_hirunning;
	if (valid && which == RDS_HI)
		rd->rd_hirunning = (int)v;
	else if (valid)
		rd->rd_lorunning = (int)v;
	if (valid)
		perdevice_release_all();
	spin_unlock(&bufcache_lock);
	return valid ? 0 : EINVAL;
}

static void rundev_sysctls(struct rundev *rd)
{
	static const struct { const char *name; int which; uint32_t flags; const char *descr; } procs[] = {
		{ "hirunningspace", RDS_HI, CTLFLAG_RW,
		  "perdevice: this disk's budget, write bytes in flight above which its writers wait "
		  "(set when vfs.perdevice.auto=0)" },
		{ "lorunningspace", RDS_LO, CTLFLAG_RW,
		  "perdevice: ... until its bytes in flight fall to this (set when vfs.perdevice.auto=0)" },
		{ "bandwidth", RDS_BANDWIDTH, CTLFLAG_RD,
		  "Measured write completion rate of this disk while busy, bytes/s" },
	};
	const struct { const char *tree, *name; uint64_t *var; const char *descr; } counters[] = {
		{ "vfs.perdevice", "charged", &rd->rd_charged, "Bytes of writes charged to this disk" },
		{ "vfs.perdevice", "sleeps", &rd->rd_sleeps, "Writers that waited for this disk's budget (wdrdev)" },
		{ "vfs.perdevice", "wait_ns", &rd->rd_wait_ns, "Nanoseconds writers waited for this disk's budget" },
		{ "vfs.perdevice", "skips", &rd->rd_skips,
		  "Dirty buffers the perdevice or syncfirst daemon passed over: disk full" },
		{ "vfs.perdevice", "samples", &rd->rd_samples, "Measuring windows that updated the bandwidth estimate" },
		{ "vfs.syncfirst", "cuts", &rd->rd_cuts,
		  "syncfirst: windows that halved the depth (synchronous latency over the target)" },
		{ "vfs.syncfirst", "raises", &rd->rd_raises,
		  "syncfirst: windows of writes alone that raised the depth again" },
		{ "vfs.wanted", "waits", &rd->rd_waits, "Process waits for I/O that reached this disk" },
		{ "vfs.wanted", "cuts", &rd->rd_wcuts, "wanted: times this disk was cut to the small depth" },
		{ "vfs.wanted", "wanted_ns", &rd->rd_wanted_ns,
		  "Nanoseconds this disk had a process waiting for I/O on it (wanted)" },
	};
	char name[SYSCTL_NAMELEN];

	snprintf(name, sizeof(name), "vfs.syncfirst.%s.depth", rd->rd_name);
	sysctl_add_int(name, CTLFLAG_RD, &rd->rd_depth,
	               "syncfirst: async writes this disk's drive may hold now (the design moves it)");
	snprintf(name, sizeof(name), "vfs.wanted.%s.cut", rd->rd_name);
	sysctl_add_int(name, CTLFLAG_RD, &rd->rd_cut,
	               "wanted: 1 while this disk is cut to vfs.wanted.depth (a process waits on it)");
	snprintf(name, sizeof(name), "vfs.wanted.%s.waiters", rd->rd_name);
	sysctl_add_int(name, CTLFLAG_RD, &rd->rd_wanted,
	               "Processes waiting for I/O on this disk now (wanted while above 0)");
	snprintf(name, sizeof(name), "vfs.perdevice.%s.runningbufspace", rd->rd_name);
	sysctl_add_int(name, CTLFLAG_RD, &rd->rd_running,
	               "Write bytes in flight charged to this disk (its share of vfs.runningbufspace)");
	for (size_t i = 0; i < nitems(procs); i++) {
		snprintf(name, sizeof(name), "vfs.perdevice.%s.%s", rd->rd_name, procs[i].name);
		sysctl_add_proc(name, CTLTYPE_QUAD | procs[i].flags, rd, procs[i].which, sysctl_rundev,
		                "Q", procs[i].descr);
	}
	for (size_t i = 0; i < nitems(counters); i++) {
		snprintf(name, sizeof(name), "%s.%s.%s", counters[i].tree, rd->rd_name, counters[i].name);
		sysctl_add_quad(name, CTLFLAG_RD, (int64_t *)counters[i].var, counters[i].descr);
	}
}

/*
 * A disk registered: its budget starts as the patch's (vfs.hirunningspace/lorunningspace, also
 * its fixed budget), the bandwidth estimate as what gives that budget at the target delay.
 */
static void rundev_disk_attach(struct disk *dp)
{
	struct rundev *rd = kmalloc(sizeof(*rd), M_WAITOK | M_ZERO);

	if (rd == NULL) {
		kprintf("vfs: no memory for %s's write budget; its writes are not charged to it\n",
		        dp->d_name);
		return;
	}
	spin_lock(&bufcache_lock);
	rundev_init(rd, dp->d_name, hirunningspace, lorunningspace,
	            (int64_t)hirunningspace * 1000 / perdevice_target_ms, nanouptime());
	rd->rd_disk = dp;
	rd->rd_depth = syncfirst_maxdepth;
	rundev_register(rd);
	dp->d_rundev = rd;
	bd_disk_requeue(rd);
	spin_unlock(&bufcache_lock);
	rundev_sysctls(rd);
}

/* rundev_boot: the ceiling is what the cluster headers can carry at once (vfs_cluster.c). */
void rundev_boot(void)
{
	perdevice_maxspace = MAX(nswbuf / 2, 1) * MAXPHYS;
	disk_watch(rundev_disk_attach);
	disk_sync_watch(rundev_sync_done);
	disk_wait_watch(rundev_disk_wait);
}
