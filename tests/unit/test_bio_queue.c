/*
 * Host unit tests of the disk queue's one-way elevator (kernel/dev/bio_queue.c, FreeBSD 4's
 * bufqdisksort): requests come out in ascending order from the head's position up, then from
 * the lowest one the head had passed; a request that arrives behind the head waits for the
 * next sweep; a barrier is never passed; the openings bound how many requests are started;
 * and, over a long random mix of arrivals and starts, the queue is always one ascending run at
 * or above the head's position followed by one below it. Then the synchronous class (the
 * syncfirst design's): synchronous requests first, in the order they came; asynchronous ones
 * within the depth, one at a time while a synchronous one is at the device; turning the class
 * on and off moves the waiting requests without losing one; and the negative control: without
 * the class, a synchronous request waits for its turn in the elevator.
 */
#include <stdlib.h>
#include "unit.h"
#include "dev/bio_queue.c"

#define NREQ 4096

static struct bioq_link reqs[NREQ];
static int nreqs;

static struct bioq_link *req(uint64_t key, bool barrier)
{
	struct bioq_link *l = &reqs[nreqs++ % NREQ];

	l->bql_key = key;
	l->bql_barrier = barrier;
	l->bql_sync = false;
	return l;
}

static struct bioq_link *sreq(uint64_t key)
{
	struct bioq_link *l = req(key, false);

	l->bql_sync = true;
	return l;
}

static void add(struct bioq *q, uint64_t key)
{
	bioq_disksort(q, req(key, false));
}

/* Start everything (unlimited openings) and write the keys into out[]; how many. */
static int drain(struct bioq *q, uint64_t *out, int max)
{
	struct bioq_link *l;
	int n = 0, active = 0;

	while ((l = bioq_start(q, &active, 1 << 30)) != NULL && n < max)
		out[n++] = l->bql_key;
	return n;
}

static bool same(const uint64_t *got, const uint64_t *want, int n)
{
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			return false;
	return true;
}

static void test_one_sweep_up(void)
{
	struct bioq q;
	uint64_t out[8], want[] = { 10, 30, 50, 70 };

	bioq_init(&q);
	add(&q, 50);
	add(&q, 10);
	add(&q, 70);
	add(&q, 30);
	check_int("sweep_count", q.bq_count, 4);
	check_int("sweep_drains_four", drain(&q, out, 8), 4);
	check_int("sweep_ascending_from_zero", same(out, want, 4), 1);
	check_int("sweep_empty_after", q.bq_count, 0);
}

static void test_wrap_to_lowest(void)
{
	struct bioq q;
	struct bioq_link *l;
	uint64_t out[8], want[] = { 30, 40, 50, 3, 5 };
	int active = 0;

	bioq_init(&q);
	add(&q, 50);
	add(&q, 10);
	add(&q, 30);
	l = bioq_start(&q, &active, 1);
	check_u64("wrap_first_started_is_lowest", l->bql_key, 10);
	add(&q, 5);            /* below the head (10): the next sweep */
	add(&q, 40);           /* above it: this sweep, between 30 and 50 */
	add(&q, 3);            /* leads the next sweep */
	add(&q, 20);           /* above the head: this sweep */
	active = 0;
	l = bioq_start(&q, &active, 1);
	check_u64("wrap_then_20", l->bql_key, 20);
	check_int("wrap_rest", drain(&q, out, 8), 5);
	check_int("wrap_order_30_40_50_then_3_5", same(out, want, 5), 1);
}

static void test_barrier_not_passed(void)
{
	struct bioq q;
	uint64_t out[8], want[] = { 10, 50, 0, 5, 20, 60 };

	bioq_init(&q);
	add(&q, 50);
	add(&q, 10);
	bioq_disksort(&q, req(0, true));
	add(&q, 20);
	add(&q, 5);
	add(&q, 60);
	check_int("barrier_drains_all", drain(&q, out, 8), 6);
	check_int("barrier_kept_in_place_later_sorted_behind_it", same(out, want, 6), 1);
	add(&q, 80);
	bioq_disksort(&q, req(0, true));
	add(&q, 8);
	add(&q, 2);
	check_int("behind_last_barrier", drain(&q, out, 8), 4);
	check_u64("behind_last_barrier_sorted_from_zero", out[2], 2);
}

static void test_equal_keys_fifo(void)
{
	struct bioq q;
	struct bioq_link *a = req(100, false), *b = req(100, false), *l;
	int active = 0;

	bioq_init(&q);
	bioq_disksort(&q, a);
	bioq_disksort(&q, b);
	l = bioq_start(&q, &active, 4);
	check_int("equal_keys_keep_arrival_order", l == a, 1);
}

static void test_openings(void)
{
	struct bioq q;
	int active = 0, started = 0;

	bioq_init(&q);
	for (int i = 0; i < 10; i++)
		add(&q, (uint64_t)i * 4096);
	while (bioq_start(&q, &active, 2) != NULL)
		started++;
	check_int("openings_2_start_two", started, 2);
	check_int("openings_active_two", active, 2);
	check_int("openings_rest_wait", q.bq_count, 8);
	active--;                                       /* one completes */
	check_int("openings_one_more_after_completion", bioq_start(&q, &active, 2) != NULL, 1);
	check_int("openings_still_full", bioq_start(&q, &active, 2) == NULL, 1);
	active = 0;
	check_int("openings_raised_start_more", bioq_start(&q, &active, 8) != NULL, 1);
}

/*
 * The queue is at most two ascending runs, the second starting at bq_switch. (Keys in the second
 * run are below the head's position when they arrive; FreeBSD 4 also lets a request that finds
 * the queue empty stand first wherever it is, so that is all that holds for every state.)
 */
static bool two_runs(const struct bioq *q)
{
	int n = 0;

	for (const struct bioq_link *l = q->bq_head; l != NULL; l = l->bql_next, n++)
		if (l->bql_next != NULL && l->bql_next != q->bq_switch && l->bql_next->bql_key < l->bql_key)
			return false;
	return n == q->bq_count;
}

static void test_random_mix(void)
{
	struct bioq q;
	struct bioq_link *l;
	uint64_t prev = 0;
	int active = 0, bad = 0, descents = 0, started = 0;

	srand(1);
	bioq_init(&q);
	for (int step = 0; step < 20000; step++) {
		if (q.bq_count < 64 && rand() % 3 != 0) {
			add(&q, (uint64_t)(rand() % 100000) * 512);
		} else if ((l = bioq_start(&q, &active, 1)) != NULL) {
			active = 0;
			if (started++ > 0 && l->bql_key < prev)
				descents++;
			prev = l->bql_key;
		}
		if (!two_runs(&q))
			bad++;
	}
	check_int("random_always_two_ascending_runs", bad, 0);
	/* FIFO order would descend about half the time; the elevator only when a sweep ends. */
	check_int("random_few_descents", descents * 10 < started, 1);
}

/* Ten async writes, then two synchronous requests below them: the class sends those first. */
static void test_sync_first(void)
{
	struct bioq q;
	struct bioq_link *s1 = sreq(500), *s2 = sreq(100), *l;
	int active = 0, active_sync = 0;

	bioq_init(&q);
	bioq_set_classes(&q, true);
	for (int i = 0; i < 10; i++)
		add(&q, 1000 + (uint64_t)i * 64);
	bioq_disksort(&q, s1);
	bioq_disksort(&q, s2);
	check_int("class_first_is_oldest_sync", bioq_first(&q) == s1, 1);
	l = bioq_start_sync(&q, &active, &active_sync, 64, 4);
	check_int("class_sync_started_first_in_arrival_order", l == s1, 1);
	l = bioq_start_sync(&q, &active, &active_sync, 64, 4);
	check_int("class_second_sync_next", l == s2 && active_sync == 2, 1);
	l = bioq_start_sync(&q, &active, &active_sync, 64, 4);
	check_int("class_one_async_while_sync_at_device", l != NULL && !l->bql_sync, 1);
	check_int("class_no_second_async_while_sync_at_device",
	          bioq_start_sync(&q, &active, &active_sync, 64, 4) == NULL, 1);
	active -= 2;                                    /* both synchronous ones complete */
	active_sync = 0;
	while (bioq_start_sync(&q, &active, &active_sync, 64, 4) != NULL)
		;
	check_int("class_async_up_to_depth_4", active, 4);
	check_int("class_rest_waits_in_elevator", q.bq_count, 6);
	bioq_disksort(&q, sreq(7));
	check_int("class_sync_passes_full_depth",
	          bioq_start_sync(&q, &active, &active_sync, 64, 4) != NULL && active_sync == 1, 1);
	check_int("class_openings_bound_sync_too", bioq_start_sync(&q, &active, &active_sync, 5, 4) == NULL, 1);
}

/* Without the class (FreeBSD 4's queue) the same synchronous request waits for the sweep. */
static void test_no_class_control(void)
{
	struct bioq q;
	struct bioq_link *s = sreq(500), *l;
	int active = 0, before = 0;

	bioq_init(&q);
	for (int i = 0; i < 10; i++)
		add(&q, 1000 + (uint64_t)i * 64);
	l = bioq_start(&q, &active, 1);                 /* the head is now at 1000 */
	bioq_disksort(&q, s);
	active = 0;
	while ((l = bioq_start(&q, &active, 64)) != NULL && l != s)
		before++;
	check_int("control_without_class_sync_waits_for_the_sweep (9 before it)", before, 9);
}

/* Turning the class on takes the waiting synchronous requests out of the elevator; off, back. */
static void test_set_classes(void)
{
	struct bioq q;
	struct bioq_link *s1 = sreq(300), *s2 = sreq(50), *l;
	int active = 0, n = 0, nsync = 0;

	bioq_init(&q);
	add(&q, 200);
	bioq_disksort(&q, s1);
	add(&q, 100);
	bioq_disksort(&q, s2);
	bioq_set_classes(&q, true);
	check_int("classes_on_moves_sync", q.bq_nsync == 2 && q.bq_count == 2, 1);
	check_int("classes_on_keeps_elevator_order", q.bq_shead == s2 && s2->bql_next == s1, 1);
	bioq_set_classes(&q, false);
	check_int("classes_off_moves_back", q.bq_nsync == 0 && q.bq_count == 4 && two_runs(&q), 1);
	while ((l = bioq_start(&q, &active, 64)) != NULL) {
		n++;
		nsync += l->bql_sync;
	}
	check_int("classes_off_loses_nothing", n == 4 && nsync == 2, 1);
}

int main(void)
{
	test_one_sweep_up();
	test_wrap_to_lowest();
	test_barrier_not_passed();
	test_equal_keys_fifo();
	test_openings();
	test_random_mix();
	test_sync_first();
	test_no_class_control();
	test_set_classes();
	return unit_exit();
}
