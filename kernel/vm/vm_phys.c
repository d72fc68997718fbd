/*
 * The buddy allocator behind PQ_FREE (see vm_phys.h). A free block of 2^k pages starting at page
 * index i is aligned (i % 2^k == 0), so its buddy starts at i ^ 2^k (Knuth, TAOCP vol. 1 §2.5,
 * "buddy system"). Page index == frame number: vm_page_array[0] is physical address 0.
 */
#include "vm/vm_phys.h"
#include "kern/klib.h"

static struct pglist vm_phys_freeq[VM_NFREEORDER];   /* free block heads by order */
static bool vm_phys_inited;

static void freeq_init(void)
{
	for (int i = 0; i < VM_NFREEORDER; i++)
		TAILQ_INIT(&vm_phys_freeq[i]);
	vm_phys_inited = true;
}

/* Mark the 2^order pages at m as one free block and put it on its list. */
static void block_insert(vm_page_t m, int order)
{
	for (uint32_t i = 0; i < (1u << order); i++) {
		m[i].queue = PQ_FREE;
		m[i].pstate = PHYS_FREE;
	}
	m->pstate = PHYS_FREEHEAD;
	m->order = order;
	TAILQ_INSERT_HEAD(&vm_phys_freeq[order], m, pageq);
}

static void block_remove(vm_page_t m)
{
	TAILQ_REMOVE(&vm_phys_freeq[m->order], m, pageq);
}

/* Merge the free block (m, order) with free buddies and insert the result. */
static void buddy_merge(vm_page_t m, int order)
{
	uint32_t i = m - vm_page_array;
	while (order < VM_NFREEORDER - 1) {
		uint32_t bi = i ^ (1u << order);
		if (bi + (1u << order) > vm_page_array_size)
			break;
		vm_page_t b = &vm_page_array[bi];
		if (b->pstate != PHYS_FREEHEAD || b->order != order)
			break;
		block_remove(b);
		b->pstate = PHYS_FREE;
		i &= ~(1u << order);
		order++;
	}
	block_insert(&vm_page_array[i], order);
}

void vm_phys_add_page(vm_page_t m)
{
	if (!vm_phys_inited)
		freeq_init();
	vmcnt.v_free_count++;
	buddy_merge(m, 0);
}

vm_page_t vm_phys_alloc_pages(int order)
{
	if (order < 0 || order >= VM_NFREEORDER || !vm_phys_inited)
		return NULL;
	int k = order;
	while (k < VM_NFREEORDER && TAILQ_EMPTY(&vm_phys_freeq[k]))
		k++;
	if (k == VM_NFREEORDER)
		return NULL;
	vm_page_t m = TAILQ_FIRST(&vm_phys_freeq[k]);
	block_remove(m);
	while (k > order) {                   /* split: the upper half stays free */
		k--;
		block_insert(m + (1u << k), k);
	}
	for (uint32_t i = 0; i < (1u << order); i++) {
		m[i].queue = PQ_NONE;
		m[i].pstate = PHYS_ALLOC;
	}
	m->pstate = PHYS_RUNHEAD;
	m->order = order;
	vmcnt.v_free_count -= 1u << order;
	return m;
}

void vm_phys_free_pages(vm_page_t m)
{
	KASSERT(m->pstate == PHYS_RUNHEAD, "vm_phys_free_pages: not the head of an allocated run");
	int order = m->order;
	vmcnt.v_free_count += 1u << order;
	buddy_merge(m, order);
}

long vm_phys_count_free(void)
{
	long n = 0;
	if (!vm_phys_inited)
		return 0;
	for (int k = 0; k < VM_NFREEORDER; k++) {
		vm_page_t m;
		TAILQ_FOREACH(m, &vm_phys_freeq[k], pageq) {
			uint32_t i = m - vm_page_array;
			if (m->pstate != PHYS_FREEHEAD || m->order != k || (i & ((1u << k) - 1)) != 0)
				return -1;
			for (uint32_t j = 0; j < (1u << k); j++)
				if (m[j].queue != PQ_FREE || (j > 0 && m[j].pstate != PHYS_FREE))
					return -1;
			n += 1l << k;
		}
	}
	return n;
}
