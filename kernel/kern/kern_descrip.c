/*
 * kern_descrip.c - open files and descriptor tables (interface: kern/file.h), and the
 * descriptor system calls close, dup, dup2, fcntl, fstat, lseek.
 *
 * The system has NFILE struct files; a file with f_count 0 is free. f_count counts the
 * descriptors naming it (in any process: fork shares files) plus system calls using it
 * (fget). The last fdrop closes the vnode (vn_close) or the pipe end (pipe_close).
 * A process's struct filedesc maps descriptors 0..NOFILE-1 to files.
 *
 * Locking: filelock (spinlock) protects every file's f_count and f_type while free. A
 * descriptor table is used only by its own process (one thread per process), so it needs no
 * lock (marked (c) in proc.h). f_offset is protected by the file's f_lock (vfs_vnops.c).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/proc.h"
#include "kern/file.h"
#include "kern/pipe.h"
#include "kern/socketvar.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include "vfs/vnode.h"
#include "vfs/vfs.h"
#include <sys/fcntl.h>
#include <sys/stat.h>
#include <sys/errno.h>

static struct file filetab[NFILE];
static struct spinlock filelock = { .name = "file" };

/* ---- files ----------------------------------------------------------------------------------- */

/* A free struct file with f_count 1, or NULL. */
static struct file *file_alloc(void)
{
	struct file *fp;

	spin_lock(&filelock);
	for (fp = filetab; fp < &filetab[NFILE]; fp++) {
		if (fp->f_count == 0) {
			fp->f_count = 1;
			spin_unlock(&filelock);
			fp->f_type = DTYPE_NONE;
			fp->f_flag = 0;
			fp->f_offset = 0;
			fp->f_nextoff = 0;
			fp->f_seqcount = 0;
			fp->f_locktype = 0;
			fp->f_vnode = NULL;
			fp->f_pipe = NULL;
			sleeplock_init(&fp->f_lock, "filelk");
			return fp;
		}
	}
	spin_unlock(&filelock);
	return NULL;
}

/* The current process's table, or NULL (kernel threads have none). */
static struct filedesc *curfd(void)
{
	struct proc *p = curproc;

	return p != NULL ? p->p_fd : NULL;
}

/* The lowest free descriptor >= minfd, or -1. */
static int fdalloc(struct filedesc *fdp, int minfd)
{
	int fd;

	for (fd = minfd; fd < NOFILE; fd++)
		if (fdp->fd_ofiles[fd] == NULL)
			return fd;
	return -1;
}

/*
 * falloc: a new file (type DTYPE_NONE, the caller fills it in) installed at the lowest free
 * descriptor of the current process. EMFILE if the table is full, ENFILE if the system's is.
 */
int falloc(struct file **fpp, int *fdp)
{
	struct filedesc *fdt = curfd();
	struct file *fp;
	int fd;

	if (fdt == NULL)
		return EBADF;
	fd = fdalloc(fdt, 0);
	if (fd < 0)
		return EMFILE;
	fp = file_alloc();
	if (fp == NULL)
		return ENFILE;
	fdt->fd_ofiles[fd] = fp;
	fdt->fd_ofileflags[fd] = 0;
	*fpp = fp;
	*fdp = fd;
	return 0;
}

/* fget: the file behind descriptor fd of the current process, with a reference. EBADF. */
int fget(int fd, struct file **fpp)
{
	struct filedesc *fdp = curfd();
	struct file *fp;

	if (fdp == NULL || fd < 0 || fd >= NOFILE || (fp = fdp->fd_ofiles[fd]) == NULL)
		return EBADF;
	spin_lock(&filelock);
	fp->f_count++;
	spin_unlock(&filelock);
	*fpp = fp;
	return 0;
}

static void fhold(struct file *fp)
{
	spin_lock(&filelock);
	fp->f_count++;
	spin_unlock(&filelock);
}

/* fdrop: drop a reference; the last one closes what the file refers to. May sleep. */
void fdrop(struct file *fp)
{
	spin_lock(&filelock);
	KASSERT(fp->f_count > 0, "fdrop: file not in use");
	if (fp->f_count > 1) {
		fp->f_count--;
		spin_unlock(&filelock);
		return;
	}
	spin_unlock(&filelock);
	/* We hold the only reference: nobody else can reach fp now. */
	if (fp->f_type == DTYPE_VNODE)
		vn_close(fp);
	else if (fp->f_type == DTYPE_PIPE)
		pipe_close(fp->f_pipe, fp->f_flag);
	else if (fp->f_type == DTYPE_SOCKET)
		soclose(fp->f_socket);
	fp->f_type = DTYPE_NONE;
	fp->f_vnode = NULL;
	fp->f_pipe = NULL;
	fp->f_socket = NULL;
	spin_lock(&filelock);
	fp->f_count = 0;
	spin_unlock(&filelock);
}

/* fdforget: see kern/file.h. */
void fdforget(int fd)
{
	struct filedesc *fdp = curfd();
	struct file *fp = fdp->fd_ofiles[fd];

	fdp->fd_ofiles[fd] = NULL;
	fdp->fd_ofileflags[fd] = 0;
	fdrop(fp);
}

/* ---- descriptor tables ----------------------------------------------------------------------- */

struct filedesc *fdinit(void)
{
	struct filedesc *fdp = kmalloc(sizeof(struct filedesc), M_WAITOK | M_ZERO);

	if (fdp != NULL)
		fdp->fd_cmask = CMASK;
	return fdp;
}

/* fdcopy: the child's table at fork: the same files, each with one more reference. */
struct filedesc *fdcopy(struct filedesc *fdp)
{
	struct filedesc *new = fdinit();
	int fd;

	if (new == NULL || fdp == NULL)
		return new;
	new->fd_cmask = fdp->fd_cmask;
	for (fd = 0; fd < NOFILE; fd++) {
		if (fdp->fd_ofiles[fd] != NULL) {
			fhold(fdp->fd_ofiles[fd]);
			new->fd_ofiles[fd] = fdp->fd_ofiles[fd];
			new->fd_ofileflags[fd] = fdp->fd_ofileflags[fd];
		}
	}
	return new;
}

/* Close descriptor fd of table fdp (it must be open). */
static void fdclose(struct filedesc *fdp, int fd)
{
	struct file *fp = fdp->fd_ofiles[fd];

	fdp->fd_ofiles[fd] = NULL;
	fdp->fd_ofileflags[fd] = 0;
	fdrop(fp);
}

/* fdfree: close every descriptor and free the table (exit). */
void fdfree(struct filedesc *fdp)
{
	int fd;

	if (fdp == NULL)
		return;
	for (fd = 0; fd < NOFILE; fd++)
		if (fdp->fd_ofiles[fd] != NULL)
			fdclose(fdp, fd);
	kfree(fdp);
}

/* fdcloseexec: close the FD_CLOEXEC descriptors (exec). */
void fdcloseexec(struct filedesc *fdp)
{
	int fd;

	for (fd = 0; fd < NOFILE; fd++)
		if (fdp->fd_ofiles[fd] != NULL && (fdp->fd_ofileflags[fd] & FD_CLOEXEC))
			fdclose(fdp, fd);
}

/* ---- system calls ---------------------------------------------------------------------------- */

/* Is fd an open descriptor of the current process? */
static bool fd_valid(struct filedesc *fdp, int fd)
{
	return fdp != NULL && fd >= 0 && fd < NOFILE && fdp->fd_ofiles[fd] != NULL;
}

/* close(fd) */
int sys_close(register_t *args, register_t *rv)
{
	struct filedesc *fdp = curfd();
	int fd = (int)args[0];

	*rv = 0;
	if (!fd_valid(fdp, fd))
		return EBADF;
	fdclose(fdp, fd);
	return 0;
}

/* Make descriptor `to` (free) name the file of `from`; FD_CLOEXEC is cleared, as dup(2) says. */
static void dupto(struct filedesc *fdp, int from, int to)
{
	fhold(fdp->fd_ofiles[from]);
	fdp->fd_ofiles[to] = fdp->fd_ofiles[from];
	fdp->fd_ofileflags[to] = 0;
}

/* dup(fd) -> the lowest free descriptor */
int sys_dup(register_t *args, register_t *rv)
{
	struct filedesc *fdp = curfd();
	int fd = (int)args[0], new;

	if (!fd_valid(fdp, fd))
		return EBADF;
	new = fdalloc(fdp, 0);
	if (new < 0)
		return EMFILE;
	dupto(fdp, fd, new);
	*rv = new;
	return 0;
}

/* dup2(from, to): `to` (closed first if open) names from's file. */
int sys_dup2(register_t *args, register_t *rv)
{
	struct filedesc *fdp = curfd();
	int from = (int)args[0], to = (int)args[1];

	if (!fd_valid(fdp, from) || to < 0 || to >= NOFILE)
		return EBADF;
	*rv = to;
	if (from == to)
		return 0;
	if (fdp->fd_ofiles[to] != NULL)
		fdclose(fdp, to);
	dupto(fdp, from, to);
	return 0;
}

/* fcntl(fd, cmd, arg): F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL. */
int sys_fcntl(register_t *args, register_t *rv)
{
	struct filedesc *fdp = curfd();
	int fd = (int)args[0], cmd = (int)args[1], arg = (int)args[2], new;
	const int setfl = O_APPEND | O_NONBLOCK | O_FSYNC;
	struct file *fp;

	*rv = 0;
	if (!fd_valid(fdp, fd))
		return EBADF;
	fp = fdp->fd_ofiles[fd];
	switch (cmd) {
	case F_DUPFD:
		if (arg < 0 || arg >= NOFILE)
			return EINVAL;
		new = fdalloc(fdp, arg);
		if (new < 0)
			return EMFILE;
		dupto(fdp, fd, new);
		*rv = new;
		return 0;
	case F_GETFD:
		*rv = fdp->fd_ofileflags[fd] & FD_CLOEXEC;
		return 0;
	case F_SETFD:
		fdp->fd_ofileflags[fd] = arg & FD_CLOEXEC;
		return 0;
	case F_GETFL:
		*rv = oflags_from_fflags(fp->f_flag);
		return 0;
	case F_SETFL:
		fp->f_flag = (fp->f_flag & ~setfl) | (arg & setfl);
		return 0;
	default:
		return EINVAL;
	}
}

/* fstat(fd, struct stat *) */
int sys_fstat(register_t *args, register_t *rv)
{
	struct file *fp;
	struct stat st;
	int error;

	*rv = 0;
	error = fget((int)args[0], &fp);
	if (error != 0)
		return error;
	if (fp->f_type == DTYPE_PIPE)
		error = pipe_stat(fp->f_pipe, &st);
	else if (fp->f_type == DTYPE_SOCKET)
		error = sostat(fp->f_socket, &st);
	else
		error = vn_stat(fp->f_vnode, &st);
	fdrop(fp);
	if (error == 0)
		error = copyout(&st, (void *)args[1], sizeof(st));
	return error;
}

/*
 * lseek(fd, off_t *offset_inout, whence): the 64-bit offset travels through the pointer.
 * ESPIPE on a pipe, a socket or a FIFO (POSIX; FreeBSD 4 let a FIFO's offset move); EINVAL for a bad whence or a negative result; EOVERFLOW past 2^63.
 */
int sys_lseek(register_t *args, register_t *rv)
{
	int whence = (int)args[2];
	struct file *fp;
	struct stat st;
	off_t off, base = 0, result;
	int error;

	*rv = 0;
	error = copyin((const void *)args[1], &off, sizeof(off));
	if (error != 0)
		return error;
	error = fget((int)args[0], &fp);
	if (error != 0)
		return error;
	if (fp->f_type != DTYPE_VNODE || fp->f_vnode->v_type == VFIFO) {
		fdrop(fp);
		return ESPIPE;
	}
	sleeplock_acquire(&fp->f_lock);
	switch (whence) {
	case SEEK_SET:
		break;
	case SEEK_CUR:
		base = fp->f_offset;
		break;
	case SEEK_END:
		error = vn_stat(fp->f_vnode, &st);
		base = st.st_size;
		break;
	default:
		error = EINVAL;
		break;
	}
	if (error == 0 && __builtin_add_overflow(base, off, &result))
		error = EOVERFLOW;
	if (error == 0 && result < 0)
		error = EINVAL;
	if (error == 0)
		fp->f_offset = result;
	sleeplock_release(&fp->f_lock);
	fdrop(fp);
	if (error == 0)
		error = copyout(&result, (void *)args[1], sizeof(result));
	return error;
}
