/*
 * Address space layout (i386, 4 KB pages, 2 GB / 2 GB split).
 *
 *   0x00000000 - 0x00000fff   unmapped (NULL dereferences fault)
 *   0x00400000 - ...          user program text/data, then the heap (sbrk) growing up
 *   ...        - USERTOP      user stack, growing down from USERTOP
 *   KERNBASE   = 0x80000000   direct map of physical memory: PA x is at KERNBASE + x,
 *                             for x < DMAP_MAX (1.75 GB); the kernel is linked at KERNLINK
 *   0xf0000000 - 0xffffffff   device memory (PCI BARs, IOAPIC, LAPIC, HPET), mapped VA == PA
 */
#ifndef _ARCH_MEMLAYOUT_H_
#define _ARCH_MEMLAYOUT_H_

#define KERNBASE   0x80000000               /* (unsigned: all of these are used as uint32_t) */
#define KERNLINK   (KERNBASE + 0x100000)    /* kernel loaded at 1 MB physical */
#define DMAP_MAX   0x70000000               /* physical memory the direct map covers */
#define DEVSPACE   0xf0000000
#define USERBASE   0x00400000
#define USERTOP    0x7fff0000               /* top of the user stack (exclusive) */
#define USTACKMAX  (8 << 20)                /* user stack limit */

#ifndef __ASSEMBLER__
#include <stdint.h>
/* Through uintptr_t so that host unit tests (64-bit) compile kernel files that use them. */
#define V2P(a) ((uint32_t)(uintptr_t)(a) - KERNBASE)
#define P2V(a) ((void *)(uintptr_t)((uint32_t)(a) + KERNBASE))
#else
#define V2P_WO(x) ((x) - KERNBASE)
#endif

#endif
