/*
 * vfs.syncio: the synchronous I/O user processes wait for, by kind (sys/sysctl.h: SYNCIO_*).
 * Dillon's commit of the December 2000 patch gives the reason the patch was faster: "allowing
 * required read ops (e.g. for indirect blocks and such) to occur without interrupting the write
 * stream". These counters measure exactly those waits: how many, how long, and how deep the
 * disk's queue was when each I/O arrived (docs/bufcache.md "Synchronous I/O").
 *
 *   syncio_record(kind, t0, qahead)  the current process waited from nanouptime() t0 until
 *                                     now for an I/O of `kind` that found `qahead` requests at
 *                                     its disk (-1: not one I/O). Kernel threads are not counted.
 * Read-only sysctls: vfs.syncio.<kind>.{count,ns,max_ns,qahead} (qahead: the sum, so that
 * qahead / count is the mean), and vfs.syncio.events (the last SYNCIO_RING waits).
 */
#ifndef _VFS_SYNCIO_H_
#define _VFS_SYNCIO_H_

#include "kern/types.h"
#include <sys/sysctl.h>

void syncio_record(int kind, uint64_t t0, int qahead);
void syncio_init(void);

#endif
