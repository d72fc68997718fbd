/*
 * The pageout daemon (see vm_pageout.h), FreeBSD 4.x vm/vm_pageout.c in both of the designs the
 * project compares. Read it in this order:
 *   1. the shared per-page helpers: what to do with one inactive page (vm_pageout_page), how to
 *      launder a dirty one (vm_pageout_launder -> vm_pageout_clean -> vm_pageout_flush);
 *   2. the active-queue aging scan (vm_pageout_scan_active) and the 5 s stats pass;
 *   3. the two inactive scans, side by side: vm_pageout_scan_twopass() (4.2-STABLE) and
 *      vm_pageout_scan_onepass() (the patch of December 2000). They differ only in what they do
 *      with a dirty page and in how often they walk the queue; everything else is step 1;
 *   4. vm_pageout_scan(): shortage, the design's scan, the active scan, cache-to-free refill,
 *      and the last resort (kill the largest process); then the daemon's loop.
 * Sources (keys of docs/sources.md): FreeBSD's vm_pageout.c of late 2000, just before the patch
 * [@fbsd-vm_pageout-2000], for everything both designs share; RELENG_4's 1.151.2.15
 * [@fbsd-vm_pageout-r4] and a -current text of 2002 [@fbsd-vm_pageout-2002] for the patch's
 * one-pass scan. The 4.2-RELEASE text was not read: the two-pass scan is a reconstruction
 * (marked where it is defined). docs/vm.md "The pageout daemon" lists the deviations.
 *
 * Locking: the scans run with vm_page_queue_lock held and drop it to launder (the pager may
 * sleep) and for a moment every SCAN_BATCH pages (scan_next), so that no walk keeps interrupts
 * off for long. A marker page keeps the walk's place in its queue while the lock is dropped.
 */
#include "vm/vm_pageout.h"
#include "vm/vm_object.h"
#include "vm/vm_pager.h"
#include "vm/swap_pager.h"
#include "arch/pmap.h"
#include "kern/klib.h"
#include "kern/sleep.h"
#include "kern/sysctl.h"
#include "kern/time.h"
#include "kern/proc.h"
#include "vfs/vnode.h"
#include "vfs/vfs.h"
#include <sys/errno.h>
#include <sys/signal.h>

int vm_pages_needed;                  /* a scan was asked for (vm_page_queue_lock) */
int vm_pageout_page_count = VM_PAGEOUT_PAGE_COUNT;
int vm_pageout_deficit;               /* allocations that failed since the last scan */
int vm_max_launder = 32;
int vm_pageout_design = PAGEOUT_ONEPASS;
int vm_pageout_pass;                  /* the daemon's `pass` (read-only sysctl) */
struct proc *pageproc;
static int vm_pageout_stats_interval = 5;   /* seconds */

#define MAXBSIZE_PAGES (2 * 65536 / PAGE_SIZE)   /* 2 * MAXBSIZE (64 KB) in pages */
#define OOM_STUCK_SCANS  (2 * 10)                /* 10 s of scans, two a second (HZ/2 apart) */
#define PQ_L2_SIZE     32                        /* FreeBSD 4's page colours, kept in the sum */
#define LAUNDER_UNCAPPED 10000                   /* FreeBSD's "effectively unlimited" */

/* ---- boot-time targets ------------------------------------------------------------------------- */

/*
 * The targets as FreeBSD's vm_pageout() computes them at boot [@fbsd-vm_pageout-2000]. `pages`
 * stands for the free count when the daemon starts; wdrain passes the managed page count
 * (docs/vm.md "The targets" tabulates 64 MB and 128 MB: 16384 and 32768 pages). The launder
 * budget is 32 pages, 16 on machines of at most 1800 pages.
 */
void vm_pageout_targets(struct vmmeter *cnt, u_int pages)
{
	if (pages < 2000)
		vm_pageout_page_count = 8;
	vm_max_launder = pages <= 1800 ? 16 : 32;
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

/* ---- 1. shared per-page helpers (vm_page_queue_lock held) -------------------------------------- */

/* A clusterable neighbour: resident, dirty, inactive, not wired, held, busy or cached. */
static bool cluster_candidate(vm_page_t p)
{
	if (p == NULL || p->queue != PQ_INACTIVE || (p->flags & PG_BUSY) || p->busy ||
	    p->wire_count || p->hold_count || !p->valid)
		return false;
	vm_page_test_dirty_locked(p);
	return p->dirty != 0;
}

/*
 * Write out the pages mc[0..count) of one object (FreeBSD's vm_pageout_flush): soft-busy and
 * write-protect each (a write during the I/O faults and waits; the other CPUs' TLBs are flushed
 * once for the whole cluster, before the pager reads a page), hand them to the pager with
 * the lock dropped, then settle each page by the pager's answer: written (OK) or in flight
 * (PEND, the pager ends its I/O later) count as laundered; a page that could not be written is
 * reactivated so it does not clog the inactive queue. Returns the pages laundered.
 */
static int vm_pageout_flush(vm_page_t *mc, int count)
{
	vm_object_t obj = mc[0]->object;
	int rtvals[VM_PAGEOUT_PAGE_COUNT], done = 0;
	pmap_tlb_defer();                           /* one shootdown for the cluster, not one a page */
	for (int i = 0; i < count; i++) {
		mc[i]->busy++;
		vm_page_protect_locked(mc[i], VM_PROT_READ);
	}
	pmap_tlb_flush();
	spin_unlock(&vm_page_queue_lock);
	vm_pager_put_pages(obj, mc, count, 0, rtvals);
	spin_lock(&vm_page_queue_lock);
	for (int i = 0; i < count; i++) {
		if (rtvals[i] == VM_PAGER_OK || rtvals[i] == VM_PAGER_PEND)
			done++;
		else
			vm_page_activate_locked(mc[i]);
		if (rtvals[i] != VM_PAGER_PEND)
			vm_page_io_finish_locked(mc[i]);
	}
	vmcnt.v_pdlaundered += done;
	vmcnt.v_pdclusters++;
	return done;
}

/*
 * Launder m together with its dirty inactive neighbours of the same object, up to
 * vm_pageout_page_count pages (FreeBSD's vm_pageout_clean, [@fbsd-vm_pageout-2000]): scan
 * backward first and stop at a cluster-aligned boundary, then forward, then backward again if
 * room is left. mc[] is twice the largest cluster, as FreeBSD's: m sits in the middle, at
 * mc[max], and the cluster grows down from there and up. Returns the pages laundered (0: none
 * could be).
 */
int vm_pageout_clean(vm_page_t m)
{
	vm_object_t obj = m->object;
	int max = vm_pageout_page_count;
	vm_page_t mc[2 * VM_PAGEOUT_PAGE_COUNT];
	int base = max, n = 1;
	vm_pindex_t pindex = m->pindex;
	vm_pindex_t ib = 1, is = 1;
	bool backward = true;
	mc[base] = m;
	for (;;) {
		while (backward && n < max) {
			if (ib > pindex || !cluster_candidate(vm_page_lookup_locked(obj, pindex - ib))) {
				backward = false;
				break;
			}
			mc[--base] = vm_page_lookup_locked(obj, pindex - ib);
			n++;
			ib++;
			if ((pindex - (ib - 1)) % max == 0)
				break;                          /* aligned: forward now, maybe back later */
		}
		while (n < max && pindex + is < obj->size &&
		       cluster_candidate(vm_page_lookup_locked(obj, pindex + is))) {
			mc[base + n] = vm_page_lookup_locked(obj, pindex + is);
			n++;
			is++;
		}
		if (!backward || n >= max)
			break;
		if (ib > pindex || !cluster_candidate(vm_page_lookup_locked(obj, pindex - ib)))
			break;                              /* the backward run really ended */
	}
	return vm_pageout_flush(&mc[base], n);
}

/* What vm_pageout_page decided about one inactive page. */
enum page_verdict {
	PAGE_SKIPPED,          /* left alone: a marker, held (requeued), busy */
	PAGE_REACTIVATED,      /* referenced: back to the active queue */
	PAGE_RECLAIMED,        /* freed (invalid) or cached (clean): one less page short */
	PAGE_DIRTY,            /* dirty: the design decides */
};

/*
 * The per-page rules both inactive scans share ([@fbsd-vm_pageout-2000]): a held page goes to the
 * tail, a busy one is skipped (both count toward addl_page_shortage: pages we could not look at);
 * a referenced page is reactivated with its act_count raised by its references plus ACT_ADVANCE
 * (references are ignored when its object has no references left); the pmap's modified bits are
 * pulled in; an invalid page is freed, a clean one cached. Only a dirty page is left to the
 * design.
 */
static enum page_verdict vm_pageout_page(vm_page_t m, int *addl_page_shortage)
{
	if (m->flags & PG_MARKER)
		return PAGE_SKIPPED;
	if (m->hold_count) {
		vm_page_requeue(m);
		(*addl_page_shortage)++;
		return PAGE_SKIPPED;
	}
	if ((m->flags & PG_BUSY) || m->busy) {
		(*addl_page_shortage)++;
		return PAGE_SKIPPED;
	}
	int actcount;
	if (m->object->ref_count == 0) {
		m->flags &= ~PG_REFERENCED;
		pmap_clear_reference(m);
	} else if (!(m->flags & PG_REFERENCED) && (actcount = pmap_ts_referenced(m)) != 0) {
		vm_page_activate_locked(m);
		m->act_count += actcount + ACT_ADVANCE;
		vmcnt.v_reactivated++;
		return PAGE_REACTIVATED;
	}
	if (m->flags & PG_REFERENCED) {
		m->flags &= ~PG_REFERENCED;
		actcount = pmap_ts_referenced(m);
		vm_page_activate_locked(m);
		m->act_count += actcount + ACT_ADVANCE + 1;
		vmcnt.v_reactivated++;
		return PAGE_REACTIVATED;
	}
	if (m->dirty != VM_PAGE_BITS_ALL)
		vm_page_test_dirty_locked(m);
	if (m->valid == 0) {
		vm_page_free_locked(m);
		return PAGE_RECLAIMED;
	}
	if (m->dirty == 0) {
		vm_page_cache_locked(m);
		return PAGE_RECLAIMED;
	}
	return PAGE_DIRTY;
}

/* The scan's state that the launder helper updates. */
struct scan {
	int page_shortage;     /* pages still to reclaim */
	int addl_page_shortage;
	int maxlaunder;        /* launder budget left, in clusters */
	int vnodes_skipped;    /* dirty file pages passed over: their vnode was locked */
};

/*
 * Launder the dirty inactive page m, for either design: an anonymous page with swap full is
 * reactivated instead; a file page needs its vnode's lock, taken with a try-lock (a writer
 * holding it may itself wait for memory: never sleep behind it), and is requeued when the vnode
 * is busy (vnodes_skipped). That is the late-2000 rule both presets date from
 * [@fbsd-vm_pageout-2000]; by 2002 FreeBSD waited a bounded time for the lock and left the page
 * in place instead [@fbsd-vm_pageout-2002] (docs/vm.md, "Deviations"). A marker after m keeps the scan's place
 * while the lock is dropped for the I/O; *next is where the scan goes on. Returns the pages
 * laundered (each launder operation takes one off the budget, as FreeBSD's --maxlaunder).
 */
static int vm_pageout_launder(vm_page_t m, struct scan *s, vm_page_t *next)
{
	vm_object_t obj = m->object;
	struct vnode *vp = NULL;
	if (obj->type != OBJT_VNODE && swap_pager_full) {
		vm_page_activate_locked(m);
		vmcnt.v_reactivated++;
		return 0;
	}
	if (obj->type == OBJT_VNODE) {
		vp = obj->handle;
		if (vget(vp) != 0) {
			vm_page_requeue(m);
			s->vnodes_skipped++;
			vmcnt.v_pdvnodeskips++;
			return 0;
		}
	}
	struct vm_page marker = { .flags = PG_MARKER, .queue = PQ_INACTIVE };
	TAILQ_INSERT_AFTER(&vm_page_queues[PQ_INACTIVE].pl, m, &marker, pageq);
	int done = 0;
	bool locked = vp == NULL || sleeplock_tryacquire(&vp->v_lock);
	if (!locked) {
		vm_page_requeue(m);                     /* its vnode is busy: try again later */
		s->vnodes_skipped++;
		vmcnt.v_pdvnodeskips++;
	} else if ((done = vm_pageout_clean(m)) > 0) {
		s->maxlaunder--;
	}
	if (vp != NULL) {
		if (locked)
			sleeplock_release(&vp->v_lock);
		spin_unlock(&vm_page_queue_lock);
		vrele(vp);
		spin_lock(&vm_page_queue_lock);
	}
	*next = TAILQ_NEXT(&marker, pageq);         /* only now: vrele let go of the lock too */
	TAILQ_REMOVE(&vm_page_queues[PQ_INACTIVE].pl, &marker, pageq);
	return done;
}

/*
 * The walk's next page, after a pause every SCAN_BATCH pages (wdrain's; FreeBSD 4 scanned at
 * splvm, with the clock still ticking). The VM lock is a spinlock held with interrupts off, so
 * a walk of thousands of pages (each maybe a TLB shootdown, milliseconds under TCG) would shut
 * out the timer, the disks and every CPU that faults. The pause drops the lock for a moment, a
 * marker keeping the walk's place before `next` (spin_pause: a CPU spinning for the lock gets
 * it first; the tick that came meanwhile is taken, and preempts the daemon at the end of its
 * time slice, trap()). 16 pages: caching a clean page still mapped by a process running on
 * the other CPU costs a shootdown each, and one took up to 15 ms on a loaded host (TCG).
 */
#define SCAN_BATCH 16

static vm_page_t scan_next(int q, vm_page_t next, int *walked)
{
	if (++*walked % SCAN_BATCH != 0 || next == NULL)
		return next;
	KASSERT(next->queue == q, "scan_next: the walk left its queue");
	struct vm_page marker = { .flags = PG_MARKER, .queue = q };
	TAILQ_INSERT_BEFORE(next, &marker, pageq);
	spin_pause(&vm_page_queue_lock);
	next = TAILQ_NEXT(&marker, pageq);
	TAILQ_REMOVE(&vm_page_queues[q].pl, &marker, pageq);
	vmcnt.v_pdpauses++;
	return next;
}

/* ---- 2. the active queue ----------------------------------------------------------------------- */

/*
 * Age the active queue and deactivate up to `shortage` pages ([@fbsd-vm_pageout-2000], the
 * same in both designs): a busy or held page goes to the tail; a referenced page of a referenced object
 * gains ACT_ADVANCE + its references (up to ACT_MAX) and goes to the tail; any other loses
 * ACT_DECLINE and, at 0 (or when its object is unreferenced), is deactivated: cached at once if
 * clean and its object is unreferenced. The page count bounds the walk.
 */
static void vm_pageout_scan_active(int shortage)
{
	int pcount = (int)vmcnt.v_active_count, walked = 0;
	vm_page_t m = TAILQ_FIRST(&vm_page_queues[PQ_ACTIVE].pl), next;
	for (; m != NULL && pcount-- > 0 && shortage > 0; m = scan_next(PQ_ACTIVE, next, &walked)) {
		next = TAILQ_NEXT(m, pageq);
		if (m->busy || (m->flags & PG_BUSY) || m->hold_count) {
			vm_page_requeue(m);
			continue;
		}
		vmcnt.v_pdpages++;
		int actcount = 0;
		if (m->object->ref_count != 0) {
			if (m->flags & PG_REFERENCED)
				actcount++;
			actcount += pmap_ts_referenced(m);
			if (actcount)
				m->act_count = MIN(m->act_count + ACT_ADVANCE + actcount, ACT_MAX);
		}
		m->flags &= ~PG_REFERENCED;
		if (actcount && m->object->ref_count != 0) {
			vm_page_requeue(m);
			continue;
		}
		m->act_count -= MIN(m->act_count, ACT_DECLINE);
		if (m->object->ref_count != 0 && m->act_count != 0) {
			vm_page_requeue(m);
			continue;
		}
		shortage--;
		if (m->object->ref_count == 0) {
			vm_page_protect_locked(m, VM_PROT_NONE);
			vm_page_test_dirty_locked(m);
			if (m->dirty == 0) {
				vm_page_cache_locked(m);
				continue;
			}
		}
		vm_page_deactivate_locked(m);
	}
}

/*
 * The 5 s statistics pass (FreeBSD's vm_pageout_page_stats): when memory is not short, age
 * part of the active queue (v_free_target pages' worth, all of it every fourth time) so that
 * usage information exists when paging starts. Unused pages at act_count 0 are unmapped and
 * deactivated.
 */
static void vm_pageout_page_stats(void)
{
	static int fullintervalcount;
	int shortage = (int)(vmcnt.v_inactive_target + vmcnt.v_cache_max + vmcnt.v_free_min) -
	               (int)(vmcnt.v_free_count + vmcnt.v_inactive_count + vmcnt.v_cache_count);
	if (shortage <= 0)
		return;
	int pcount = (int)vmcnt.v_active_count;
	fullintervalcount += vm_pageout_stats_interval;
	if (fullintervalcount < 4 * vm_pageout_stats_interval)
		pcount = MIN(pcount, (int)(vmcnt.v_free_target * vmcnt.v_active_count / vmcnt.v_page_count));
	else
		fullintervalcount = 0;
	int walked = 0;
	vm_page_t m = TAILQ_FIRST(&vm_page_queues[PQ_ACTIVE].pl), next;
	for (; m != NULL && pcount-- > 0; m = scan_next(PQ_ACTIVE, next, &walked)) {
		next = TAILQ_NEXT(m, pageq);
		if (m->busy || (m->flags & PG_BUSY) || m->hold_count) {
			vm_page_requeue(m);
			continue;
		}
		int actcount = (m->flags & PG_REFERENCED) ? 1 : 0;
		m->flags &= ~PG_REFERENCED;
		actcount += pmap_ts_referenced(m);
		if (actcount) {
			m->act_count = MIN(m->act_count + ACT_ADVANCE + actcount, ACT_MAX);
			vm_page_requeue(m);
		} else if (m->act_count == 0) {
			vm_page_protect_locked(m, VM_PROT_NONE);
			vm_page_deactivate_locked(m);
		} else {
			m->act_count -= MIN(m->act_count, ACT_DECLINE);
			vm_page_requeue(m);
		}
	}
}

/* ---- 3. the inactive scan: the two designs ------------------------------------------------------ */

/* The launder budget of one scan from vm.max_launder (0 = no cap). */
static int launder_budget(void)
{
	return vm_max_launder > 0 ? vm_max_launder : LAUNDER_UNCAPPED;
}

/*
 * vm_pageout_scan_twopass: FreeBSD 4.2-RELEASE / 4.2-STABLE (November-December 2000).
 * RECONSTRUCTED: the 4.2 text of vm_pageout.c was not read (docs/sources.md,
 * "Reconstructions"). What is checked: the per-page rules (vm_pageout_page) and
 * max_page_launder's boot value of 32 (16 at <= 1800 pages), both in [@fbsd-vm_pageout-2000];
 * that 4.2 had two passes, the first leaving dirty pages alone ([@dillon-post]), and that the
 * patch removed 4.2's solution ([@fbsd-2b6b0df712]). What is recalled, not checked: the second
 * pass as a rescan from the head (`launder_loop`), the heuristic that one third of the
 * inactive queue is clean, and the budget min(inactive_target, max_page_launder) counted in
 * clusters.
 *
 * Pass 1: if a third of the inactive queue is likely to cover the shortage with clean pages,
 * do not launder at all (maxlaunder 0); dirty pages are LEFT IN PLACE. Otherwise launder from
 * the first pass. Pass 2, only if pass 1 did not launder and a shortage remains: walk the
 * queue again from the head, this time laundering dirty pages until the budget runs out.
 */
static void vm_pageout_scan_twopass(struct scan *s)
{
	int budget = MIN((int)vmcnt.v_inactive_target, launder_budget());
	bool launder_loop;
	if ((int)vmcnt.v_inactive_count / 3 > s->page_shortage) {
		s->maxlaunder = 0;
		launder_loop = false;
	} else {
		s->maxlaunder = budget;
		launder_loop = true;
	}
	vmcnt.v_pdscans_twopass++;
rescan:;
	int maxscan = (int)vmcnt.v_inactive_count, walked = 0;
	vm_page_t m = TAILQ_FIRST(&vm_page_queues[PQ_INACTIVE].pl), next;
	for (; m != NULL && maxscan-- > 0 && s->page_shortage > 0; m = scan_next(PQ_INACTIVE, next, &walked)) {
		vmcnt.v_pdpages++;
		next = TAILQ_NEXT(m, pageq);
		switch (vm_pageout_page(m, &s->addl_page_shortage)) {
		case PAGE_RECLAIMED:
			s->page_shortage--;
			break;
		case PAGE_DIRTY:
			if (s->maxlaunder > 0 && vm_pageout_launder(m, s, &next) > 0)
				s->page_shortage--;
			break;                              /* no budget: the page stays where it is */
		default:
			break;
		}
	}
	if (!launder_loop && s->page_shortage > 0) {
		launder_loop = true;
		s->maxlaunder = budget;
		vmcnt.v_pdrescans++;
		goto rescan;
	}
}

/*
 * vm_pageout_scan_onepass: FreeBSD 5.0-CURRENT after Matt Dillon's commit of 2000-12-26
 * [@fbsd-2b6b0df712] (the same code is in RELENG_4). Checked against RELENG_4's 1.151.2.15
 * [@fbsd-vm_pageout-r4] and a -current text of 2002 [@fbsd-vm_pageout-2002] that keep this
 * logic; the text of the commit itself was not read.
 *
 * One walk of the inactive queue. A dirty page met for the first time in pass 0 is marked
 * PG_WINATCFLS and sent to the tail (no I/O): dirty pages get "extra priority", clean pages are
 * reclaimed first. A dirty page met again (or any dirty page from pass 1 on) is laundered while
 * the budget lasts: vm.max_launder clusters in pass 0 (0 = no cap: the patch as posted),
 * unlimited in later passes (the committed version's 10000).
 */
static void vm_pageout_scan_onepass(struct scan *s, int pass)
{
	/* LAB pageout BEGIN */
	s->maxlaunder = pass > 0 ? LAUNDER_UNCAPPED : launder_budget();
	vmcnt.v_pdscans_onepass++;
	int maxscan = (int)vmcnt.v_inactive_count, walked = 0;
	vm_page_t m = TAILQ_FIRST(&vm_page_queues[PQ_INACTIVE].pl), next;
	for (; m != NULL && maxscan-- > 0 && s->page_shortage > 0; m = scan_next(PQ_INACTIVE, next, &walked)) {
		vmcnt.v_pdpages++;
		next = TAILQ_NEXT(m, pageq);
		switch (vm_pageout_page(m, &s->addl_page_shortage)) {
		case PAGE_RECLAIMED:
			s->page_shortage--;
			break;
		case PAGE_DIRTY:
			if (!(m->flags & PG_WINATCFLS) && pass == 0) {
				m->flags |= PG_WINATCFLS;
				vm_page_requeue(m);
				vmcnt.v_pdrequeued++;
			} else if (s->maxlaunder > 0 && vm_pageout_launder(m, s, &next) > 0) {
				s->page_shortage--;
			}
			break;
		default:
			break;
		}
	}
	/* LAB pageout STUB */
	// vm_pageout_scan_twopass(s);   /* labs/pageout: the one-pass scan instead (README) */
	/* LAB pageout END */
}

/* ---- 4. one scan, the last resort, and the daemon ----------------------------------------------- */

static pid_t oom_victim;              /* the process last killed, until it is gone */

/*
 * Out of memory and of swap (FreeBSD's test after vm_pageout_scan in late 2000, which also
 * requires free memory to be short [@fbsd-vm_pageout-2000]; by 2002 it was under #if 0,
 * [@fbsd-vm_pageout-2002]), and — wdrain's
 * addition — nothing else can help: no page on the active or inactive queue could ever be
 * reclaimed (all are dirty anonymous pages with nowhere to go), or the scans have got nowhere
 * (reclaimed, laundered, found I/O in flight: nothing) for 10 s. Without that, dirty file pages
 * (a shared mapping bigger than RAM, still aging on the active queue) would count as "out of
 * swap", and killing the writer would not even help: its dirty pages stay in the file's object.
 * Then kill the process with the most resident pages, except init and system processes, and
 * only one at a time — its memory comes back when it exits.
 */
static bool reclaimable_pages(void)
{
	for (int q = PQ_INACTIVE; q <= PQ_ACTIVE; q++) {
		vm_page_t m;
		TAILQ_FOREACH(m, &vm_page_queues[q].pl, pageq)
			if (!(m->flags & PG_MARKER) && (m->object->type == OBJT_VNODE || m->dirty == 0))
				return true;
	}
	return false;
}

static void vm_pageout_oom(bool progress)
{
	static int stuck_scans;                 /* consecutive scans without progress */
	u_int total, used;
	stuck_scans = progress ? 0 : stuck_scans + 1;
	swap_pager_stats(&total, &used);
	if (!((total - used < 64 || swap_pager_full) && vm_page_count_min()))
		return;
	if (stuck_scans < OOM_STUCK_SCANS && reclaimable_pages())
		return;
	if (oom_victim != 0 && proc_alive(oom_victim))
		return;
	spin_unlock(&vm_page_queue_lock);
	char comm[MAXCOMLEN + 1];
	pid_t pid = proc_largest(comm);
	if (pid > 0) {
		kprintf("pid %d (%s), uid 0, was killed: out of swap space\n", pid, comm);
		proc_kill(pid, SIGKILL);
		oom_victim = pid;
		vmcnt.v_oomkills++;
	}
	spin_lock(&vm_page_queue_lock);
}

/* Move cache pages to the free queue while it holds fewer than v_free_reserved pages. */
static void vm_pageout_cache_refill(void)
{
	vm_page_t m;
	while (vmcnt.v_free_count < vmcnt.v_free_reserved && (m = vm_page_select_cache()) != NULL) {
		vm_page_free_locked(m);
		vmcnt.v_dfree++;
	}
}

/*
 * One pageout scan (FreeBSD's vm_pageout_scan): the shortage is what it takes to reach
 * v_free_target + v_cache_min, plus the allocations that failed meanwhile; the design's
 * inactive scan reclaims toward it; the active scan then deactivates enough to refill the
 * inactive queue toward v_inactive_target (plus the pages the inactive scan could not look at);
 * if dirty file pages were passed over because their vnode was locked and memory is at its
 * minimum, the syncer is told to hurry (FreeBSD's speedup_syncer call, [@fbsd-vm_pageout-r4]);
 * the free queue is refilled from the cache; and if memory and swap are both gone and the scan
 * got nowhere, a process is killed. Lock held.
 */
void vm_pageout_scan(int pass)
{
	struct scan s = { 0 };
	int deficit = vm_pageout_deficit;
	s.addl_page_shortage = deficit;
	vm_pageout_deficit = 0;
	s.page_shortage = vm_paging_target() + s.addl_page_shortage;
	int shortage0 = s.page_shortage;
	if (vm_pageout_design == PAGEOUT_TWOPASS)
		vm_pageout_scan_twopass(&s);
	else
		vm_pageout_scan_onepass(&s, pass);
	/* Reclaimed or laundered pages lower the shortage; held or busy ones raise addl. */
	bool progress = s.page_shortage < shortage0 || s.addl_page_shortage > deficit;
	vm_pageout_scan_active(vm_paging_target() + (int)vmcnt.v_inactive_target -
	                       (int)vmcnt.v_inactive_count + s.addl_page_shortage);
	if (vm_paging_target() > 0 && s.vnodes_skipped && vm_page_count_min())
		speedup_syncer();                   /* their vnodes were locked: let the syncer write them */
	vm_pageout_cache_refill();
	vm_pageout_oom(progress);
}

/*
 * The daemon's loop (FreeBSD's vm_pageout() as of 2002, [@fbsd-vm_pageout-2002]): while memory
 * stays short it scans again, `pass` counting the rescans, sleeping hz/2 between scans from pass 2
 * on; VM_WAIT sleepers are woken as soon as memory is above v_free_min. When memory is fine it
 * sleeps up to vm_pageout_stats_interval (5 s) for a wakeup, `pass` primed to 1 if it had gone
 * past 1, else 0; a timeout runs the statistics pass instead of a scan.
 */
static void vm_pageout(void *arg __unused)
{
	int pass = 0;
	spin_lock(&vm_page_queue_lock);
	for (;;) {
		if (vm_pages_needed && !vm_page_count_min()) {
			if (!vm_paging_needed())
				vm_pages_needed = 0;
			vm_wait_wakeup();
		}
		if (vm_pages_needed) {
			pass++;
			if (pass > 1)
				msleep(&vm_pages_needed, &vm_page_queue_lock, 0, "psleep", HZ / 2);
		} else {
			pass = pass > 1 ? 1 : 0;
			int error = msleep(&vm_pages_needed, &vm_page_queue_lock, 0, "psleep",
			                   vm_pageout_stats_interval * HZ);
			if (error && !vm_pages_needed) {
				pass = 0;
				vm_pageout_pass = 0;
				vm_pageout_page_stats();
				continue;
			}
		}
		if (vm_pages_needed)
			vmcnt.v_pdwakeups++;
		vm_pageout_pass = pass;
		vm_pageout_scan(pass);
	}
}

void vm_pageout_start(void)
{
	if (kproc_create(vm_pageout, NULL, &pageproc, "pagedaemon") != 0)
		panic("vm_pageout_start: cannot create the pagedaemon");
}

/* ---- tunables ---------------------------------------------------------------------------------- */

static const char *const design_names[] = { [PAGEOUT_TWOPASS] = "twopass", [PAGEOUT_ONEPASS] = "onepass" };

static int sysctl_pageout_design(struct sysctl_req *req)
{
	char buf[16];
	strlcpy(buf, design_names[vm_pageout_design], sizeof(buf));
	int error = sysctl_handle_string(req, buf, sizeof(buf));
	if (error || req->newptr == NULL)
		return error;
	for (int d = 0; d < (int)nitems(design_names); d++) {
		if (strcmp(buf, design_names[d]) == 0) {
			vm_pageout_design = d;
			return 0;
		}
	}
	return EINVAL;
}
SYSCTL_PROC(vm_pageout_design, "vm.pageout_design", CTLTYPE_STRING | CTLFLAG_RW, NULL, 0,
            sysctl_pageout_design, "A", "Inactive-queue scan: twopass (4.2-STABLE) or onepass (Dec 2000 patch)");

static int sysctl_max_launder(struct sysctl_req *req)
{
	int v = vm_max_launder;
	int error = sysctl_handle_int(req, &v);
	if (error || req->newptr == NULL)
		return error;
	if (v < 0)
		return EINVAL;
	vm_max_launder = v;
	return 0;
}
SYSCTL_PROC(vm_max_launder, "vm.max_launder", CTLTYPE_INT | CTLFLAG_RW, NULL, 0, sysctl_max_launder,
            "I", "Launder operations per scan (onepass: in pass 0 only); 0 = no cap");
SYSCTL_INT(vm, pageout_stats_interval, CTLFLAG_RW, &vm_pageout_stats_interval,
           "Seconds between the pagedaemon's statistics passes when memory is not short");
SYSCTL_DECL_OID(sysctl_vm_pdpass, "vm.stats.vm.v_pdpass", CTLTYPE_INT | CTLFLAG_RD, &vm_pageout_pass, 0,
                NULL, "I", "The pagedaemon's current pass (0 on a fresh wakeup, +1 per rescan)");
