/*
 * The swap pager: backing store for anonymous memory on any block device (FreeBSD's
 * vm/swap_pager.c and vm/vm_swap.c in miniature).
 *
 * Swap space is a set of devices (swapon), each cut into page-sized blocks with an allocation
 * bitmap; a block is named by a global number (device base + index). An anonymous object
 * (OBJT_DEFAULT) becomes OBJT_SWAP when one of its pages is first written out; which of its
 * pages are on swap, and where, is kept in swblocks (16 consecutive pindexes each, FreeBSD's
 * struct swblock), hashed by (object, pindex) and listed per object.
 *
 *   swap_pager_init()                   - at boot: the request and swblock pools
 *   swapon_disk(dp)                     - add a disk as swap: 0, EBUSY (in use, or swap
 *                                         already), EINVAL (too small), ENOSPC (too many devices)
 *   swap_pager_haspage(obj, pindex)     - (lock held) the page has a copy on swap
 *   swap_pager_getpages(obj, m, count, reqpage) - read m[reqpage] and those of the busy pages
 *                                         around it whose swap blocks follow on from its
 *                                         block, one read, and wait
 *   swap_pager_putpages(obj, m, count, flags, rtvals) - write soft-busy pages: one request per
 *                                         run of contiguous blocks; VM_PAGER_PEND for each page
 *                                         written asynchronously (completion marks it clean and
 *                                         ends its I/O), VM_PAGER_FAIL when swap is full
 *   swap_pager_freespace(obj, start, n) - (lock held) forget the swap copies of those pages
 *   swap_pager_dealloc(obj)             - (lock held) free all of an object's swap
 *   swap_pager_move(src, si, dst, di)   - (lock held) collapse: a page moved from (src, si) to
 *                                         (dst, di) takes its swap copy along
 *   swap_pager_copy(src, dst, offset)   - (lock held) collapse: then move src's other swap blocks
 *                                         into dst (shifted by offset pages) where dst has neither
 *                                         a page nor swap of its own; free the rest
 *   swap_pager_full                     - set when an allocation failed, cleared when space is freed
 *   swap_pager_stats(&total, &used)     - pages of swap
 * Requests come from a pool preallocated at boot, so writing a page out never needs memory;
 * with all of them in flight the caller sleeps ("swwrt") until one completes. The swblocks
 * come from a pool sized when swap is added; when it is exhausted a page is not paged out.
 * Locking: vm_page_queue_lock protects the bitmaps, the swblocks and the pools' free lists.
 */
#ifndef _VM_SWAP_PAGER_H_
#define _VM_SWAP_PAGER_H_

#include "vm/vm_object.h"

struct disk;

extern int swap_pager_full;

void swap_pager_init(void);
int  swapon_disk(struct disk *dp);
bool swap_pager_haspage(vm_object_t obj, vm_pindex_t pindex);
int  swap_pager_getpages(vm_object_t obj, vm_page_t *m, int count, int reqpage);
void swap_pager_putpages(vm_object_t obj, vm_page_t *m, int count, int flags, int *rtvals);
void swap_pager_freespace(vm_object_t obj, vm_pindex_t start, vm_pindex_t n);
void swap_pager_dealloc(vm_object_t obj);
void swap_pager_move(vm_object_t src, vm_pindex_t si, vm_object_t dst, vm_pindex_t di);
void swap_pager_copy(vm_object_t src, vm_object_t dst, vm_pindex_t offset);
void swap_pager_stats(u_int *total, u_int *used);
void swap_boot(const char *name);          /* vm_swap.c: swap=NAME on the command line */

#endif
