/*
 * vfs_vnops.c - operations on vnode-backed open files (FreeBSD's vn_read/vn_write/vn_stat/
 * vn_ioctl/vn_closefile) and vn_rdwr for reading and writing vnodes from the kernel.
 * A FIFO's reads and writes go to the pipe behind it (kern/sys_pipe.c, fifo_open).
 *
 * A regular file, directory or disk is seekable: its reads and writes use and advance the
 * file's shared offset, serialized by the file's f_lock. Character devices (console, null,
 * zero) have no offset and are not serialized here: a reader blocked on the console must not
 * stop others from writing to the same open file.
 * write(2) to a regular file calls bwillwrite() first, before any lock is taken, so a writer
 * blocks ("flswai") while the buffer cache holds too many dirty buffers.
 * Each read and write of a seekable file carries FreeBSD's sequential-access count in
 * ioflag >> IO_SEQSHIFT (sequential_heuristic): it grows by one per 16 KB moved while each
 * access starts where the last ended, so a file system can read ahead and cluster.
 * O_APPEND writes are IO_APPEND: the file system starts them at the end of the file, read
 * under its inode lock so concurrent appenders never overwrite each other (FreeBSD's
 * ffs_write does the same); O_FSYNC writes are IO_SYNC.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/file.h"
#include "kern/lockf.h"
#include "kern/pipe.h"
#include "kern/lock.h"
#include "kern/uio.h"
#include "vfs/vnode.h"
#include "vfs/buf.h"
#include "vfs/vfs.h"
#include "dev/cdev.h"
#include <sys/fcntl.h>
#include <sys/poll.h>
#include <sys/errno.h>

/* Does reading or writing vp use the file offset? */
static bool vn_seekable(struct vnode *vp)
{
	return vp->v_type == VREG || vp->v_type == VDIR || vp->v_disk != NULL;
}

/*
 * FreeBSD 4's sequential_heuristic (sys/kern/vfs_vnops.c): an access that starts where the
 * previous one ended (or at 0 after one) adds its size in 16 KB units to f_seqcount, up to
 * IO_SEQMAX; any other access drops it to 1 (or 0). The ioflag bits to pass. f_lock held.
 */
static int sequential_heuristic(struct uio *uio, struct file *fp)
{
	if ((uio->uio_offset == 0 && fp->f_seqcount > 0) || uio->uio_offset == fp->f_nextoff) {
		fp->f_seqcount = (int)MIN((size_t)IO_SEQMAX,
		                          fp->f_seqcount + howmany(uio->uio_resid, 16 * 1024));
		return fp->f_seqcount << IO_SEQSHIFT;
	}
	fp->f_seqcount = fp->f_seqcount > 1 ? 1 : 0;
	return 0;
}

/* vn_read: read(2) on a vnode file. */
int vn_read(struct file *fp, struct uio *uio)
{
	struct vnode *vp = fp->f_vnode;
	int ioflag = (fp->f_flag & O_NONBLOCK) ? IO_NDELAY : 0;
	int error;

	if (vp->v_type == VFIFO)
		return pipe_read(vp->v_fifo, uio, fp->f_flag);
	if (!vn_seekable(vp))
		return VOP_READ(vp, uio, ioflag);
	sleeplock_acquire(&fp->f_lock);
	uio->uio_offset = fp->f_offset;
	ioflag |= sequential_heuristic(uio, fp);
	error = VOP_READ(vp, uio, ioflag);
	fp->f_offset = fp->f_nextoff = uio->uio_offset;
	sleeplock_release(&fp->f_lock);
	return error;
}

/* vn_write: write(2) on a vnode file. */
int vn_write(struct file *fp, struct uio *uio)
{
	struct vnode *vp = fp->f_vnode;
	int ioflag = 0;
	int error;

	if (fp->f_flag & O_NONBLOCK)
		ioflag |= IO_NDELAY;
	if (fp->f_flag & O_FSYNC)
		ioflag |= IO_SYNC;
	if (fp->f_flag & O_APPEND)
		ioflag |= IO_APPEND;
	if (vp->v_type == VFIFO)
		return pipe_write(vp->v_fifo, uio, fp->f_flag);
	if (vp->v_type == VREG)
		bwillwrite();
	if (!vn_seekable(vp))
		return VOP_WRITE(vp, uio, ioflag);
	sleeplock_acquire(&fp->f_lock);
	uio->uio_offset = fp->f_offset;
	ioflag |= sequential_heuristic(uio, fp);
	error = VOP_WRITE(vp, uio, ioflag);
	fp->f_offset = fp->f_nextoff = uio->uio_offset;
	sleeplock_release(&fp->f_lock);
	return error;
}

/* vn_stat: fstat/stat. */
int vn_stat(struct vnode *vp, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	return VOP_GETATTR(vp, st);
}

/* vn_ioctl: ioctl(2) on a vnode file; data is a kernel copy of the argument. */
int vn_ioctl(struct file *fp, u_long cmd, void *data)
{
	struct vnode *vp = fp->f_vnode;

	if (vp->v_type == VREG || vp->v_type == VDIR)
		return ENOTTY;
	return VOP_IOCTL(vp, cmd, data, fp->f_flag);
}

/*
 * vn_poll: poll(2) on a vnode file. A FIFO answers as its pipe, a character device as its
 * driver's d_poll; files, directories, disks and devices without one are always ready for
 * reading and writing (FreeBSD's seltrue / vop_nopoll).
 */
int vn_poll(struct file *fp, int events)
{
	struct vnode *vp = fp->f_vnode;

	if (vp->v_type == VFIFO)
		return pipe_poll(vp->v_fifo, events, fp->f_flag);
	if (vp->v_cdev != NULL && vp->v_cdev->d_poll != NULL)
		return vp->v_cdev->d_poll(vp->v_cdevarg, events);
	return events & (POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM);
}

/*
 * vn_closevnode: undo what open(2) did to vp for an open file with flags fflag - its count of
 * writers, a FIFO's end, VOP_OPEN - and drop the file's reference.
 */
int vn_closevnode(struct vnode *vp, int fflag)
{
	int error;

	if (fflag & FWRITE)
		vn_writer_end(vp);
	if (vp->v_type == VFIFO)
		fifo_close(vp, fflag);
	error = VOP_CLOSE(vp, fflag);
	vrele(vp);
	return error;
}

/*
 * Busy text (FreeBSD 4's vn_writechk, vfs_vnops.c 1.87.2.13, and exec_check_permissions): a
 * file that a process runs (v_textcount, FreeBSD's VTEXT) cannot be opened for writing,
 * truncated or found writable by access(2), and a file with writers (v_writecount) cannot be
 * run: ETXTBSY, for root too. So a vnode is never text and written at once. FreeBSD tested
 * under the vnode's lock; here vn_textlock makes each test and its count one step, so that an
 * open for writing and an exec on two CPUs cannot both pass. A map entry adds to a count that
 * is already above zero (vm_map.c: a mapping is made from an open file, or from another
 * entry), so it needs no test; a count may drop anywhere.
 */
static struct spinlock vn_textlock = { .name = "vntext" };

static int count_unless(int *count, int *other)
{
	int error = 0;

	spin_lock(&vn_textlock);
	if (__atomic_load_n(other, __ATOMIC_RELAXED) > 0)
		error = ETXTBSY;
	else
		__atomic_add_fetch(count, 1, __ATOMIC_RELAXED);
	spin_unlock(&vn_textlock);
	return error;
}

int vn_writechk(struct vnode *vp)
{
	return __atomic_load_n(&vp->v_textcount, __ATOMIC_RELAXED) > 0 ? ETXTBSY : 0;
}

int vn_writer_begin(struct vnode *vp)
{
	return count_unless(&vp->v_writecount, &vp->v_textcount);
}

void vn_writer_end(struct vnode *vp)
{
	__atomic_sub_fetch(&vp->v_writecount, 1, __ATOMIC_RELAXED);
}

int vn_text_begin(struct vnode *vp)
{
	return count_unless(&vp->v_textcount, &vp->v_writecount);
}

void vn_text_end(struct vnode *vp)
{
	__atomic_sub_fetch(&vp->v_textcount, 1, __ATOMIC_RELAXED);
}

/* vn_close: the last reference to an open vnode file went away; its flock(2) lock goes too. */
int vn_close(struct file *fp)
{
	if (fp->f_locktype != 0)
		vn_funlock(fp);
	return vn_closevnode(fp->f_vnode, fp->f_flag);
}

/*
 * vn_rdwr: read or write len bytes at offset of vp from/to base (a kernel or user address as
 * seg says). With residp, the bytes not transferred are stored there; without, a short
 * transfer is EIO.
 */
int vn_rdwr(enum uio_rw rw, struct vnode *vp, void *base, size_t len, off_t offset,
            enum uio_seg seg, int ioflag, size_t *residp)
{
	struct iovec iov = { base, len };
	struct uio uio = { &iov, 1, offset, len, seg, rw };
	int error;

	if (rw == UIO_READ)
		error = VOP_READ(vp, &uio, ioflag);
	else
		error = VOP_WRITE(vp, &uio, ioflag);
	if (residp != NULL)
		*residp = uio.uio_resid;
	else if (error == 0 && uio.uio_resid != 0)
		error = EIO;
	return error;
}
