/*
 * The pageout daemon (vm_pageout.c): the `pagedaemon` kernel thread that keeps free+cache
 * memory at its targets by aging the active queue and reclaiming the inactive queue, in one of
 * two designs chosen at run time (sysctl vm.pageout_design, docs/vm.md):
 *   twopass - FreeBSD 4.2-STABLE: clean pages first; launder dirty ones only in a second pass,
 *             at most vm.max_launder clusters per scan
 *   onepass - the December 2000 patch: one walk, dirty pages sent once around the queue
 *             (PG_WINATCFLS) and laundered when met again; vm.max_launder caps pass 0 only
 *             (0 = no cap)
 *   vm_pageout_targets(cnt, pages) - the free/cache/inactive targets for `pages` pages (boot)
 *   pagedaemon_wakeup()            - ask for a scan (never sleeps; any context; lock held or not)
 *   vm_pageout_start()             - start the thread (boot)
 *   vm_pageout_scan(pass)          - one scan (the daemon; host unit tests), lock held
 *   vm_pageout_clean(m)            - launder m and its dirty neighbours, lock held
 * Locking: the variables below are protected by vm_page_queue_lock, except the tunables
 * (plain words, read once per scan).
 */
#ifndef _VM_VM_PAGEOUT_H_
#define _VM_VM_PAGEOUT_H_

#include "vm/vm_page.h"

#define PAGEOUT_TWOPASS 0
#define PAGEOUT_ONEPASS 1

struct proc;

extern int vm_pages_needed;           /* a scan was asked for */
#define VM_PAGEOUT_PAGE_COUNT 16      /* the most pages in a pageout cluster (FreeBSD's name) */

extern int vm_pageout_page_count;     /* pages in a pageout cluster (16, or 8 below 2000 pages) */
extern int vm_pageout_deficit;        /* allocations that failed since the last scan */
extern int vm_pageout_design;         /* PAGEOUT_* (vm.pageout_design) */
extern int vm_max_launder;            /* vm.max_launder, 0 = no cap */
extern struct proc *pageproc;         /* the daemon's thread */

void vm_pageout_targets(struct vmmeter *cnt, u_int pages);
void pagedaemon_wakeup(void);
void vm_pageout_start(void);
void vm_pageout_scan(int pass);
int  vm_pageout_clean(vm_page_t m);

#endif
