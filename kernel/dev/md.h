/*
 * md: memory disks (dev/md.c), FreeBSD's md(4) for a preloaded image.
 *   md_attach_preload(kva, len) - make disk md<N> (md0 first) of the `len` bytes at kernel virtual
 *       address `kva` (direct-mapped memory, e.g. the root-image multiboot module). Returns 0, or
 *       EINVAL (empty or misaligned image) / ENOMEM.
 * Requests complete asynchronously: d_strategy queues the bio and the disk's kernel thread
 * ("md0") copies the data and calls disk_iodone, as an interrupt handler would.
 */
#ifndef _DEV_MD_H_
#define _DEV_MD_H_

#include "kern/types.h"

int md_attach_preload(void *kva, size_t len);

#endif
