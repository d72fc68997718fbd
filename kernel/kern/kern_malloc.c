/*
 * kmalloc (see kmalloc.h), after FreeBSD 4's malloc(9) without the type argument. Small requests
 * (<= 2 KB) come from power-of-two buckets carved out of whole pages; larger ones are runs of
 * contiguous pages. The pages come from the VM (vm_page_alloc_kmem), which marks them kmalloc's
 * (m->kmem, counted in v_kmem_count); kmalloc's own bookkeeping of a bucket page (chunk size,
 * free chunks, chunks in use, the list of pages with free chunks) lives in m->km, protected by
 * kmem_lock, the way FreeBSD 4 kept it in its kmemusage array: nothing of it touches the page's
 * queue or flags.
 *
 * M_WAITOK allocates at the VM_ALLOC_SYSTEM level (it may use the pages below v_free_reserved
 * that user allocations may not) and, when even that fails, sleeps in VM_WAIT (the pagedaemon
 * frees pages; "kmemfrag" when pages are free but not contiguous, vm_wait_kmem) and retries: it
 * never returns NULL. M_NOWAIT allocates at the interrupt level and
 * fails at once. Lock order: kmem_lock is never held while calling into the VM.
 */
#include "kern/kmalloc.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "vm/vm_page.h"
#include "vm/vm_phys.h"
#include "arch/memlayout.h"

#define KM_MINSHIFT  4                 /* 16 bytes */
#define KM_MAXSHIFT 11                 /* 2 KB */
#define KM_NBUCKET  (KM_MAXSHIFT - KM_MINSHIFT + 1)

struct chunk {
	struct chunk *next;
};

LIST_HEAD(kmbucket, vm_page);

static struct spinlock kmem_lock = { .name = "kmem" };
static struct kmbucket bucket_pages[KM_NBUCKET];   /* pages with free chunks, per bucket (kmem_lock) */

static int bucket_index(size_t size)
{
	int b = 0;
	while ((size_t)1 << (b + KM_MINSHIFT) < size)
		b++;
	return b;
}

/*
 * 2^order pages from the VM at the level `flags` allows, or NULL (M_NOWAIT only), zeroed.
 * Why zeroed: under QEMU's TCG a frame stays write-protected while any block of code translated
 * from it survives, and only stores over that code retire the blocks. A frame that held user
 * text and comes back as a kernel stack (written at the top only) would put every stack store
 * through the emulator's slow path for the stack's lifetime (docs/bench-raw.md measured a dd
 * ten times slower). Pages for processes are always stored over in full (zero-filled, copied,
 * or read from the file), so they need nothing more.
 */
static vm_page_t kmem_pages(int order, int flags)
{
	for (;;) {
		vm_page_t m = vm_page_alloc_kmem(order, (flags & M_WAITOK) ? VM_ALLOC_SYSTEM
		                                                            : VM_ALLOC_INTERRUPT);
		if (m != NULL) {
			memset(P2V(VM_PAGE_TO_PHYS(m)), 0, (size_t)PAGE_SIZE << order);
			return m;
		}
		if (!(flags & M_WAITOK))
			return NULL;
		vm_wait_kmem(order);
	}
}

/* Carve a fresh page into chunks of bucket b and put it on the bucket's list. */
static bool bucket_grow(int b, int flags)
{
	vm_page_t m = kmem_pages(0, flags);
	if (m == NULL)
		return false;
	size_t sz = (size_t)1 << (b + KM_MINSHIFT);
	char *va = P2V(VM_PAGE_TO_PHYS(m));
	struct chunk *head = NULL;
	for (size_t off = 0; off < PAGE_SIZE; off += sz) {
		struct chunk *c = (struct chunk *)(va + off);
		c->next = head;
		head = c;
	}
	spin_lock(&kmem_lock);
	m->km.size = sz;
	m->km.used = 0;
	m->km.freelist = head;
	LIST_INSERT_HEAD(&bucket_pages[b], m, km.link);
	spin_unlock(&kmem_lock);
	return true;
}

static void *small_alloc(size_t size, int flags)
{
	int b = bucket_index(size);
	spin_lock(&kmem_lock);
	while (LIST_EMPTY(&bucket_pages[b])) {
		spin_unlock(&kmem_lock);
		if (!bucket_grow(b, flags))
			return NULL;
		spin_lock(&kmem_lock);
	}
	vm_page_t m = LIST_FIRST(&bucket_pages[b]);
	struct chunk *c = m->km.freelist;
	m->km.freelist = c->next;
	m->km.used++;
	if (m->km.freelist == NULL)
		LIST_REMOVE(m, km.link);
	spin_unlock(&kmem_lock);
	return c;
}

static void *large_alloc(size_t size, int flags)
{
	int order = 0;
	while ((size_t)PAGE_SIZE << order < size)
		order++;
	vm_page_t m = kmem_pages(order, flags);
	return m ? P2V(VM_PAGE_TO_PHYS(m)) : NULL;
}

void *kmalloc(size_t size, int flags)
{
	if (size == 0)
		size = 1;
	if (size > KMALLOC_MAX)
		return NULL;
	void *p = size <= (1u << KM_MAXSHIFT) ? small_alloc(size, flags) : large_alloc(size, flags);
	if (p && (flags & M_ZERO))
		memset(p, 0, size);
	return p;
}

void kfree(void *p)
{
	if (p == NULL)
		return;
	vm_page_t m = PHYS_TO_VM_PAGE(V2P((uintptr_t)p & ~PAGE_MASK));
	KASSERT(m != NULL && m->kmem == KMEM_OWNED, "kfree of a pointer kmalloc did not return");
	spin_lock(&kmem_lock);
	if (m->km.size == 0) {
		spin_unlock(&kmem_lock);
		KASSERT((V2P(p) & PAGE_MASK) == 0 && m->pstate == PHYS_RUNHEAD, "kfree of a bad pointer");
		vm_page_free_kmem(m);
		return;
	}
	int b = bucket_index(m->km.size);
	if (m->km.freelist == NULL)
		LIST_INSERT_HEAD(&bucket_pages[b], m, km.link);
	struct chunk *c = p;
	c->next = m->km.freelist;
	m->km.freelist = c;
	bool empty = --m->km.used == 0;
	if (empty) {
		LIST_REMOVE(m, km.link);
		m->km.size = 0;
		m->km.freelist = NULL;
	}
	spin_unlock(&kmem_lock);
	if (empty)
		vm_page_free_kmem(m);
}

void *kpage_alloc(int flags)
{
	return kmalloc(PAGE_SIZE, flags);
}

void kpage_free(void *va)
{
	kfree(va);
}
