/*
 * i386 page tables (see pmap.h) and the checked user copies declared in kern/uio.h.
 * Paging structures: Intel SDM vol. 3 §4.3 (32-bit paging): a PDE with PS=1 maps 4 MB (CR4.PSE).
 * copyin/copyout check the whole user range against the current page tables before touching it,
 * so a bad pointer gives EFAULT instead of a kernel page fault. (Processes are single-threaded,
 * so the mappings cannot change under the copy.)
 */
#include "arch/pmap.h"
#include "arch/cpu.h"
#include "arch/x86.h"
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

void pmap_bootstrap(void)
{
	kernel_pdir = kpage_alloc(M_ZERO);
	if (kernel_pdir == NULL)
		panic("pmap_bootstrap: no memory for the kernel page directory");
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

/* The PTE for user va, allocating its page table if `alloc` (may sleep in VM_WAIT); NULL if absent. */
static pt_entry_t *pmap_pte(struct pmap *pm, vaddr_t va, bool alloc)
{
	pd_entry_t *pde = &pm->pm_pdir[PDX(va)];
	if (!(*pde & PTE_P)) {
		if (!alloc)
			return NULL;
		void *pt = kpage_alloc(M_WAITOK | M_ZERO);
		*pde = V2P(pt) | PTE_P | PTE_W | PTE_U;
	}
	pt_entry_t *pt = P2V(PTE_ADDR(*pde));
	return &pt[PTX(va)];
}

/*
 * A user page is scrubbed before it goes back to the allocator. Besides not handing a process's
 * data to whoever gets the frame next, this matters under QEMU's TCG: a guest frame stays
 * write-protected while any block of code translated from it survives, and only stores over that
 * code retire the blocks. A frame that held user text and comes back as a kernel stack (written
 * at the top only) would put every stack store through the emulator's slow path for the stack's
 * lifetime; docs/bench-raw.md measured a dd ten times slower. Zeroing stores over all of it.
 */
static void free_user_page(paddr_t pa)
{
	vm_page_t m = PHYS_TO_VM_PAGE(pa);
	memset(P2V(pa), 0, PAGE_SIZE);
	vm_page_unwire(m, false);
	vm_page_free(m);
}

void pmap_enter(struct pmap *pm, vaddr_t va, paddr_t pa, int prot)
{
	KASSERT(va < KERNBASE, "pmap_enter of a kernel address");
	pt_entry_t *pte = pmap_pte(pm, va, true);
	if (*pte & PTE_P) {
		if (PTE_ADDR(*pte) != pa)
			free_user_page(PTE_ADDR(*pte));
		pm->pm_resident--;
	}
	*pte = pa | PTE_P | PTE_U | ((prot & VM_PROT_WRITE) ? PTE_W : 0);
	pm->pm_resident++;
	invlpg(va);
}

void pmap_remove(struct pmap *pm, vaddr_t sva, vaddr_t eva)
{
	for (vaddr_t va = sva & ~PAGE_MASK; va < eva && va < KERNBASE; va += PAGE_SIZE) {
		if (!(pm->pm_pdir[PDX(va)] & PTE_P)) {
			va = (va & ~0x3fffffu) + (4u << 20) - PAGE_SIZE;   /* skip the empty 4 MB */
			continue;
		}
		pt_entry_t *pte = pmap_pte(pm, va, false);
		if (*pte & PTE_P) {
			free_user_page(PTE_ADDR(*pte));
			*pte = 0;
			pm->pm_resident--;
			invlpg(va);
		}
	}
}

void pmap_destroy(struct pmap *pm)
{
	pmap_remove(pm, 0, KERNBASE);
	for (uint32_t i = 0; i < PDX(KERNBASE); i++)
		if (pm->pm_pdir[i] & PTE_P)
			kpage_free(P2V(PTE_ADDR(pm->pm_pdir[i])));
	kpage_free(pm->pm_pdir);
	kfree(pm);
}

paddr_t pmap_extract(struct pmap *pm, vaddr_t va, bool write)
{
	if (va >= KERNBASE)
		return 0;
	pt_entry_t *pte = pmap_pte(pm, va, false);
	if (pte == NULL || !(*pte & PTE_P) || !(*pte & PTE_U) || (write && !(*pte & PTE_W)))
		return 0;
	return PTE_ADDR(*pte) | (va & PAGE_MASK);
}

void pmap_activate(struct pmap *pm, uint32_t kstacktop)
{
	pushcli();
	struct cpu *c = mycpu();
	c->ts.esp0 = kstacktop;
	lcr3(V2P(pm ? pm->pm_pdir : kernel_pdir));
	popcli();
}

/*
 * Checked user copies. Each page of the range is looked up (and, for a not-yet-touched stack
 * page, faulted in by vm_fault) before it is copied through the direct map.
 */
static void *user_page(const void *uaddr, bool write)
{
	struct proc *p = curproc;
	if (p == NULL || p->p_vmspace == NULL)
		return NULL;
	struct pmap *pm = p->p_vmspace->vm_pmap;
	vaddr_t va = (vaddr_t)uaddr;
	paddr_t pa = pmap_extract(pm, va, write);
	if (pa == 0 && vm_fault(p, va, write) == 0)
		pa = pmap_extract(pm, va, write);
	return pa ? P2V(pa) : NULL;
}

static int user_copy(void *uaddr, void *kaddr, size_t len, bool to_user)
{
	if ((vaddr_t)uaddr >= KERNBASE || len > KERNBASE - (vaddr_t)uaddr)
		return EFAULT;
	while (len > 0) {
		size_t n = MIN(len, PAGE_SIZE - ((vaddr_t)uaddr & PAGE_MASK));
		char *k = user_page(uaddr, to_user);
		if (k == NULL)
			return EFAULT;
		if (to_user)
			memcpy(k, kaddr, n);
		else
			memcpy(kaddr, k, n);
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
	for (size_t i = 0; i < maxlen; i++) {
		if ((vaddr_t)(u + i) >= KERNBASE)
			return EFAULT;
		const char *k = user_page(u + i, false);
		if (k == NULL)
			return EFAULT;
		kaddr[i] = *k;
		if (*k == 0) {
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
	for (vaddr_t p = va & ~PAGE_MASK; p < va + len; p += PAGE_SIZE)
		if (user_page((void *)p, write) == NULL)
			return false;
	return true;
}
