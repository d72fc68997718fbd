/*
 * vfs_bufstat.c - the buffer cache's parameters and sysctls (docs/bufcache.md "Tunables and
 * counters" lists every name; they are kept stable for the experiment harness):
 *   vfs.nbuf, vfs.maxbufspace, vfs.hidirtybuffers, vfs.lodirtybuffers, vfs.hirunningspace,
 *   vfs.lorunningspace, vfs.maxbdrun   the tunables (RW and on the kernel command line; nbuf
 *                                      only on the command line)
 *   kern.nswbuf              I/O headers (command line only; half of them are the cluster pool)
 *   vfs.bufspace, vfs.numdirtybuffers, vfs.runningbufspace   the levels they bound (RO)
 *   vfs.vmio_pages           file pages wired by VMIO buffers (RO)
 *   vfs.bufdaemon_design     speedup | runningbuf | perdevice | syncfirst (RW; the presets set it
 *                            at boot)
 *   (vfs.perdevice.*, the per-disk budgets, and vfs.syncfirst.*, are vfs_bio_rundev.c's)
 *   vfs.bufdaemon.*          the buf_daemon's counters and the speedup design's state (RO)
 *   vfs.bio.*                reads and writes by kind, getnewbuf sleeps (RO)
 *   vfs.cluster.*            clustered writes and reads, and the write sizes (RO)
 * bufparam_init() sizes the cache and sets the tunables' defaults (FreeBSD's bufinit,
 * [@fbsd-vfs_bio-2001] in docs/sources.md), bufstat_init() registers the counters; bufinit calls both. The variables are
 * protected by bufcache_lock (a sysctl write takes it).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/sysctl.h"
#include "kern/time.h"
#include "vm/vm_page.h"
#include "vfs/buf_internal.h"
#include "vfs/bufdaemon.h"
#include <sys/errno.h>

#define BKVASIZE  (16 * 1024)      /* FreeBSD's nominal buffer size, for sizing */

int nbuf;
int nswbuf;
/* Counters and tunables (the flusher's are declared in vfs/bufdaemon.h). */
int numdirtybuffers;
int hidirtybuffers;
int lodirtybuffers;
int runningbufspace;
int hirunningspace;
int lorunningspace;
int maxbdrun;
int bd_hz = HZ;
int bufspace;
int maxbufspace;
int vmio_pages;
SYSCTL_INT(vfs, numdirtybuffers, CTLFLAG_RD, &numdirtybuffers, "Number of dirty (B_DELWRI) buffers");
SYSCTL_INT(vfs, runningbufspace, CTLFLAG_RD, &runningbufspace, "Bytes of write I/O in flight");
SYSCTL_INT(vfs, bufspace, CTLFLAG_RD, &bufspace, "Bytes of memory the buffers hold");
SYSCTL_INT(vfs, vmio_pages, CTLFLAG_RD, &vmio_pages,
           "File pages VMIO buffers hold wired (part of vm.stats.vm.v_wire_count)");
SYSCTL_INT(vfs, nbuf, CTLFLAG_RD | CTLFLAG_TUN, &nbuf,
           "Number of buffer headers (set it on the kernel command line: vfs.nbuf=N)");
SYSCTL_DECL_OID(sysctl_kern_nswbuf, "kern.nswbuf", CTLTYPE_INT | CTLFLAG_RD | CTLFLAG_TUN, &nswbuf, 0,
                NULL, "I", "I/O headers, half of them for clustered I/O (kernel command line: kern.nswbuf=N)");

/*
 * The tunables: writable at run time and on the kernel command line (CTLFLAG_TUN: bufparam_init
 * reads the command line itself, so that a value derived from another one - lodirtybuffers from
 * hidirtybuffers, lorunningspace from hirunningspace, hidirtybuffers and maxbufspace from
 * nbuf - follows what the command line set). A value out of range is refused with EINVAL.
 */
enum tunable { T_MAXBUFSPACE, T_HIDIRTY, T_LODIRTY, T_HIRUNNING, T_LORUNNING, T_MAXBDRUN };

static bool tunable_valid(enum tunable t, int v)
{
	switch (t) {
	case T_MAXBUFSPACE: return v >= 16 * MAXBSIZE;
	case T_HIDIRTY:     return v > lodirtybuffers && v <= nbuf;
	case T_LODIRTY:     return v >= 0 && v < hidirtybuffers;
	case T_HIRUNNING:   return v > 0 && v >= lorunningspace;
	case T_LORUNNING:   return v >= 0 && v <= hirunningspace;
	case T_MAXBDRUN:    return v >= 1;
	}
	return false;
}

static int sysctl_tunable(struct sysctl_req *req)
{
	int *var = req->oid->oid_arg1;
	int v = *var, error = sysctl_handle_int(req, &v);
	bool valid;

	if (error != 0 || req->newptr == NULL)
		return error;
	/* Checked and stored under the lock: the range depends on the other tunables (lo < hi). */
	spin_lock(&bufcache_lock);
	valid = tunable_valid((enum tunable)req->oid->oid_arg2, v);
	if (valid)
		*var = v;
	spin_unlock(&bufcache_lock);
	return valid ? 0 : EINVAL;
}

#define TUNABLE_SYSCTL(name, t, descr) \
	SYSCTL_PROC(vfs_##name, "vfs." #name, CTLTYPE_INT | CTLFLAG_RW | CTLFLAG_TUN, &name, t, \
	            sysctl_tunable, "I", descr)
TUNABLE_SYSCTL(maxbufspace, T_MAXBUFSPACE, "Most bytes of memory for buffers (nbuf x 16 KB)");
TUNABLE_SYSCTL(hidirtybuffers, T_HIDIRTY, "Dirty buffers at which writers block (flswai)");
TUNABLE_SYSCTL(lodirtybuffers, T_LODIRTY, "Dirty buffers the buf_daemon drains down to");
TUNABLE_SYSCTL(hirunningspace, T_HIRUNNING,
               "runningbuf design: write bytes in flight above which writes wait (wdrain)");
TUNABLE_SYSCTL(lorunningspace, T_LORUNNING,
               "runningbuf design: write bytes in flight at which waiters resume");
TUNABLE_SYSCTL(maxbdrun, T_MAXBDRUN, "speedup design: most flushes the buf_daemon starts per wakeup");

/* A tunable's command-line value, if it has one and it is valid at this point of bufparam_init. */
static void boot_tunable(const char *name, enum tunable t, int *var)
{
	int v;

	if (!tunable_int_fetch(name, &v))
		return;
	if (tunable_valid(t, v))
		*var = v;
	else
		kprintf("boot: %s=%d is out of range; using %d\n", name, v, *var);
}

/* hibufspace: the most bufspace getnewbuf allows itself (FreeBSD's). */
int hibufspace(void)
{
	return MAX(3 * (maxbufspace / 4), maxbufspace - 10 * MAXBSIZE);
}

/*
 * nbuf from physical memory, as FreeBSD's cpu_startup of 2000 ([@fbsd-machdep-2000]): 50, plus
 * 16 KB buffers for a quarter of the first 64 MB (factor = 4 * BKVASIZE / PAGE_SIZE), plus for a
 * tenth of the rest (FreeBSD's comment says 1/20; its arithmetic, kept here, gives 1/10).
 * 64 MB -> 1010 buffers, 128 MB -> about 1480.
 */
static int nbuf_for_memory(int pages)
{
	int factor = 4 * BKVASIZE / PAGE_SIZE;
	int n = 50;

	if (pages > 1024)
		n += MIN((pages - 1024) / factor, 16384 / factor);
	if (pages > 16384)
		n += (pages - 16384) * 2 / (factor * 5);
	return n;
}

/*
 * bufparam_init: size the cache from physical memory (docs/bufcache.md "Buffers and queues") and
 * set the tunables' defaults as FreeBSD's bufinit does ([@fbsd-vfs_bio-2001]):
 * hidirtybuffers = nbuf / 4 + 20, halved while that many 16 KB buffers exceed 3/4 of
 * hibufspace; lodirtybuffers = hidirtybuffers / 2; hirunningspace 1 MB, lorunningspace half of
 * it. nswbuf = max(min(nbuf / 4, 64), 16) as FreeBSD 4's machdep.c ([@fbsd-machdep-2000]), and maxbdrun =
 * nswbuf / 4, at least 4, as the late-2000 bufinit has it ([@fbsd-vfs_bio-2000]) (16 from 64 MB up). A value given on
 * the kernel command line replaces its default before the values derived from it are computed.
 */
void bufparam_init(void)
{
	int i;

	nbuf = nbuf_for_memory((int)physmem_pages);
	if (tunable_int_fetch("vfs.nbuf", &i)) {
		if (i >= 32)
			nbuf = i;
		else
			kprintf("boot: vfs.nbuf=%d is too few (at least 32); using %d\n", i, nbuf);
	}
	maxbufspace = nbuf * BKVASIZE;
	boot_tunable("vfs.maxbufspace", T_MAXBUFSPACE, &maxbufspace);
	hidirtybuffers = nbuf / 4 + 20;
	while (hidirtybuffers * BKVASIZE > 3 * (hibufspace() / 4))
		hidirtybuffers >>= 1;
	lodirtybuffers = 0;
	boot_tunable("vfs.hidirtybuffers", T_HIDIRTY, &hidirtybuffers);
	lodirtybuffers = hidirtybuffers / 2;
	boot_tunable("vfs.lodirtybuffers", T_LODIRTY, &lodirtybuffers);
	lorunningspace = 0;
	hirunningspace = 1024 * 1024;
	boot_tunable("vfs.hirunningspace", T_HIRUNNING, &hirunningspace);
	lorunningspace = hirunningspace / 2;
	boot_tunable("vfs.lorunningspace", T_LORUNNING, &lorunningspace);
	nswbuf = MAX(MIN(nbuf / 4, 64), 16);
	if (tunable_int_fetch("kern.nswbuf", &i)) {
		if (i >= 2 && i <= 256)
			nswbuf = i;
		else
			kprintf("boot: kern.nswbuf=%d is out of range (2 .. 256); using %d\n", i, nswbuf);
	}
	maxbdrun = MAX(nswbuf / 4, 4);
	boot_tunable("vfs.maxbdrun", T_MAXBDRUN, &maxbdrun);
}

/* vfs.bufdaemon_design: reads the current design's name; writing one switches (EINVAL if unknown). */
static int sysctl_bufdaemon_design(struct sysctl_req *req)
{
	char name[16];
	int error;

	strlcpy(name, bd_design_name(), sizeof(name));
	error = sysctl_handle_string(req, name, sizeof(name));
	if (error != 0 || req->newptr == NULL)
		return error;
	return bd_set_design(name) ? 0 : EINVAL;
}
SYSCTL_PROC(vfs_bufdaemon_design, "vfs.bufdaemon_design", CTLTYPE_STRING | CTLFLAG_RW, NULL, 0,
            sysctl_bufdaemon_design, "A",
            "buf_daemon design: speedup (4.2-STABLE), runningbuf (the December 2000 patch), "
            "perdevice (a write budget per disk) or syncfirst (and synchronous I/O first)");

/* vfs.cluster.size_hist: "blocks:count" for every cluster size written at least once. */
static int sysctl_cluster_hist(struct sysctl_req *req)
{
	char text[CLUSTER_HIST * 24] = "";
	char one[24];

	for (int i = 0; i < CLUSTER_HIST; i++) {
		if (bstats.cluster_hist[i] == 0)
			continue;
		snprintf(one, sizeof(one), "%s%d%s:%llu", text[0] ? " " : "", i + 1,
		         i + 1 == CLUSTER_HIST ? "+" : "", (unsigned long long)bstats.cluster_hist[i]);
		strlcat(text, one, sizeof(text));
	}
	return sysctl_handle_string(req, text, sizeof(text));
}
SYSCTL_PROC(vfs_cluster_size_hist, "vfs.cluster.size_hist", CTLTYPE_STRING | CTLFLAG_RD, NULL, 0,
            sysctl_cluster_hist, "A", "Clustered writes by size in blocks: blocks:count ...");

static const struct {
	const char *name;
	uint64_t   *var;
	const char *descr;
} counters[] = {
	{ "vfs.bufdaemon.wakeups", &bdstats.wakeups, "buf_daemon sleeps ended early by a request" },
	{ "vfs.bufdaemon.timeouts", &bdstats.timeouts, "buf_daemon sleeps that ran their full time" },
	{ "vfs.bufdaemon.flushes", &bdstats.flushes, "Writes the buf_daemon started (flushbufqueues)" },
	{ "vfs.bufdaemon.flush_bytes", &bdstats.flush_bytes, "Bytes those writes carried" },
	{ "vfs.bufdaemon.flush_bufs", &bdstats.flush_bufs, "Buffers those writes carried" },
	{ "vfs.bufdaemon.sleeps_psleep", &bdstats.sleeps_psleep, "buf_daemon sleeps, wmesg psleep" },
	{ "vfs.bufdaemon.sleeps_qsleep", &bdstats.sleeps_qsleep, "buf_daemon sleeps, wmesg qsleep" },
	{ "vfs.bufdaemon.sleeps_wdrain", &bdstats.sleeps_wdrain,
	  "Sleeps in waitrunningbufspace, wmesg wdrain (writers and the daemon)" },
	{ "vfs.bufdaemon.sleeps_flswai", &bdstats.sleeps_flswai, "Writer sleeps in bwillwrite, wmesg flswai" },
	{ "vfs.bufdaemon.wdrain_ns", &bdstats.wdrain_ns, "Nanoseconds spent blocked in wdrain" },
	{ "vfs.bufdaemon.flswai_ns", &bdstats.flswai_ns, "Nanoseconds writers spent blocked in flswai" },
	{ "vfs.bufdaemon.speedup_loops", &bdstats.speedup_loops, "Rounds of buf_daemon_speedup" },
	{ "vfs.bufdaemon.speedup_faster", &bdstats.speedup_faster,
	  "speedup: rounds that lowered bd_flushto (woken early)" },
	{ "vfs.bufdaemon.speedup_slower", &bdstats.speedup_slower,
	  "speedup: rounds that raised bd_flushto (slept the full interval)" },
	{ "vfs.bufdaemon.runningbuf_loops", &bdstats.runningbuf_loops, "Rounds of buf_daemon_runningbuf" },
	{ "vfs.bufdaemon.runningbuf_drains", &bdstats.runningbuf_drains,
	  "runningbuf: times it drained to lodirtybuffers and disarmed" },
	{ "vfs.bufdaemon.perdevice_loops", &bdstats.perdevice_loops, "Rounds of buf_daemon_perdevice" },
	{ "vfs.bufdaemon.perdevice_drains", &bdstats.perdevice_drains,
	  "perdevice: times it drained to lodirtybuffers and disarmed" },
	{ "vfs.bufdaemon.perdevice_blocked", &bdstats.perdevice_blocked,
	  "perdevice: times every dirty buffer it could take was bound for a full disk" },
	{ "vfs.bufdaemon.syncfirst_loops", &bdstats.syncfirst_loops, "Rounds of buf_daemon_syncfirst" },
	{ "vfs.bufdaemon.syncfirst_drains", &bdstats.syncfirst_drains,
	  "syncfirst: times it drained to lodirtybuffers and disarmed" },
	{ "vfs.bufdaemon.syncfirst_blocked", &bdstats.syncfirst_blocked,
	  "syncfirst: times every dirty buffer it could take was bound for a full disk" },
	{ "vfs.bufdaemon.wanted_loops", &bdstats.wanted_loops, "Rounds of buf_daemon_wanted" },
	{ "vfs.bufdaemon.wanted_drains", &bdstats.wanted_drains,
	  "wanted: times it drained to lodirtybuffers and disarmed" },
	{ "vfs.bufdaemon.wanted_blocked", &bdstats.wanted_blocked,
	  "wanted: times every dirty buffer it could take was bound for a full wanted disk" },
	{ "vfs.bufdaemon.sleeps_wdrdev", &bdstats.sleeps_wdrdev,
	  "Sleeps for a disk's budget, wmesg wdrdev (writers and the daemon)" },
	{ "vfs.bufdaemon.wdrdev_ns", &bdstats.wdrdev_ns, "Nanoseconds spent blocked in wdrdev" },
	{ "vfs.bufdaemon.design_switches", &bdstats.design_switches, "Changes of vfs.bufdaemon_design" },
	{ "vfs.bio.breads", &bstats.breads, "Block reads issued" },
	{ "vfs.bio.bdwrites", &bstats.bdwrites, "Delayed writes (bdwrite)" },
	{ "vfs.bio.bawrites", &bstats.bawrites, "Async writes issued (bawrite, and each cluster)" },
	{ "vfs.bio.bwrites", &bstats.bwrites, "Synchronous writes (bwrite)" },
	/* LAB tour BEGIN */
	{ "vfs.bio.writes_done", &bstats.writes_done, "Buffer writes completed (biodone), one per buffer" },
	/* LAB tour END */
	{ "vfs.bio.sleeps_newbuf", &bstats.sleeps_newbuf, "getnewbuf sleeps, wmesg newbuf" },
	{ "vfs.bio.vmio_bogus", &bstats.vmio_bogus, "Valid pages VMIO reads skipped (bogus_page)" },
	{ "vfs.cluster.writes", &bstats.cluster_writes, "Clustered writes (2 blocks or more)" },
	{ "vfs.cluster.write_bufs", &bstats.cluster_write_bufs, "Buffers in clustered writes" },
	{ "vfs.cluster.write_bytes", &bstats.cluster_write_bytes, "Bytes in clustered writes" },
	{ "vfs.cluster.reads", &bstats.cluster_reads, "Clustered reads (2 blocks or more)" },
	{ "vfs.cluster.read_bufs", &bstats.cluster_read_bufs, "Buffers in clustered reads" },
	{ "vfs.cluster.readaheads", &bstats.readaheads, "Blocks read ahead of the reader" },
	{ "vfs.cluster.sleeps_wswbuf0", &bstats.sleeps_wswbuf0,
	  "Cluster writes that slept for an I/O header, wmesg wswbuf0" },
	{ "vfs.cluster.wswbuf0_ns", &bstats.wswbuf0_ns, "Nanoseconds writers spent blocked in wswbuf0" },
};

static const struct {
	const char *name;
	int        *var;
	const char *descr;
} states[] = {
	{ "vfs.bufdaemon.bd_flushto", &bd_flushto, "speedup: flush while numdirtybuffers is above this" },
	{ "vfs.bufdaemon.bd_flushinc", &bd_flushinc, "speedup: bd_flushto's step after a timeout" },
	{ "vfs.bufdaemon.bd_interval", &bd_interval, "speedup: ticks between flushing rounds" },
	{ "vfs.bufdaemon.bd_request", &bd_request, "1 while the buf_daemon is asked to run (armed)" },
};

void bufstat_init(void)
{
	for (size_t i = 0; i < nitems(counters); i++)
		sysctl_add_quad(counters[i].name, CTLFLAG_RD, (int64_t *)counters[i].var, counters[i].descr);
	for (size_t i = 0; i < nitems(states); i++)
		sysctl_add_int(states[i].name, CTLFLAG_RD, states[i].var, states[i].descr);
}
