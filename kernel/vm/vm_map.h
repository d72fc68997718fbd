/*
 * A process's address space (FreeBSD's struct vmspace and vm_map): a sorted list of map entries,
 * each a range [start, end) of user addresses backed by a VM object at an offset, with a
 * protection, a maximum protection and an inheritance for fork.
 *
 * Layout (arch/memlayout.h):
 *   [vm_taddr, vm_daddr)       the program image: text and data mapped from the file's vnode
 *                              object (copy-on-write), bss anonymous
 *   [vm_daddr, vm_brk)         the heap, an anonymous entry grown and shrunk by sbrk (lazily:
 *                              pages are zero-filled when first touched)
 *   [VM_MMAP_BASE, ...)        mmap regions, first fit upward
 *   [USERTOP-USTACKMAX, USERTOP) the stack: one anonymous entry, pages zero-filled on demand
 *
 * Copy-on-write is FreeBSD's: fork gives parent and child the same objects with
 * MAP_ENTRY_NEEDS_COPY and write-protects the parent; the first write fault puts a shadow object
 * in front (vm_object_shadow) and copies the page into it (vm_fault.c).
 *
 *   vmspace_alloc() / vmspace_free(vm)
 *   vmspace_fork(vm)                       - the child's address space (never NULL)
 *   vm_map_insert(vm, obj, off, start, end, prot, maxprot, inherit, eflags) - 0 or ENOMEM (the
 *                                            range is not free); takes over a reference on obj.
 *                                            With MAP_ENTRY_VN_WRITECNT or _VN_TEXT (obj a vnode
 *                                            object) the entry, and each piece and fork copy of
 *                                            it, counts in the vnode's v_writecount or
 *                                            v_textcount until it is unmapped (as FreeBSD's
 *                                            MAP_ENTRY_VN_WRITECNT and MAP_ENTRY_VN_EXEC do)
 *   vm_map_findspace(vm, len, &addr)      - a free range of len bytes at or above VM_MMAP_BASE
 *   vm_map_lookup_entry(vm, va)           - the entry containing va, or NULL
 *   vm_map_delete(vm, start, end)         - unmap [start, end) (entries clipped as needed)
 *   vm_map_protect(vm, start, end, prot)  - 0, ENOMEM (a hole in the range) or EACCES (above
 *                                            an entry's max_protection)
 *   vm_map_check_free(vm, start, end)     - true if no entry overlaps [start, end)
 *   vm_brk(vm, incr, &oldbrk)             - sbrk
 *   vmspace_size(vm)                      - bytes of user memory resident
 * Locking: a map is used only by its own process (processes are single-threaded), so it has no
 * lock; the pagedaemon reaches pages through objects and pv entries, never through maps.
 */
#ifndef _VM_VM_MAP_H_
#define _VM_VM_MAP_H_

#include "kern/types.h"
#include "vm/vm.h"
#include <sys/queue.h>

struct pmap;
struct proc;
struct vnode;

/* inheritance */
#define VM_INHERIT_SHARE 0
#define VM_INHERIT_COPY  1
#define VM_INHERIT_NONE  2

/* eflags */
#define MAP_ENTRY_COW        0x01     /* private: writes go to a copy */
#define MAP_ENTRY_NEEDS_COPY 0x02     /* ... and the copy (a shadow object) is not made yet */
#define MAP_ENTRY_VN_WRITECNT 0x04    /* a writable shared file mapping: a writer of the file */
#define MAP_ENTRY_VN_TEXT    0x08     /* a program image's mapping: the file is busy text */
#define MAP_ENTRY_VN_COUNTS  (MAP_ENTRY_VN_WRITECNT | MAP_ENTRY_VN_TEXT)

#define VM_MMAP_BASE 0x40000000       /* mmap regions from here up; the heap stays below */

struct vm_map_entry {
	TAILQ_ENTRY(vm_map_entry) link;   /* sorted by address */
	vaddr_t      start, end;
	vm_object_t  object;             /* NULL: anonymous, nothing touched yet */
	vm_ooffset_t offset;             /* object offset of start */
	vm_prot_t    protection;
	vm_prot_t    max_protection;
	uint8_t      inheritance;
	uint8_t      eflags;
	struct vnode *vnode;             /* MAP_ENTRY_VN_COUNTS: the file counted (object may be a
	                                    shadow of its object by now) */
};

struct vmspace {
	TAILQ_HEAD(, vm_map_entry) vm_entries;
	struct pmap *vm_pmap;
	vaddr_t      vm_taddr;      /* start of the program image */
	vaddr_t      vm_daddr;      /* start of the heap (end of the image, page-aligned) */
	vaddr_t      vm_brk;        /* current break */
};

struct vmspace      *vmspace_alloc(void);
void                 vmspace_free(struct vmspace *vm);
struct vmspace      *vmspace_fork(struct vmspace *vm);
int                  vm_map_insert(struct vmspace *vm, vm_object_t obj, vm_ooffset_t offset,
                                   vaddr_t start, vaddr_t end, vm_prot_t prot, vm_prot_t maxprot,
                                   int inherit, int eflags);
int                  vm_map_findspace(struct vmspace *vm, size_t len, vaddr_t *addr);
struct vm_map_entry *vm_map_lookup_entry(struct vmspace *vm, vaddr_t va);
void                 vm_map_delete(struct vmspace *vm, vaddr_t start, vaddr_t end);
int                  vm_map_protect(struct vmspace *vm, vaddr_t start, vaddr_t end, vm_prot_t prot);
bool                 vm_map_check_free(struct vmspace *vm, vaddr_t start, vaddr_t end);
int                  vm_brk(struct vmspace *vm, intptr_t incr, vaddr_t *oldbrk);
uint32_t             vmspace_size(struct vmspace *vm);

#endif
