/*
 * cluster_plan.c - write clustering's decisions (interface: cluster_plan.h). Follows FreeBSD 4's
 * cluster_write (sys/kern/vfs_cluster.c: $Id 1.37 of 1996, and RELENG_4's 1.92.2.9) in the
 * form 4.2 called it, cluster_write(bp, filesize) from ffs_write (ufs_readwrite.c 1.47; all
 * three in docs/sources.md): no seqcount argument, so a completed cluster is
 * always written at once ("write-behind"). Two simplifications, said in docs/bufcache.md: wdfs
 * never reallocates blocks to make a file contiguous (FFS's VOP_REALLOCBLKS), so a break in the
 * sequence always pushes the cluster built so far; and the caller passes the device's largest
 * cluster as maxclen instead of VOP_BMAP's contiguous run, because cluster_run checks the disk
 * address of every block it adds anyway.
 */
#include "vfs/cluster_plan.h"

void cluster_write_plan(struct cluster_wstate *cs, int64_t lbn, int64_t blkno, int64_t dblks,
                        int maxclen, struct cluster_wplan *plan)
{
	plan->push = false;
	plan->act = CW_DELAY;
	/* Writing the file from its start: forget what an earlier pass left. */
	if (lbn == 0) {
		cs->cw_lastw = cs->cw_cstart = cs->cw_lasta = 0;
		cs->cw_clen = 0;
	}
	if (cs->cw_clen == 0 || lbn != cs->cw_lastw + 1 || blkno != cs->cw_lasta + dblks) {
		/*
		 * Not the next block of a cluster (or no cluster yet). A cluster left unfinished is
		 * written now: the process seeked elsewhere, or the blocks are not contiguous.
		 */
		if (cs->cw_clen != 0) {
			plan->push = true;
			plan->push_start = cs->cw_cstart;
			plan->push_len = (int)(cs->cw_lastw - cs->cw_cstart + 1);
		}
		cs->cw_clen = maxclen;
		if (maxclen == 0) {                  /* no room for a cluster: write it alone */
			cs->cw_cstart = lbn + 1;
			plan->act = CW_WRITE_NOW;
		} else {                             /* start a cluster and wait for the rest */
			cs->cw_cstart = lbn;
			plan->act = CW_DELAY;
		}
	} else if (lbn == cs->cw_cstart + cs->cw_clen) {
		/* The last block of a full cluster: write the whole cluster now. */
		plan->act = CW_DELAY_AND_BUILD;
		plan->build_start = cs->cw_cstart;
		plan->build_len = cs->cw_clen + 1;
		cs->cw_clen = 0;
		cs->cw_cstart = lbn + 1;
	} else {
		plan->act = CW_DELAY;                /* the middle of a cluster */
	}
	cs->cw_lastw = lbn;
	cs->cw_lasta = blkno;
}

int cluster_run(cluster_probe_t *probe, void *arg, int64_t start, int64_t blkno, int64_t dblks,
                int maxlen)
{
	int64_t b;
	int n = 1;

	while (n < maxlen && probe(arg, start + n, &b) && b == blkno + n * dblks)
		n++;
	return n;
}

int cluster_span(cluster_probe_t *probe, void *arg, int64_t lbn, int64_t blkno, int64_t dblks,
                 int maxlen, int64_t *startp)
{
	int64_t b;
	int fwd = cluster_run(probe, arg, lbn, blkno, dblks, maxlen), back = 0;

	while (fwd + back < maxlen && lbn - back - 1 >= 0 && probe(arg, lbn - back - 1, &b) &&
	       b == blkno - (back + 1) * dblks)
		back++;
	*startp = lbn - back;
	return fwd + back;
}
