/*
 * swapon(2) and the boot-time swap device (FreeBSD's vm/vm_swap.c).
 *   swapon(path)      - add the disk at path (a /dev node) as swap. ENOENT no such file,
 *                       ENOTBLK not a disk, EBUSY the disk is in use (mounted, open, a ccd
 *                       component) or already swap, EINVAL too small (under 16 pages),
 *                       ENOSPC four swap devices already, EFAULT / ENAMETOOLONG for the path.
 *   swap_boot(name)   - `swap=da3` on the kernel command line: swapon that disk at boot; a
 *                       problem is a console line, never a failed boot.
 */
#include "vm/swap_pager.h"
#include "kern/klib.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include "vfs/vnode.h"
#include "dev/disk.h"
#include <sys/errno.h>

int sys_swapon(register_t *args, register_t *rv)
{
	char path[256];
	int error = suser(cred_cur());         /* FreeBSD's swapon(2) is root's */
	if (error)
		return error;
	error = copyinstr((const void *)args[0], path, sizeof(path), NULL);
	if (error)
		return error;
	struct vnode *vp;
	error = namei(path, &vp);
	if (error)
		return error;
	if ((vp->v_type == VBLK || vp->v_type == VCHR) && vp->v_disk != NULL)
		error = swapon_disk(vp->v_disk);
	else
		error = ENOTBLK;
	vrele(vp);
	*rv = 0;
	return error;
}

void swap_boot(const char *name)
{
	struct disk *dp = disk_lookup(name);
	int error = dp ? swapon_disk(dp) : ENXIO;
	if (error)
		kprintf("swap: cannot use %s as swap (error %d)\n", name, error);
}
