/*
 * List and tail-queue macros (the subset of BSD's <sys/queue.h> that wdrain uses), written for
 * wdrain with the same names and meanings as FreeBSD's queue(3) so kernel code reads like the
 * FreeBSD code it follows.
 *
 *   LIST  - doubly linked list with a one-pointer head: O(1) insert at the head, O(1) removal of
 *           any element (each element points at the pointer that points at it).
 *   TAILQ - doubly linked tail queue with a two-pointer head: O(1) insert at either end or next
 *           to an element, O(1) removal of any element, traversal in both directions.
 *
 * An element embeds a LIST_ENTRY / TAILQ_ENTRY field per list it can be on; the macros take that
 * field's name. The *_FOREACH_SAFE forms allow removing the current element inside the loop.
 * Nothing here locks: the structure that owns the head says which lock protects it.
 * Host unit tests include this file before any libc header; the guard matches glibc's
 * <sys/queue.h>, so that one is then skipped and the kernel's definitions are the ones tested.
 */
#ifndef _SYS_QUEUE_H_
#define _SYS_QUEUE_H_

/* ---- LIST ---------------------------------------------------------------------------------- */
#define LIST_HEAD(name, type)  struct name { struct type *lh_first; }
#define LIST_HEAD_INITIALIZER(head) { NULL }
#define LIST_ENTRY(type)       struct { struct type *le_next; struct type **le_prev; }

#define LIST_FIRST(head)       ((head)->lh_first)
#define LIST_EMPTY(head)       ((head)->lh_first == NULL)
#define LIST_NEXT(elm, field)  ((elm)->field.le_next)
#define LIST_INIT(head)        do { (head)->lh_first = NULL; } while (0)

#define LIST_FOREACH(var, head, field) \
	for ((var) = LIST_FIRST(head); (var) != NULL; (var) = LIST_NEXT(var, field))
#define LIST_FOREACH_SAFE(var, head, field, tvar) \
	for ((var) = LIST_FIRST(head); (var) != NULL && ((tvar) = LIST_NEXT(var, field), 1); \
	     (var) = (tvar))

#define LIST_INSERT_HEAD(head, elm, field) do { \
	if (((elm)->field.le_next = (head)->lh_first) != NULL) \
		(head)->lh_first->field.le_prev = &(elm)->field.le_next; \
	(head)->lh_first = (elm); \
	(elm)->field.le_prev = &(head)->lh_first; \
} while (0)

#define LIST_REMOVE(elm, field) do { \
	if ((elm)->field.le_next != NULL) \
		(elm)->field.le_next->field.le_prev = (elm)->field.le_prev; \
	*(elm)->field.le_prev = (elm)->field.le_next; \
	(elm)->field.le_next = NULL; \
	(elm)->field.le_prev = NULL; \
} while (0)

/* ---- TAILQ --------------------------------------------------------------------------------- */
#define TAILQ_HEAD(name, type) struct name { struct type *tqh_first; struct type **tqh_last; }
#define TAILQ_HEAD_INITIALIZER(head) { NULL, &(head).tqh_first }
#define TAILQ_ENTRY(type)      struct { struct type *tqe_next; struct type **tqe_prev; }

#define TAILQ_FIRST(head)      ((head)->tqh_first)
#define TAILQ_EMPTY(head)      ((head)->tqh_first == NULL)
#define TAILQ_NEXT(elm, field) ((elm)->field.tqe_next)
/* The last element: tqh_last points at the last element's tqe_next, whose enclosing entry's
 * tqe_prev slot follows it; the same layout trick as BSD's (head type is entry-compatible). */
#define TAILQ_LAST(head, headname) (*(((struct headname *)((head)->tqh_last))->tqh_last))
#define TAILQ_PREV(elm, headname, field) (*(((struct headname *)((elm)->field.tqe_prev))->tqh_last))

#define TAILQ_INIT(head) do { \
	(head)->tqh_first = NULL; \
	(head)->tqh_last = &(head)->tqh_first; \
} while (0)

#define TAILQ_FOREACH(var, head, field) \
	for ((var) = TAILQ_FIRST(head); (var) != NULL; (var) = TAILQ_NEXT(var, field))
#define TAILQ_FOREACH_SAFE(var, head, field, tvar) \
	for ((var) = TAILQ_FIRST(head); (var) != NULL && ((tvar) = TAILQ_NEXT(var, field), 1); \
	     (var) = (tvar))

#define TAILQ_INSERT_HEAD(head, elm, field) do { \
	if (((elm)->field.tqe_next = (head)->tqh_first) != NULL) \
		(head)->tqh_first->field.tqe_prev = &(elm)->field.tqe_next; \
	else \
		(head)->tqh_last = &(elm)->field.tqe_next; \
	(head)->tqh_first = (elm); \
	(elm)->field.tqe_prev = &(head)->tqh_first; \
} while (0)

#define TAILQ_INSERT_TAIL(head, elm, field) do { \
	(elm)->field.tqe_next = NULL; \
	(elm)->field.tqe_prev = (head)->tqh_last; \
	*(head)->tqh_last = (elm); \
	(head)->tqh_last = &(elm)->field.tqe_next; \
} while (0)

#define TAILQ_INSERT_AFTER(head, listelm, elm, field) do { \
	if (((elm)->field.tqe_next = (listelm)->field.tqe_next) != NULL) \
		(elm)->field.tqe_next->field.tqe_prev = &(elm)->field.tqe_next; \
	else \
		(head)->tqh_last = &(elm)->field.tqe_next; \
	(listelm)->field.tqe_next = (elm); \
	(elm)->field.tqe_prev = &(listelm)->field.tqe_next; \
} while (0)

#define TAILQ_INSERT_BEFORE(listelm, elm, field) do { \
	(elm)->field.tqe_prev = (listelm)->field.tqe_prev; \
	(elm)->field.tqe_next = (listelm); \
	*(listelm)->field.tqe_prev = (elm); \
	(listelm)->field.tqe_prev = &(elm)->field.tqe_next; \
} while (0)

#define TAILQ_REMOVE(head, elm, field) do { \
	if ((elm)->field.tqe_next != NULL) \
		(elm)->field.tqe_next->field.tqe_prev = (elm)->field.tqe_prev; \
	else \
		(head)->tqh_last = (elm)->field.tqe_prev; \
	*(elm)->field.tqe_prev = (elm)->field.tqe_next; \
	(elm)->field.tqe_next = NULL; \
	(elm)->field.tqe_prev = NULL; \
} while (0)

#endif
