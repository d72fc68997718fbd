/*
 * kern_uio.c - uiomove (FreeBSD's uio(9); interface: kern/uio.h).
 * Moves bytes between a kernel buffer and the iovecs of a uio, in the direction uio_rw gives,
 * through copyin/copyout for user space (EFAULT on a bad address) and memcpy for kernel space;
 * a UIO_NOCOPY uio is only advanced. On an error the uio shows what was moved before it. No locks.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/uio.h"
#include "arch/memlayout.h"
#include "vm/vm_page.h"
#include <sys/errno.h>

int uiomove(void *cp, size_t n, struct uio *uio)
{
	struct iovec *iov;
	char *k = cp;
	size_t cnt;
	int error;

	while (n > 0 && uio->uio_resid > 0 && uio->uio_iovcnt > 0) {
		iov = uio->uio_iov;
		cnt = MIN(n, iov->iov_len);
		if (cnt == 0) {
			uio->uio_iov++;
			uio->uio_iovcnt--;
			continue;
		}
		if (uio->uio_segflg == UIO_NOCOPY) {
			/* nothing to move: the data already is where it goes */
		} else if (uio->uio_segflg == UIO_USERSPACE) {
			if (uio->uio_rw == UIO_READ)
				error = copyout(k, iov->iov_base, cnt);
			else
				error = copyin(iov->iov_base, k, cnt);
			if (error != 0)
				return error;
		} else if (uio->uio_rw == UIO_READ) {
			memcpy(iov->iov_base, k, cnt);
		} else {
			memcpy(k, iov->iov_base, cnt);
		}
		iov->iov_base = (char *)iov->iov_base + cnt;
		iov->iov_len -= cnt;
		uio->uio_resid -= cnt;
		uio->uio_offset += cnt;
		k += cnt;
		n -= cnt;
	}
	return 0;
}

/* uiomove_fromphys: see kern/uio.h. Each page's part is moved through its direct-map address. */
int uiomove_fromphys(struct vm_page *ma[], size_t off, size_t n, struct uio *uio)
{
	while (n > 0 && uio->uio_resid > 0) {
		size_t po = off % PAGE_SIZE, cnt = MIN(n, PAGE_SIZE - po), before = uio->uio_resid;
		char *k = (char *)P2V(VM_PAGE_TO_PHYS(ma[off / PAGE_SIZE])) + po;
		int error = uiomove(k, cnt, uio);

		if (error != 0)
			return error;
		if (uio->uio_resid == before)
			break;                     /* the uio has no room left */
		off += before - uio->uio_resid;
		n -= before - uio->uio_resid;
	}
	return 0;
}
