/*
 * vfs_syncio.c - counting the synchronous I/O waits of user processes (interface: vfs/syncio.h).
 *
 * Called from biowait (the buffer cache's one place where a process waits for a block's I/O)
 * and from fsync(2). The counters and the ring of recent events are protected by syncio_lock;
 * a record is a few stores, so the lock is never held long.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/kmalloc.h"
#include "kern/proc.h"
#include "kern/sysctl.h"
#include "kern/time.h"
#include "vfs/syncio.h"
#include <sys/errno.h>

struct syncio_stat {
	int64_t count;
	int64_t ns;           /* total time waited */
	int64_t max_ns;
	int64_t qahead;       /* sum of the queue depths found */
};

static struct spinlock syncio_lock;
static struct syncio_stat stats[SYNCIO_NKINDS];          /* (syncio_lock) */
static struct syncio_event ring[SYNCIO_RING];            /* (syncio_lock) */
static uint64_t next_seq = 1;                            /* (syncio_lock) */
static const char *const kind_names[SYNCIO_NKINDS] = SYNCIO_KIND_NAMES;

void syncio_record(int kind, uint64_t t0, int qahead)
{
	struct proc *p = curproc;
	uint64_t ns = nanouptime() - t0;
	struct syncio_event *e;

	if (p == NULL || (p->p_flag & P_SYSTEM) || kind < 0 || kind >= SYNCIO_NKINDS)
		return;
	spin_lock(&syncio_lock);
	stats[kind].count++;
	stats[kind].ns += (int64_t)ns;
	if ((int64_t)ns > stats[kind].max_ns)
		stats[kind].max_ns = (int64_t)ns;
	if (qahead > 0)
		stats[kind].qahead += qahead;
	e = &ring[next_seq % SYNCIO_RING];
	e->se_seq = next_seq++;
	e->se_start_us = t0 / 1000;
	e->se_wait_us = (uint32_t)MIN(ns / 1000, (uint64_t)UINT32_MAX);
	e->se_qahead = qahead;
	e->se_kind = kind;
	e->se_pid = p->p_pid;
	spin_unlock(&syncio_lock);
}

/* vfs.syncio.events: the ring, oldest first (copied under the lock, then written out). */
static int sysctl_syncio_events(struct sysctl_req *req)
{
	struct syncio_event *copy = kmalloc(sizeof(ring), M_WAITOK);
	uint64_t first, last;
	int n = 0, error;

	if (copy == NULL)
		return ENOMEM;
	spin_lock(&syncio_lock);
	last = next_seq;
	first = last > SYNCIO_RING ? last - SYNCIO_RING : 1;
	for (uint64_t s = first; s < last; s++)
		copy[n++] = ring[s % SYNCIO_RING];
	spin_unlock(&syncio_lock);
	error = sysctl_out(req, copy, (size_t)n * sizeof(copy[0]));
	kfree(copy);
	return error;
}
SYSCTL_PROC(vfs_syncio_events, "vfs.syncio.events", CTLTYPE_OPAQUE | CTLFLAG_RD, NULL, 0,
            sysctl_syncio_events, "S,syncio_event",
            "The last synchronous I/O waits of user processes (struct syncio_event, oldest first)");

/* vfs.syncio.<kind>.<field>: arg1 the kind's counters, arg2 the field's offset. */
static int sysctl_syncio_stat(struct sysctl_req *req)
{
	int64_t v;

	spin_lock(&syncio_lock);
	v = *(int64_t *)((char *)req->oid->oid_arg1 + req->oid->oid_arg2);
	spin_unlock(&syncio_lock);
	return sysctl_handle_quad(req, &v);
}

static const struct {
	const char *name;
	size_t      off;
	const char *descr;
} fields[] = {
	{ "count",  offsetof(struct syncio_stat, count),  "Synchronous I/O waits of user processes" },
	{ "ns",     offsetof(struct syncio_stat, ns),     "Nanoseconds they waited in all" },
	{ "max_ns", offsetof(struct syncio_stat, max_ns), "The longest wait" },
	{ "qahead", offsetof(struct syncio_stat, qahead),
	  "Requests outstanding at the disk when each I/O arrived, summed" },
};

/* syncio_init: the lock and the per-kind sysctls (boot, one CPU). */
void syncio_init(void)
{
	char name[SYSCTL_NAMELEN];

	spin_init(&syncio_lock, "syncio");
	for (int k = 0; k < SYNCIO_NKINDS; k++)
		for (size_t f = 0; f < nitems(fields); f++) {
			snprintf(name, sizeof(name), "vfs.syncio.%s.%s", kind_names[k], fields[f].name);
			sysctl_add_proc(name, CTLTYPE_QUAD | CTLFLAG_RD, &stats[k], (intptr_t)fields[f].off,
			                sysctl_syncio_stat, "Q", fields[f].descr);
		}
}
