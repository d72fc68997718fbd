/*
 * bio_queue.c - the one-way elevator of a disk's waiting requests (interface and the rules:
 * dev/bio_queue.h). The algorithm is FreeBSD 4's bufqdisksort/bufq_remove, written anew over
 * an embedded link; the queue is a doubly linked list so that a request can be put in front
 * of any other in O(1) once its place is found.
 */
#include <stddef.h>
#include "dev/bio_queue.h"

void bioq_init(struct bioq *q)
{
	q->bq_head = q->bq_tail = NULL;
	q->bq_switch = q->bq_barrier = NULL;
	q->bq_last = 0;
	q->bq_count = 0;
}

struct bioq_link *bioq_first(const struct bioq *q)
{
	return q->bq_head;
}

/* Put l in front of `before` (at the tail if `before` is NULL). */
static void link_before(struct bioq *q, struct bioq_link *before, struct bioq_link *l)
{
	l->bql_next = before;
	l->bql_prev = before != NULL ? before->bql_prev : q->bq_tail;
	if (l->bql_prev != NULL)
		l->bql_prev->bql_next = l;
	else
		q->bq_head = l;
	if (before != NULL)
		before->bql_prev = l;
	else
		q->bq_tail = l;
}

/*
 * Put l in the ascending run that starts at `from` and ends before `end` (NULL: the tail), after
 * every request with a key at or below its own: equal keys keep their order of arrival.
 */
static void insert_sorted(struct bioq *q, struct bioq_link *from, struct bioq_link *end,
                          struct bioq_link *l)
{
	struct bioq_link *p = from;

	while (p != end && p->bql_key <= l->bql_key)
		p = p->bql_next;
	link_before(q, p, l);
}

/*
 * bioq_disksort: add l. A barrier, or any request to an empty queue, goes to the tail. Behind a
 * barrier a request is sorted among the ones behind it. Otherwise a request at or above the
 * head's position joins the current sweep; one below it joins the next sweep, which it may
 * start, or lead when it is lower than the sweep's first request. (A request that finds the
 * queue empty stands first wherever it lies, as in FreeBSD 4: while every opening is taken, a
 * later request between it and the head's position then waits for the next sweep.)
 */
void bioq_disksort(struct bioq *q, struct bioq_link *l)
{
	q->bq_count++;
	if (l->bql_barrier || q->bq_head == NULL) {
		link_before(q, NULL, l);
		if (l->bql_barrier) {
			q->bq_barrier = l;
			q->bq_switch = NULL;
		}
		return;
	}
	if (q->bq_barrier != NULL) {
		insert_sorted(q, q->bq_barrier->bql_next, NULL, l);
		return;
	}
	if (l->bql_key >= q->bq_last) {
		insert_sorted(q, q->bq_head, q->bq_switch, l);
		return;
	}
	if (q->bq_switch == NULL) {
		link_before(q, NULL, l);
		q->bq_switch = l;
	} else if (l->bql_key < q->bq_switch->bql_key) {
		link_before(q, q->bq_switch, l);
		q->bq_switch = l;
	} else {
		insert_sorted(q, q->bq_switch, NULL, l);
	}
}

/*
 * bioq_remove: take l off the queue. Taking the head moves the head's position to l's key;
 * taking the last barrier lets later requests be sorted again from position 0 (everything
 * still queued was behind the barrier and is in ascending order). When the current sweep is
 * used up, the next sweep becomes the current one.
 */
void bioq_remove(struct bioq *q, struct bioq_link *l)
{
	if (l == q->bq_switch)
		q->bq_switch = l->bql_next;
	if (l == q->bq_barrier) {
		q->bq_barrier = l->bql_prev;
		if (q->bq_barrier == NULL)
			q->bq_last = 0;
	} else if (l == q->bq_head) {
		q->bq_last = l->bql_key;
	}
	if (l->bql_prev != NULL)
		l->bql_prev->bql_next = l->bql_next;
	else
		q->bq_head = l->bql_next;
	if (l->bql_next != NULL)
		l->bql_next->bql_prev = l->bql_prev;
	else
		q->bq_tail = l->bql_prev;
	l->bql_next = l->bql_prev = NULL;
	if (q->bq_head == q->bq_switch)
		q->bq_switch = NULL;
	q->bq_count--;
}

/* bioq_start: the next request for the device, if it has an opening (FreeBSD's dev_openings). */
struct bioq_link *bioq_start(struct bioq *q, int *active, int openings)
{
	struct bioq_link *l = q->bq_head;

	if (l == NULL || *active >= openings)
		return NULL;
	bioq_remove(q, l);
	(*active)++;
	return l;
}
