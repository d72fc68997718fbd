/*
 * bio_queue.c - the one-way elevator of a disk's waiting requests, and the synchronous class in
 * front of it (interface and the rules: dev/bio_queue.h). The elevator is FreeBSD 4's
 * bufqdisksort/bufq_remove, written anew over an embedded link; the queue is a doubly linked
 * list so that a request can be put in front of any other in O(1) once its place is found. The
 * synchronous class is a second list over the same links, first in first out.
 */
#include <stddef.h>
#include "dev/bio_queue.h"

void bioq_init(struct bioq *q)
{
	q->bq_head = q->bq_tail = NULL;
	q->bq_switch = q->bq_barrier = NULL;
	q->bq_last = 0;
	q->bq_count = 0;
	q->bq_classes = false;
	q->bq_shead = q->bq_stail = NULL;
	q->bq_nsync = 0;
}

struct bioq_link *bioq_first(const struct bioq *q)
{
	return q->bq_shead != NULL ? q->bq_shead : q->bq_head;
}

/* The synchronous class: append l / take l out. */
static void sync_append(struct bioq *q, struct bioq_link *l)
{
	l->bql_next = NULL;
	l->bql_prev = q->bq_stail;
	if (q->bq_stail != NULL)
		q->bq_stail->bql_next = l;
	else
		q->bq_shead = l;
	q->bq_stail = l;
	q->bq_nsync++;
}

static void sync_unlink(struct bioq *q, struct bioq_link *l)
{
	if (l->bql_prev != NULL)
		l->bql_prev->bql_next = l->bql_next;
	else
		q->bq_shead = l->bql_next;
	if (l->bql_next != NULL)
		l->bql_next->bql_prev = l->bql_prev;
	else
		q->bq_stail = l->bql_prev;
	l->bql_next = l->bql_prev = NULL;
	q->bq_nsync--;
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
	if (q->bq_classes && l->bql_sync) {
		sync_append(q, l);
		return;
	}
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
 * Take l out of the elevator. Starting the head (`started`) moves the head's position to l's
 * key; taking the last barrier lets later requests be sorted again from position 0 (everything
 * still queued was behind the barrier and is in ascending order). When the current sweep is
 * used up, the next sweep becomes the current one.
 */
static void elevator_unlink(struct bioq *q, struct bioq_link *l, bool started)
{
	if (l == q->bq_switch)
		q->bq_switch = l->bql_next;
	if (l == q->bq_barrier) {
		q->bq_barrier = l->bql_prev;
		if (q->bq_barrier == NULL)
			q->bq_last = 0;
	} else if (l == q->bq_head && started) {
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

/* bioq_remove: take l off the queue (either class); see elevator_unlink for the elevator. */
void bioq_remove(struct bioq *q, struct bioq_link *l)
{
	if (q->bq_classes && l->bql_sync)
		sync_unlink(q, l);
	else
		elevator_unlink(q, l, true);
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

/*
 * bioq_set_classes: turn the synchronous class on (the synchronous requests waiting in the
 * elevator move to it, in the elevator's order, without moving the head's position) or off (they
 * are sorted back into the elevator, oldest first).
 */
void bioq_set_classes(struct bioq *q, bool on)
{
	struct bioq_link *l, *next;

	if (on == q->bq_classes)
		return;
	if (on) {
		for (l = q->bq_head; l != NULL; l = next) {
			next = l->bql_next;
			if (!l->bql_sync)
				continue;
			elevator_unlink(q, l, false);
			sync_append(q, l);
		}
		q->bq_classes = true;
		return;
	}
	q->bq_classes = false;
	while ((l = q->bq_shead) != NULL) {
		sync_unlink(q, l);
		bioq_disksort(q, l);
	}
}

/*
 * bioq_start_sync: the next request for the device with the synchronous class on: the oldest
 * synchronous one while an opening is free; else the elevator's head while fewer than `depth`
 * asynchronous requests are at the device - and only one at a time while a synchronous request
 * is there.
 */
struct bioq_link *bioq_start_sync(struct bioq *q, int *active, int *active_sync, int openings,
                                  int depth)
{
	struct bioq_link *l = q->bq_shead;

	if (*active >= openings)
		return NULL;
	if (l != NULL) {
		sync_unlink(q, l);
		(*active)++;
		(*active_sync)++;
		return l;
	}
	l = q->bq_head;
	if (l == NULL || *active - *active_sync >= (*active_sync > 0 ? 1 : depth))
		return NULL;
	elevator_unlink(q, l, true);
	(*active)++;
	return l;
}
