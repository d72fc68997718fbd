/*
 * Resident pages and the page queues (see vm_page.h). Follows FreeBSD 4.x vm/vm_page.c in its
 * functions and their contracts (the 4.x vm_page.c was not read; checked against the vm_page.h
 * and vm_pageout.c of 2000, [@fbsd-vm_page.h-2000] and [@fbsd-vm_pageout-2000] in
 * docs/sources.md), written for wdrain: one spinlock instead
 * of spl levels, no page colours, the free queue is the buddy allocator of vm_phys.c.
 */
#include "vm/vm_page.h"
#include "vm/vm_phys.h"
#include "vm/vm_object.h"
#include "vm/vm_pageout.h"
#include "kern/klib.h"
#include "kern/sleep.h"
#include "kern/time.h"
#include "kern/kmalloc.h"
#include "kern/proc.h"
#include "arch/memlayout.h"
#include "arch/multiboot.h"
#include "arch/pmap.h"

struct spinlock vm_page_queue_lock = { .name = "vmpage" };
struct vmmeter vmcnt;
struct vpgqueues vm_page_queues[PQ_COUNT];
struct vm_page *vm_page_array;
uint32_t vm_page_array_size;
uint32_t physmem_pages;

/* The (object, pindex) -> page hash (vm_page_queue_lock). */
static struct vm_page **vm_page_buckets;
static uint32_t vm_page_hash_mask;

extern char end[];                    /* the kernel image ends here (linker) */

static int vm_wait_chan;              /* VM_WAIT sleepers sleep here */
static int vm_wait_waiters;           /* how many (vm_page_queue_lock) */

static void vm_page_queues_init(void)
{
	static u_int none;
	u_int *cnts[PQ_COUNT] = { &none, &vmcnt.v_free_count, &vmcnt.v_cache_count,
	                          &vmcnt.v_inactive_count, &vmcnt.v_active_count };
	for (int q = 0; q < PQ_COUNT; q++) {
		TAILQ_INIT(&vm_page_queues[q].pl);
		vm_page_queues[q].cnt = cnts[q];
	}
}

/* ---- boot ---------------------------------------------------------------------------------- */

static bool reserved_page(paddr_t pa, const paddr_t (*reserved)[2], int nreserved)
{
	for (int i = 0; i < nreserved; i++)
		if (pa + PAGE_SIZE > reserved[i][0] && pa < reserved[i][1])
			return true;
	return false;
}

/* Calls fn(base, top) for each available-RAM region of the map, clipped to the direct map. */
static void for_each_ram(const struct multiboot_info *mbi, void (*fn)(uint64_t, uint64_t, void *), void *arg)
{
	uint32_t p = mbi->mmap_addr, lim = mbi->mmap_addr + mbi->mmap_length;
	while (p < lim) {
		const struct multiboot_mmap *e = P2V(p);
		if (e->type == 1 && e->addr < DMAP_MAX) {
			uint64_t top = e->addr + e->len;
			if (top > DMAP_MAX)
				top = DMAP_MAX;
			fn(e->addr, top, arg);
		}
		p += e->size + 4;
	}
}

static void note_top(uint64_t lo, uint64_t hi, void *arg)
{
	uint64_t *top = arg;
	if (hi > *top)
		*top = hi;
}

struct add_ctx {
	const paddr_t (*reserved)[2];
	int nreserved;
};

static void add_region(uint64_t lo, uint64_t hi, void *arg)
{
	struct add_ctx *c = arg;
	for (uint64_t pa = roundup(lo, PAGE_SIZE); pa + PAGE_SIZE <= hi; pa += PAGE_SIZE) {
		if (pa < 0x100000 || reserved_page(pa, c->reserved, c->nreserved))
			continue;
		vmcnt.v_page_count++;
		vm_phys_add_page(PHYS_TO_VM_PAGE(pa));
	}
}

/*
 * Build vm_page_array (one entry per frame up to the top of RAM, right after the kernel image and
 * boot modules) and give every usable frame to the physical allocator.
 */
void vm_page_startup(const struct multiboot_info *mbi, const paddr_t (*reserved)[2], int nreserved)
{
	if (!(mbi->flags & MBI_FLAG_MMAP))
		panic("vm_page_startup: the boot loader gave no memory map");
	vm_page_queues_init();
	uint64_t top = 0;
	for_each_ram(mbi, note_top, &top);
	vm_page_array_size = top / PAGE_SIZE;
	paddr_t avail = roundup(V2P(end), PAGE_SIZE);
	for (int i = 0; i < nreserved; i++)
		if (reserved[i][1] > avail && reserved[i][0] < 64u << 20)
			avail = roundup(reserved[i][1], PAGE_SIZE);
	size_t bytes = roundup(vm_page_array_size * sizeof(struct vm_page), PAGE_SIZE);
	vm_page_array = P2V(avail);
	memset(vm_page_array, 0, bytes);
	for (uint32_t i = 0; i < vm_page_array_size; i++) {
		vm_page_array[i].phys_addr = i * PAGE_SIZE;
		TAILQ_INIT(&vm_page_array[i].pv_list);
	}

	paddr_t all[nreserved + 1][2];
	for (int i = 0; i < nreserved; i++) {
		all[i][0] = reserved[i][0];
		all[i][1] = reserved[i][1];
	}
	all[nreserved][0] = V2P(KERNLINK);
	all[nreserved][1] = avail + bytes;
	struct add_ctx c = { (const paddr_t (*)[2])all, nreserved + 1 };
	spin_lock(&vm_page_queue_lock);
	for_each_ram(mbi, add_region, &c);
	spin_unlock(&vm_page_queue_lock);
	physmem_pages = vmcnt.v_page_count;
	if (physmem_pages < 2048)
		panic("vm_page_startup: only %u KB of usable memory", physmem_pages * 4);
	vm_pageout_targets(&vmcnt, vmcnt.v_page_count);
}

/* The page hash: a power of two of buckets, about one per two pages. Called once at boot. */
void vm_page_object_init(void)
{
	uint32_t n = 1;
	while (n < vmcnt.v_page_count / 2)
		n <<= 1;
	vm_page_buckets = kmalloc(n * sizeof(*vm_page_buckets), M_WAITOK | M_ZERO);
	vm_page_hash_mask = n - 1;
}

/* ---- object membership ------------------------------------------------------------------------- */

static uint32_t vm_page_hash(vm_object_t obj, vm_pindex_t pindex)
{
	uint32_t h = (uint32_t)(uintptr_t)obj / sizeof(struct vm_object);
	return (h * 2654435761u + pindex) & vm_page_hash_mask;   /* Knuth's multiplicative hash */
}

void vm_page_insert(vm_page_t m, vm_object_t obj, vm_pindex_t pindex)
{
	KASSERT(m->object == NULL, "vm_page_insert: page already in an object");
	m->object = obj;
	m->pindex = pindex;
	struct vm_page **b = &vm_page_buckets[vm_page_hash(obj, pindex)];
	m->hnext = *b;
	*b = m;
	TAILQ_INSERT_TAIL(&obj->memq, m, listq);
	obj->resident_page_count++;
}

void vm_page_remove(vm_page_t m)
{
	vm_object_t obj = m->object;
	if (obj == NULL)
		return;
	struct vm_page **b = &vm_page_buckets[vm_page_hash(obj, m->pindex)];
	while (*b != m)
		b = &(*b)->hnext;
	*b = m->hnext;
	m->hnext = NULL;
	TAILQ_REMOVE(&obj->memq, m, listq);
	obj->resident_page_count--;
	m->object = NULL;
}

vm_page_t vm_page_lookup_locked(vm_object_t obj, vm_pindex_t pindex)
{
	vm_page_t m = vm_page_buckets[vm_page_hash(obj, pindex)];
	while (m && !(m->object == obj && m->pindex == pindex))
		m = m->hnext;
	return m;
}

bool vm_page_alloc_raced(vm_object_t obj, vm_pindex_t pindex)
{
	return obj != NULL && vm_page_lookup(obj, pindex) != NULL;
}

vm_page_t vm_page_lookup(vm_object_t obj, vm_pindex_t pindex)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_t m = vm_page_lookup_locked(obj, pindex);
	spin_unlock(&vm_page_queue_lock);
	return m;
}

/* ---- queues ------------------------------------------------------------------------------------ */

/* Take m off its queue (CACHE, INACTIVE or ACTIVE); it is then transient or wired. */
void vm_page_unqueue(vm_page_t m)
{
	int q = m->queue;
	if (q == PQ_NONE)
		return;
	KASSERT(q != PQ_FREE, "vm_page_unqueue: a free page");
	TAILQ_REMOVE(&vm_page_queues[q].pl, m, pageq);
	(*vm_page_queues[q].cnt)--;
	m->queue = PQ_NONE;
}

static void vm_page_enqueue(vm_page_t m, int q)
{
	KASSERT(m->object != NULL, "vm_page_enqueue: a queued page must belong to an object");
	m->queue = q;
	TAILQ_INSERT_TAIL(&vm_page_queues[q].pl, m, pageq);
	(*vm_page_queues[q].cnt)++;
}

void vm_page_requeue(vm_page_t m)
{
	int q = m->queue;
	KASSERT(q >= PQ_CACHE && q <= PQ_ACTIVE, "vm_page_requeue: page on no queue");
	TAILQ_REMOVE(&vm_page_queues[q].pl, m, pageq);
	TAILQ_INSERT_TAIL(&vm_page_queues[q].pl, m, pageq);
}

void vm_page_activate_locked(vm_page_t m)
{
	if (m->queue == PQ_ACTIVE)
		return;
	if (m->queue == PQ_CACHE)
		vmcnt.v_reactivated++;
	vm_page_unqueue(m);
	if (m->wire_count == 0) {
		if (m->act_count < ACT_INIT)
			m->act_count = ACT_INIT;
		vm_page_enqueue(m, PQ_ACTIVE);
	}
}

void vm_page_activate(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_activate_locked(m);
	spin_unlock(&vm_page_queue_lock);
}

/* To the tail of INACTIVE. Clears PG_WINATCFLS: the one-pass scan's "sent around once" mark. */
void vm_page_deactivate_locked(vm_page_t m)
{
	if (m->queue == PQ_INACTIVE)
		return;
	if (m->queue == PQ_CACHE)
		vmcnt.v_reactivated++;
	m->flags &= ~PG_WINATCFLS;
	vm_page_unqueue(m);
	if (m->wire_count == 0)
		vm_page_enqueue(m, PQ_INACTIVE);
}

void vm_page_deactivate(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_deactivate_locked(m);
	spin_unlock(&vm_page_queue_lock);
}

/* Wake VM_WAIT sleepers once an ordinary allocation can succeed again. */
static void vm_page_free_wakeup(void)
{
	if (vm_wait_waiters > 0 && vm_page_avail() > vmcnt.v_free_reserved)
		wakeup(&vm_wait_chan);
}

void vm_wait_wakeup(void)
{
	if (vm_wait_waiters > 0)
		wakeup(&vm_wait_chan);
}

/*
 * Move a clean, unbusy, unwired page to PQ_CACHE: still in its object (a lookup finds it and can
 * reactivate it) but counted as available, and reused by vm_page_alloc when PQ_FREE is empty.
 * Every mapping is removed first, so nobody can dirty it behind the cache's back.
 */
void vm_page_cache_locked(vm_page_t m)
{
	KASSERT(!(m->flags & PG_BUSY) && m->busy == 0, "vm_page_cache: busy page");
	KASSERT(m->wire_count == 0 && m->hold_count == 0, "vm_page_cache: wired or held page");
	KASSERT(m->dirty == 0, "vm_page_cache: dirty page");
	if (m->queue == PQ_CACHE)
		return;
	vm_page_protect_locked(m, VM_PROT_NONE);
	vm_page_unqueue(m);
	vm_page_enqueue(m, PQ_CACHE);
	vm_page_free_wakeup();
}

void vm_page_cache(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_cache_locked(m);
	spin_unlock(&vm_page_queue_lock);
}

/*
 * Free a page: off its queue, out of its object, back to the physical allocator. The page must
 * not be wired, held or soft-busy; sleepers waiting for it to be unbusied are woken (they look
 * the page up again and find it gone).
 */
void vm_page_free_locked(vm_page_t m)
{
	KASSERT(m->queue != PQ_FREE, "vm_page_free: freeing a free page");
	KASSERT(m->wire_count == 0, "vm_page_free: freeing a wired page");
	KASSERT(m->busy == 0 && m->hold_count == 0, "vm_page_free: freeing a paging or held page");
	KASSERT(m->kmem == KMEM_NONE, "vm_page_free: freeing a kmalloc page");
	vm_page_protect_locked(m, VM_PROT_NONE);
	vm_page_unqueue(m);
	vm_page_remove(m);
	if (m->flags & PG_WANTED)
		wakeup(m);
	m->flags = 0;
	m->valid = m->dirty = 0;
	m->act_count = 0;
	vmcnt.v_tfree++;
	vm_phys_free_pages(m);
	vm_page_free_wakeup();
}

void vm_page_free(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_free_locked(m);
	spin_unlock(&vm_page_queue_lock);
}

/* ---- allocation -------------------------------------------------------------------------------- */

/* Pages an allocation of class `req` must leave behind (FreeBSD 4.x vm_page_alloc's levels). */
static u_int vm_page_alloc_floor(int req)
{
	switch (req & VM_ALLOC_CLASS_MASK) {
	case VM_ALLOC_NORMAL:
		return vmcnt.v_free_reserved;
	case VM_ALLOC_SYSTEM:
		return vmcnt.v_interrupt_free_min;
	default:
		return 0;
	}
}

/*
 * The oldest cache page that can be reused now (FreeBSD 4.x vm_page_select_cache): one that
 * someone has just found and busied or held (a fault, a lookup) is not reusable; it goes to the
 * inactive queue, out of the allocator's way. NULL if the cache is empty. Lock held.
 */
vm_page_t vm_page_select_cache(void)
{
	vm_page_t m;
	while ((m = TAILQ_FIRST(&vm_page_queues[PQ_CACHE].pl)) != NULL) {
		if (!(m->flags & PG_BUSY) && m->busy == 0 && m->hold_count == 0 && m->wire_count == 0)
			return m;
		vm_page_deactivate_locked(m);
	}
	return NULL;
}

/* One page off PQ_FREE, else the oldest reusable PQ_CACHE page freed from its object. Lock held. */
static vm_page_t vm_page_take_one(void)
{
	vm_page_t m = vm_phys_alloc_pages(0);
	if (m != NULL)
		return m;
	m = vm_page_select_cache();
	if (m == NULL)
		return NULL;
	vm_page_free_locked(m);
	return vm_phys_alloc_pages(0);
}

/*
 * The kernel is preemptive and callers look a page up before they allocate it with the lock
 * dropped in between, so another process may have put a page at (obj, pindex) meanwhile (two
 * faults on one page of a shared object): then nothing is allocated and NULL is returned; the
 * caller's next lookup finds that page (vm_page_alloc_raced tells the two NULLs apart).
 */
vm_page_t vm_page_alloc(vm_object_t obj, vm_pindex_t pindex, int req)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_t m = NULL;
	if (obj != NULL && vm_page_lookup_locked(obj, pindex) != NULL) {
		spin_unlock(&vm_page_queue_lock);
		return NULL;
	}
	if (vm_page_avail() > vm_page_alloc_floor(req))
		m = vm_page_take_one();
	if (m != NULL) {
		m->flags = PG_BUSY;
		m->valid = m->dirty = 0;
		m->act_count = 0;
		m->busy = 0;
		if (obj != NULL)
			vm_page_insert(m, obj, pindex);
	}
	else
		vm_pageout_deficit++;
	if (vm_paging_needed())
		pagedaemon_wakeup();
	spin_unlock(&vm_page_queue_lock);
	return m;
}

/*
 * A page vm_page_reclaim_run may free to make a run: free already, or a page of an object that
 * nobody uses and nothing maps, and that is clean - a cache page, or a clean inactive page (the
 * pagedaemon would cache it without I/O). Lock held.
 */
static bool vm_page_reclaimable(vm_page_t m)
{
	if (m->pstate == PHYS_FREE || m->pstate == PHYS_FREEHEAD)
		return true;
	if (m->queue != PQ_CACHE && m->queue != PQ_INACTIVE)
		return false;
	return !(m->flags & (PG_BUSY | PG_MARKER)) && m->busy == 0 && m->hold_count == 0 &&
	       m->wire_count == 0 && m->dirty == 0 && m->kmem == KMEM_NONE && TAILQ_EMPTY(&m->pv_list);
}

/*
 * vm_page_reclaim_run: make a free run of 2^order pages when the buddy system has none although
 * enough pages are free - memory cut up by single-page allocations (file pages after a long
 * read). Finds the first aligned run of reclaimable pages and frees its cache and clean inactive
 * pages, which the buddy system merges into one block. FreeBSD's contigmalloc1 (vm/vm_page.c,
 * [@fbsd-contigmalloc]) does the same for physically contiguous memory: a run of PQ_FREE and
 * PQ_CACHE pages, after caching clean inactive pages. Without it a kmalloc of two pages or more
 * (a kernel stack, exec's argument buffer) could wait in VM_WAIT forever with a thousand pages
 * free: nothing the pagedaemon does joins them. False if no run qualifies. Lock held.
 */
static bool vm_page_reclaim_run(int order)
{
	uint32_t n = 1u << order;
	for (uint32_t start = 0; start + n <= vm_page_array_size; start += n) {
		uint32_t i;
		for (i = 0; i < n && vm_page_reclaimable(&vm_page_array[start + i]); i++)
			;
		if (i < n)
			continue;
		for (i = 0; i < n; i++) {
			vm_page_t m = &vm_page_array[start + i];
			if (m->pstate != PHYS_FREE && m->pstate != PHYS_FREEHEAD)
				vm_page_free_locked(m);
		}
		vmcnt.v_contig_reclaims++;
		return true;
	}
	return false;
}

/*
 * 2^order contiguous pages for kmalloc. A single page may come from the cache; a larger run that
 * the buddy system does not have is made by vm_page_reclaim_run.
 */
vm_page_t vm_page_alloc_kmem(int order, int req)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_t m = NULL;
	if (vm_page_avail() >= vm_page_alloc_floor(req) + (1u << order)) {
		m = vm_phys_alloc_pages(order);
		if (m == NULL && order == 0) {
			vm_page_t c = vm_page_select_cache();
			if (c != NULL) {
				vm_page_free_locked(c);
				m = vm_phys_alloc_pages(0);
			}
		}
		if (m == NULL && order > 0 && vm_page_reclaim_run(order))
			m = vm_phys_alloc_pages(order);
		if (m == NULL && order > 0)
			vmcnt.v_contig_fails++;
	}
	if (m != NULL) {
		for (uint32_t i = 0; i < (1u << order); i++)
			m[i].kmem = KMEM_OWNED;
		vmcnt.v_kmem_count += 1u << order;
	}
	if (vm_paging_needed())
		pagedaemon_wakeup();
	spin_unlock(&vm_page_queue_lock);
	return m;
}

void vm_page_free_kmem(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	uint32_t n = 1u << m->order;
	for (uint32_t i = 0; i < n; i++) {
		KASSERT(m[i].kmem != KMEM_NONE, "vm_page_free_kmem: not a kmalloc page");
		m[i].kmem = KMEM_NONE;
	}
	vmcnt.v_kmem_count -= n;
	vm_phys_free_pages(m);
	vm_page_free_wakeup();
	spin_unlock(&vm_page_queue_lock);
}

/*
 * VM_WAIT: wake the pagedaemon and sleep until pages are freed with free+cache above
 * v_free_reserved (or the daemon sees memory above v_free_min). The one-second timeout only
 * bounds a wakeup lost to a race with the check; callers retry their allocation in a loop
 * either way. A kill ends the sleep (the killed process is often the one that must exit to
 * free memory). The pagedaemon itself only naps ("pageprocwait"): nobody else would free
 * memory for it. Never call it from interrupt context or with a spinlock held.
 */
void vm_wait(void)
{
	spin_lock(&vm_page_queue_lock);
	if (curproc == pageproc) {
		msleep(&vm_wait_chan, &vm_page_queue_lock, 0, "pgprocwt", HZ / 10);
		spin_unlock(&vm_page_queue_lock);
		return;
	}
	pagedaemon_wakeup();
	vm_wait_waiters++;
	vmcnt.v_vmwaits++;
	msleep(&vm_wait_chan, &vm_page_queue_lock, PCATCH, "vmwait", HZ);
	vm_wait_waiters--;
	spin_unlock(&vm_page_queue_lock);
}

/*
 * vm_wait_kmem: the wait of kmalloc(M_WAITOK) after vm_page_alloc_kmem(order, VM_ALLOC_SYSTEM)
 * failed. Short of pages, it is VM_WAIT. With enough pages but no run of 2^order (see
 * vm_page_reclaim_run) it naps instead ("kmemfrag", a tenth of a second): VM_WAIT ends at every
 * page freed while memory is plentiful, so the caller would fail and wait again in a busy loop.
 */
void vm_wait_kmem(int order)
{
	static int vm_kmem_chan;
	spin_lock(&vm_page_queue_lock);
	bool fragmented = order > 0 && vm_page_avail() >= vm_page_alloc_floor(VM_ALLOC_SYSTEM) + (1u << order);
	if (!fragmented) {
		spin_unlock(&vm_page_queue_lock);
		vm_wait();
		return;
	}
	pagedaemon_wakeup();
	msleep(&vm_kmem_chan, &vm_page_queue_lock, PCATCH, "kmemfrag", HZ / 10);
	spin_unlock(&vm_page_queue_lock);
}

vm_page_t vm_page_grab(vm_object_t obj, vm_pindex_t pindex, int flags)
{
	for (;;) {
		spin_lock(&vm_page_queue_lock);
		vm_page_t m = vm_page_lookup_locked(obj, pindex);
		if (m != NULL && (m->flags & PG_BUSY)) {
			m->flags |= PG_WANTED;
			msleep(m, &vm_page_queue_lock, 0, "pgrab", 0);
			spin_unlock(&vm_page_queue_lock);
			continue;
		}
		if (m != NULL) {
			m->flags |= PG_BUSY;
			spin_unlock(&vm_page_queue_lock);
			return m;
		}
		spin_unlock(&vm_page_queue_lock);
		m = vm_page_alloc(obj, pindex, flags & VM_ALLOC_CLASS_MASK);
		if (m != NULL || !(flags & VM_ALLOC_RETRY))
			return m;
		if (!vm_page_alloc_raced(obj, pindex))
			VM_WAIT;
	}
}

/* ---- busy, hold, wire -------------------------------------------------------------------------- */

void vm_page_busy(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	KASSERT(!(m->flags & PG_BUSY), "vm_page_busy: page already busy");
	m->flags |= PG_BUSY;
	spin_unlock(&vm_page_queue_lock);
}

static void vm_page_flash(vm_page_t m)
{
	if (m->flags & PG_WANTED) {
		m->flags &= ~PG_WANTED;
		wakeup(m);
	}
}

void vm_page_wakeup(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	KASSERT(m->flags & PG_BUSY, "vm_page_wakeup: page not busy");
	m->flags &= ~PG_BUSY;
	vm_page_flash(m);
	spin_unlock(&vm_page_queue_lock);
}

bool vm_page_sleep_busy(vm_page_t m, bool also_m_busy, const char *wmesg)
{
	spin_lock(&vm_page_queue_lock);
	bool busy = (m->flags & PG_BUSY) || (also_m_busy && m->busy);
	if (busy) {
		m->flags |= PG_WANTED;
		msleep(m, &vm_page_queue_lock, 0, wmesg, 0);
	}
	spin_unlock(&vm_page_queue_lock);
	return busy;
}

void vm_page_io_start(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	KASSERT(m->busy < 255, "vm_page_io_start: busy count overflow");
	m->busy++;
	spin_unlock(&vm_page_queue_lock);
}

void vm_page_io_finish_locked(vm_page_t m)
{
	KASSERT(m->busy > 0, "vm_page_io_finish: page not soft-busy");
	if (--m->busy == 0)
		vm_page_flash(m);
}

void vm_page_io_finish(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_io_finish_locked(m);
	spin_unlock(&vm_page_queue_lock);
}

void vm_page_hold(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	m->hold_count++;
	spin_unlock(&vm_page_queue_lock);
}

void vm_page_unhold(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	KASSERT(m->hold_count > 0, "vm_page_unhold: page not held");
	m->hold_count--;
	spin_unlock(&vm_page_queue_lock);
}

void vm_page_wire(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	if (m->wire_count == 0) {
		vm_page_unqueue(m);
		vmcnt.v_wire_count++;
	}
	KASSERT(m->wire_count < 0xffff, "vm_page_wire: wire count overflow");
	m->wire_count++;
	spin_unlock(&vm_page_queue_lock);
}

/* The last unwire puts the page at the tail of ACTIVE (activate) or INACTIVE; a page in no
 * object has no queue to go to and is left transient for its owner to free. */
void vm_page_unwire(vm_page_t m, bool activate)
{
	spin_lock(&vm_page_queue_lock);
	KASSERT(m->wire_count > 0, "vm_page_unwire: page not wired");
	if (--m->wire_count == 0) {
		vmcnt.v_wire_count--;
		if (m->object == NULL)
			;
		else if (activate)
			vm_page_activate_locked(m);
		else
			vm_page_deactivate_locked(m);
	}
	spin_unlock(&vm_page_queue_lock);
}

/* ---- contents ---------------------------------------------------------------------------------- */

void vm_page_dirty(vm_page_t m)
{
	m->dirty = VM_PAGE_BITS_ALL;
}

void vm_page_undirty(vm_page_t m)
{
	m->dirty = 0;
}

void vm_page_set_validclean(vm_page_t m)
{
	m->valid = VM_PAGE_BITS_ALL;
	m->dirty = 0;
}

void vm_page_zero_fill(vm_page_t m)
{
	memset(P2V(VM_PAGE_TO_PHYS(m)), 0, PAGE_SIZE);
}

void vm_page_copy(vm_page_t src, vm_page_t dst)
{
	memcpy(P2V(VM_PAGE_TO_PHYS(dst)), P2V(VM_PAGE_TO_PHYS(src)), PAGE_SIZE);
}

/* ---- mappings ---------------------------------------------------------------------------------- */

/* Remove (VM_PROT_NONE) or write-protect (VM_PROT_READ) every mapping of m (its pv list). */
void vm_page_protect_locked(vm_page_t m, vm_prot_t prot)
{
	if (prot == VM_PROT_NONE ? (m->flags & PG_MAPPED) : (m->flags & PG_WRITEABLE))
		pmap_page_protect(m, prot);
}

void vm_page_protect(vm_page_t m, vm_prot_t prot)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_protect_locked(m, prot);
	spin_unlock(&vm_page_queue_lock);
}

/* Pull the pmap's modified bits into m->dirty. Lock held. */
void vm_page_test_dirty_locked(vm_page_t m)
{
	if (m->dirty != VM_PAGE_BITS_ALL && (m->flags & PG_WRITEABLE) && pmap_is_modified(m))
		vm_page_dirty(m);
}

void vm_page_test_dirty(vm_page_t m)
{
	spin_lock(&vm_page_queue_lock);
	vm_page_test_dirty_locked(m);
	spin_unlock(&vm_page_queue_lock);
}
