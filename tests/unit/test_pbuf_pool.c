/*
 * Host unit tests of the cluster headers' pool (kernel/vfs/pbuf_pool.c, FreeBSD 4's pbufs):
 * it never lends more headers than it holds, a taker that finds it empty waits, freed headers
 * go to the waiters in the order they came (never to a newcomer while anyone waits), and
 * trypbuf never waits and never jumps the queue.
 */
#include "unit.h"
#include "vfs/pbuf_pool.c"

#define NHDR 4

static int hdrs[NHDR];
static void *slots[NHDR];

static void fill(struct pbuf_pool *pp, int n)
{
	pbuf_pool_init(pp, slots);
	for (int i = 0; i < n; i++)
		pbuf_pool_add(pp, &hdrs[i]);
}

static void test_lend_up_to_size(void)
{
	struct pbuf_pool pp;
	struct pbuf_waiter w[NHDR + 2];
	int got = 0;

	fill(&pp, NHDR);
	for (int i = 0; i < NHDR + 2; i++)
		if (pbuf_take(&pp, &w[i]) != NULL)
			got++;
	check_int("lends_the_whole_pool", got, NHDR);
	check_int("never_more_than_size", pp.pp_lent, NHDR);
	check_int("the_rest_wait", pp.pp_nwait, 2);
	check_int("waits_counted", (int)pp.pp_waits, 2);
	check_int("try_gets_nothing_when_empty", pbuf_try(&pp) == NULL, 1);
}

static void test_fifo_handoff(void)
{
	struct pbuf_pool pp;
	struct pbuf_waiter a, b, c, late;
	void *h0, *h1;

	fill(&pp, 2);
	h0 = pbuf_take(&pp, &a);
	h1 = pbuf_take(&pp, &b);
	check_int("two_taken", h0 != NULL && h1 != NULL, 1);
	check_int("a_waits", pbuf_take(&pp, &a) == NULL, 1);
	check_int("b_waits", pbuf_take(&pp, &b) == NULL, 1);
	check_int("c_waits", pbuf_take(&pp, &c) == NULL, 1);
	check_int("first_give_wakes_a", pbuf_give(&pp, h0) == &a, 1);
	check_int("a_got_the_header", a.pw_got == h0, 1);
	check_int("b_still_waiting", b.pw_got == NULL, 1);
	check_int("newcomer_try_does_not_jump_queue", pbuf_try(&pp) == NULL, 1);
	check_int("newcomer_take_queues_behind", pbuf_take(&pp, &late) == NULL, 1);
	check_int("second_give_wakes_b", pbuf_give(&pp, h1) == &b, 1);
	check_int("third_give_wakes_c", pbuf_give(&pp, a.pw_got) == &c, 1);
	check_int("fourth_give_wakes_the_newcomer", pbuf_give(&pp, b.pw_got) == &late, 1);
	check_int("lent_still_two", pp.pp_lent, 2);
	check_int("no_one_left_to_wake", pbuf_give(&pp, c.pw_got) == NULL, 1);
	check_int("header_back_in_pool", pp.pp_nfree, 1);
	check_int("lent_one", pp.pp_lent, 1);
	check_int("try_succeeds_with_no_waiters", pbuf_try(&pp) != NULL, 1);
}

/* Many rounds of takes and gives: the count of headers out never passes the size. */
static void test_invariant(void)
{
	struct pbuf_pool pp;
	struct pbuf_waiter w[64];
	void *out[64];
	int nout = 0, nw = 0, bad = 0, wtail = 0, whead = 0;
	unsigned seed = 7;

	fill(&pp, 3);
	for (int step = 0; step < 10000; step++) {
		seed = seed * 1103515245 + 12345;
		if ((seed >> 16) % 2 == 0 && nw < 64) {
			void *h = pbuf_take(&pp, &w[wtail % 64]);
			if (h != NULL) {
				out[nout++] = h;
			} else {
				nw++;
				wtail++;
			}
		} else if (nout > 0) {
			struct pbuf_waiter *woken = pbuf_give(&pp, out[--nout]);
			if (woken != NULL) {
				if (woken != &w[whead++ % 64])
					bad++;
				out[nout++] = woken->pw_got;
				nw--;
			}
		}
		if (pp.pp_lent > pp.pp_size || pp.pp_lent != nout || pp.pp_nwait != nw)
			bad++;
	}
	check_int("random_never_lends_more_than_size_and_wakes_in_order", bad, 0);
}

int main(void)
{
	test_lend_up_to_size();
	test_fifo_handoff();
	test_invariant();
	return unit_exit();
}
