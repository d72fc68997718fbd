/*
 * disk.c - the block layer's disk registry, disk queues, request checks, devstat accounting and
 * synchronous I/O (interface: dev/disk.h).
 *
 *   disk_register(dp)   - add a disk (name unique) and export its counters as sysctls
 *                         kern.devstat.<name>.{reads,writes,flushes,bytes_read,bytes_written,
 *                         busy_ns,queue_depth,max_queue_depth,depth_ns,waiting,active,
 *                         max_active,active_ns,errors,syncs,sync_ns,write_bytes_queued,
 *                         max_write_bytes_queued} (read-only), and, for a
 *                         disk with a queue, dev.<driver>.<unit>.openings (read-write).
 *   disk_start(bp)      - check a request, account it as queued, sort it into the disk's queue
 *                         and hand the device what its openings allow (or, for a disk without a
 *                         queue, hand it to d_strategy at once).
 *   disk_iodone(bp)     - the driver finished it: account the completion, start the next
 *                         waiting request, call bio_done.
 *   disk_io_sync(...)   - read/write/flush and wait: split into d_maxio pieces, all issued at
 *                         once (so the disk sees them queued), then wait for every piece.
 *   disk_open/disk_close - shared and exclusive opens (dev/disk.h).
 *   disk_map(...)       - the disks a range of a disk reaches (itself, or a ccd's components).
 *   disk_watch(fn)      - fn for every disk, registered now or later (the buffer cache's budgets).
 *   disk_sync_watch(fn) - fn(dp, ns) as each synchronous request (BIO_SYNC) completes.
 *   disk_wait_watch(fn) - fn(dp, off, len, begin) as each disk_io_sync wait begins and ends.
 *   disk_set_syncfirst, disk_set_depth - the synchronous class of a disk's queue (dev/disk.h).
 *   bio_segments(...)   - a request's data, mapped or a page list, as physical segments.
 *
 * The disk queue is FreeBSD 4's: the da(4) driver kept its requests in a bufq sorted by
 * bufqdisksort (a one-way elevator: dev/bio_queue.c) and CAM gave the drive at most
 * dev_openings tagged commands at once (`camcontrol tags da1 -N 8` changes it); the rest waited
 * in the bufq, in elevator order. Here the block layer does both for the drivers that ask for
 * it (da, ada: they set d_openings); ccd and md have no queue of their own, as in FreeBSD 4
 * (ccd's pieces queue at the component disks). docs/storage.md "The disk queue". The
 * synchronous class (dev/bio_queue.h) is not FreeBSD 4's: it is off unless the syncfirst
 * buf_daemon design turns it on.
 *
 * devstat follows FreeBSD's devstat(9) idea: busy time is the time with at least one request
 * outstanding; queue depth is requests issued and not completed, of which `active` are at the
 * device and `waiting` in the disk queue. depth_ns and active_ns are those depths integrated
 * over time (Linux's "weighted time spent doing I/Os" in /proc/diskstats): the growth over an
 * interval divided by the interval is the average depth, divided by the growth of busy_ns the
 * average depth while busy.
 *
 * Locking: disk_list_lock protects the disk list (disks are never removed, so walking
 * d_next without the lock is safe); each disk's d_statlock protects its d_stat and its open
 * counts, its d_qlock its queue and openings (d_qlock is never held while d_statlock is
 * taken, nor across d_strategy); disk_sync_lock protects the completion counts of
 * disk_io_sync waits.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/time.h"
#include "kern/sysctl.h"
#include "arch/memlayout.h"
#include "vm/vm_page.h"
#include "dev/disk.h"
#include <sys/errno.h>

#define DISK_DEFAULT_MAXIO (128 * 1024)    /* FreeBSD's MAXPHYS, for drivers that give none */
#define BIO_DISPATCHED 0x8000              /* bio_flags, private: handed to d_strategy */
#define BIO_SYNCSLOT   0x4000              /* ... by the synchronous class (d_active_sync) */

static struct disk *disk_list, *disk_list_tail;
static struct spinlock disk_list_lock;
static void (*disk_watcher)(struct disk *dp);   /* disk_watch's fn, set once at boot */
static void (*disk_sync_watcher)(struct disk *dp, uint64_t ns);   /* disk_sync_watch's */
static void (*disk_wait_watcher)(struct disk *dp, uint64_t off, uint64_t len, bool begin);
static bool disk_locks_ready;
static struct spinlock disk_sync_lock;

static void disk_dispatch(struct disk *dp);

/* Both locks are set up on the first registration, which happens at boot on one CPU. */
static void disk_locks_init(void)
{
	if (disk_locks_ready)
		return;
	spin_init(&disk_list_lock, "disklist");
	spin_init(&disk_sync_lock, "disksync");
	disk_locks_ready = true;
}

/* ---- devstat sysctls ------------------------------------------------------------------------- */

enum devstat_field {
	DS_READS, DS_WRITES, DS_FLUSHES, DS_BYTES_READ, DS_BYTES_WRITTEN, DS_BUSY_NS, DS_QUEUE_DEPTH,
	DS_MAX_QUEUE_DEPTH, DS_DEPTH_NS, DS_WAITING, DS_ACTIVE, DS_MAX_ACTIVE, DS_ACTIVE_NS, DS_ERRORS,
	DS_SYNCS, DS_SYNC_NS, DS_WRITE_BYTES_QUEUED, DS_MAX_WRITE_BYTES_QUEUED, DS_NFIELDS
};

static const struct {
	const char *name;
	const char *descr;
} devstat_fields[DS_NFIELDS] = {
	[DS_READS]           = { "reads",           "Read requests completed" },
	[DS_WRITES]          = { "writes",          "Write requests completed" },
	[DS_FLUSHES]         = { "flushes",         "Cache flushes (BIO_FLUSH) completed" },
	[DS_BYTES_READ]      = { "bytes_read",      "Bytes read" },
	[DS_BYTES_WRITTEN]   = { "bytes_written",   "Bytes written" },
	[DS_BUSY_NS]         = { "busy_ns",         "Nanoseconds with at least one request outstanding" },
	[DS_QUEUE_DEPTH]     = { "queue_depth",     "Requests issued and not completed" },
	[DS_MAX_QUEUE_DEPTH] = { "max_queue_depth", "Highest queue depth seen" },
	[DS_DEPTH_NS]        = { "depth_ns",        "Queue depth integrated over time (ns x requests)" },
	[DS_WAITING]         = { "waiting",         "Requests waiting in the disk queue for an opening" },
	[DS_ACTIVE]          = { "active",          "Requests at the device (at most the openings)" },
	[DS_MAX_ACTIVE]      = { "max_active",      "Most requests at the device at once" },
	[DS_ACTIVE_NS]       = { "active_ns",       "Requests at the device integrated over time" },
	[DS_ERRORS]          = { "errors",          "Requests that failed" },
	[DS_SYNCS]           = { "syncs",           "Synchronous requests (a process waits) completed" },
	[DS_SYNC_NS]         = { "sync_ns",         "Their nanoseconds from arrival to completion, summed" },
	[DS_WRITE_BYTES_QUEUED]     = { "write_bytes_queued",     "Bytes of writes issued and not completed" },
	[DS_MAX_WRITE_BYTES_QUEUED] = { "max_write_bytes_queued", "Most bytes of writes issued and not completed at once" },
};

/* One counter of one disk, read consistently under d_statlock. */
static int64_t devstat_value(struct disk *dp, enum devstat_field f)
{
	struct devstat *ds = &dp->d_stat;
	int64_t v = 0;

	spin_lock(&dp->d_statlock);
	switch (f) {
	case DS_READS:           v = ds->ops[BIO_READ]; break;
	case DS_WRITES:          v = ds->ops[BIO_WRITE]; break;
	case DS_FLUSHES:         v = ds->ops[BIO_FLUSH]; break;
	case DS_BYTES_READ:      v = ds->bytes[BIO_READ]; break;
	case DS_BYTES_WRITTEN:   v = ds->bytes[BIO_WRITE]; break;
	case DS_BUSY_NS:
		v = ds->busy_ns;
		if (ds->queued > 0)
			v += nanouptime() - ds->busy_since;
		break;
	case DS_QUEUE_DEPTH:     v = ds->queued; break;
	case DS_MAX_QUEUE_DEPTH: v = ds->max_queued; break;
	case DS_DEPTH_NS:
		v = ds->depth_ns + (uint64_t)ds->queued * (nanouptime() - ds->depth_since);
		break;
	case DS_WAITING:         v = ds->queued - ds->active; break;
	case DS_ACTIVE:          v = ds->active; break;
	case DS_MAX_ACTIVE:      v = ds->max_active; break;
	case DS_ACTIVE_NS:
		v = ds->active_ns + (uint64_t)ds->active * (nanouptime() - ds->depth_since);
		break;
	case DS_ERRORS:          v = ds->errors; break;
	case DS_SYNCS:           v = ds->syncs; break;
	case DS_SYNC_NS:         v = ds->sync_ns; break;
	case DS_WRITE_BYTES_QUEUED:     v = ds->write_bytes_queued; break;
	case DS_MAX_WRITE_BYTES_QUEUED: v = ds->max_write_bytes_queued; break;
	case DS_NFIELDS:         break;
	}
	spin_unlock(&dp->d_statlock);
	return v;
}

/* Handler of kern.devstat.<disk>.<field>: arg1 is the disk, arg2 the field. */
static int sysctl_devstat(struct sysctl_req *req)
{
	int64_t v = devstat_value(req->oid->oid_arg1, (enum devstat_field)req->oid->oid_arg2);

	return sysctl_handle_quad(req, &v);
}

static void devstat_sysctls(struct disk *dp)
{
	char name[SYSCTL_NAMELEN];
	int f;

	for (f = 0; f < DS_NFIELDS; f++) {
		snprintf(name, sizeof(name), "kern.devstat.%s.%s", dp->d_name, devstat_fields[f].name);
		sysctl_add_proc(name, CTLTYPE_QUAD | CTLFLAG_RD, dp, f, sysctl_devstat, "Q",
		                devstat_fields[f].descr);
	}
}

/* dev.<driver>.<unit>.openings: 1 .. d_maxopenings; raising it starts waiting requests. */
static int sysctl_openings(struct sysctl_req *req)
{
	struct disk *dp = req->oid->oid_arg1;
	int v = dp->d_openings;
	int error = sysctl_handle_int(req, &v);

	if (error != 0 || req->newptr == NULL)
		return error;
	if (v < 1 || v > dp->d_maxopenings)
		return EINVAL;
	spin_lock(&dp->d_qlock);
	dp->d_openings = v;
	spin_unlock(&dp->d_qlock);
	disk_dispatch(dp);
	return 0;
}

/* "da1" -> "dev.da.1.openings" (FreeBSD's dev.<driver>.<unit> tree). */
static void openings_sysctl(struct disk *dp)
{
	char name[SYSCTL_NAMELEN], driver[sizeof(dp->d_name)];
	size_t n = 0;

	while (dp->d_name[n] != 0 && (dp->d_name[n] < '0' || dp->d_name[n] > '9'))
		n++;
	strlcpy(driver, dp->d_name, n + 1);
	snprintf(name, sizeof(name), "dev.%s.%s.openings", driver, dp->d_name + n);
	sysctl_add_proc(name, CTLTYPE_INT | CTLFLAG_RW, dp, 0, sysctl_openings, "I",
	                "Most requests the disk queue hands the device at once (camcontrol tags -N)");
}

/* ---- registry -------------------------------------------------------------------------------- */

/* disk_register: add a disk whose d_name, geometry, d_strategy and d_softc are filled in. */
void disk_register(struct disk *dp)
{
	disk_locks_init();
	if (disk_lookup(dp->d_name) != NULL) {
		kprintf("disk_register: a disk named %s already exists; ignoring the new one\n",
		        dp->d_name);
		return;
	}
	if (dp->d_maxio == 0)
		dp->d_maxio = DISK_DEFAULT_MAXIO;
	spin_init(&dp->d_statlock, "devstat");
	memset(&dp->d_stat, 0, sizeof(dp->d_stat));
	spin_init(&dp->d_qlock, "diskq");
	bioq_init(&dp->d_queue);
	dp->d_active = dp->d_active_sync = 0;
	dp->d_depth = dp->d_maxopenings;
	dp->d_dispatching = dp->d_redispatch = false;
	if (dp->d_maxopenings > 0)
		dp->d_openings = MAX(1, MIN(dp->d_openings, dp->d_maxopenings));
	dp->d_opens = 0;
	dp->d_excl = false;
	dp->d_next = NULL;
	spin_lock(&disk_list_lock);
	if (disk_list_tail != NULL)
		disk_list_tail->d_next = dp;
	else
		disk_list = dp;
	disk_list_tail = dp;
	spin_unlock(&disk_list_lock);
	devstat_sysctls(dp);
	if (dp->d_maxopenings > 0)
		openings_sysctl(dp);
	if (disk_watcher != NULL)
		disk_watcher(dp);
	kprintf("%s: %llu MB, %u-byte sectors\n", dp->d_name,
	        (unsigned long long)(dp->d_mediasize >> 20), dp->d_sectorsize);
}

struct disk *disk_lookup(const char *name)
{
	struct disk *dp;

	for (dp = disk_list; dp != NULL; dp = dp->d_next)
		if (strcmp(dp->d_name, name) == 0)
			return dp;
	return NULL;
}

struct disk *disk_first(void)
{
	return disk_list;
}

/* disk_watch: fn for every disk registered so far, and from now on for each new one. */
void disk_watch(void (*fn)(struct disk *dp))
{
	disk_watcher = fn;
	for (struct disk *dp = disk_list; dp != NULL; dp = dp->d_next)
		fn(dp);
}

/* disk_sync_watch: fn(dp, ns) as each synchronous request completes (any context, no lock held). */
void disk_sync_watch(void (*fn)(struct disk *dp, uint64_t ns))
{
	disk_sync_watcher = fn;
}

/* disk_wait_watch: fn as each disk_io_sync wait begins and ends (no lock held). */
void disk_wait_watch(void (*fn)(struct disk *dp, uint64_t off, uint64_t len, bool begin))
{
	disk_wait_watcher = fn;
}

/* Tell the wait watcher that this thread begins or ends a wait for cmd's bytes of dp. */
static void disk_wait_note(struct disk *dp, int cmd, uint64_t off, uint32_t len, bool begin)
{
	if (disk_wait_watcher == NULL)
		return;
	if (cmd == BIO_FLUSH)
		disk_wait_watcher(dp, 0, dp->d_mediasize, begin);
	else
		disk_wait_watcher(dp, off, len, begin);
}

/*
 * disk_set_syncfirst: the synchronous class on or off (for a disk with a queue; nothing for
 * one without). It acts from the next request started or completed: turning it on holds more
 * back, and whatever turning it off lets go waits only for a completion that is due.
 */
void disk_set_syncfirst(struct disk *dp, bool on)
{
	if (dp->d_maxopenings == 0)
		return;
	spin_lock(&dp->d_qlock);
	bioq_set_classes(&dp->d_queue, on);
	spin_unlock(&dp->d_qlock);
}

/* disk_set_depth: the most asynchronous requests at the device under the class (1 .. maxopenings). */
void disk_set_depth(struct disk *dp, int depth)
{
	if (dp->d_maxopenings == 0)
		return;
	spin_lock(&dp->d_qlock);
	dp->d_depth = MAX(1, MIN(depth, dp->d_maxopenings));
	spin_unlock(&dp->d_qlock);
}

/* disk_map: the disk's own answer (d_map), or the disk itself. */
int disk_map(struct disk *dp, uint64_t off, uint64_t len, struct disk_piece *pieces, int max)
{
	int n = dp->d_map != NULL ? dp->d_map(dp, off, len, pieces, max) : 0;

	if (n > 0)
		return n;
	pieces[0].dp_disk = dp;
	pieces[0].dp_bytes = (uint32_t)len;
	return 1;
}

/* The console's ^P: each disk's requests outstanding, and its totals (read without the lock). */
void disk_dump(void)
{
	for (struct disk *dp = disk_list; dp != NULL; dp = dp->d_next)
		kprintf("^P disk %s: queued %d (max %d), at the device %d of %d openings, %llu reads, "
		        "%llu writes, %llu errors\n", dp->d_name, dp->d_stat.queued, dp->d_stat.max_queued,
		        dp->d_stat.active, dp->d_openings, (unsigned long long)dp->d_stat.ops[BIO_READ],
		        (unsigned long long)dp->d_stat.ops[BIO_WRITE], (unsigned long long)dp->d_stat.errors);
}

/* ---- requests -------------------------------------------------------------------------------- */

/* The data is there: a mapped address, or a page list covering bio_ma_offset + bio_length. */
static bool bio_has_data(const struct bio *bp)
{
	if (!(bp->bio_flags & BIO_UNMAPPED))
		return bp->bio_data != NULL;
	return bp->bio_ma != NULL && bp->bio_ma_n > 0 && bp->bio_ma_offset < PAGE_SIZE &&
	       (uint64_t)bp->bio_ma_offset + bp->bio_length <= (uint64_t)bp->bio_ma_n * PAGE_SIZE;
}

/*
 * disk_check_bio: 0 for a well-formed request; EINVAL for a bad command, no data (or a page
 * list too short for the length), a zero, misaligned or over-d_maxio length or a misaligned
 * offset; ENXIO past the end of the disk.
 */
int disk_check_bio(struct bio *bp)
{
	struct disk *dp = bp->bio_disk;

	if (bp->bio_cmd == BIO_FLUSH)
		return 0;
	if (bp->bio_cmd != BIO_READ && bp->bio_cmd != BIO_WRITE)
		return EINVAL;
	if (bp->bio_length == 0 || !bio_has_data(bp) || bp->bio_length > dp->d_maxio)
		return EINVAL;
	if (bp->bio_offset % dp->d_sectorsize != 0 || bp->bio_length % dp->d_sectorsize != 0)
		return EINVAL;
	if (bp->bio_offset > dp->d_mediasize || bp->bio_length > dp->d_mediasize - bp->bio_offset)
		return ENXIO;
	return 0;
}

/* Bring depth_ns and active_ns up to now, before a depth changes. Under d_statlock. */
static void devstat_depth_tick(struct devstat *ds, uint64_t now)
{
	ds->depth_ns += (uint64_t)ds->queued * (now - ds->depth_since);
	ds->active_ns += (uint64_t)ds->active * (now - ds->depth_since);
	ds->depth_since = now;
}

/* Account a request as queued; it notes how many were outstanding ahead of it. */
static void devstat_start(struct disk *dp, struct bio *bp)
{
	uint64_t now = nanouptime();

	bp->bio_t0 = now;
	spin_lock(&dp->d_statlock);
	devstat_depth_tick(&dp->d_stat, now);
	bp->bio_qahead = dp->d_stat.queued;
	if (dp->d_stat.queued++ == 0)
		dp->d_stat.busy_since = now;
	if (dp->d_stat.queued > dp->d_stat.max_queued)
		dp->d_stat.max_queued = dp->d_stat.queued;
	if (bp->bio_cmd == BIO_WRITE) {
		dp->d_stat.write_bytes_queued += bp->bio_length;
		if (dp->d_stat.write_bytes_queued > dp->d_stat.max_write_bytes_queued)
			dp->d_stat.max_write_bytes_queued = dp->d_stat.write_bytes_queued;
	}
	spin_unlock(&dp->d_statlock);
}

/* Account a request as handed to the device. */
static void devstat_dispatch(struct disk *dp)
{
	spin_lock(&dp->d_statlock);
	devstat_depth_tick(&dp->d_stat, nanouptime());
	if (++dp->d_stat.active > dp->d_stat.max_active)
		dp->d_stat.max_active = dp->d_stat.active;
	spin_unlock(&dp->d_statlock);
}

/* Hand bp to the driver. */
static void disk_dispatch_one(struct disk *dp, struct bio *bp)
{
	bp->bio_flags |= BIO_DISPATCHED;
	devstat_dispatch(dp);
	dp->d_strategy(bp);
}

/*
 * The next waiting request the device may have, taken off the queue and counted: FreeBSD 4's
 * (bioq_start), or the synchronous class's rules, which mark what they count in d_active_sync.
 * [d_qlock]
 */
static struct bio *disk_next(struct disk *dp)
{
	struct bioq_link *l;
	int nsync = dp->d_active_sync;
	struct bio *bp;

	if (!dp->d_queue.bq_classes)
		l = bioq_start(&dp->d_queue, &dp->d_active, dp->d_openings);
	else
		l = bioq_start_sync(&dp->d_queue, &dp->d_active, &dp->d_active_sync, dp->d_openings,
		                    dp->d_depth);
	if (l == NULL)
		return NULL;
	bp = container_of(l, struct bio, bio_qlink);
	if (dp->d_active_sync != nsync)
		bp->bio_flags |= BIO_SYNCSLOT;
	return bp;
}

/*
 * Hand the device the waiting requests its openings allow, in queue order. One thread at a time
 * does it, without d_qlock held across d_strategy (a driver may complete a request inside it);
 * a caller that finds another thread at it leaves it a note to look again, so no opening is
 * left unused and the requests reach the driver in the order the elevator gave them.
 */
static void disk_dispatch(struct disk *dp)
{
	struct bio *bp;

	spin_lock(&dp->d_qlock);
	if (dp->d_dispatching) {
		dp->d_redispatch = true;
		spin_unlock(&dp->d_qlock);
		return;
	}
	dp->d_dispatching = true;
	do {
		dp->d_redispatch = false;
		while ((bp = disk_next(dp)) != NULL) {
			spin_unlock(&dp->d_qlock);
			disk_dispatch_one(dp, bp);
			spin_lock(&dp->d_qlock);
		}
	} while (dp->d_redispatch);
	dp->d_dispatching = false;
	spin_unlock(&dp->d_qlock);
}

/*
 * disk_start: check, account, and queue the request (a flush is a barrier: nothing later is
 * sorted ahead of it), then start what the openings allow; a disk without a queue gets it at
 * once. Never sleeps.
 */
void disk_start(struct bio *bp)
{
	struct disk *dp = bp->bio_disk;
	int error = disk_check_bio(bp);

	bp->bio_error = 0;
	bp->bio_resid = 0;
	bp->bio_flags &= ~(BIO_DISPATCHED | BIO_SYNCSLOT);
	devstat_start(dp, bp);
	if (error != 0) {
		bp->bio_error = error;
		bp->bio_resid = bp->bio_length;
		disk_iodone(bp);
		return;
	}
	if (dp->d_maxopenings == 0) {
		disk_dispatch_one(dp, bp);
		return;
	}
	bp->bio_qlink.bql_key = bp->bio_offset;
	bp->bio_qlink.bql_barrier = bp->bio_cmd == BIO_FLUSH;
	bp->bio_qlink.bql_sync = (bp->bio_flags & BIO_SYNC) != 0;
	spin_lock(&dp->d_qlock);
	bioq_disksort(&dp->d_queue, &bp->bio_qlink);
	spin_unlock(&dp->d_qlock);
	disk_dispatch(dp);
}

/*
 * disk_iodone: account a finished request, start the next waiting one, tell the synchronous
 * requests' watcher, call its completion.
 */
void disk_iodone(struct bio *bp)
{
	struct disk *dp = bp->bio_disk;
	struct devstat *ds = &dp->d_stat;
	uint64_t now = nanouptime(), ns = now - bp->bio_t0;
	int c = (unsigned)bp->bio_cmd < nitems(ds->ops) ? bp->bio_cmd : 0;   /* 0: malformed */
	bool dispatched = (bp->bio_flags & BIO_DISPATCHED) != 0, sync = (bp->bio_flags & BIO_SYNC) != 0;

	spin_lock(&dp->d_statlock);
	ds->ops[c]++;
	ds->bytes[c] += bp->bio_length - bp->bio_resid;
	if (bp->bio_error != 0)
		ds->errors++;
	if (sync) {
		ds->syncs++;
		ds->sync_ns += ns;
	}
	devstat_depth_tick(ds, now);
	if (c == BIO_WRITE)
		ds->write_bytes_queued -= bp->bio_length;
	if (dispatched)
		ds->active--;
	if (--ds->queued == 0)
		ds->busy_ns += now - ds->busy_since;
	spin_unlock(&dp->d_statlock);
	if (dispatched && dp->d_maxopenings > 0) {
		spin_lock(&dp->d_qlock);
		dp->d_active--;
		if (bp->bio_flags & BIO_SYNCSLOT)
			dp->d_active_sync--;
		spin_unlock(&dp->d_qlock);
		disk_dispatch(dp);
	}
	if (sync && disk_sync_watcher != NULL)
		disk_sync_watcher(dp, ns);
	bp->bio_done(bp);
}

/* ---- data segments ------------------------------------------------------------------------- */

/* Mapped data: the direct map translates each byte; a run ends at the page boundary. */
static uint64_t xlate_mapped(const void *arg, uint32_t off, uint32_t *run)
{
	uintptr_t va = (uintptr_t)((const struct bio *)arg)->bio_data + off;

	*run = PAGE_SIZE - (uint32_t)(va & PAGE_MASK);
	return V2P(va);
}

/* A page list: byte off is in page (bio_ma_offset + off) / PAGE_SIZE. */
static uint64_t xlate_pages(const void *arg, uint32_t off, uint32_t *run)
{
	const struct bio *bp = arg;
	uint32_t pos = bp->bio_ma_offset + off;

	*run = PAGE_SIZE - (pos & PAGE_MASK);
	return VM_PAGE_TO_PHYS(bp->bio_ma[pos / PAGE_SIZE]) + (pos & PAGE_MASK);
}

/* bio_set_data: bp's data is `len` bytes of whole's from byte `skip`, in whole's form. */
void bio_set_data(struct bio *bp, const struct bio *whole, uint32_t skip, uint32_t len)
{
	uint32_t pos;

	bp->bio_length = len;
	if (!(whole->bio_flags & BIO_UNMAPPED)) {
		bp->bio_data = (char *)whole->bio_data + skip;
		return;
	}
	pos = whole->bio_ma_offset + skip;
	bp->bio_flags |= BIO_UNMAPPED;
	bp->bio_ma = whole->bio_ma + pos / PAGE_SIZE;
	bp->bio_ma_offset = pos % PAGE_SIZE;
	bp->bio_ma_n = (int)howmany(bp->bio_ma_offset + len, PAGE_SIZE);
}

int bio_segments(const struct bio *bp, uint32_t off, uint32_t len, struct disk_seg *segs, int max,
                 uint32_t maxseg)
{
	return disk_seg_build(segs, max, maxseg,
	                      (bp->bio_flags & BIO_UNMAPPED) ? xlate_pages : xlate_mapped, bp, off, len);
}

/* ---- opens ----------------------------------------------------------------------------------- */

int disk_open(struct disk *dp, int flags)
{
	int error = 0;

	spin_lock(&dp->d_statlock);
	if (dp->d_excl || ((flags & DISK_EXCL) && dp->d_opens > 0))
		error = EBUSY;
	else if (flags & DISK_EXCL)
		dp->d_excl = true;
	else
		dp->d_opens++;
	spin_unlock(&dp->d_statlock);
	return error;
}

void disk_close(struct disk *dp, int flags)
{
	spin_lock(&dp->d_statlock);
	if (flags & DISK_EXCL) {
		KASSERT(dp->d_excl, "disk_close: not held exclusively");
		dp->d_excl = false;
	} else {
		KASSERT(dp->d_opens > 0, "disk_close: not open");
		dp->d_opens--;
	}
	spin_unlock(&dp->d_statlock);
}

bool disk_in_use(struct disk *dp)
{
	bool busy;

	spin_lock(&dp->d_statlock);
	busy = dp->d_excl || dp->d_opens > 0;
	spin_unlock(&dp->d_statlock);
	return busy;
}

/* ---- synchronous I/O ------------------------------------------------------------------------- */

struct disk_sync {
	int pending;     /* pieces not yet completed (disk_sync_lock) */
	int error;       /* the first error */
};

static void disk_sync_done(struct bio *bp)
{
	struct disk_sync *ds = bp->bio_caller1;

	spin_lock(&disk_sync_lock);
	if (bp->bio_error != 0 && ds->error == 0)
		ds->error = bp->bio_error;
	else if (bp->bio_resid != 0 && ds->error == 0)
		ds->error = EIO;
	if (--ds->pending == 0)
		wakeup(ds);
	spin_unlock(&disk_sync_lock);
}

/*
 * Do cmd on bytes [off, off+len) of dp with the data of `whole` (a bio used only as a data
 * description, mapped or a page list), in d_maxio pieces all issued at once (BIO_SYNC: this
 * thread waits for them), and wait ("physrd"/"physwr"/"dflush"). Returns 0 or the first error.
 */
static int disk_io_run(struct disk *dp, int cmd, uint64_t off, uint32_t len, const struct bio *whole)
{
	struct disk_sync ds = { 0, 0 };
	struct bio *bios;
	uint32_t n, i, skip;
	const char *wmesg = cmd == BIO_READ ? "physrd" : cmd == BIO_WRITE ? "physwr" : "dflush";

	n = cmd == BIO_FLUSH ? 1 : howmany(len, dp->d_maxio);
	if (n == 0)
		return EINVAL;
	bios = kmalloc(n * sizeof(*bios), M_WAITOK | M_ZERO);
	if (bios == NULL)
		return ENOMEM;
	ds.pending = n;
	disk_wait_note(dp, cmd, off, len, true);
	for (i = 0; i < n; i++) {
		skip = i * dp->d_maxio;
		bios[i].bio_cmd = cmd;
		bios[i].bio_flags = BIO_SYNC;
		bios[i].bio_disk = dp;
		bios[i].bio_offset = off + skip;
		if (cmd != BIO_FLUSH)
			bio_set_data(&bios[i], whole, skip, MIN(len - skip, dp->d_maxio));
		bios[i].bio_done = disk_sync_done;
		bios[i].bio_caller1 = &ds;
		disk_start(&bios[i]);
	}
	spin_lock(&disk_sync_lock);
	while (ds.pending > 0)
		msleep(&ds, &disk_sync_lock, 0, wmesg, 0);
	spin_unlock(&disk_sync_lock);
	disk_wait_note(dp, cmd, off, len, false);
	kfree(bios);
	return ds.error;
}

/*
 * disk_io_sync: do cmd (BIO_READ/WRITE of len bytes at byte offset off from/to kernel buffer
 * data, or BIO_FLUSH) and wait. Returns 0 or the first error.
 */
int disk_io_sync(struct disk *dp, int cmd, uint64_t off, void *data, uint32_t len)
{
	struct bio whole = { .bio_data = data };

	return disk_io_run(dp, cmd, off, len, &whole);
}

/* disk_io_sync_pages: the same with the data in a page list (ma[], starting ma_off into ma[0]). */
int disk_io_sync_pages(struct disk *dp, int cmd, uint64_t off, struct vm_page **ma, uint32_t ma_off,
                       uint32_t len)
{
	struct bio whole = { .bio_flags = BIO_UNMAPPED, .bio_ma = ma, .bio_ma_offset = ma_off,
	                     .bio_ma_n = (int)howmany(ma_off + len, PAGE_SIZE) };

	return disk_io_run(dp, cmd, off, len, &whole);
}
