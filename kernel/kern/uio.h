/*
 * uio: a description of an I/O transfer between the kernel and a buffer that may be in user space
 * (FreeBSD's uio(9)). File systems and devices move data with uiomove(), which checks user
 * addresses and returns EFAULT on a bad one instead of faulting.
 *   uiomove(cp, n, uio) - copy min(n, resid) bytes between kernel buffer cp and the uio, in the
 *       direction uio_rw says (UIO_READ: kernel -> uio buffer), advancing offset and resid.
 *       A UIO_NOCOPY uio only advances (FreeBSD's: the vnode pager writes pages that already
 *       are the buffer's, vfs/vfs_bio_vmio.c).
 *   uiomove_fromphys(ma, off, n, uio) - uiomove with bytes [off, off+n) of the pages ma[] as the
 *       kernel side (FreeBSD's, for unmapped buffers: the pages are reached through the direct map).
 */
#ifndef _KERN_UIO_H_
#define _KERN_UIO_H_

#include "kern/types.h"
#include <sys/uio.h>

enum uio_rw  { UIO_READ, UIO_WRITE };
enum uio_seg { UIO_USERSPACE, UIO_SYSSPACE, UIO_NOCOPY };

struct uio {
	struct iovec *uio_iov;
	int           uio_iovcnt;
	off_t         uio_offset;
	size_t        uio_resid;
	enum uio_seg  uio_segflg;
	enum uio_rw   uio_rw;
};

struct vm_page;

int uiomove(void *cp, size_t n, struct uio *uio);
int uiomove_fromphys(struct vm_page *ma[], size_t off, size_t n, struct uio *uio);

/* Checked copies between kernel and the current process's user space (arch/pmap.c). */
int copyin(const void *uaddr, void *kaddr, size_t len);
int copyout(const void *kaddr, void *uaddr, size_t len);
int copyinstr(const void *uaddr, char *kaddr, size_t maxlen, size_t *done); /* ENAMETOOLONG if no NUL in maxlen */
bool useracc(const void *uaddr, size_t len, bool write);  /* true if the whole range is mapped user memory */

#endif
