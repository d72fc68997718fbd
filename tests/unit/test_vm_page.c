/*
 * Host unit tests of the physical allocator, the page queues and the page-accounting check,
 * compiled from the kernel's own vm_phys.c, vm_page.c, vm_object.c, vnode_pager.c, vm_meter.c
 * and vm_pageout.c (its targets) over a synthetic page array.
 *
 * - the boot targets for 64 MB and 128 MB machines (docs/vm.md "The targets");
 * - buddy runs are aligned and merge back; the free lists agree with v_free_count;
 * - vm_page_alloc's levels (NORMAL stops at v_free_reserved, SYSTEM at v_interrupt_free_min,
 *   INTERRUPT takes the last page), FREE before CACHE, a cache page leaving its object;
 * - the queue moves of the contract (activate, deactivate clearing PG_WINATCFLS, unwire to
 *   either queue, cache, free), object page removal and vnode_pager_setsize;
 * - a multi-page kmalloc in memory cut up by single pages: a run is made of clean inactive
 *   pages, not of wired ones;
 * - a long random sequence of operations checked against a model of each page's state after
 *   every step: free + cache + inactive + active + wired + kmem + transient = managed, and
 *   vm_page_check agrees ("ok: ...");
 * - vm_page_check notices a wrong counter, a page on the wrong list, a lost object page.
 */
#include "vm_host.h"

/* Nothing here maps a page or does I/O: these must not be reached. */
void pmap_page_protect(vm_page_t m, vm_prot_t prot) { panic("pmap_page_protect"); }
bool pmap_is_modified(vm_page_t m) { panic("pmap_is_modified"); }
int  pmap_ts_referenced(vm_page_t m) { panic("pmap_ts_referenced"); }
void pmap_clear_reference(vm_page_t m) { panic("pmap_clear_reference"); }
void pmap_tlb_defer(void) { panic("pmap_tlb_defer"); }
void pmap_tlb_flush(void) { panic("pmap_tlb_flush"); }
int speedup_syncer(void) { panic("speedup_syncer"); }
bool vm_pager_has_page(vm_object_t obj, vm_pindex_t pindex) { return false; }
int  vm_pager_get_pages(vm_object_t obj, vm_page_t *m, int count, int reqpage) { panic("getpages"); }
void vm_pager_put_pages(vm_object_t obj, vm_page_t *m, int count, int flags, int *rtvals) { panic("putpages"); }
bool proc_alive(pid_t pid) { return false; }
pid_t proc_largest(char comm[MAXCOMLEN + 1]) { return 0; }
int proc_kill(pid_t pid, int sig) { return 0; }


static void test_targets(void)
{
	struct vmmeter c = { 0 };
	vm_pageout_targets(&c, 16384);                 /* 64 MB (docs/vm.md "The targets") */
	check_int("targets_64mb_free_reserved", c.v_free_reserved, 103);
	check_int("targets_64mb_free_min", c.v_free_min, 183);
	check_int("targets_64mb_free_severe", c.v_free_severe, 143);
	check_int("targets_64mb_free_target", c.v_free_target, 652);
	check_int("targets_64mb_cache_min", c.v_cache_min, 652);
	check_int("targets_64mb_inactive_target", c.v_inactive_target, 978);
	check_int("targets_64mb_pagedaemon_wakeup_level", c.v_free_reserved + c.v_cache_min, 755);
	check_int("targets_64mb_reclaim_level", c.v_free_target + c.v_cache_min, 1304);
	memset(&c, 0, sizeof(c));
	vm_pageout_targets(&c, 32768);                 /* 128 MB */
	check_int("targets_128mb_free_reserved", c.v_free_reserved, 124);
	check_int("targets_128mb_free_min", c.v_free_min, 286);
	check_int("targets_128mb_free_severe", c.v_free_severe, 205);
	check_int("targets_128mb_free_target", c.v_free_target, 982);
	check_int("targets_128mb_inactive_target", c.v_inactive_target, 1473);
	check_int("targets_128mb_pageout_page_count", vm_pageout_page_count, 16);
}

static void test_buddy(void)
{
	u_int free0 = vmcnt.v_free_count;
	check_int("boot_free_count", free0, NPAGES - 256 - (HOLE_HI - HOLE_LO));
	check_int("boot_free_lists_agree", vm_phys_count_free(), free0);
	spin_lock(&vm_page_queue_lock);
	vm_page_t a = vm_phys_alloc_pages(3), b = vm_phys_alloc_pages(0), c = vm_phys_alloc_pages(5);
	spin_unlock(&vm_page_queue_lock);
	check_int("buddy_run_aligned", (a - vm_page_array) % 8 == 0 && (c - vm_page_array) % 32 == 0, 1);
	bool inuse = true;
	for (int i = 0; i < 8; i++)
		inuse &= a[i].queue == PQ_NONE && a[i].pstate == (i ? PHYS_ALLOC : PHYS_RUNHEAD);
	check_int("buddy_run_pages_taken_off_free", inuse, 1);
	check_int("buddy_free_count_after_alloc", vmcnt.v_free_count, free0 - 8 - 1 - 32);
	spin_lock(&vm_page_queue_lock);
	vm_phys_free_pages(b);
	vm_phys_free_pages(a);
	vm_phys_free_pages(c);
	vm_page_t big = vm_phys_alloc_pages(VM_NFREEORDER - 1);   /* 1024 aligned pages */
	spin_unlock(&vm_page_queue_lock);
	check_int("buddy_merged_back_free_count", vmcnt.v_free_count + (big ? 1024 : 0), free0);
	check_int("buddy_max_order_after_merge", big != NULL && (big - vm_page_array) % 1024 == 0, 1);
	spin_lock(&vm_page_queue_lock);
	if (big)
		vm_phys_free_pages(big);
	spin_unlock(&vm_page_queue_lock);
	check_int("buddy_free_lists_agree", vm_phys_count_free(), free0);
	check_accounting("buddy_accounting");
}

/* Allocate until the class refuses; returns how many it got (all freed again). */
static int drain(int req, vm_object_t obj)
{
	static vm_page_t got[NPAGES];
	int n = 0;
	vm_page_t m;
	while ((m = vm_page_alloc(obj, n, req)) != NULL)
		got[n++] = m;
	for (int i = 0; i < n; i++) {
		vm_page_wakeup(got[i]);
		vm_page_free(got[i]);
	}
	return n;
}

static void test_alloc_levels(void)
{
	vm_object_t obj = vm_object_allocate(OBJT_DEFAULT, 0);
	u_int avail = vm_page_avail();
	check_int("alloc_normal_stops_at_free_reserved", drain(VM_ALLOC_NORMAL, obj), avail - vmcnt.v_free_reserved);
	check_int("alloc_system_stops_at_interrupt_free_min", drain(VM_ALLOC_SYSTEM, obj),
	          avail - vmcnt.v_interrupt_free_min);
	check_int("alloc_interrupt_takes_the_last_page", drain(VM_ALLOC_INTERRUPT, obj), avail);
	vm_pages_needed = 0;
	wakeups = 0;
	vm_page_t m = vm_page_alloc(obj, 0, VM_ALLOC_NORMAL);
	check_int("alloc_above_paging_level_no_pagedaemon_wakeup", vm_pages_needed, 0);
	vm_page_wakeup(m);
	vm_page_free(m);

	/* Fill memory with cache pages of `obj`, then allocate: FREE first, then CACHE. */
	static vm_page_t pages[NPAGES];
	int n = 0;
	while ((m = vm_page_alloc(obj, n, VM_ALLOC_INTERRUPT)) != NULL) {
		vm_page_set_validclean(m);
		vm_page_wakeup(m);
		vm_page_deactivate(m);
		pages[n++] = m;
	}
	for (int i = 0; i < 100; i++)
		vm_page_cache(pages[i]);
	check_int("cache_count", vmcnt.v_cache_count, 100);
	check_int("alloc_with_free_empty_wakes_pagedaemon_flag", vm_pages_needed, 1);
	vm_page_t fresh = vm_page_alloc(NULL, 0, VM_ALLOC_INTERRUPT);
	check_int("alloc_takes_oldest_cache_page", fresh == pages[0], 1);
	check_int("cache_page_left_its_object", vm_page_lookup(obj, 0) == NULL && fresh->object == NULL, 1);
	check_int("alloc_from_cache_counts", vmcnt.v_cache_count, 99);
	vm_page_wakeup(fresh);
	vm_page_free(fresh);
	check_accounting("alloc_from_cache_accounting");
	vm_page_activate(pages[1]);
	check_int("activate_from_cache_counts_reactivated", vmcnt.v_reactivated >= 1 && pages[1]->queue == PQ_ACTIVE, 1);
	vm_object_deallocate(obj);                     /* last reference: every page freed */
	check_int("object_terminate_frees_all", vmcnt.v_free_count, vmcnt.v_page_count);
	check_accounting("object_terminate_accounting");
}

static void test_queue_moves(void)
{
	vm_object_t obj = vm_object_allocate(OBJT_DEFAULT, 0);
	vm_page_t m = vm_page_alloc(obj, 7, VM_ALLOC_NORMAL);
	check_int("alloc_busy_on_no_queue", (m->flags & PG_BUSY) && m->queue == PQ_NONE && m->valid == 0, 1);
	check_int("lookup_finds_alloc", vm_page_lookup(obj, 7) == m, 1);
	vm_page_wakeup(m);
	vm_page_activate(m);
	check_int("activate_sets_act_init", m->queue == PQ_ACTIVE && m->act_count == ACT_INIT, 1);
	m->flags |= PG_WINATCFLS;
	vm_page_deactivate(m);
	check_int("deactivate_clears_winatcfls", m->queue == PQ_INACTIVE && !(m->flags & PG_WINATCFLS), 1);
	vm_page_wire(m);
	vm_page_wire(m);
	check_int("wire_takes_off_queue", m->queue == PQ_NONE && vmcnt.v_wire_count == 1 && vmcnt.v_inactive_count == 0, 1);
	vm_page_unwire(m, true);
	check_int("unwire_not_last_stays_wired", m->queue == PQ_NONE && m->wire_count == 1, 1);
	vm_page_unwire(m, true);
	check_int("last_unwire_activate", m->queue == PQ_ACTIVE && vmcnt.v_wire_count == 0, 1);
	vm_page_wire(m);
	vm_page_unwire(m, false);
	check_int("last_unwire_deactivate", m->queue == PQ_INACTIVE, 1);
	check_accounting("queue_moves_accounting");

	vm_page_dirty(m);
	panic_armed = true;
	if (setjmp(panic_jmp) == 0)
		vm_page_cache(m);
	panic_armed = false;
	check_int("cache_of_dirty_page_refused", panics == 1 && m->queue == PQ_INACTIVE, 1);
	panics = 0;
	vm_page_undirty(m);

	/* Page removal: a wired page is invalidated and left to its owner, the rest freed. */
	vm_page_t w = vm_page_alloc(obj, 8, VM_ALLOC_NORMAL), x = vm_page_alloc(obj, 20, VM_ALLOC_NORMAL);
	vm_page_set_validclean(w);
	vm_page_wakeup(w);
	vm_page_wakeup(x);
	vm_page_wire(w);
	vm_page_deactivate(x);
	vm_object_page_remove(obj, 8, 20, false);
	check_int("page_remove_range_end_exclusive", vm_page_lookup(obj, 20) == x && vm_page_lookup(obj, 7) == m, 1);
	check_int("page_remove_wired_invalidated_kept", vm_page_lookup(obj, 8) == w && w->valid == 0, 1);
	vm_page_dirty(x);
	vm_object_page_remove(obj, 0, 0, true);
	check_int("page_remove_clean_only_keeps_dirty", vm_page_lookup(obj, 20) == x && vm_page_lookup(obj, 7) == NULL, 1);
	vm_page_unwire(w, false);
	vm_object_page_remove(obj, 0, 0, false);
	check_int("page_remove_all", obj->resident_page_count, 0);
	vm_object_deallocate(obj);
	check_accounting("page_remove_accounting");
}

static void test_vnode_object(void)
{
	struct vnode *vp = calloc(1, 4096);            /* only v_object is touched */
	vm_object_t obj = vnode_pager_alloc(vp, 10 * PAGE_SIZE);
	check_int("vnode_object_one_per_vnode", vnode_pager_alloc(vp, 0) == obj && obj->type == OBJT_VNODE, 1);
	check_int("vnode_object_size_pages", obj->size, 10);
	for (int i = 0; i < 10; i++) {
		vm_page_t m = vm_page_alloc(obj, i, VM_ALLOC_NORMAL);
		vm_page_set_validclean(m);
		vm_page_wakeup(m);
		vm_page_deactivate(m);
	}
	vnode_pager_setsize(vp, 4 * PAGE_SIZE);
	check_int("setsize_shrink_frees_past_eof", obj->resident_page_count == 4 && vm_page_lookup(obj, 4) == NULL &&
	          vm_page_lookup(obj, 3) != NULL, 1);
	vnode_pager_setsize(vp, 40 * PAGE_SIZE);
	check_int("setsize_grow_keeps_pages", obj->resident_page_count == 4 && obj->size == 40, 1);
	vm_object_reference(obj);
	check_int("vnode_object_reference_holds_vnode", vrefs == 1 && obj->ref_count == 1, 1);
	vm_object_deallocate(obj);
	check_int("vnode_object_deallocate_keeps_object", vrefs == 0 && obj->ref_count == 0 &&
	          obj->resident_page_count == 4, 1);
	vnode_pager_dealloc(vp);
	check_int("vnode_pager_dealloc_frees", vp->v_object == NULL && vmcnt.v_free_count == vmcnt.v_page_count, 1);
	free(vp);
	check_accounting("vnode_object_accounting");
}

static void test_kmem_pages(void)
{
	u_int free0 = vmcnt.v_free_count;
	vm_page_t a = vm_page_alloc_kmem(2, VM_ALLOC_SYSTEM), b = vm_page_alloc_kmem(0, VM_ALLOC_INTERRUPT);
	check_int("kmem_count", vmcnt.v_kmem_count, 5);
	check_int("kmem_pages_marked", a[3].kmem == KMEM_OWNED && b->kmem == KMEM_OWNED && a->queue == PQ_NONE, 1);
	check_accounting("kmem_accounting");
	vm_page_free_kmem(a);
	vm_page_free_kmem(b);
	check_int("kmem_freed", vmcnt.v_kmem_count == 0 && vmcnt.v_free_count == free0, 1);
}

/*
 * Memory cut up by single pages: every even frame free, every odd one an object's page. A
 * multi-page kmalloc fails while the odd pages are wired (no run can be made), and succeeds
 * once they are clean and inactive: vm_page_reclaim_run frees the object pages of one aligned
 * run. (The livelock it removes: exec's kmalloc looped in VM_WAIT with 1,091 pages free.)
 */
static void test_kmem_fragmented(void)
{
	static vm_page_t pg[NPAGES];
	vm_object_t obj = vm_object_allocate(OBJT_DEFAULT, 0);
	u_int reclaims0 = vmcnt.v_contig_reclaims, fails0 = vmcnt.v_contig_fails;
	int n = 0, kept = 0;
	vm_page_t m;
	while ((m = vm_page_alloc(obj, n, VM_ALLOC_INTERRUPT)) != NULL) {
		vm_page_set_validclean(m);
		vm_page_wire(m);
		vm_page_wakeup(m);
		pg[n++] = m;
	}
	for (int i = 0; i < n; i++) {
		if ((pg[i] - vm_page_array) % 2 == 0) {
			vm_page_unwire(pg[i], false);
			vm_page_free(pg[i]);
			pg[i] = NULL;
		} else
			kept++;
	}
	check_int("frag_half_free", vmcnt.v_free_count >= (u_int)kept - 64, 1);
	m = vm_page_alloc_kmem(2, VM_ALLOC_SYSTEM);
	check_int("frag_wired_no_run", m == NULL && vmcnt.v_contig_fails == fails0 + 1, 1);
	for (int i = 0; i < n; i++)
		if (pg[i])
			vm_page_unwire(pg[i], false);
	u_int resident = obj->resident_page_count;
	m = vm_page_alloc_kmem(2, VM_ALLOC_SYSTEM);
	check_int("frag_clean_inactive_run_made", m != NULL && (m - vm_page_array) % 4 == 0 &&
	          vmcnt.v_contig_reclaims == reclaims0 + 1, 1);
	check_int("frag_run_took_two_object_pages", obj->resident_page_count, resident - 2);
	check_accounting("frag_accounting");
	if (m)
		vm_page_free_kmem(m);
	for (int i = 0; i < n; i++)
		if (pg[i] && pg[i]->object == obj)
			vm_page_free(pg[i]);
	vm_object_deallocate(obj);
	check_int("frag_all_free_again", vmcnt.v_free_count, vmcnt.v_page_count);
}

/* ---- random operations against a model ---- */
enum mstate { M_FREE, M_CACHE, M_INACTIVE, M_ACTIVE, M_WIRED, M_TRANSIENT, M_NSTATE };

static uint32_t rng = 12345;
static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static void test_random_sequence(void)
{
	enum { NOBJ = 4 };
	vm_object_t objs[NOBJ];
	for (int i = 0; i < NOBJ; i++)
		objs[i] = vm_object_allocate(OBJT_DEFAULT, 0);
	static vm_page_t live[NPAGES];                /* pages we own, in objects */
	static vm_page_t kmem[64];
	int nlive = 0, nkmem = 0, bad = 0, steps = 20000;
	vm_pindex_t next = 0;
	u_int kmem_pages = 0;
	for (int step = 0; step < steps && bad == 0; step++) {
		int op = rnd(10);
		if (op <= 2) {                             /* allocate into an object and queue it */
			vm_page_t m = vm_page_alloc(objs[rnd(NOBJ)], next++, rnd(3));
			if (m) {
				vm_page_set_validclean(m);
				vm_page_wakeup(m);
				if (rnd(2))
					vm_page_activate(m);
				else
					vm_page_deactivate(m);
				bool stale = false;        /* a cache page we had, reused */
				for (int i = 0; i < nlive && !stale; i++)
					stale = live[i] == m;
				if (!stale)
					live[nlive++] = m;
			}
		} else if (op == 3 && nlive) {             /* free one */
			int i = rnd(nlive);
			vm_page_t m = live[i];
			if (m->object == NULL) {               /* reused from the cache by an allocation */
				live[i] = live[--nlive];
				continue;
			}
			while (m->wire_count)
				vm_page_unwire(m, false);
			vm_page_free(m);
			live[i] = live[--nlive];
		} else if (op == 4 && nlive) {
			vm_page_t m = live[rnd(nlive)];
			if (m->object && m->wire_count == 0)
				vm_page_cache(m);
		} else if (op == 5 && nlive) {
			vm_page_t m = live[rnd(nlive)];
			if (m->object)
				vm_page_wire(m);
		} else if (op == 6 && nlive) {
			vm_page_t m = live[rnd(nlive)];
			if (m->object && m->wire_count)
				vm_page_unwire(m, rnd(2));
		} else if (op == 7 && nlive) {
			vm_page_t m = live[rnd(nlive)];
			if (m->object && m->wire_count == 0)
				rnd(2) ? vm_page_activate(m) : vm_page_deactivate(m);
		} else if (op == 8) {                      /* kmalloc pages */
			if (nkmem < 64 && rnd(2)) {
				int order = rnd(4);
				vm_page_t m = vm_page_alloc_kmem(order, VM_ALLOC_SYSTEM);
				if (m) {
					kmem[nkmem++] = m;
					kmem_pages += 1u << order;
				}
			} else if (nkmem) {
				int i = rnd(nkmem);
				kmem_pages -= 1u << kmem[i]->order;
				vm_page_free_kmem(kmem[i]);
				kmem[i] = kmem[--nkmem];
			}
		} else if (op == 9 && nlive) {             /* a transient page: allocated, not queued */
			vm_page_t m = vm_page_alloc(NULL, 0, VM_ALLOC_NORMAL);
			if (m) {
				char buf[400];
				vm_page_check(buf, sizeof(buf));
				if (!strstr(buf, "transient 1"))
					bad++, fail("random_transient_page_counted", "transient 1", buf);
				vm_page_wakeup(m);
				vm_page_free(m);
			}
		}
		/* The model: count our pages by state, compare with the counters. */
		u_int n[M_NSTATE] = { 0 };
		for (int i = 0; i < nlive; i++) {
			vm_page_t m = live[i];
			if (m->object == NULL)
				continue;                          /* lost to a cache reuse */
			if (m->wire_count)
				n[M_WIRED]++;
			else if (m->queue == PQ_CACHE)
				n[M_CACHE]++;
			else if (m->queue == PQ_INACTIVE)
				n[M_INACTIVE]++;
			else if (m->queue == PQ_ACTIVE)
				n[M_ACTIVE]++;
		}
		if (n[M_CACHE] != vmcnt.v_cache_count || n[M_INACTIVE] != vmcnt.v_inactive_count ||
		    n[M_ACTIVE] != vmcnt.v_active_count || n[M_WIRED] != vmcnt.v_wire_count ||
		    kmem_pages != vmcnt.v_kmem_count ||
		    vmcnt.v_free_count + vmcnt.v_cache_count + vmcnt.v_inactive_count + vmcnt.v_active_count +
		    vmcnt.v_wire_count + vmcnt.v_kmem_count != vmcnt.v_page_count) {
			char got[128];
			snprintf(got, sizeof(got), "step %d: cache %u/%u inactive %u/%u active %u/%u wired %u/%u",
			         step, vmcnt.v_cache_count, n[M_CACHE], vmcnt.v_inactive_count, n[M_INACTIVE],
			         vmcnt.v_active_count, n[M_ACTIVE], vmcnt.v_wire_count, n[M_WIRED]);
			fail("random_sequence_model", "counters equal the model", got);
			bad++;
		}
		char buf[400];
		if (step % 50 == 0 && vm_page_check(buf, sizeof(buf)) != 0) {
			fail("random_sequence_check", "ok", buf);
			bad++;
		}
	}
	if (bad == 0)
		pass("random_sequence_20000_steps_match_model");
	for (int i = 0; i < nkmem; i++)
		vm_page_free_kmem(kmem[i]);
	for (int i = 0; i < nlive; i++)
		while (live[i]->object && live[i]->wire_count)
			vm_page_unwire(live[i], false);
	for (int i = 0; i < NOBJ; i++)
		vm_object_deallocate(objs[i]);
	check_int("random_sequence_all_free_at_end", vmcnt.v_free_count, vmcnt.v_page_count);
	check_accounting("random_sequence_final_accounting");
}

static void expect_fail(const char *name, const char *needle)
{
	char buf[400];
	int n = vm_page_check(buf, sizeof(buf));
	if (n > 0 && strncmp(buf, "FAIL: ", 6) == 0 && strstr(buf, needle))
		return pass(name);
	fail(name, needle, buf);
}

static void test_check_detects(void)
{
	vm_object_t obj = vm_object_allocate(OBJT_DEFAULT, 0);
	vm_page_t m = vm_page_alloc(obj, 0, VM_ALLOC_NORMAL);
	vm_page_wakeup(m);
	vm_page_activate(m);
	vmcnt.v_active_count++;
	expect_fail("check_detects_wrong_counter", "v_active_count");
	vmcnt.v_active_count--;
	m->queue = PQ_INACTIVE;                        /* on the active list, says inactive */
	expect_fail("check_detects_page_on_wrong_list", "PQ_ACTIVE list holds page");
	m->queue = PQ_ACTIVE;
	obj->resident_page_count++;
	expect_fail("check_detects_object_count", "resident_page_count");
	obj->resident_page_count--;
	vmcnt.v_free_count--;
	expect_fail("check_detects_free_list_mismatch", "free lists hold");
	vmcnt.v_free_count++;
	check_accounting("check_ok_after_repair");
	vm_object_deallocate(obj);
}

int main(void)
{
	test_targets();
	vm_host_machine();
	check_accounting("boot_accounting");
	test_buddy();
	test_alloc_levels();
	test_queue_moves();
	test_vnode_object();
	test_kmem_pages();
	test_kmem_fragmented();
	test_random_sequence();
	test_check_detects();
	return unit_exit();
}
