/*
 * The pageout daemon (vm_pageout.c).
 *   vm_pageout_targets(cnt, pages) - the free/cache/inactive targets for a machine of `pages`
 *                                    pages (design-notes §1.4), stored in *cnt; at boot.
 *   pagedaemon_wakeup()            - ask the daemon for a scan (vm_page_queue_lock held or not;
 *                                    never sleeps, ok in interrupt context).
 *   vm_pages_needed                - set by pagedaemon_wakeup, cleared by the daemon.
 *   vm_pageout_page_count          - pages in a pageout cluster (16, or 8 below 2000 pages).
 */
#ifndef _VM_VM_PAGEOUT_H_
#define _VM_VM_PAGEOUT_H_

#include "vm/vm_page.h"

extern int vm_pages_needed;
extern int vm_pageout_page_count;

void vm_pageout_targets(struct vmmeter *cnt, u_int pages);
void pagedaemon_wakeup(void);

#endif
