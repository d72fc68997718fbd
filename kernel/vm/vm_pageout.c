/*
 * The pageout daemon (see vm_pageout.h): its boot-time targets and its wakeup.
 */
#include "vm/vm_pageout.h"
#include "kern/sleep.h"

int vm_pages_needed;                  /* a scan was asked for (vm_page_queue_lock) */
int vm_pageout_page_count = 16;

#define MAXBSIZE_PAGES (2 * 65536 / PAGE_SIZE)   /* 2 * MAXBSIZE (64 KB) in pages */
#define PQ_L2_SIZE     32                        /* FreeBSD 4's page colours, kept in the sum */

/*
 * The targets as FreeBSD 4.x's vm_pageout() computes them at boot (design-notes §1.4, checked
 * against index id 74978068). `pages` stands for the free count when the daemon starts; wdrain
 * passes the managed page count (the notes' 64 MB / 128 MB tables use 16384 / 32768).
 */
void vm_pageout_targets(struct vmmeter *cnt, u_int pages)
{
	if (pages < 2000)
		vm_pageout_page_count = 8;
	cnt->v_interrupt_free_min = 2;
	cnt->v_free_min = pages > 1024 ? 4 + (pages - 1024) / 200 : 4;
	cnt->v_pageout_free_min = MAXBSIZE_PAGES + cnt->v_interrupt_free_min;
	cnt->v_free_reserved = vm_pageout_page_count + cnt->v_pageout_free_min + pages / 768 + PQ_L2_SIZE;
	cnt->v_free_severe = cnt->v_free_min / 2 + cnt->v_free_reserved;
	cnt->v_free_min += cnt->v_free_reserved;
	if (pages > 6144)
		cnt->v_free_target = 3 * cnt->v_free_min + cnt->v_free_reserved;
	else
		cnt->v_free_target = 2 * cnt->v_free_min + cnt->v_free_reserved;
	cnt->v_cache_min = cnt->v_free_target;
	cnt->v_cache_max = 2 * cnt->v_cache_min;
	cnt->v_inactive_target = (3 * cnt->v_free_target) / 2;
	if (cnt->v_inactive_target > pages / 3)
		cnt->v_inactive_target = pages / 3;
}

void pagedaemon_wakeup(void)
{
	if (!vm_pages_needed) {
		vm_pages_needed = 1;
		wakeup(&vm_pages_needed);
	}
}
