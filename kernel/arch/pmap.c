/*
 * i386 page tables (see pmap.h) and the checked user copies declared in kern/uio.h.
 * Paging structures: Intel SDM vol. 3 §4.3 (32-bit paging): a PDE with PS=1 maps 4 MB (CR4.PSE);
 * the accessed (A) and dirty (D) bits of a PTE are set by the processor (§4.8), and a TLB entry
 * may outlive a PTE change until INVLPG or a CR3 load on that CPU (§4.10.4), hence the shootdowns.
 * copyin/copyout hold each user page while they copy through the direct map, faulting it in
 * (vm_fault) when it is not mapped, so a bad pointer gives EFAULT instead of a kernel page fault
 * and the pagedaemon cannot take the page away mid-copy.
 */
#include "arch/pmap.h"
#include "arch/cpu.h"
#include "arch/x86.h"
#include "arch/intr.h"
#include "arch/memlayout.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/proc.h"
#include "kern/uio.h"
#include "vm/vm_page.h"
#include "vm/vm_map.h"
#include "vm/vm_fault.h"
#include "kern/lock.h"
#include <sys/errno.h>

static pd_entry_t *kernel_pdir;
static struct pmap *curpmap[NCPU];          /* the user pmap each CPU has loaded */
static volatile uint32_t tlb_pending;        /* CPUs asked to flush their TLB, a bit each */
static uint32_t tlb_lazy;                    /* CPUs owed a flush for cleared A bits (VM lock) */
static int tlb_lazy_pages;                   /* pages whose A bits were cleared since (VM lock) */
#define TLB_LAZY_BATCH 64                    /* pages per batched shootdown (clear_bits) */
static bool tlb_deferring;                   /* inside pmap_tlb_defer/flush (VM lock) */

void lapic_ipi_all_others(int vector);

void pmap_bootstrap(void)
{
	kernel_pdir = kpage_alloc(M_WAITOK | M_ZERO);
	for (uint32_t pa = 0; pa < DMAP_MAX; pa += 4u << 20)
		kernel_pdir[PDX(KERNBASE + pa)] = pa | PTE_P | PTE_W | PTE_PS;
	for (uint64_t pa = DEVSPACE; pa < 0x100000000ull; pa += 4u << 20)
		kernel_pdir[PDX(pa)] = (uint32_t)pa | PTE_P | PTE_W | PTE_PS | PTE_PCD | PTE_PWT;
	lcr3(V2P(kernel_pdir));
}

void pmap_init_ap(void)
{
	lcr3(V2P(kernel_pdir));
}

struct pmap *pmap_create(void)
{
	struct pmap *pm = kmalloc(sizeof(*pm), M_WAITOK | M_ZERO);
	pm->pm_pdir = kpage_alloc(M_WAITOK | M_ZERO);
	for (uint32_t i = PDX(KERNBASE); i < 1024; i++)
		pm->pm_pdir[i] = kernel_pdir[i];
	return pm;
}

void pmap_destroy(struct pmap *pm)
{
	KASSERT(pm->pm_resident == 0, "pmap_destroy: pages still mapped");
	for (uint32_t i = 0; i < PDX(KERNBASE); i++)
		if (pm->pm_pdir[i] & PTE_P)
			kpage_free(P2V(PTE_ADDR(pm->pm_pdir[i])));
	kpage_free(pm->pm_pdir);
	kfree(pm);
}

/* ---- TLB shootdown ----------------------------------------------------------------------------- */

static void tlb_flush_local(void)
{
	lcr3(rcr3());
}

/* Flush this CPU's TLB if another CPU asked for it. Interrupts off. */
static void tlb_serve(void)
{
	uint32_t bit = 1u << cpu_index();
	if (__atomic_load_n(&tlb_pending, __ATOMIC_ACQUIRE) & bit) {
		tlb_flush_local();
		__atomic_and_fetch(&tlb_pending, ~bit, __ATOMIC_RELEASE);
	}
}

void pmap_tlb_ipi(void)
{
	tlb_serve();
}

void pmap_spin_poll(void)
{
	if (tlb_pending)
		tlb_serve();
}

/*
 * Make the other CPUs in `cpus`, and those owed a flush for cleared accessed bits (tlb_lazy,
 * see clear_bits), drop their TLB entries and wait until they have. Called with the VM lock
 * held, interrupts off: while waiting it serves shootdowns aimed at this CPU, so two CPUs
 * shooting at each other both finish.
 */
static void tlb_shootdown(uint32_t cpus)
{
	if (tlb_deferring) {
		tlb_lazy |= cpus;
		return;
	}
	cpus = (cpus | tlb_lazy) & ~(1u << cpu_index());
	tlb_lazy = 0;
	tlb_lazy_pages = 0;
	if (cpus == 0)
		return;
	__atomic_or_fetch(&tlb_pending, cpus, __ATOMIC_SEQ_CST);
	lapic_ipi_all_others(T_IPI_TLB);
	while (__atomic_load_n(&tlb_pending, __ATOMIC_ACQUIRE) & cpus) {
		tlb_serve();
		pause();
	}
}

/*
 * One shootdown for many changes (the pagedaemon write-protecting a 16-page cluster before it
 * writes it out): between pmap_tlb_defer() and pmap_tlb_flush() shootdowns only collect. The
 * caller keeps the VM lock held throughout and acts on none of the changes (starts no I/O,
 * frees no page) before the flush; until then another CPU may still write through a stale
 * entry, which is harmless because the page's contents are only read after the flush.
 */
void pmap_tlb_defer(void)
{
	tlb_deferring = true;
}

void pmap_tlb_flush(void)
{
	tlb_deferring = false;
	tlb_shootdown(0);
}

/* After changing pm's PTE for va: invalidate it here, and note the CPUs to shoot down. */
static void pmap_invalidate(struct pmap *pm, vaddr_t va, uint32_t *shoot)
{
	if (curpmap[cpu_index()] == pm)
		invlpg(va);
	*shoot |= __atomic_load_n(&pm->pm_active, __ATOMIC_SEQ_CST);
}

/* ---- page tables and pv entries (vm_page_queue_lock held unless said otherwise) --------------- */

static pt_entry_t *pmap_pte(struct pmap *pm, vaddr_t va)
{
	pd_entry_t pde = pm->pm_pdir[PDX(va)];
	if (!(pde & PTE_P))
		return NULL;
	pt_entry_t *pt = P2V(PTE_ADDR(pde));
	return &pt[PTX(va)];
}

/* Make sure va has a page table; may sleep, so called without the VM lock. */
static void pmap_pt_alloc(struct pmap *pm, vaddr_t va)
{
	if (pm->pm_pdir[PDX(va)] & PTE_P)
		return;
	void *pt = kpage_alloc(M_WAITOK | M_ZERO);
	spin_lock(&vm_page_queue_lock);
	if (!(pm->pm_pdir[PDX(va)] & PTE_P)) {
		pm->pm_pdir[PDX(va)] = V2P(pt) | PTE_P | PTE_W | PTE_U;
		pt = NULL;
	}
	spin_unlock(&vm_page_queue_lock);
	kpage_free(pt);
}

static struct pv_entry *pv_find(vm_page_t m, struct pmap *pm, vaddr_t va)
{
	struct pv_entry *pv;
	TAILQ_FOREACH(pv, &m->pv_list, pv_list)
		if (pv->pv_pmap == pm && pv->pv_va == va)
			return pv;
	return NULL;
}

/* The accessed and dirty bits of a PTE being removed or changed go into its page. */
static void pte_sync(vm_page_t m, pt_entry_t old)
{
	if (old & PTE_A)
		m->flags |= PG_REFERENCED;
	if (old & PTE_D)
		vm_page_dirty(m);
}

/*
 * pv entries are kmalloc'd without the VM lock held and, once unused, kept on a pool for the
 * next pmap_enter: kfree may call into the VM, so it is never called under the VM lock.
 */
static struct pv_entry *pv_pool;             /* vm_page_queue_lock */

static struct pv_entry *pv_alloc(void)
{
	spin_lock(&vm_page_queue_lock);
	struct pv_entry *pv = pv_pool;
	if (pv)
		pv_pool = pv->pv_list.tqe_next;
	spin_unlock(&vm_page_queue_lock);
	return pv ? pv : kmalloc(sizeof(*pv), M_WAITOK);
}

static void pv_free(struct pv_entry *pv)
{
	pv->pv_list.tqe_next = pv_pool;
	pv_pool = pv;
}

/* Remove the mapping at *pte (pm, va): its A/D bits go to the page, its pv entry to the pool. */
static void pte_remove(struct pmap *pm, vaddr_t va, pt_entry_t *pte, uint32_t *shoot)
{
	pt_entry_t old = __atomic_exchange_n(pte, 0, __ATOMIC_SEQ_CST);
	vm_page_t m = PHYS_TO_VM_PAGE(PTE_ADDR(old));
	pm->pm_resident--;
	pmap_invalidate(pm, va, shoot);
	pte_sync(m, old);
	struct pv_entry *pv = pv_find(m, pm, va);
	KASSERT(pv != NULL, "pmap: mapping without a pv entry");
	TAILQ_REMOVE(&m->pv_list, pv, pv_list);
	pv_free(pv);
	if (TAILQ_EMPTY(&m->pv_list))
		m->flags &= ~(PG_MAPPED | PG_WRITEABLE);
}

/* Write-protect the mapping at *pte; a dirty bit goes to the page first. */
static void pte_write_protect(struct pmap *pm, vaddr_t va, pt_entry_t *pte, uint32_t *shoot)
{
	pt_entry_t old = __atomic_fetch_and(pte, ~(pt_entry_t)(PTE_W | PTE_D), __ATOMIC_SEQ_CST);
	if (old & PTE_D)
		vm_page_dirty(PHYS_TO_VM_PAGE(PTE_ADDR(old)));
	if (old & PTE_W)
		pmap_invalidate(pm, va, shoot);
}

void pmap_enter(struct pmap *pm, vaddr_t va, vm_page_t m, vm_prot_t prot)
{
	KASSERT(va < KERNBASE && (va & PAGE_MASK) == 0, "pmap_enter: bad address");
	pmap_pt_alloc(pm, va);
	struct pv_entry *pv = pv_alloc();
	uint32_t shoot = 0;
	pt_entry_t npte = VM_PAGE_TO_PHYS(m) | PTE_P | PTE_U | ((prot & VM_PROT_WRITE) ? PTE_W : 0);
	spin_lock(&vm_page_queue_lock);
	pt_entry_t *pte = pmap_pte(pm, va);
	if ((*pte & PTE_P) && PTE_ADDR(*pte) == VM_PAGE_TO_PHYS(m)) {
		/* The same page again (a protection change): keep its A/D bits and pv entry. */
		pt_entry_t old = __atomic_exchange_n(pte, npte, __ATOMIC_SEQ_CST);
		pte_sync(m, old);
		pmap_invalidate(pm, va, &shoot);
		pv_free(pv);
	} else {
		if (*pte & PTE_P)
			pte_remove(pm, va, pte, &shoot);
		pv->pv_pmap = pm;
		pv->pv_va = va;
		TAILQ_INSERT_TAIL(&m->pv_list, pv, pv_list);
		*pte = npte;
		pm->pm_resident++;
		pmap_invalidate(pm, va, &shoot);
	}
	m->flags |= PG_MAPPED;
	if (prot & VM_PROT_WRITE)
		m->flags |= PG_WRITEABLE;
	tlb_shootdown(shoot);
	spin_unlock(&vm_page_queue_lock);
}

/* Remove (prot without READ) or write-protect (without WRITE) the mappings in [sva, eva). */
static void pmap_range(struct pmap *pm, vaddr_t sva, vaddr_t eva, vm_prot_t prot)
{
	uint32_t shoot = 0;
	if (eva > KERNBASE)
		eva = KERNBASE;
	spin_lock(&vm_page_queue_lock);
	for (vaddr_t va = sva & ~PAGE_MASK; va < eva; va += PAGE_SIZE) {
		pt_entry_t *pte = pmap_pte(pm, va);
		if (pte == NULL) {
			va = (va & ~0x3fffffu) + (4u << 20) - PAGE_SIZE;   /* skip the empty 4 MB */
			continue;
		}
		if (!(*pte & PTE_P))
			continue;
		if (!(prot & VM_PROT_READ))
			pte_remove(pm, va, pte, &shoot);
		else if (!(prot & VM_PROT_WRITE))
			pte_write_protect(pm, va, pte, &shoot);
	}
	tlb_shootdown(shoot);
	spin_unlock(&vm_page_queue_lock);
}

void pmap_remove(struct pmap *pm, vaddr_t sva, vaddr_t eva)
{
	pmap_range(pm, sva, eva, VM_PROT_NONE);
}

void pmap_protect(struct pmap *pm, vaddr_t sva, vaddr_t eva, vm_prot_t prot)
{
	pmap_range(pm, sva, eva, prot);
}

/* ---- per page, through the pv list (vm_page_queue_lock held) ---------------------------------- */

void pmap_page_protect(vm_page_t m, vm_prot_t prot)
{
	uint32_t shoot = 0;
	struct pv_entry *pv, *next;
	TAILQ_FOREACH_SAFE(pv, &m->pv_list, pv_list, next) {
		pt_entry_t *pte = pmap_pte(pv->pv_pmap, pv->pv_va);
		if (!(prot & VM_PROT_READ))
			pte_remove(pv->pv_pmap, pv->pv_va, pte, &shoot);
		else if (!(prot & VM_PROT_WRITE))
			pte_write_protect(pv->pv_pmap, pv->pv_va, pte, &shoot);
	}
	if (!(prot & VM_PROT_WRITE))
		m->flags &= ~PG_WRITEABLE;
	tlb_shootdown(shoot);
}

bool pmap_is_modified(vm_page_t m)
{
	struct pv_entry *pv;
	TAILQ_FOREACH(pv, &m->pv_list, pv_list)
		if (*pmap_pte(pv->pv_pmap, pv->pv_va) & PTE_D)
			return true;
	return false;
}

/*
 * Clear `bits` in every mapping of m; returns how many had any of them. A cleared dirty bit must
 * reach every TLB at once: a CPU still holding an entry with D set would write the page without
 * setting D again, and the write would be lost once the page is taken as clean. A cleared
 * accessed bit can wait: a stale entry with A set only lets that CPU use the page without
 * setting A again, so the page looks unused a little longer. The pagedaemon clears A bits on
 * thousands of pages per scan, and one IPI round trip each (milliseconds under TCG on a busy
 * host) once kept the VM lock held, interrupts off, for over 10 s (the watchdog fired in
 * test_vm_swap). So those shootdowns are batched: owed CPUs collect in tlb_lazy and are shot
 * down with the next shootdown of any kind, or after TLB_LAZY_BATCH pages (a CR3 load at a
 * context switch also settles them). FreeBSD 4's lineage went further: DragonFly's
 * pmap_ts_referenced (RELENG_4's pmap.c 1.250.2.18, [@fbsd-pmap-r4]) clears PG_A with no
 * invalidation at all; a later FreeBSD i386 pmap.c invalidates each page ([@fbsd-pmap-later];
 * the keys are in docs/sources.md).
 */
static int clear_bits(vm_page_t m, pt_entry_t bits)
{
	uint32_t shoot = 0;
	int n = 0;
	struct pv_entry *pv;
	TAILQ_FOREACH(pv, &m->pv_list, pv_list) {
		pt_entry_t *pte = pmap_pte(pv->pv_pmap, pv->pv_va);
		if (*pte & bits) {
			__atomic_and_fetch(pte, ~bits, __ATOMIC_SEQ_CST);
			pmap_invalidate(pv->pv_pmap, pv->pv_va, &shoot);
			n++;
		}
	}
	if (bits & PTE_D) {
		tlb_shootdown(shoot);
	} else if ((shoot & ~(1u << cpu_index())) != 0) {
		tlb_lazy |= shoot;
		if (++tlb_lazy_pages >= TLB_LAZY_BATCH)
			tlb_shootdown(0);
	}
	return n;
}

void pmap_clear_modify(vm_page_t m)
{
	clear_bits(m, PTE_D);
}

void pmap_clear_reference(vm_page_t m)
{
	clear_bits(m, PTE_A);
}

int pmap_ts_referenced(vm_page_t m)
{
	return clear_bits(m, PTE_A);
}

/* ---- lookups and activation ------------------------------------------------------------------- */

paddr_t pmap_extract(struct pmap *pm, vaddr_t va, bool write)
{
	if (va >= KERNBASE)
		return 0;
	spin_lock(&vm_page_queue_lock);
	pt_entry_t *pte = pmap_pte(pm, va);
	pt_entry_t e = pte ? *pte : 0;
	spin_unlock(&vm_page_queue_lock);
	if (!(e & PTE_P) || !(e & PTE_U) || (write && !(e & PTE_W)))
		return 0;
	return PTE_ADDR(e) | (va & PAGE_MASK);
}

vm_page_t pmap_extract_and_hold(struct pmap *pm, vaddr_t va, bool write)
{
	if (va >= KERNBASE)
		return NULL;
	vm_page_t m = NULL;
	spin_lock(&vm_page_queue_lock);
	pt_entry_t *pte = pmap_pte(pm, va);
	if (pte && (*pte & PTE_P) && (!write || (*pte & PTE_W))) {
		m = PHYS_TO_VM_PAGE(PTE_ADDR(*pte));
		m->hold_count++;
		/* The kernel's access through the direct map bypasses these bits: set them for it. */
		__atomic_or_fetch(pte, write ? (PTE_A | PTE_D) : PTE_A, __ATOMIC_SEQ_CST);
	}
	spin_unlock(&vm_page_queue_lock);
	return m;
}

void pmap_activate(struct pmap *pm, uint32_t kstacktop)
{
	pushcli();
	struct cpu *c = mycpu();
	uint32_t bit = 1u << c->index;
	struct pmap *old = curpmap[c->index];
	if (old)
		__atomic_and_fetch(&old->pm_active, ~bit, __ATOMIC_SEQ_CST);
	if (pm)
		__atomic_or_fetch(&pm->pm_active, bit, __ATOMIC_SEQ_CST);
	curpmap[c->index] = pm;
	if (kstacktop)
		c->ts.esp0 = kstacktop;
	lcr3(V2P(pm ? pm->pm_pdir : kernel_pdir));
	popcli();
}

/*
 * Checked user copies. Each page of the range is looked up and held (faulted in by vm_fault
 * first if need be) while it is copied through the direct map.
 */
static vm_page_t user_page_hold(const void *uaddr, bool write)
{
	struct proc *p = curproc;
	if (p == NULL || p->p_vmspace == NULL)
		return NULL;
	vaddr_t va = (vaddr_t)uaddr & ~PAGE_MASK;
	vm_page_t m = pmap_extract_and_hold(p->p_vmspace->vm_pmap, va, write);
	if (m == NULL && vm_fault(p, va, write ? VM_PROT_WRITE : VM_PROT_READ) == 0)
		m = vm_fault_hold(p->p_vmspace, va, write ? VM_PROT_WRITE : VM_PROT_READ);
	return m;
}

static int user_copy(void *uaddr, void *kaddr, size_t len, bool to_user)
{
	if ((vaddr_t)uaddr >= KERNBASE || len > KERNBASE - (vaddr_t)uaddr)
		return EFAULT;
	while (len > 0) {
		size_t n = MIN(len, PAGE_SIZE - ((vaddr_t)uaddr & PAGE_MASK));
		vm_page_t m = user_page_hold(uaddr, to_user);
		if (m == NULL)
			return EFAULT;
		char *k = (char *)P2V(VM_PAGE_TO_PHYS(m)) + ((vaddr_t)uaddr & PAGE_MASK);
		if (to_user)
			memcpy(k, kaddr, n);
		else
			memcpy(kaddr, k, n);
		vm_page_unhold(m);
		uaddr = (char *)uaddr + n;
		kaddr = (char *)kaddr + n;
		len -= n;
	}
	return 0;
}

int copyin(const void *uaddr, void *kaddr, size_t len)
{
	return user_copy((void *)uaddr, kaddr, len, false);
}

int copyout(const void *kaddr, void *uaddr, size_t len)
{
	return user_copy(uaddr, (void *)kaddr, len, true);
}

int copyinstr(const void *uaddr, char *kaddr, size_t maxlen, size_t *done)
{
	const char *u = uaddr;
	size_t i = 0;
	while (i < maxlen) {
		if ((vaddr_t)(u + i) >= KERNBASE)
			return EFAULT;
		vm_page_t m = user_page_hold(u + i, false);
		if (m == NULL)
			return EFAULT;
		const char *k = (const char *)P2V(VM_PAGE_TO_PHYS(m));
		size_t off = (vaddr_t)(u + i) & PAGE_MASK;
		bool found = false;
		for (; off < PAGE_SIZE && i < maxlen; off++, i++) {
			kaddr[i] = k[off];
			if (k[off] == 0) {
				found = true;
				break;
			}
		}
		vm_page_unhold(m);
		if (found) {
			if (done)
				*done = i + 1;
			return 0;
		}
	}
	return ENAMETOOLONG;
}

bool useracc(const void *uaddr, size_t len, bool write)
{
	vaddr_t va = (vaddr_t)uaddr;
	if (va >= KERNBASE || len > KERNBASE - va)
		return false;
	for (vaddr_t p = va & ~PAGE_MASK; p < va + len; p += PAGE_SIZE) {
		vm_page_t m = user_page_hold((void *)p, write);
		if (m == NULL)
			return false;
		vm_page_unhold(m);
	}
	return true;
}
