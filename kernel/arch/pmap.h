/*
 * pmap: the machine-dependent page tables (FreeBSD's pmap(9), i386 two-level paging).
 * The kernel half (KERNBASE and up) is the same in every address space: 4 MB pages for the direct
 * map and device space, copied into each new page directory. The user half has 4 KB pages in page
 * tables allocated on demand.
 *   pmap_bootstrap()              - build the kernel page directory and switch to it.
 *   pmap_create() / pmap_destroy()- a user address space's page directory (frees page tables and
 *                                   every mapped user page). Mapped user pages are wired vm_pages
 *                                   in no object, freed by unwire + vm_page_free.
 *   pmap_enter(pm, va, pa, prot)  - map one user page (replacing and freeing any other); a page
 *                                   table is allocated with M_WAITOK, so it may sleep.
 *   pmap_remove(pm, sva, eva)     - unmap and free the user pages in [sva, eva).
 *   pmap_extract(pm, va, write)   - physical address mapped at user va (0 if not mapped, or not
 *                                   writable when write is set).
 *   pmap_activate(pm, kstacktop)  - switch this CPU to pm (kernel_pmap when pm is NULL).
 */
#ifndef _ARCH_PMAP_H_
#define _ARCH_PMAP_H_

#include "kern/types.h"
#include "vm/vm.h"

#define PTE_P   0x001
#define PTE_W   0x002
#define PTE_U   0x004
#define PTE_PWT 0x008
#define PTE_PCD 0x010
#define PTE_PS  0x080

#define PDX(va)  (((uint32_t)(va) >> 22) & 0x3ff)
#define PTX(va)  (((uint32_t)(va) >> 12) & 0x3ff)
#define PTE_ADDR(pte) ((uint32_t)(pte) & ~0xfffu)

typedef uint32_t pt_entry_t;
typedef uint32_t pd_entry_t;

struct pmap {
	pd_entry_t *pm_pdir;          /* kernel virtual address of the page directory */
	uint32_t    pm_resident;      /* user pages mapped */
};


void pmap_bootstrap(void);
void pmap_init_ap(void);          /* load the kernel page directory on an AP */
struct pmap *pmap_create(void);
void pmap_destroy(struct pmap *pm);
void pmap_enter(struct pmap *pm, vaddr_t va, paddr_t pa, int prot);
void pmap_remove(struct pmap *pm, vaddr_t sva, vaddr_t eva);
paddr_t pmap_extract(struct pmap *pm, vaddr_t va, bool write);
void pmap_activate(struct pmap *pm, uint32_t kstacktop);

#endif
