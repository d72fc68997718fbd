/*
 * bio_queue: a disk's queue of requests waiting for the device, in one-way elevator order
 * (FreeBSD 4's bufqdisksort, sys/kern/subr_disklabel.c, with bufq_remove in sys/sys/buf.h:
 * [@fbsd-bufqdisksort]; docs/storage.md "The disk queue"). Pure code: no kernel headers, so
 * tests/unit/test_bio_queue.c compiles bio_queue.c directly.
 *
 * The queue sorts by a key (the request's byte offset on the disk). It holds at most two
 * ascending runs: the current sweep, keys at or above the position of the last request taken
 * off the head, then the next sweep, keys that arrived after the head had passed them.
 * bq_switch points at the first request of the next sweep. The head moves up the disk in one
 * direction only and then jumps back to the lowest waiting request: a request never waits for
 * more than one full sweep, however many arrive ahead of the head.
 *
 * A barrier (a cache flush) goes to the tail and nothing that arrives later may be sorted in
 * front of it (FreeBSD's B_ORDERED and insert_point): requests behind the last barrier are kept
 * in ascending order among themselves only.
 *
 * The synchronous class (off unless bioq_set_classes turns it on; FreeBSD 4 had none): requests
 * a process waits for (bql_sync: a read it needs, a synchronous write, fsync's writes and
 * flushes) wait in a queue of their own, first come first served, in front of the elevator,
 * which keeps the rest (asynchronous writes, read-ahead) in its order. bioq_start_sync hands
 * the device a synchronous request first, and an asynchronous one only while no synchronous
 * request waits or is at the device, and while fewer than `depth` requests are there: so the
 * drive's own reordering, which serves the request nearest its head first and would pass a
 * read over for a stream of sequential writes, never has a write to prefer to it. The class is
 * the idea of the deadline schedulers (reads dispatched ahead of writes) and Kyber (a queue per
 * kind of request, the asynchronous one's depth at the device limited); the hold is wdrain's
 * (docs/bufcache.md "The syncfirst design").
 *
 *   bioq_init(q)              an empty queue, head at position 0
 *   bioq_disksort(q, l)       add request l (l->bql_key and l->bql_barrier set by the caller)
 *   bioq_first(q)             the request to start next, or NULL
 *   bioq_remove(q, l)         take l off the queue (the head, when the caller starts it): the
 *                             head's position becomes l's key
 *   bioq_start(q, &active, openings)
 *                             the device's side: the head, taken off the queue and counted in
 *                             *active, if fewer than `openings` requests are active; else NULL
 *                             (the caller decrements *active when a request completes)
 *   bioq_set_classes(q, on)   the synchronous class on (the bql_sync requests waiting in the
 *                             elevator move to it, in the elevator's order) or off (they go back
 *                             into the elevator)
 *   bioq_start_sync(q, &active, &active_sync, openings, depth)
 *                             the device's side with the class on (rules above): the request
 *                             taken off the queue and counted in *active, and a synchronous one
 *                             also in *active_sync (the caller decrements both when it completes)
 * The caller serializes calls (a disk's d_qlock) and embeds a struct bioq_link in its request.
 */
#ifndef _DEV_BIO_QUEUE_H_
#define _DEV_BIO_QUEUE_H_

#include <stdbool.h>
#include <stdint.h>

struct bioq_link {
	struct bioq_link *bql_next, *bql_prev;
	uint64_t          bql_key;       /* sort key: the byte offset on the disk */
	bool              bql_barrier;   /* nothing later may pass it (a flush) */
	bool              bql_sync;      /* a process waits for it: the synchronous class's */
};

struct bioq {
	struct bioq_link *bq_head, *bq_tail;
	struct bioq_link *bq_switch;     /* first request of the next sweep, or NULL */
	struct bioq_link *bq_barrier;    /* the last barrier still queued, or NULL */
	uint64_t          bq_last;       /* key of the request last taken off the head */
	int               bq_count;      /* requests in the elevator */
	bool              bq_classes;    /* the synchronous class is on */
	struct bioq_link *bq_shead, *bq_stail;   /* the synchronous class, oldest first */
	int               bq_nsync;      /* requests in it */
};

void              bioq_init(struct bioq *q);
void              bioq_disksort(struct bioq *q, struct bioq_link *l);
struct bioq_link *bioq_first(const struct bioq *q);
void              bioq_remove(struct bioq *q, struct bioq_link *l);
struct bioq_link *bioq_start(struct bioq *q, int *active, int openings);
void              bioq_set_classes(struct bioq *q, bool on);
struct bioq_link *bioq_start_sync(struct bioq *q, int *active, int *active_sync, int openings,
                                  int depth);

#endif
