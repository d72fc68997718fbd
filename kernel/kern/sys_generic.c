/*
 * sys_generic.c - read(2), write(2) and ioctl(2) on any descriptor: they build a uio over the
 * user buffer and dispatch on the file type to the vnode (vfs/vfs_vnops.c) or pipe
 * (kern/sys_pipe.c) operations, as FreeBSD's dofileread/dofilewrite do.
 *
 * A transfer interrupted (EINTR) or stopped by O_NONBLOCK (EAGAIN) after some bytes moved
 * returns the count instead of the error. ioctl arguments are copied through a kernel buffer
 * whose size and direction come from the table of known commands (wdrain's command numbers do
 * not encode them, unlike FreeBSD's _IOR/_IOW); an unknown command is ENOTTY.
 * No locks of its own.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/file.h"
#include "kern/pipe.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include "vfs/vfs.h"
#include <sys/ioctl.h>
#include <sys/errno.h>

#define SSIZE_MAX 0x7fffffff

/* Do a read or write of the uio on fp. */
static int fo_rdwr(struct file *fp, struct uio *uio)
{
	if (fp->f_type == DTYPE_PIPE)
		return uio->uio_rw == UIO_READ ? pipe_read(fp->f_pipe, uio, fp->f_flag)
		                               : pipe_write(fp->f_pipe, uio, fp->f_flag);
	return uio->uio_rw == UIO_READ ? vn_read(fp, uio) : vn_write(fp, uio);
}

/* read(2)/write(2): fd, buffer, length. */
static int dofilerw(register_t *args, register_t *rv, enum uio_rw rw)
{
	size_t len = args[2];
	struct iovec iov = { (void *)args[1], len };
	struct uio uio = { &iov, 1, 0, len, UIO_USERSPACE, rw };
	struct file *fp;
	int error;

	if (len > SSIZE_MAX)
		return EINVAL;
	error = fget((int)args[0], &fp);
	if (error != 0)
		return error;
	if (!(fp->f_flag & (rw == UIO_READ ? FREAD : FWRITE))) {
		fdrop(fp);
		return EBADF;
	}
	error = fo_rdwr(fp, &uio);
	fdrop(fp);
	if (error != 0 && uio.uio_resid != len && (error == EINTR || error == EAGAIN))
		error = 0;
	*rv = len - uio.uio_resid;
	if (rw == UIO_WRITE)
		curproc->p_wbytes += len - uio.uio_resid;   /* kern.proc's ki_wbytes: how far a writer has got */
	return error;
}

int sys_read(register_t *args, register_t *rv)
{
	return dofilerw(args, rv, UIO_READ);
}

int sys_write(register_t *args, register_t *rv)
{
	return dofilerw(args, rv, UIO_WRITE);
}

#define IOC_IN  1        /* copy the argument in before the call */
#define IOC_OUT 2        /* copy it out after */

static const struct {
	u_long  cmd;
	uint8_t size;
	uint8_t dir;
} ioctl_args[] = {
	{ DIOCGSECTORSIZE, sizeof(u_int), IOC_OUT },
	{ DIOCGMEDIASIZE,  sizeof(off_t), IOC_OUT },
	{ TIOCGETA,        sizeof(int),   IOC_OUT },
	{ TIOCSETA,        sizeof(int),   IOC_IN },
	{ TIOCSPGRP,       sizeof(int),   IOC_IN },
	{ TIOCGPGRP,       sizeof(int),   IOC_OUT },
};

/* ioctl(fd, cmd, arg) */
int sys_ioctl(register_t *args, register_t *rv)
{
	u_long cmd = args[1];
	void *uarg = (void *)args[2];
	uint64_t data[2] = { 0, 0 };
	struct file *fp;
	size_t i;
	int error;

	*rv = 0;
	for (i = 0; i < nitems(ioctl_args) && ioctl_args[i].cmd != cmd; i++)
		continue;
	error = fget((int)args[0], &fp);
	if (error != 0)
		return error;
	if (i == nitems(ioctl_args) || fp->f_type != DTYPE_VNODE) {
		fdrop(fp);
		return ENOTTY;
	}
	if (ioctl_args[i].dir & IOC_IN)
		error = copyin(uarg, data, ioctl_args[i].size);
	if (error == 0)
		error = vn_ioctl(fp, cmd, data);
	if (error == 0 && (ioctl_args[i].dir & IOC_OUT))
		error = copyout(data, uarg, ioctl_args[i].size);
	fdrop(fp);
	return error;
}
