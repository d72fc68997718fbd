/*
 * vfs_bufstat.c - the buffer cache's design switch and counters as sysctls (the variables live
 * in vfs_bio.c, vfs_bufdaemon.c and vfs_cluster.c; the names are documented, and kept stable
 * for the experiment harness, in docs/bufcache.md):
 *   vfs.bufdaemon_design     speedup | runningbuf (RW; the presets set it at boot)
 *   vfs.bufdaemon.*          the buf_daemon's counters and the speedup design's state (RO)
 *   vfs.bio.*                reads and writes by kind, getnewbuf sleeps (RO)
 *   vfs.cluster.*            clustered writes and reads, and the write sizes (RO)
 * bufstat_init() registers the counters (bufinit calls it).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/sysctl.h"
#include "vfs/buf_internal.h"
#include "vfs/bufdaemon.h"
#include <sys/errno.h>

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
            "buf_daemon design: speedup (4.2-STABLE) or runningbuf (the December 2000 patch)");

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
	{ "vfs.bufdaemon.design_switches", &bdstats.design_switches, "Changes of vfs.bufdaemon_design" },
	{ "vfs.bio.breads", &bstats.breads, "Block reads issued" },
	{ "vfs.bio.bdwrites", &bstats.bdwrites, "Delayed writes (bdwrite)" },
	{ "vfs.bio.bawrites", &bstats.bawrites, "Async writes issued (bawrite, and each cluster)" },
	{ "vfs.bio.bwrites", &bstats.bwrites, "Synchronous writes (bwrite)" },
	{ "vfs.bio.sleeps_newbuf", &bstats.sleeps_newbuf, "getnewbuf sleeps, wmesg newbuf" },
	{ "vfs.cluster.writes", &bstats.cluster_writes, "Clustered writes (2 blocks or more)" },
	{ "vfs.cluster.write_bufs", &bstats.cluster_write_bufs, "Buffers in clustered writes" },
	{ "vfs.cluster.write_bytes", &bstats.cluster_write_bytes, "Bytes in clustered writes" },
	{ "vfs.cluster.reads", &bstats.cluster_reads, "Clustered reads (2 blocks or more)" },
	{ "vfs.cluster.read_bufs", &bstats.cluster_read_bufs, "Buffers in clustered reads" },
	{ "vfs.cluster.readaheads", &bstats.readaheads, "Blocks read ahead of the reader" },
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
