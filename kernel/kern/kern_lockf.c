/*
 * kern_lockf.c - flock(2)'s whole-file advisory locks (interface: kern/lockf.h), and the
 * flock(2) system call.
 *
 * FreeBSD 4 keeps flock locks as F_FLOCK records on the inode's lock list (sys/kern/kern_lockf.c
 * 1.25, lf_advlock); wdrain has no byte-range locks (fcntl F_SETLK), so a whole-file lock is just a
 * count on the vnode: v_flockers is the number of shared holders, or -1 while one open file holds
 * it exclusively. The open file remembers what it holds in f_locktype (FreeBSD's FHASLOCK flag). As
 * there, changing a lock's type is not atomic: the old lock is released first, so a waiting process
 * may get in between. A sleep for a lock is interruptible (EINTR).
 *
 * Locking: flock_lock (spinlock) protects every vnode's v_flockers and every file's f_locktype;
 * waiters sleep on &vp->v_flockers.
 */
#include "kern/types.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/file.h"
#include "kern/lockf.h"
#include "kern/syscall.h"
#include "vfs/vnode.h"
#include <sys/fcntl.h>
#include <sys/errno.h>

static struct spinlock flock_lock = { .name = "flock" };

/* Drop fp's lock. flock_lock held. */
static void funlock_locked(struct file *fp)
{
	struct vnode *vp = fp->f_vnode;

	if (fp->f_locktype == 0)
		return;
	if (fp->f_locktype == LOCK_EX)
		vp->v_flockers = 0;
	else
		vp->v_flockers--;
	fp->f_locktype = 0;
	wakeup(&vp->v_flockers);
}

void vn_funlock(struct file *fp)
{
	spin_lock(&flock_lock);
	funlock_locked(fp);
	spin_unlock(&flock_lock);
}

/* vn_flock: see lockf.h. 0, EWOULDBLOCK (LOCK_NB), EINTR, EINVAL (a bad operation). */
int vn_flock(struct file *fp, int how)
{
	struct vnode *vp = fp->f_vnode;
	int type = how & (LOCK_SH | LOCK_EX | LOCK_UN), error = 0;

	if (type != LOCK_SH && type != LOCK_EX && type != LOCK_UN)
		return EINVAL;
	spin_lock(&flock_lock);
	if (type == LOCK_UN || fp->f_locktype != type)
		funlock_locked(fp);
	if (type != LOCK_UN && fp->f_locktype == 0) {
		while (error == 0 && (vp->v_flockers < 0 || (type == LOCK_EX && vp->v_flockers > 0)))
			error = (how & LOCK_NB) ? EWOULDBLOCK :
			        msleep(&vp->v_flockers, &flock_lock, PCATCH, "lockf", 0);
		if (error == 0) {
			vp->v_flockers = type == LOCK_EX ? -1 : vp->v_flockers + 1;
			fp->f_locktype = type;
		}
	}
	spin_unlock(&flock_lock);
	return error;
}

/* flock(fd, how): EBADF, EOPNOTSUPP for a pipe (FreeBSD 4's flock() takes vnodes only). */
int sys_flock(register_t *args, register_t *rv)
{
	struct file *fp;
	int error;

	*rv = 0;
	error = fget((int)args[0], &fp);
	if (error != 0)
		return error;
	error = fp->f_type == DTYPE_VNODE ? vn_flock(fp, (int)args[1]) : EOPNOTSUPP;
	fdrop(fp);
	return error;
}
