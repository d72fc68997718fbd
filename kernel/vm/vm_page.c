/*
 * Physical page allocator (see vm_page.h): the vm_page array and a binary buddy allocator.
 * A free run of 2^k pages starting at page index i (relative to vm_page_base) is always aligned:
 * i % 2^k == 0, so its buddy is i ^ 2^k (Knuth, TAOCP vol. 1 §2.5, "buddy system").
 */
#include "vm/vm_page.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "arch/memlayout.h"
#include "arch/multiboot.h"

struct vm_page *vm_page_array;
uint32_t vm_page_array_size;
paddr_t  vm_page_base;
uint32_t physmem_pages;
uint32_t v_free_count;

static struct spinlock vm_page_queue_free_lock = { .name = "vmfree" };
static struct vm_page *freelist[VM_NFREEORDER];

extern char end[];

static void freelist_insert(struct vm_page *m, int order)
{
	m->queue = PQ_FREE;
	m->order = order;
	m->prev = NULL;
	m->next = freelist[order];
	if (m->next)
		m->next->prev = m;
	freelist[order] = m;
}

static void freelist_remove(struct vm_page *m)
{
	if (m->prev)
		m->prev->next = m->next;
	else
		freelist[m->order] = m->next;
	if (m->next)
		m->next->prev = m->prev;
	m->queue = PQ_NONE;
	m->next = m->prev = NULL;
}

/* Return a run of 2^order pages to the free lists, merging with free buddies. Lock held. */
static void buddy_free(struct vm_page *m, int order)
{
	uint32_t i = m - vm_page_array;
	v_free_count += 1u << order;
	while (order < VM_NFREEORDER - 1) {
		uint32_t bi = i ^ (1u << order);
		if (bi + (1u << order) > vm_page_array_size)
			break;
		struct vm_page *b = &vm_page_array[bi];
		if (b->queue != PQ_FREE || b->order != order)
			break;
		freelist_remove(b);
		i &= ~(1u << order);
		order++;
	}
	freelist_insert(&vm_page_array[i], order);
}

struct vm_page *vm_page_alloc_run(int order)
{
	if (order < 0 || order >= VM_NFREEORDER)
		return NULL;
	spin_lock(&vm_page_queue_free_lock);
	int k = order;
	while (k < VM_NFREEORDER && freelist[k] == NULL)
		k++;
	if (k == VM_NFREEORDER) {
		spin_unlock(&vm_page_queue_free_lock);
		return NULL;
	}
	struct vm_page *m = freelist[k];
	freelist_remove(m);
	while (k > order) {                   /* split: the upper half goes back */
		k--;
		freelist_insert(m + (1u << k), k);
	}
	v_free_count -= 1u << order;
	m->order = order;
	m->flags = PG_RUNHEAD;
	spin_unlock(&vm_page_queue_free_lock);
	return m;
}

void vm_page_free_run(struct vm_page *m)
{
	KASSERT(m->flags & PG_RUNHEAD, "freeing a page that is not the head of a run");
	KASSERT(m->queue != PQ_FREE, "double free of a page run");
	m->flags = 0;
	m->kmsize = 0;
	spin_lock(&vm_page_queue_free_lock);
	buddy_free(m, m->order);
	spin_unlock(&vm_page_queue_free_lock);
}

static bool reserved_page(paddr_t pa, const paddr_t (*reserved)[2], int nreserved)
{
	for (int i = 0; i < nreserved; i++)
		if (pa + PAGE_SIZE > reserved[i][0] && pa < reserved[i][1])
			return true;
	return false;
}

/* Calls fn(base, len) for each available-RAM region of the map, clipped to the direct map. */
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
		struct vm_page *m = PHYS_TO_VM_PAGE(pa);
		physmem_pages++;
		buddy_free(m, 0);
	}
}

void vm_page_startup(const struct multiboot_info *mbi, const paddr_t (*reserved)[2], int nreserved)
{
	if (!(mbi->flags & MBI_FLAG_MMAP))
		panic("vm_page_startup: the boot loader gave no memory map");
	uint64_t top = 0;
	for_each_ram(mbi, note_top, &top);
	vm_page_base = 0;
	vm_page_array_size = top / PAGE_SIZE;
	/* The array itself goes right after the kernel image and boot modules (all below `avail`). */
	paddr_t avail = roundup(V2P(end), PAGE_SIZE);
	for (int i = 0; i < nreserved; i++)
		if (reserved[i][1] > avail && reserved[i][0] < 64u << 20)
			avail = roundup(reserved[i][1], PAGE_SIZE);
	size_t bytes = roundup(vm_page_array_size * sizeof(struct vm_page), PAGE_SIZE);
	vm_page_array = P2V(avail);
	memset(vm_page_array, 0, bytes);
	for (uint32_t i = 0; i < vm_page_array_size; i++)
		vm_page_array[i].phys_addr = i * PAGE_SIZE;

	paddr_t all[nreserved + 2][2];
	for (int i = 0; i < nreserved; i++) {
		all[i][0] = reserved[i][0];
		all[i][1] = reserved[i][1];
	}
	all[nreserved][0] = V2P(KERNLINK);
	all[nreserved][1] = avail + bytes;
	struct add_ctx c = { (const paddr_t (*)[2])all, nreserved + 1 };
	for_each_ram(mbi, add_region, &c);
	if (physmem_pages < 2048)
		panic("vm_page_startup: only %u KB of usable memory", physmem_pages * 4);
}
