/*
 * sys_generic.c - read(2), write(2), ioctl(2) and poll(2) on any descriptor: they build a uio
 * over the user buffer and dispatch on the file type to the vnode (vfs/vfs_vnops.c), pipe
 * (kern/sys_pipe.c) or socket (kern/uipc_socket.c) operations, as FreeBSD's dofileread/
 * dofilewrite do.
 *
 * A transfer interrupted (EINTR) or stopped by O_NONBLOCK (EAGAIN) after some bytes moved
 * returns the count instead of the error. ioctl arguments are copied through a kernel buffer
 * whose size and direction come from the table of known commands (wdrain's command numbers do
 * not encode them, unlike FreeBSD's _IOR/_IOW); an unknown command is ENOTTY.
 *
 * poll(2) scans the descriptors; if none is ready and the timeout allows, it sleeps on one
 * channel ("poll", interruptible: EINTR) until poll_wakeup() or the timeout, and scans again.
 * poll_gen closes the window between a scan and the sleep: every poll_wakeup bumps it, and a
 * poller that sees it moved scans again instead of sleeping. poll_wakeup calls wakeup() (a walk
 * of the process table under proc_lock) only while someone sleeps in poll (poll_sleepers), so
 * pipes and sockets pay one atomic add when nobody polls: a poller counts itself in, then
 * checks poll_gen, a waker bumps poll_gen, then checks the count (both sequentially
 * consistent), so one of the two sees the other; and the poller holds poll_lock from its check
 * until msleep lets it go, so the waker's wakeup under poll_lock comes after the sleep. The timeout is in
 * milliseconds, rounded up to scheduler ticks; -1 waits for ever. At most NOFILE * 16 entries
 * (EINVAL past that); a descriptor that is not open gives POLLNVAL, a negative one nothing.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/file.h"
#include "kern/pipe.h"
#include "kern/poll.h"
#include "kern/socketvar.h"
#include "kern/kmalloc.h"
#include "kern/sleep.h"
#include "kern/time.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include "vfs/vfs.h"
#include <sys/ioctl.h>
#include <sys/poll.h>
#include <sys/errno.h>

#define SSIZE_MAX 0x7fffffff

/* Do a read or write of the uio on fp. */
static int fo_rdwr(struct file *fp, struct uio *uio)
{
	int msgflags;

	if (fp->f_type == DTYPE_SOCKET)
		return uio->uio_rw == UIO_READ ? soreceive(fp->f_socket, uio, 0, fp->f_flag, NULL, &msgflags)
		                               : sosend(fp->f_socket, uio, 0, fp->f_flag, NULL);
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

/* ---- poll ------------------------------------------------------------------------------------ */

#define POLL_MAXFDS (NOFILE * 16)

static struct spinlock poll_lock = { .name = "poll" };
static uint32_t poll_gen;               /* bumped by every poll_wakeup (atomic) */
static int poll_sleepers;               /* pollers about to sleep or asleep (atomic) */

/* poll_wakeup: see kern/poll.h and the top of the file. */
void poll_wakeup(void)
{
	__atomic_add_fetch(&poll_gen, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&poll_sleepers, __ATOMIC_SEQ_CST) == 0)
		return;
	spin_lock(&poll_lock);
	wakeup(&poll_gen);
	spin_unlock(&poll_lock);
}

/* Sleep until a poll_wakeup after generation gen, or timo ticks (0: no limit). 0, EWOULDBLOCK,
 * EINTR. */
static int poll_sleep(uint32_t gen, int timo)
{
	int error = 0;

	spin_lock(&poll_lock);
	__atomic_add_fetch(&poll_sleepers, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&poll_gen, __ATOMIC_SEQ_CST) == gen)
		error = msleep(&poll_gen, &poll_lock, PCATCH, "poll", timo);
	__atomic_sub_fetch(&poll_sleepers, 1, __ATOMIC_SEQ_CST);
	spin_unlock(&poll_lock);
	return error;
}

/* The events of one descriptor that hold now (POLLNVAL if fd is not open). */
static int poll_one(int fd, int events)
{
	struct file *fp;
	int revents;

	if (fget(fd, &fp) != 0)
		return POLLNVAL;
	if (fp->f_type == DTYPE_PIPE)
		revents = pipe_poll(fp->f_pipe, events, fp->f_flag);
	else if (fp->f_type == DTYPE_SOCKET)
		revents = sopoll(fp->f_socket, events);
	else
		revents = vn_poll(fp, events);
	fdrop(fp);
	return revents;
}

/* Fill every entry's revents; how many have some. */
static int poll_scan(struct pollfd *fds, nfds_t nfds)
{
	int nready = 0;

	for (nfds_t i = 0; i < nfds; i++) {
		fds[i].revents = fds[i].fd < 0 ? 0 : (short)poll_one(fds[i].fd, fds[i].events);
		if (fds[i].revents != 0)
			nready++;
	}
	return nready;
}

/* Scan until something is ready or the timeout (ticks; -1: none) passes: the count, or EINTR. */
static int poll_wait(struct pollfd *fds, nfds_t nfds, int timo, register_t *rv)
{
	uint32_t start = ticks, gen;
	int nready, left, error = 0;

	for (;;) {
		gen = __atomic_load_n(&poll_gen, __ATOMIC_SEQ_CST);
		nready = poll_scan(fds, nfds);
		left = timo < 0 ? 0 : timo - (int)(ticks - start);
		if (nready > 0 || error == EINTR || (timo >= 0 && left <= 0))
			break;
		error = poll_sleep(gen, left);
	}
	*rv = nready;
	return nready > 0 ? 0 : error == EINTR ? EINTR : 0;
}

/* poll(fds, nfds, timeout_ms) -> how many entries have revents */
int sys_poll(register_t *args, register_t *rv)
{
	nfds_t nfds = (nfds_t)args[1];
	int timeout = (int)args[2], timo;
	struct pollfd *fds;
	int error;

	if (nfds > POLL_MAXFDS)
		return EINVAL;
	fds = kmalloc(MAX(nfds, 1) * sizeof(*fds), M_WAITOK);
	if (fds == NULL)
		return ENOMEM;
	error = copyin((const void *)args[0], fds, nfds * sizeof(*fds));
	timo = timeout < 0 ? -1 : (int)howmany((int64_t)timeout * HZ, 1000);
	if (error == 0)
		error = poll_wait(fds, nfds, timo, rv);
	if (error == 0)
		error = copyout(fds, (void *)args[0], nfds * sizeof(*fds));
	kfree(fds);
	return error;
}
