/*
 * kmalloc (see kmalloc.h). Small requests (<= 2 KB) come from power-of-two buckets carved out of
 * whole pages (the page's vm_page records the bucket size and its free chunks); larger ones are
 * runs of contiguous pages from the buddy allocator. kfree finds which from the page's vm_page.
 * A bucket page whose chunks are all free goes back to the page allocator.
 */
#include "kern/kmalloc.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/time.h"
#include "vm/vm_page.h"
#include "arch/memlayout.h"

#define KM_MINSHIFT  4                 /* 16 bytes */
#define KM_MAXSHIFT 11                 /* 2 KB */
#define KM_NBUCKET  (KM_MAXSHIFT - KM_MINSHIFT + 1)
#define KM_MAXWAITS 5                  /* M_WAITOK gives up after this many one-second waits */

struct chunk {
	struct chunk *next;
};

static struct spinlock kmem_lock = { .name = "kmem" };
/* Per bucket: pages that still have free chunks (linked through vm_page next/prev). */
static struct vm_page *bucket_pages[KM_NBUCKET];
static int vmwait_chan;
static volatile int vmwaiters;      /* sleepers in kmalloc; kfree wakes them only if any */

static int bucket_index(size_t size)
{
	int b = 0;
	while ((size_t)1 << (b + KM_MINSHIFT) < size)
		b++;
	return b;
}

static void bucket_link(int b, struct vm_page *m)
{
	m->prev = NULL;
	m->next = bucket_pages[b];
	if (m->next)
		m->next->prev = m;
	bucket_pages[b] = m;
}

static void bucket_unlink(int b, struct vm_page *m)
{
	if (m->prev)
		m->prev->next = m->next;
	else
		bucket_pages[b] = m->next;
	if (m->next)
		m->next->prev = m->prev;
	m->next = m->prev = NULL;
}

/* Carve a fresh page into chunks of bucket b. kmem_lock held. */
static bool bucket_grow(int b)
{
	struct vm_page *m = vm_page_alloc_run(0);
	if (m == NULL)
		return false;
	size_t sz = (size_t)1 << (b + KM_MINSHIFT);
	char *va = P2V(VM_PAGE_TO_PHYS(m));
	m->flags |= PG_KMEM;
	m->kmsize = sz;
	m->kmused = 0;
	m->kmfree = NULL;
	for (size_t off = 0; off < PAGE_SIZE; off += sz) {
		struct chunk *c = (struct chunk *)(va + off);
		c->next = m->kmfree;
		m->kmfree = c;
	}
	bucket_link(b, m);
	return true;
}

static void *small_alloc(size_t size)
{
	int b = bucket_index(size);
	spin_lock(&kmem_lock);
	if (bucket_pages[b] == NULL && !bucket_grow(b)) {
		spin_unlock(&kmem_lock);
		return NULL;
	}
	struct vm_page *m = bucket_pages[b];
	struct chunk *c = m->kmfree;
	m->kmfree = c->next;
	m->kmused++;
	if (m->kmfree == NULL)
		bucket_unlink(b, m);
	spin_unlock(&kmem_lock);
	return c;
}

static void *large_alloc(size_t size)
{
	int order = 0;
	while ((size_t)PAGE_SIZE << order < size)
		order++;
	struct vm_page *m = vm_page_alloc_run(order);
	return m ? P2V(VM_PAGE_TO_PHYS(m)) : NULL;
}

void *kmalloc(size_t size, int flags)
{
	if (size == 0)
		size = 1;
	if (size > ((size_t)PAGE_SIZE << (VM_NFREEORDER - 1)))
		return NULL;
	for (int tries = 0;; tries++) {
		void *p = size <= (1u << KM_MAXSHIFT) ? small_alloc(size) : large_alloc(size);
		if (p) {
			if (flags & M_ZERO)
				memset(p, 0, size);
			return p;
		}
		if (!(flags & M_WAITOK) || tries == KM_MAXWAITS)
			return NULL;
		/* Out of memory: wait for frees (kfree wakes us), a second at a time, a few times. */
		__atomic_add_fetch(&vmwaiters, 1, __ATOMIC_SEQ_CST);
		tsleep(&vmwait_chan, 0, "vmwait", HZ);
		__atomic_sub_fetch(&vmwaiters, 1, __ATOMIC_SEQ_CST);
	}
}

static void kmem_wakeup(void)
{
	if (vmwaiters)
		wakeup(&vmwait_chan);
}

void kfree(void *p)
{
	if (p == NULL)
		return;
	struct vm_page *m = PHYS_TO_VM_PAGE(V2P((uintptr_t)p & ~PAGE_MASK));
	KASSERT(m != NULL, "kfree of a pointer outside the direct map");
	if (!(m->flags & PG_KMEM)) {
		KASSERT((V2P(p) & PAGE_MASK) == 0 && (m->flags & PG_RUNHEAD), "kfree of a bad pointer");
		vm_page_free_run(m);
		kmem_wakeup();
		return;
	}
	int b = bucket_index(m->kmsize);
	spin_lock(&kmem_lock);
	if (m->kmfree == NULL)
		bucket_link(b, m);
	struct chunk *c = p;
	c->next = m->kmfree;
	m->kmfree = c;
	bool empty = --m->kmused == 0;
	if (empty)
		bucket_unlink(b, m);
	spin_unlock(&kmem_lock);
	if (empty) {
		m->flags &= ~PG_KMEM;
		vm_page_free_run(m);
	}
	kmem_wakeup();
}

void *kpage_alloc(int flags)
{
	return kmalloc(PAGE_SIZE, flags);
}

void kpage_free(void *va)
{
	kfree(va);
}
