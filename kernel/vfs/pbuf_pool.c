/*
 * pbuf_pool.c - a fixed pool of I/O headers lent in order of asking (interface and contract:
 * vfs/pbuf_pool.h). FreeBSD 4's getpbuf slept on the pool's count and let every sleeper race
 * for a freed header; here a freed header goes straight to the longest waiter, so no writer
 * can be passed over for ever by newcomers.
 */
#include <stddef.h>
#include "vfs/pbuf_pool.h"

void pbuf_pool_init(struct pbuf_pool *pp, void **slots)
{
	pp->pp_slots = slots;
	pp->pp_nfree = 0;
	pp->pp_size = 0;
	pp->pp_lent = 0;
	pp->pp_whead = pp->pp_wtail = NULL;
	pp->pp_nwait = 0;
	pp->pp_waits = 0;
}

void pbuf_pool_add(struct pbuf_pool *pp, void *hdr)
{
	pp->pp_slots[pp->pp_nfree++] = hdr;
	pp->pp_size++;
}

void *pbuf_try(struct pbuf_pool *pp)
{
	if (pp->pp_nfree == 0 || pp->pp_whead != NULL)
		return NULL;
	pp->pp_lent++;
	return pp->pp_slots[--pp->pp_nfree];
}

void *pbuf_take(struct pbuf_pool *pp, struct pbuf_waiter *w)
{
	void *hdr = pbuf_try(pp);

	if (hdr != NULL)
		return hdr;
	w->pw_next = NULL;
	w->pw_got = NULL;
	if (pp->pp_wtail != NULL)
		pp->pp_wtail->pw_next = w;
	else
		pp->pp_whead = w;
	pp->pp_wtail = w;
	pp->pp_nwait++;
	pp->pp_waits++;
	return NULL;
}

struct pbuf_waiter *pbuf_give(struct pbuf_pool *pp, void *hdr)
{
	struct pbuf_waiter *w = pp->pp_whead;

	if (w == NULL) {
		pp->pp_slots[pp->pp_nfree++] = hdr;
		pp->pp_lent--;
		return NULL;
	}
	pp->pp_whead = w->pw_next;
	if (pp->pp_whead == NULL)
		pp->pp_wtail = NULL;
	pp->pp_nwait--;
	w->pw_got = hdr;
	return w;
}
