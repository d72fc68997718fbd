/*
 * Host unit tests of write clustering's decisions (kernel/vfs/cluster_plan.c, compiled in):
 * cluster_write's sequential detection - a run of contiguous full blocks is delayed and written
 * as one cluster when it reaches the device's size; a seek, a break in the disk addresses or a
 * rewrite from block 0 pushes the cluster built so far; no room for a cluster writes at once -
 * and the run building of cluster_wbuild (forward) and vfs_bio_awrite (both ways).
 */
#include "unit.h"
#include "vfs/cluster_plan.c"

#define DBLKS 16               /* 8 KB blocks in 512-byte disk blocks */
#define MAXCLEN 15             /* 16-block (128 KB) clusters */

/* A file's blocks for the probe: which may join a cluster, and where each is on disk. */
struct blocks {
	bool    ok[64];
	int64_t blkno[64];
};

static bool probe(void *arg, int64_t lbn, int64_t *blkno)
{
	struct blocks *b = arg;

	if (lbn < 0 || lbn >= 64 || !b->ok[lbn])
		return false;
	*blkno = b->blkno[lbn];
	return true;
}

/* Write blocks [first, first+n) at disk address base + i * DBLKS; count the actions. */
static void write_seq(struct cluster_wstate *cs, int64_t first, int n, int64_t base, int *delays,
                      int *builds, struct cluster_wplan *last)
{
	for (int i = 0; i < n; i++) {
		cluster_write_plan(cs, first + i, base + i * DBLKS, DBLKS, MAXCLEN, last);
		if (last->act == CW_DELAY)
			(*delays)++;
		else if (last->act == CW_DELAY_AND_BUILD)
			(*builds)++;
	}
}

static void test_sequential(void)
{
	struct cluster_wstate cs = { 0, 0, 0, 0 };
	struct cluster_wplan p;
	int delays = 0, builds = 0;

	write_seq(&cs, 0, 15, 1000, &delays, &builds, &p);
	check_int("seq: the first 15 blocks of a run are delayed", delays, 15);
	check_int("seq: no cluster written before the run is full", builds, 0);
	cluster_write_plan(&cs, 15, 1000 + 15 * DBLKS, DBLKS, MAXCLEN, &p);
	check_int("seq: the 16th block completes a cluster", p.act, CW_DELAY_AND_BUILD);
	check_int("seq: the cluster starts at block 0", (int)p.build_start, 0);
	check_int("seq: the cluster is 16 blocks (128 KB)", p.build_len, 16);
	check_int("seq: completing a cluster pushes nothing else", p.push, false);

	delays = builds = 0;
	write_seq(&cs, 16, 48, 1000 + 16 * DBLKS, &delays, &builds, &p);
	check_int("seq: 48 more blocks are three more clusters", builds, 3);
	check_int("seq: the last of them starts at block 48", (int)p.build_start, 48);
}

static void test_breaks(void)
{
	struct cluster_wstate cs = { 0, 0, 0, 0 };
	struct cluster_wplan p;
	int delays = 0, builds = 0;

	write_seq(&cs, 0, 6, 1000, &delays, &builds, &p);
	cluster_write_plan(&cs, 20, 5000, DBLKS, MAXCLEN, &p);
	check_int("seek: the unfinished cluster is pushed", p.push, true);
	check_int("seek: pushed from its first block", (int)p.push_start, 0);
	check_int("seek: pushed with the 6 blocks written", p.push_len, 6);
	check_int("seek: the new block starts a cluster (delayed)", p.act, CW_DELAY);

	cluster_write_plan(&cs, 21, 5000 + DBLKS + 8, DBLKS, MAXCLEN, &p);
	check_int("gap on disk: the next block is not contiguous, so push", p.push, true);
	check_int("gap on disk: the push is the one block at 20", p.push_len, 1);

	cluster_write_plan(&cs, 0, 1000, DBLKS, MAXCLEN, &p);
	cluster_write_plan(&cs, 1, 1000 + DBLKS, DBLKS, MAXCLEN, &p);
	check_int("rewrite from block 0: a fresh run, nothing pushed", p.push, false);
	check_int("rewrite from block 0: block 1 is delayed", p.act, CW_DELAY);

	cluster_write_plan(&cs, 9, 9000, DBLKS, 0, &p);
	check_int("no room for a cluster: the block is written at once", p.act, CW_WRITE_NOW);
	cluster_write_plan(&cs, 10, 9000 + DBLKS, DBLKS, 0, &p);
	check_int("no room for a cluster: and so is the next", p.act, CW_WRITE_NOW);
	check_int("no room for a cluster: nothing left to push", p.push, false);
}

static void test_runs(void)
{
	struct blocks b;
	int64_t start;
	int n;

	memset(&b, 0, sizeof(b));
	for (int i = 0; i < 64; i++) {
		b.ok[i] = true;
		b.blkno[i] = 2000 + i * DBLKS;
	}
	b.ok[10] = false;                     /* clean or busy */
	b.blkno[30] += 8;                     /* not where the run expects it */

	n = cluster_run(probe, &b, 2, b.blkno[2], DBLKS, 16);
	check_int("run: stops before a block that may not join", n, 8);
	n = cluster_run(probe, &b, 11, b.blkno[11], DBLKS, 16);
	check_int("run: stops at maxlen", n, 16);
	n = cluster_run(probe, &b, 20, b.blkno[20], DBLKS, 16);
	check_int("run: stops at a break in the disk addresses", n, 10);

	n = cluster_span(probe, &b, 5, b.blkno[5], DBLKS, 16, &start);
	check_int("span: back to block 0 and forward to block 9", n, 10);
	check_int("span: starts at block 0", (int)start, 0);
	n = cluster_span(probe, &b, 15, b.blkno[15], DBLKS, 32, &start);
	check_int("span: forward to the address break, back to the block that may not join", n, 19);
	check_int("span: from block 11 (block 10 may not join)", (int)start, 11);
	n = cluster_span(probe, &b, 25, b.blkno[25], DBLKS, 16, &start);
	check_int("span: forward first, then back while under maxlen", n, 16);
	check_int("span: back from block 25 as far as maxlen allows", (int)start, 14);
	n = cluster_span(probe, &b, 40, b.blkno[40], DBLKS, 4, &start);
	check_int("span: at most maxlen in all", n, 4);
	check_int("span: forward takes the whole budget", (int)start, 40);
}

int main(void)
{
	test_sequential();
	test_breaks();
	test_runs();
	return unit_exit();
}
