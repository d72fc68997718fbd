/*
 * mmap(2), munmap(2), mprotect(2), msync(2) (FreeBSD's vm/vm_mmap.c; errors as FreeBSD's man
 * pages give them).
 *   mmap(struct mmap_args *)  - MAP_SHARED or MAP_PRIVATE (exactly one), of a regular file or
 *                               MAP_ANON (fd -1); MAP_FIXED replaces what was there. The file
 *                               offset must be page-aligned. A shared file mapping writes the
 *                               file (its pages are the file's object's pages); a private one
 *                               is copy-on-write over it; shared anonymous memory is shared
 *                               with children across fork. A shared mapping of a descriptor
 *                               open for writing is a writer of the file until it is unmapped,
 *                               and takes a non-root mapper's set-ID bits (file_object).
 *     EINVAL  bad flags or prot, len 0, unaligned offset or MAP_FIXED address, a range outside
 *             user space; EBADF  not an open descriptor; ENODEV  not a regular file;
 *     EACCES  the file is not open for reading, or PROT_WRITE|MAP_SHARED on a file not open
 *             for writing; ENOMEM no room in the address space.
 *   munmap(addr, len)         - EINVAL unaligned addr, len 0, range outside user space.
 *   mprotect(addr, len, prot) - EINVAL unaligned or bad prot; ENOMEM part of the range is not
 *                               mapped; EACCES more than the mapping allows (PROT_WRITE on a
 *                               shared mapping of a read-only descriptor).
 *   msync(addr, len, flags)   - write the range's dirty file pages (MS_SYNC waits, MS_ASYNC
 *                               starts; MS_INVALIDATE then drops the clean ones). EINVAL bad
 *                               flags or alignment; ENOMEM part of the range is not mapped.
 */
#include "vm/vm_map.h"
#include "vm/vm_object.h"
#include "kern/proc.h"
#include "kern/syscall.h"
#include "kern/file.h"
#include "kern/uio.h"
#include "arch/memlayout.h"
#include "vfs/vnode.h"
#include <sys/mman.h>
#include <sys/errno.h>

/* The page-aligned range [addr, addr + len rounded up), or EINVAL if it leaves user space. */
static int user_range(vaddr_t addr, size_t len, vaddr_t *start, vaddr_t *end)
{
	if ((addr & PAGE_MASK) || len == 0 || addr < USERBASE || len > USERTOP - addr)
		return EINVAL;
	*start = addr;
	*end = addr + roundup(len, PAGE_SIZE);
	if (*end > USERTOP || *end < addr)
		return EINVAL;
	return 0;
}

/*
 * The object and maximum protection of a file mapping; a reference on the object. A shared
 * mapping that may be made writable (the descriptor is open for writing) lets its process change
 * the file without write(2), so it takes the set-ID bits as a write would (VOP_CLEARSETID: Linux
 * leaves them, its filemap_page_mkwrite in mm/filemap.c only updates the times; FreeBSD 4's
 * vm_mmap.c 1.108.2.6 has no such check either), and counts as a writer of the file while it
 * lasts (MAP_ENTRY_VN_WRITECNT, as FreeBSD's vm_mmap_vnode does since FreeBSD 10), so that
 * `mount -u -r` refuses to leave its stores stranded and exec(2) of the file is ETXTBSY.
 */
static int file_object(const struct mmap_args *a, vm_object_t *objp, vm_prot_t *maxprot)
{
	struct file *fp;
	int error = fget(a->fd, &fp);
	if (error)
		return error;
	struct vnode *vp = fp->f_type == DTYPE_VNODE ? fp->f_vnode : NULL;
	if (vp == NULL || vp->v_type != VREG || vp->v_object == NULL)
		error = ENODEV;
	else if (!(fp->f_flag & FREAD))
		error = EACCES;
	else if ((a->flags & MAP_SHARED) && (a->prot & PROT_WRITE) && !(fp->f_flag & FWRITE))
		error = EACCES;
	if (!error) {
		*maxprot = VM_PROT_ALL;
		if ((a->flags & MAP_SHARED) && !(fp->f_flag & FWRITE))
			*maxprot &= ~VM_PROT_WRITE;
		if ((a->flags & MAP_SHARED) && (*maxprot & VM_PROT_WRITE))
			error = VOP_CLEARSETID(vp);
	}
	if (!error) {
		*objp = vp->v_object;
		vm_object_reference(*objp);
	}
	fdrop(fp);
	return error;
}

int sys_mmap(register_t *args, register_t *rv)
{
	struct mmap_args a;
	if (copyin((void *)args[0], &a, sizeof(a)))
		return EFAULT;
	struct vmspace *vm = curproc->p_vmspace;
	int kind = a.flags & (MAP_SHARED | MAP_PRIVATE);
	if (kind == 0 || kind == (MAP_SHARED | MAP_PRIVATE) ||
	    (a.flags & ~(MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANON)) ||
	    (a.prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) || a.len == 0 ||
	    a.len > USERTOP - USERBASE)
		return EINVAL;
	if ((a.flags & MAP_ANON) ? a.fd != -1 : (a.pos < 0 || (a.pos & PAGE_MASK)))
		return EINVAL;
	size_t size = roundup(a.len, PAGE_SIZE);
	vaddr_t start = 0, end = 0;
	if (a.flags & MAP_FIXED) {
		int error = user_range((vaddr_t)a.addr, size, &start, &end);
		if (error)
			return error;
	}
	vm_object_t obj = NULL;
	vm_prot_t maxprot = VM_PROT_ALL;
	if (!(a.flags & MAP_ANON)) {
		int error = file_object(&a, &obj, &maxprot);
		if (error)
			return error;
	} else if (a.flags & MAP_SHARED) {
		obj = vm_object_allocate(OBJT_DEFAULT, size >> PAGE_SHIFT);
	}
	if (a.flags & MAP_FIXED) {
		vm_map_delete(vm, start, end);
	} else if (vm_map_findspace(vm, size, &start) != 0) {
		vm_object_deallocate(obj);
		return ENOMEM;
	}
	end = start + size;
	bool shared = (a.flags & MAP_SHARED) != 0;
	bool writer = shared && !(a.flags & MAP_ANON) && (maxprot & VM_PROT_WRITE);
	int error = vm_map_insert(vm, obj, (a.flags & MAP_ANON) ? 0 : a.pos, start, end, a.prot, maxprot,
	                          shared ? VM_INHERIT_SHARE : VM_INHERIT_COPY,
	                          shared ? (writer ? MAP_ENTRY_VN_WRITECNT : 0) :
	                                   MAP_ENTRY_COW | (obj ? MAP_ENTRY_NEEDS_COPY : 0));
	if (error) {
		vm_object_deallocate(obj);
		return error;
	}
	*rv = start;
	return 0;
}

int sys_munmap(register_t *args, register_t *rv)
{
	vaddr_t start, end;
	int error = user_range(args[0], args[1], &start, &end);
	if (error)
		return error;
	vm_map_delete(curproc->p_vmspace, start, end);
	*rv = 0;
	return 0;
}

int sys_mprotect(register_t *args, register_t *rv)
{
	vaddr_t start, end;
	int prot = (int)args[2];
	int error = user_range(args[0], args[1], &start, &end);
	if (error)
		return error;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return EINVAL;
	*rv = 0;
	return vm_map_protect(curproc->p_vmspace, start, end, prot);
}

int sys_msync(register_t *args, register_t *rv)
{
	vaddr_t start, end;
	int flags = (int)args[2];
	int error = user_range(args[0], args[1], &start, &end);
	if (error)
		return error;
	if ((flags & ~(MS_ASYNC | MS_INVALIDATE)) || (flags & (MS_ASYNC | MS_INVALIDATE)) == (MS_ASYNC | MS_INVALIDATE))
		return EINVAL;
	struct vmspace *vm = curproc->p_vmspace;
	/* Every page of the range must be mapped. */
	for (vaddr_t va = start; va < end;) {
		struct vm_map_entry *e = vm_map_lookup_entry(vm, va);
		if (e == NULL)
			return ENOMEM;
		va = e->end;
	}
	*rv = 0;
	for (vaddr_t va = start; va < end;) {
		struct vm_map_entry *e = vm_map_lookup_entry(vm, va);
		vaddr_t lo = MAX(start, e->start), hi = MIN(end, e->end);
		va = e->end;
		if (e->object == NULL || e->object->type != OBJT_VNODE)
			continue;
		vm_pindex_t first = OFF_TO_IDX(e->offset + (lo - e->start));
		vm_pindex_t last = first + ((hi - lo) >> PAGE_SHIFT);
		int err = vm_object_page_clean(e->object, first, last, (flags & MS_ASYNC) ? 0 : OBJPC_SYNC);
		if (err)
			error = err;
		else if (flags & MS_INVALIDATE)
			vm_object_page_remove(e->object, first, last, true);
	}
	return error;
}
