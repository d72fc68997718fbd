/*
 * kmalloc: the kernel's general-purpose allocator (FreeBSD's malloc(9) without the type argument).
 *   kmalloc(size, flags) - returns `size` bytes of kernel memory, physically contiguous and
 *       direct-mapped (so V2P() works on it), aligned to at least 16 bytes; blocks of a page or more
 *       are page-aligned. M_ZERO zeroes it. M_WAITOK may sleep ("vmwait") for a few seconds for
 *       memory to be freed and must not be used while holding a spinlock; M_NOWAIT never sleeps.
 *       Either may return NULL: every caller handles NULL (user requests become ENOMEM).
 *   kfree(p)             - gives back a kmalloc'd block (NULL is ignored).
 *   kpage_alloc(flags)   - one direct-mapped 4 KB page (kernel virtual address), or NULL.
 *   kpage_free(va)
 * Locking: internal spinlock; callable from interrupt context with M_NOWAIT.
 */
#ifndef _KERN_KMALLOC_H_
#define _KERN_KMALLOC_H_

#include "kern/types.h"

#define M_NOWAIT  0x0001
#define M_WAITOK  0x0002
#define M_ZERO    0x0100

void *kmalloc(size_t size, int flags);
void  kfree(void *p);
void *kpage_alloc(int flags);
void  kpage_free(void *va);

#endif
