/*
 * The VM's counters as sysctls (FreeBSD's vm/vm_meter.c): vm.stats.vm.<field of struct vmmeter>,
 * all read-only, and the page-accounting check.
 *
 * vm.stats.vm.v_page_check (a string, computed when read) recounts everything under
 * vm_page_queue_lock: it classifies every page of vm_page_array (free, cache, inactive, active,
 * wired, kmem, transient; see vm_page.h), walks every page queue, the physical allocator's free
 * lists and every object's page list, and compares each count with its counter. It reads
 *     ok: managed 7702 = free 7102 + cache 0 + inactive 3 + active 9 + wired 120 + kmem 466 + transient 2
 * or, when anything disagrees, "FAIL: " and the first few disagreements, e.g.
 *     FAIL: v_free_count 7102 but 7101 free pages; PQ_ACTIVE list has 8 pages, counter 9
 * vm_page_check(buf, len) is the same check for kernel code and host unit tests: it returns
 * the number of problems found.
 */
#include "vm/vm_page.h"
#include "vm/vm_phys.h"
#include "vm/vm_object.h"
#include "kern/klib.h"
#include "kern/sysctl.h"

#define VMMETER(field, descr) \
	SYSCTL_DECL_OID(sysctl_vmcnt_##field, "vm.stats.vm." #field, CTLTYPE_INT | CTLFLAG_RD, \
	                &vmcnt.field, 0, NULL, "I", descr)

VMMETER(v_page_count, "Managed pages (every frame of RAM the VM hands out)");
VMMETER(v_free_count, "Pages on the free queue (the physical allocator)");
VMMETER(v_cache_count, "Clean pages on the cache queue, reusable at once");
VMMETER(v_inactive_count, "Pages on the inactive queue");
VMMETER(v_active_count, "Pages on the active queue");
VMMETER(v_wire_count, "Wired pages");
VMMETER(v_kmem_count, "Pages owned by kmalloc");
VMMETER(v_free_min, "Below this many free+cache pages memory is short (pagedaemon works hard)");
VMMETER(v_free_reserved, "Free+cache pages ordinary allocations leave for the system");
VMMETER(v_free_severe, "Below this many free+cache pages memory is severely short");
VMMETER(v_free_target, "Free pages the pagedaemon aims for");
VMMETER(v_cache_min, "Cache pages the pagedaemon aims for");
VMMETER(v_cache_max, "Cache pages above which the cache is trimmed");
VMMETER(v_inactive_target, "Inactive pages the pagedaemon aims for");
VMMETER(v_pageout_free_min, "Pages reserved for the pagedaemon's own I/O");
VMMETER(v_interrupt_free_min, "Pages reserved for allocations at interrupt time");
VMMETER(v_swtch, "Context switches");
VMMETER(v_trap, "Traps (exceptions)");
VMMETER(v_syscall, "System calls");
VMMETER(v_intr, "Device interrupts");
VMMETER(v_reactivated, "Pages reactivated from the cache or inactive queue");
VMMETER(v_pdwakeups, "Pagedaemon wakeups");
VMMETER(v_pdpages, "Pages scanned by the pagedaemon");
VMMETER(v_tfree, "Pages freed");
VMMETER(v_vmwaits, "Sleeps in VM_WAIT (\"vmwait\")");
VMMETER(v_vm_faults, "Page faults resolved");
VMMETER(v_cow_faults, "Copy-on-write faults");
VMMETER(v_zfod, "Pages zero-filled on demand");
VMMETER(v_vnodein, "Vnode pager page-in operations");
VMMETER(v_vnodepgsin, "Pages paged in from files");
VMMETER(v_vnodeout, "Vnode pager page-out operations");
VMMETER(v_vnodepgsout, "Pages written to files by the vnode pager");
VMMETER(v_swapin, "Swap pager page-in operations");
VMMETER(v_swappgsin, "Pages paged in from swap");
VMMETER(v_swapout, "Swap pager page-out operations");
VMMETER(v_swappgsout, "Pages written to swap");
VMMETER(v_pgpgout, "Pages paged out, to swap and to files (any caller of a pager's putpages)");
VMMETER(v_dfree, "Pages freed by the pagedaemon");
VMMETER(v_pdlaundered, "Pages the pagedaemon sent to a pager (laundered)");
VMMETER(v_pdclusters, "Pagedaemon launder operations (clusters of up to 16 pages)");
VMMETER(v_pdrequeued, "onepass: dirty pages sent once around the inactive queue");
VMMETER(v_pdrescans, "twopass: second, laundering passes over the inactive queue");
VMMETER(v_pdscans_twopass, "Inactive scans by the twopass design");
VMMETER(v_pdscans_onepass, "Inactive scans by the onepass design");
VMMETER(v_pdvnodeskips, "Dirty file pages passed over because their vnode was locked");
VMMETER(v_pdpauses, "Times a pagedaemon walk let go of the VM lock between batches of 16 pages");
VMMETER(v_oomkills, "Processes killed for lack of memory and swap");
VMMETER(v_contig_reclaims, "Runs of pages freed to make room for a multi-page kmalloc");
VMMETER(v_contig_fails, "Multi-page kmallocs that found no free or reclaimable run (kmemfrag)");
SYSCTL_DECL_OID(sysctl_vm_object_collapses, "vm.stats.object.collapses", CTLTYPE_INT | CTLFLAG_RD,
                &vm_object_collapses, 0, NULL, "I", "Backing objects merged into their shadow");

struct page_census {
	u_int managed, free, cache, inactive, active, wired, kmem, transient, inobject;
};

struct check_out {
	char  *buf;
	size_t len, used;
	int    problems;
};

static void __printflike(2, 3) problem(struct check_out *o, const char *fmt, ...)
{
	if (o->problems++ >= 4)               /* the first few say enough */
		return;
	if (o->used < o->len) {
		va_list ap;
		va_start(ap, fmt);
		o->used += vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
		va_end(ap);
	}
	if (o->used < o->len)
		o->used += snprintf(o->buf + o->used, o->len - o->used, "; ");
}

/* Classify one managed page, checking what its state implies. */
static void census_page(vm_page_t m, struct page_census *c, struct check_out *o)
{
	uint32_t pfn = m - vm_page_array;
	c->managed++;
	if (m->object != NULL)
		c->inobject++;
	switch (m->queue) {
	case PQ_FREE:
		c->free++;
		if (m->object || m->wire_count || m->kmem || m->busy)
			problem(o, "free page %#x in use", pfn);
		return;
	case PQ_CACHE:
	case PQ_INACTIVE:
	case PQ_ACTIVE:
		if (m->queue == PQ_CACHE)
			c->cache++;
		else if (m->queue == PQ_INACTIVE)
			c->inactive++;
		else
			c->active++;
		if (m->object == NULL || m->wire_count || m->kmem)
			problem(o, "queued page %#x without object, or wired, or kmalloc's", pfn);
		if (m->queue == PQ_CACHE && (m->dirty || (m->flags & PG_BUSY) || m->busy))
			problem(o, "cache page %#x dirty or busy", pfn);
		return;
	case PQ_NONE:
		if (m->kmem) {
			c->kmem++;
			if (m->object || m->wire_count)
				problem(o, "kmalloc page %#x also in an object or wired", pfn);
		} else if (m->wire_count) {
			c->wired++;
		} else {
			c->transient++;
		}
		return;
	default:
		problem(o, "page %#x on bad queue %d", pfn, m->queue);
	}
}

static void check_counter(struct check_out *o, const char *name, u_int counter, u_int counted, const char *what)
{
	if (counter != counted)
		problem(o, "%s %u but %u %s pages", name, counter, counted, what);
}

static void check_queue(struct check_out *o, int q, const char *name)
{
	u_int n = 0;
	vm_page_t m;
	TAILQ_FOREACH(m, &vm_page_queues[q].pl, pageq) {
		if (m->flags & PG_MARKER)
			continue;                 /* the pagedaemon's place holder */
		if (m->queue != q) {
			problem(o, "%s list holds page %#x of queue %d", name, (u_int)(m - vm_page_array), m->queue);
			return;
		}
		n++;
	}
	if (n != *vm_page_queues[q].cnt)
		problem(o, "%s list has %u pages, counter %u", name, n, *vm_page_queues[q].cnt);
}

static void check_objects(struct check_out *o, u_int inobject)
{
	u_int total = 0;
	vm_object_t obj;
	TAILQ_FOREACH(obj, &vm_object_list, object_list) {
		int n = 0;
		vm_page_t m;
		TAILQ_FOREACH(m, &obj->memq, listq) {
			if (m->object != obj || vm_page_lookup_locked(obj, m->pindex) != m)
				problem(o, "object page %#x not found at its (object, pindex)", (u_int)(m - vm_page_array));
			n++;
		}
		if (n != obj->resident_page_count)
			problem(o, "object with %d pages says resident_page_count %d", n, obj->resident_page_count);
		total += n;
	}
	if (total != inobject)
		problem(o, "%u pages on object lists but %u pages name an object", total, inobject);
}

/* The console's ^P: the page queues and the targets (read without the lock, as vmstat does). */
void vm_meter_dump(void)
{
	kprintf("^P vm: %u free (target %u, min %u), %u cache, %u inactive, %u active, %u wired, %u kmalloc; "
	        "%u vmwaits, %u pagedaemon wakeups, %u contig reclaims, %u contig fails\n", vmcnt.v_free_count,
	        vmcnt.v_free_target, vmcnt.v_free_min, vmcnt.v_cache_count, vmcnt.v_inactive_count,
	        vmcnt.v_active_count, vmcnt.v_wire_count, vmcnt.v_kmem_count, vmcnt.v_vmwaits, vmcnt.v_pdwakeups,
	        vmcnt.v_contig_reclaims, vmcnt.v_contig_fails);
}

int vm_page_check(char *buf, size_t len)
{
	struct page_census c = { 0 };
	struct check_out o = { buf, len, 0, 0 };
	if (len > 0)
		buf[0] = 0;
	if (len > 6)
		o.used = snprintf(buf, len, "FAIL: ");
	spin_lock(&vm_page_queue_lock);
	for (uint32_t i = 0; i < vm_page_array_size; i++)
		if (vm_page_array[i].pstate != PHYS_UNMANAGED)
			census_page(&vm_page_array[i], &c, &o);
	check_counter(&o, "v_page_count", vmcnt.v_page_count, c.managed, "managed");
	check_counter(&o, "v_free_count", vmcnt.v_free_count, c.free, "free");
	check_counter(&o, "v_cache_count", vmcnt.v_cache_count, c.cache, "cache");
	check_counter(&o, "v_inactive_count", vmcnt.v_inactive_count, c.inactive, "inactive");
	check_counter(&o, "v_active_count", vmcnt.v_active_count, c.active, "active");
	check_counter(&o, "v_wire_count", vmcnt.v_wire_count, c.wired, "wired");
	check_counter(&o, "v_kmem_count", vmcnt.v_kmem_count, c.kmem, "kmalloc");
	long nfree = vm_phys_count_free();
	if (nfree != (long)vmcnt.v_free_count)
		problem(&o, "free lists hold %ld pages (-1: corrupt), v_free_count %u", nfree, vmcnt.v_free_count);
	check_queue(&o, PQ_CACHE, "PQ_CACHE");
	check_queue(&o, PQ_INACTIVE, "PQ_INACTIVE");
	check_queue(&o, PQ_ACTIVE, "PQ_ACTIVE");
	check_objects(&o, c.inobject);
	spin_unlock(&vm_page_queue_lock);
	if (o.problems == 0 && len > 0)
		snprintf(buf, len, "ok: managed %u = free %u + cache %u + inactive %u + active %u + wired %u"
		         " + kmem %u + transient %u", c.managed, c.free, c.cache, c.inactive, c.active,
		         c.wired, c.kmem, c.transient);
	return o.problems;
}

static int sysctl_v_page_check(struct sysctl_req *req)
{
	char buf[320];
	vm_page_check(buf, sizeof(buf));
	return sysctl_handle_string(req, buf, sizeof(buf));
}
SYSCTL_PROC(vm_v_page_check, "vm.stats.vm.v_page_check", CTLTYPE_STRING | CTLFLAG_RD, NULL, 0,
            sysctl_v_page_check, "A", "Recount the page queues: \"ok: ...\" or \"FAIL: ...\"");
