/*
 * cluster_plan: the decisions of write clustering (vfs/vfs_cluster.c), as pure functions. No
 * kernel headers: tests/unit/test_cluster_plan.c compiles cluster_plan.c directly.
 *
 *   cluster_write_plan(cs, lbn, blkno, dblks, maxclen, &plan)
 *       FreeBSD 4's cluster_write case analysis for one full block written (logical block lbn,
 *       at disk address blkno; dblks disk blocks per file block; maxclen: how many more blocks
 *       a cluster starting here may grow by).
 *       It updates the per-vnode state cs (v_lastw, v_cstart, v_lasta, v_clen) and says what to
 *       do: optionally push (write) the previous cluster, then delay the block (bdwrite), write
 *       it at once (bawrite: not contiguous with anything), or delay it and write the finished
 *       cluster it completes.
 *   cluster_run(probe, arg, start, blkno, dblks, maxlen)
 *       How many blocks from `start` (which qualifies, at disk address blkno) form one run: each
 *       next block must pass probe (in core, dirty, clusterable, not busy...) and sit at the next
 *       disk address. At most maxlen. (cluster_wbuild's scan.)
 *   cluster_span(probe, arg, lbn, blkno, dblks, maxlen, &start)
 *       The run around block lbn: forward, then backward while the whole stays <= maxlen
 *       (vfs_bio_awrite's search in both directions: the flusher finds buffers in any order).
 *       Returns the length; *start its first block.
 * A probe answers for one logical block: whether it may join, and its disk address.
 */
#ifndef _VFS_CLUSTER_PLAN_H_
#define _VFS_CLUSTER_PLAN_H_

#include <stdint.h>
#include <stdbool.h>

struct cluster_wstate {
	int64_t cw_lastw;      /* last block written (FreeBSD's v_lastw) */
	int64_t cw_cstart;     /* first block of the cluster being built (v_cstart) */
	int64_t cw_lasta;      /* disk address of cw_lastw (v_lasta) */
	int     cw_clen;       /* blocks the cluster may still grow by; 0 = no cluster (v_clen) */
};

enum cluster_wact {
	CW_DELAY,              /* bdwrite the block: the cluster grows */
	CW_WRITE_NOW,          /* bawrite the block: it cannot be part of a cluster */
	CW_DELAY_AND_BUILD,    /* bdwrite it, then write the run [build_start, +build_len) */
};

struct cluster_wplan {
	bool              push;          /* first write the previous cluster: */
	int64_t           push_start;
	int               push_len;
	enum cluster_wact act;           /* then this block */
	int64_t           build_start;
	int               build_len;
};

typedef bool cluster_probe_t(void *arg, int64_t lbn, int64_t *blkno);

void cluster_write_plan(struct cluster_wstate *cs, int64_t lbn, int64_t blkno, int64_t dblks,
                        int maxclen, struct cluster_wplan *plan);
int  cluster_run(cluster_probe_t *probe, void *arg, int64_t start, int64_t blkno, int64_t dblks,
                 int maxlen);
int  cluster_span(cluster_probe_t *probe, void *arg, int64_t lbn, int64_t blkno, int64_t dblks,
                  int maxlen, int64_t *startp);

#endif
