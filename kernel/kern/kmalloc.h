/*
 * kmalloc: the kernel's general-purpose allocator (FreeBSD's malloc(9) without the type argument).
 *   kmalloc(size, flags) - returns `size` bytes of kernel memory, physically contiguous and
 *       direct-mapped (so V2P() works on it), aligned to at least 16 bytes; blocks of a page or more
 *       are page-aligned. M_ZERO zeroes it. M_WAITOK may sleep ("vmwait", until the pagedaemon
 *       frees memory) and must not be used while holding a spinlock; it never returns NULL for
 *       a size up to KMALLOC_MAX. M_NOWAIT never sleeps and returns NULL when memory is short
 *       (so do both for a size over KMALLOC_MAX).
 *   kfree(p)             - gives back a kmalloc'd block (NULL is ignored).
 *   kpage_alloc(flags)   - one direct-mapped 4 KB page (kernel virtual address), or NULL.
 *   kpage_free(va)
 * Locking: internal spinlock; callable from interrupt context with M_NOWAIT.
 * The pages are the VM's (vm_page_alloc_kmem): see kern_malloc.c.
 */
#ifndef _KERN_KMALLOC_H_
#define _KERN_KMALLOC_H_

#include "kern/types.h"

#define M_NOWAIT  0x0001
#define M_WAITOK  0x0002
#define M_ZERO    0x0100

#define KMALLOC_MAX (4u << 20)        /* the largest block: 2^(VM_NFREEORDER-1) pages */

void *kmalloc(size_t size, int flags);
void  kfree(void *p);
void *kpage_alloc(int flags);
void  kpage_free(void *va);

#endif
