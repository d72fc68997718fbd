/*
 * pmap: the machine-dependent page tables (FreeBSD's pmap(9), i386 two-level paging).
 * The kernel half (KERNBASE and up) is the same in every address space: 4 MB pages for the direct
 * map and device space, copied into each new page directory. The user half has 4 KB pages in page
 * tables allocated on demand. Every user mapping is of a managed page (a vm_page in an object) and
 * is recorded in that page's pv list (FreeBSD's pv entries), the reverse map from a page to the
 * (pmap, va) pairs that map it; the pmap never frees the pages it maps, the VM does.
 *
 *   pmap_bootstrap() / pmap_init_ap()  - the kernel page directory (boot CPU / others)
 *   pmap_create() / pmap_destroy(pm)   - a user page directory; destroy frees the page tables
 *                                        (every mapping must be gone: pmap_remove first)
 *   pmap_enter(pm, va, m, prot)        - map page m at user va (replacing any other mapping there);
 *                                        may sleep (page table, pv entry: M_WAITOK)
 *   pmap_remove(pm, sva, eva)          - unmap [sva, eva); the hardware's accessed/dirty bits go
 *                                        into the pages (PG_REFERENCED, m->dirty)
 *   pmap_protect(pm, sva, eva, prot)   - lower the protection of [sva, eva) (NONE removes)
 *   pmap_extract(pm, va, write)        - physical address at user va, 0 if unmapped (or read-only
 *                                        and `write`)
 *   pmap_extract_and_hold(pm, va, write) - the page at va, held (vm_page_hold), or NULL
 *   pmap_activate(pm, kstacktop)       - switch this CPU to pm (kernel_pmap when pm is NULL)
 * With vm_page_queue_lock held (the VM's calls, through vm_page_protect & co.):
 *   pmap_page_protect(m, prot)         - VM_PROT_NONE: remove every mapping of m; VM_PROT_READ:
 *                                        write-protect them
 *   pmap_is_modified(m)                - some mapping has the dirty bit set
 *   pmap_clear_modify(m) / pmap_clear_reference(m)
 *   pmap_ts_referenced(m)              - how many mappings had the accessed bit; clears them
 *   pmap_tlb_defer() / pmap_tlb_flush() - collect the shootdowns in between into one (VM lock
 *                                        held throughout; act on no change before the flush)
 * TLB consistency on SMP: a CPU that changes or removes a PTE of a pmap that another CPU has
 * loaded (pm_active) sends it a TLB-shootdown IPI and waits until it has flushed. A CPU spinning
 * for a spinlock serves shootdowns while it spins (pmap_spin_poll from spin_lock), so an
 * initiator that holds the VM lock cannot deadlock with a CPU waiting for that lock. An IPI
 * round trip costs milliseconds under TCG on a busy host, so two kinds are batched: the
 * shootdowns for cleared accessed bits (pmap_ts_referenced, pmap_clear_reference; pmap.c,
 * clear_bits: a stale entry there costs aging accuracy, never data) and those a caller brackets
 * with pmap_tlb_defer/pmap_tlb_flush (the pageout daemon's cluster write-protect).
 * Locking: vm_page_queue_lock protects every user PTE and pv list; pm_resident and pm_active too.
 */
#ifndef _ARCH_PMAP_H_
#define _ARCH_PMAP_H_

#include "kern/types.h"
#include "vm/vm.h"
#include <sys/queue.h>

#define PTE_P   0x001
#define PTE_W   0x002
#define PTE_U   0x004
#define PTE_PWT 0x008
#define PTE_PCD 0x010
#define PTE_A   0x020                 /* accessed: set by the MMU on any use */
#define PTE_D   0x040                 /* dirty: set by the MMU on a write */
#define PTE_PS  0x080

#define PDX(va)  (((uint32_t)(va) >> 22) & 0x3ff)
#define PTX(va)  (((uint32_t)(va) >> 12) & 0x3ff)
#define PTE_ADDR(pte) ((uint32_t)(pte) & ~0xfffu)

typedef uint32_t pt_entry_t;
typedef uint32_t pd_entry_t;

struct pmap {
	pd_entry_t *pm_pdir;          /* kernel virtual address of the page directory */
	uint32_t    pm_resident;      /* user pages mapped (vm_page_queue_lock) */
	volatile uint32_t pm_active;  /* CPUs with this pmap loaded, a bit per cpu index */
};

/* One mapping of a page: an entry on the page's md.pv_list (vm_page_queue_lock). */
struct pv_entry {
	TAILQ_ENTRY(pv_entry) pv_list;
	struct pmap          *pv_pmap;
	vaddr_t               pv_va;
};

void pmap_bootstrap(void);
void pmap_init_ap(void);
struct pmap *pmap_create(void);
void pmap_destroy(struct pmap *pm);
void pmap_enter(struct pmap *pm, vaddr_t va, vm_page_t m, vm_prot_t prot);
void pmap_remove(struct pmap *pm, vaddr_t sva, vaddr_t eva);
void pmap_protect(struct pmap *pm, vaddr_t sva, vaddr_t eva, vm_prot_t prot);
paddr_t   pmap_extract(struct pmap *pm, vaddr_t va, bool write);
vm_page_t pmap_extract_and_hold(struct pmap *pm, vaddr_t va, bool write);
void pmap_activate(struct pmap *pm, uint32_t kstacktop);

void pmap_page_protect(vm_page_t m, vm_prot_t prot);
bool pmap_is_modified(vm_page_t m);
void pmap_clear_modify(vm_page_t m);
void pmap_clear_reference(vm_page_t m);
int  pmap_ts_referenced(vm_page_t m);
void pmap_tlb_defer(void);
void pmap_tlb_flush(void);

void pmap_tlb_ipi(void);          /* the shootdown IPI's handler (trap.c) */
void pmap_spin_poll(void);        /* serve a pending shootdown (spin_lock's wait loop) */

#endif
