/*
 * pbuf_pool: a fixed pool of I/O headers lent in order of asking (FreeBSD 4's physical buffers,
 * "pbufs": getpbuf/trypbuf/relpbuf in sys/vm/vm_pager.c, each user with its own count such as
 * cluster_pbuf_freecnt). Pure code: no kernel headers, so tests/unit/test_pbuf_pool.c compiles
 * pbuf_pool.c directly; the caller (vfs/vfs_cluster.c) holds its lock around every call and
 * does the sleeping and waking.
 *
 *   pbuf_pool_init(pp, slots)      an empty pool; slots must have room for every header added
 *   pbuf_pool_add(pp, hdr)         put a header in the pool (at set-up)
 *   pbuf_take(pp, w)               a header, or NULL: then w joins the queue of waiters and the
 *                                  caller sleeps on w until w->pw_got is set (a header handed to
 *                                  it by pbuf_give). A header never goes to a newcomer while
 *                                  anyone waits, so waiters are served in the order they came.
 *   pbuf_try(pp)                   a header, or NULL without waiting (FreeBSD's trypbuf)
 *   pbuf_give(pp, hdr)             return a header: handed to the longest waiter, whom the
 *                                  caller must then wake (returned), or back to the pool (NULL)
 * The pool never lends more than it holds: pp_lent <= pp_size.
 */
#ifndef _VFS_PBUF_POOL_H_
#define _VFS_PBUF_POOL_H_

#include <stdint.h>

struct pbuf_waiter {
	struct pbuf_waiter *pw_next;
	void               *pw_got;      /* the header handed over, NULL until then */
};

struct pbuf_pool {
	void              **pp_slots;    /* the free headers, pp_nfree of them */
	int                 pp_nfree;
	int                 pp_size;     /* headers the pool holds, lent or free */
	int                 pp_lent;
	struct pbuf_waiter *pp_whead, *pp_wtail;
	int                 pp_nwait;    /* waiters queued */
	uint64_t            pp_waits;    /* takes that had to wait */
};

void                pbuf_pool_init(struct pbuf_pool *pp, void **slots);
void                pbuf_pool_add(struct pbuf_pool *pp, void *hdr);
void               *pbuf_take(struct pbuf_pool *pp, struct pbuf_waiter *w);
void               *pbuf_try(struct pbuf_pool *pp);
struct pbuf_waiter *pbuf_give(struct pbuf_pool *pp, void *hdr);

#endif
