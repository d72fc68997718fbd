/*
 * The handout's perdevice (labs/perdevice/README.md) is the patch's design under another name:
 * one global budget, runningbufspace against hirunningspace, while the disks' own counts are
 * kept (vfs/rundev.h) and nothing looks at them. Make it a design of your own: the daemon's
 * choice of what to flush, each disk's budget, and the wait after an async write.
 */
static void buf_daemon_perdevice(void)
{
	const struct bd_design *me = &bd_designs[BD_PERDEVICE];

	while (bd_current == me) {
		bdstats.perdevice_loops++;
		while (numdirtybuffers > lodirtybuffers && flushbufqueues(0, 0) != 0)
			waitrunningbufspace();
		bd_round_end(&bdstats.perdevice_drains);
	}
}

/* A disk's budget: the fixed values set for it (vfs.perdevice.<disk>.hirunningspace). [lock] */
int perdevice_hirunning(const struct rundev *rd)
{
	return rd->rd_hirunning;
}

int perdevice_lorunning(const struct rundev *rd)
{
	return rd->rd_lorunning;
}

/* After an async write: the patch's global wait, whatever disks the write went to. */
static void waitrundevspace(const struct rd_charge *rc)
{
	waitrunningbufspace();
}

/* Let every writer waiting for a disk's budget go: nobody waits for one here. [lock] */
void perdevice_release_all(void)
{
}
