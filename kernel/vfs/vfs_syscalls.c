/*
 * vfs_syscalls.c - the system calls that name files: open, link, unlink, chdir, stat, mkdir,
 * rmdir, getcwd, rename, utimes; and fsync, sync, ftruncate, getdents on descriptors
 * (the handlers listed in kern/syscall.h; mount/unmount are in vfs_mount.c).
 *
 * Each handler copies its user path in with copyinstr into a PATH_MAX kmalloc'd buffer
 * (ENAMETOOLONG, EFAULT), resolves it with namei/namei_parent and calls the VOPs. Every vnode
 * reference taken is dropped on every path out. No locks of its own.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/proc.h"
#include "kern/file.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include "vfs/vnode.h"
#include "vfs/mount.h"
#include "vfs/buf.h"
#include "vfs/vfs.h"
#include <sys/fcntl.h>
#include <sys/stat.h>
#include <sys/dirent.h>
#include "vm/vm_object.h"
#include "vfs/syncio.h"
#include "kern/time.h"
#include <sys/errno.h>

/* ---- helpers --------------------------------------------------------------------------------- */

/* vfs_copyinstr: a user string of at most `max` bytes, NUL included, in a new buffer. */
int vfs_copyinstr(register_t uaddr, size_t max, char **kp)
{
	char *k = kmalloc(max, M_WAITOK);
	int error;

	if (k == NULL)
		return ENOMEM;
	error = copyinstr((const void *)uaddr, k, max, NULL);
	if (error != 0) {
		kfree(k);
		return error;
	}
	*kp = k;
	return 0;
}

/* namei on a user path. */
static int namei_user(register_t upath, struct vnode **vpp)
{
	char *path;
	int error;

	error = vfs_copyinstr(upath, PATH_MAX, &path);
	if (error != 0)
		return error;
	error = namei(path, vpp);
	kfree(path);
	return error;
}

/* namei_parent on a user path. */
static int namei_parent_user(register_t upath, struct vnode **dvpp, char name[256])
{
	char *path;
	int error;

	error = vfs_copyinstr(upath, PATH_MAX, &path);
	if (error != 0)
		return error;
	error = namei_parent(path, dvpp, name);
	kfree(path);
	return error;
}

static bool isdotordotdot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* Look up `name` in dvp and cross into a file system mounted there. */
static int lookup_in(struct vnode *dvp, const char *name, struct vnode **vpp)
{
	struct vnode *vp;
	int error;

	error = VOP_LOOKUP(dvp, name, &vp);
	if (error == 0)
		error = vfs_cross_mounts(&vp);
	if (error == 0)
		*vpp = vp;
	return error;
}

/* The file behind fd if it is a vnode (EINVAL for pipes). Referenced: fdrop it. */
static int getvnode(int fd, struct file **fpp)
{
	struct file *fp;
	int error;

	error = fget(fd, &fp);
	if (error != 0)
		return error;
	if (fp->f_type != DTYPE_VNODE) {
		fdrop(fp);
		return EINVAL;
	}
	*fpp = fp;
	return 0;
}

/* open(2) flags -> f_flag: O_RDONLY/O_WRONLY/O_RDWR become FREAD/FWRITE. */
int fflags_from_open(int oflags)
{
	int f = oflags & (O_APPEND | O_NONBLOCK | O_FSYNC);

	switch (oflags & O_ACCMODE) {
	case O_RDONLY: f |= FREAD; break;
	case O_WRONLY: f |= FWRITE; break;
	default:       f |= FREAD | FWRITE; break;
	}
	return f;
}

/* f_flag -> the flags fcntl(F_GETFL) reports. */
int oflags_from_fflags(int fflag)
{
	int o = fflag & (O_APPEND | O_NONBLOCK | O_FSYNC);

	if ((fflag & (FREAD | FWRITE)) == (FREAD | FWRITE))
		o |= O_RDWR;
	else if (fflag & FWRITE)
		o |= O_WRONLY;
	return o;
}

/* ---- open ------------------------------------------------------------------------------------ */

/* The vnode open(2) with O_CREAT means: existing (EEXIST with O_EXCL) or newly created. */
static int open_create(const char *path, int oflags, int mode, struct vnode **vpp)
{
	char name[MAXNAMLEN + 1];
	struct vnode *dvp;
	size_t len = strnlen(path, PATH_MAX);
	int error;

	if (len > 0 && path[len - 1] == '/')
		return EISDIR;
	error = namei_parent(path, &dvp, name);
	if (error != 0)
		return error;
	for (;;) {
		error = lookup_in(dvp, name, vpp);
		if (error == 0 && (oflags & O_EXCL)) {
			vrele(*vpp);
			error = EEXIST;
		}
		if (error != ENOENT)
			break;
		error = VOP_CREATE(dvp, name, mode & 07777, vpp);
		if (error != EEXIST || (oflags & O_EXCL))
			break;
		/* Someone created it between our lookup and create: open theirs. */
	}
	vrele(dvp);
	return error;
}

/* The checks open(2) makes on the vnode it found, and VOP_OPEN/O_TRUNC. */
static int open_vnode(struct vnode *vp, int oflags, int fflag)
{
	int error;

	if ((oflags & O_DIRECTORY) && vp->v_type != VDIR)
		return ENOTDIR;
	if (vp->v_type == VDIR && ((fflag & FWRITE) || (oflags & O_TRUNC)))
		return EISDIR;
	error = VOP_OPEN(vp, fflag);
	if (error != 0)
		return error;
	if ((oflags & O_TRUNC) && (fflag & FWRITE) && vp->v_type == VREG) {
		error = VOP_TRUNCATE(vp, 0);
		if (error != 0)
			VOP_CLOSE(vp, fflag);
	}
	return error;
}

/* open(path, flags, mode) -> fd */
int sys_open(register_t *args, register_t *rv)
{
	int oflags = (int)args[1], fflag, fd, error;
	struct vnode *vp = NULL;
	struct file *fp;
	char *path;

	if ((oflags & O_ACCMODE) == O_ACCMODE)
		return EINVAL;
	fflag = fflags_from_open(oflags);
	error = vfs_copyinstr(args[0], PATH_MAX, &path);
	if (error != 0)
		return error;
	if (oflags & O_CREAT)
		error = open_create(path, oflags, (int)args[2], &vp);
	else
		error = namei(path, &vp);
	kfree(path);
	if (error != 0)
		return error;
	error = open_vnode(vp, oflags, fflag);
	if (error != 0) {
		vrele(vp);
		return error;
	}
	error = falloc(&fp, &fd);
	if (error != 0) {
		VOP_CLOSE(vp, fflag);
		vrele(vp);
		return error;
	}
	fp->f_type = DTYPE_VNODE;
	fp->f_flag = fflag;
	fp->f_vnode = vp;
	fp->f_offset = 0;
	if (oflags & O_CLOEXEC)
		curproc->p_fd->fd_ofileflags[fd] |= FD_CLOEXEC;
	*rv = fd;
	return 0;
}

/* ---- names ----------------------------------------------------------------------------------- */

/* link(from, to) */
int sys_link(register_t *args, register_t *rv)
{
	char name[MAXNAMLEN + 1];
	struct vnode *vp, *dvp;
	int error;

	*rv = 0;
	error = namei_user(args[0], &vp);
	if (error != 0)
		return error;
	if (vp->v_type == VDIR) {
		vrele(vp);
		return EPERM;
	}
	error = namei_parent_user(args[1], &dvp, name);
	if (error != 0) {
		vrele(vp);
		return error;
	}
	if (isdotordotdot(name))
		error = EEXIST;
	else if (dvp->v_mount != vp->v_mount)
		error = EXDEV;
	else
		error = VOP_LINK(dvp, name, vp);
	vrele(dvp);
	vrele(vp);
	return error;
}

/* unlink(path): remove a name that is not a directory. */
int sys_unlink(register_t *args, register_t *rv)
{
	char name[MAXNAMLEN + 1];
	struct vnode *dvp;
	int error;

	*rv = 0;
	error = namei_parent_user(args[0], &dvp, name);
	if (error != 0)
		return error;
	error = isdotordotdot(name) ? EPERM : VOP_REMOVE(dvp, name);   /* a directory */
	vrele(dvp);
	return error;
}

/* chdir(path) */
int sys_chdir(register_t *args, register_t *rv)
{
	struct proc *p = curproc;
	struct vnode *vp, *old;
	int error;

	*rv = 0;
	error = namei_user(args[0], &vp);
	if (error != 0)
		return error;
	if (vp->v_type != VDIR) {
		vrele(vp);
		return ENOTDIR;
	}
	old = p->p_cwd;
	p->p_cwd = vp;
	if (old != NULL)
		vrele(old);
	return 0;
}

/* stat(path, struct stat *) */
int sys_stat(register_t *args, register_t *rv)
{
	struct vnode *vp;
	struct stat st;
	int error;

	*rv = 0;
	error = namei_user(args[0], &vp);
	if (error != 0)
		return error;
	error = vn_stat(vp, &st);
	vrele(vp);
	if (error == 0)
		error = copyout(&st, (void *)args[1], sizeof(st));
	return error;
}

/*
 * utimes(path, times): set the file's access time to times[0] and its modification time to
 * times[1] (whole seconds: wdfs keeps no more); times NULL means now (POSIX.1-2008, utimes()).
 */
int sys_utimes(register_t *args, register_t *rv)
{
	struct timeval tv[2];
	struct vnode *vp;
	int error;

	*rv = 0;
	if (args[1] == 0) {
		tv[0].tv_sec = tv[1].tv_sec = time_second_now();
	} else {
		error = copyin((const void *)args[1], tv, sizeof(tv));
		if (error != 0)
			return error;
		for (int i = 0; i < 2; i++)
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return EINVAL;
	}
	error = namei_user(args[0], &vp);
	if (error != 0)
		return error;
	error = VOP_SETTIMES(vp, tv[0].tv_sec, tv[1].tv_sec);
	vrele(vp);
	return error;
}

/* mkdir(path, mode) */
int sys_mkdir(register_t *args, register_t *rv)
{
	char name[MAXNAMLEN + 1];
	struct vnode *dvp, *vp;
	int error;

	*rv = 0;
	error = namei_parent_user(args[0], &dvp, name);
	if (error != 0)
		return error;
	error = isdotordotdot(name) ? EEXIST : VOP_MKDIR(dvp, name, (int)args[1] & 07777, &vp);
	if (error == 0)
		vrele(vp);
	vrele(dvp);
	return error;
}

/* Is `name` in dvp a directory something is mounted on (or the root of a mount)? */
static int check_not_mountpoint(struct vnode *dvp, const char *name)
{
	struct vnode *vp;
	int error;

	error = VOP_LOOKUP(dvp, name, &vp);
	if (error != 0)
		return error;
	error = (vp->v_mountedhere != NULL || vn_isroot(vp)) ? EBUSY : 0;
	vrele(vp);
	return error;
}

/* rmdir(path): remove an empty directory. */
int sys_rmdir(register_t *args, register_t *rv)
{
	char name[MAXNAMLEN + 1];
	struct vnode *dvp;
	int error;

	*rv = 0;
	error = namei_parent_user(args[0], &dvp, name);
	if (error != 0)
		return error;
	if (strcmp(name, ".") == 0)
		error = EINVAL;
	else if (strcmp(name, "..") == 0)
		error = ENOTEMPTY;
	else
		error = check_not_mountpoint(dvp, name);
	if (error == 0)
		error = VOP_RMDIR(dvp, name);
	vrele(dvp);
	return error;
}

/*
 * rename(from, to). Whether a directory would move below itself is the file system's question
 * (FreeBSD's ufs_rename asks ufs_checkpath under its own locks; wdfs_rename asks is_ancestor
 * under wm_renamelock, bounded, so a '..' loop on a damaged disk is EIO, not an endless walk).
 */
int sys_rename(register_t *args, register_t *rv)
{
	char fname[MAXNAMLEN + 1], tname[MAXNAMLEN + 1];
	struct vnode *fdvp, *tdvp = NULL;
	int error;

	*rv = 0;
	error = namei_parent_user(args[0], &fdvp, fname);
	if (error != 0)
		return error;
	error = namei_parent_user(args[1], &tdvp, tname);
	if (error != 0)
		goto out;
	if (isdotordotdot(fname) || isdotordotdot(tname)) {
		error = EINVAL;
		goto out;
	}
	if (fdvp->v_mount != tdvp->v_mount) {
		error = EXDEV;
		goto out;
	}
	error = check_not_mountpoint(fdvp, fname);
	if (error == 0) {
		error = check_not_mountpoint(tdvp, tname);
		if (error == ENOENT)
			error = 0;
	}
	if (error == 0)
		error = VOP_RENAME(fdvp, fname, tdvp, tname);
out:
	if (tdvp != NULL)
		vrele(tdvp);
	vrele(fdvp);
	return error;
}

/* ---- getcwd ---------------------------------------------------------------------------------- */

/*
 * The name of directory vp in its parent: read the parent (looked up as "..") until an entry
 * other than "." and ".." has vp's inode number. *parentp is the parent, referenced.
 */
static int dirname_in_parent(struct vnode *vp, struct vnode **parentp, char *name)
{
	struct vnode *dvp;
	struct stat st;
	struct iovec iov;
	struct uio uio;
	struct dirent *de;
	off_t cookie = 0;
	char *dbuf;
	size_t got, pos;
	int error;

	error = VOP_GETATTR(vp, &st);
	if (error != 0)
		return error;
	error = VOP_LOOKUP(vp, "..", &dvp);
	if (error != 0)
		return error;
	dbuf = kmalloc(4096, M_WAITOK);
	if (dbuf == NULL) {
		vrele(dvp);
		return ENOMEM;
	}
	for (;;) {
		iov.iov_base = dbuf;
		iov.iov_len = 4096;
		uio = (struct uio){ &iov, 1, cookie, 4096, UIO_SYSSPACE, UIO_READ };
		error = VOP_READDIR(dvp, &uio);
		got = 4096 - uio.uio_resid;
		if (error == 0 && got == 0)
			error = ENOENT;       /* the directory was removed or renamed under us */
		if (error != 0)
			break;
		cookie = uio.uio_offset;
		for (pos = 0; pos + offsetof(struct dirent, d_name) <= got; pos += de->d_reclen) {
			de = (struct dirent *)(dbuf + pos);
			if (de->d_reclen == 0)
				break;
			if (de->d_ino == st.st_ino && !isdotordotdot(de->d_name)) {
				memcpy(name, de->d_name, de->d_namlen);
				name[de->d_namlen] = '\0';
				kfree(dbuf);
				*parentp = dvp;
				return 0;
			}
		}
	}
	kfree(dbuf);
	vrele(dvp);
	return error;
}

/*
 * vn_fullpath: the absolute path of directory vp into buf (size bytes, NUL included), built
 * from the end by walking ".." to the root and crossing mount points up. ERANGE if it does not
 * fit in size, ENAMETOOLONG past PATH_MAX.
 */
int vn_fullpath(struct vnode *vp, char *buf, size_t size)
{
	char name[MAXNAMLEN + 1];
	size_t n, pos;
	struct vnode *covered, *parent;
	char *path;
	int error = 0;

	path = kmalloc(PATH_MAX, M_WAITOK);
	if (path == NULL)
		return ENOMEM;
	pos = PATH_MAX - 1;
	path[pos] = '\0';
	vref(vp);
	while (vp != rootvnode) {
		if (vn_isroot(vp) && vp->v_mount->mnt_vnodecovered != NULL) {
			covered = vp->v_mount->mnt_vnodecovered;
			vref(covered);
			vrele(vp);
			vp = covered;
			continue;
		}
		error = dirname_in_parent(vp, &parent, name);
		if (error != 0)
			break;
		vrele(vp);
		vp = parent;
		n = strlen(name);
		if (n + 1 > pos) {
			error = ENAMETOOLONG;
			break;
		}
		pos -= n;
		memcpy(path + pos, name, n);
		path[--pos] = '/';
	}
	vrele(vp);
	if (error == 0 && pos == PATH_MAX - 1)
		path[--pos] = '/';
	if (error == 0 && PATH_MAX - pos > size)
		error = ERANGE;
	if (error == 0)
		memcpy(buf, path + pos, PATH_MAX - pos);
	kfree(path);
	return error;
}

/* getcwd(buf, size): the absolute path of the current directory (ERANGE if it is longer). */
int sys_getcwd(register_t *args, register_t *rv)
{
	size_t size = MIN((size_t)args[1], PATH_MAX);
	char *path;
	int error;

	*rv = 0;
	if (size == 0)
		return EINVAL;
	path = kmalloc(size, M_WAITOK);
	if (path == NULL)
		return ENOMEM;
	error = vn_fullpath(curproc->p_cwd != NULL ? curproc->p_cwd : rootvnode, path, size);
	if (error == 0)
		error = copyout(path, (void *)args[0], strlen(path) + 1);
	kfree(path);
	return error;
}

/* ---- file-system statistics ------------------------------------------------------------------ */

/* The struct statfs of the file system holding vp, copied out to user address ubuf. */
static int statfs_vnode(struct vnode *vp, register_t ubuf)
{
	struct statfs sb;
	int error;

	if (vp->v_mount == NULL)
		return EINVAL;
	error = vfs_statfs_fill(vp->v_mount, &sb);
	if (error == 0)
		error = copyout(&sb, (void *)ubuf, sizeof(sb));
	return error;
}

/* statfs(path, buf): statistics of the file system holding path. */
int sys_statfs(register_t *args, register_t *rv)
{
	struct vnode *vp;
	int error;

	*rv = 0;
	error = namei_user(args[0], &vp);
	if (error != 0)
		return error;
	error = statfs_vnode(vp, args[1]);
	vrele(vp);
	return error;
}

/* fstatfs(fd, buf): statistics of the file system holding the open file fd (EINVAL: a pipe). */
int sys_fstatfs(register_t *args, register_t *rv)
{
	struct file *fp;
	int error;

	*rv = 0;
	error = getvnode((int)args[0], &fp);
	if (error != 0)
		return error;
	error = statfs_vnode(fp->f_vnode, args[1]);
	fdrop(fp);
	return error;
}

/* ---- descriptors ----------------------------------------------------------------------------- */

/* fsync(fd): write the file's data and metadata and wait. */
int sys_fsync(register_t *args, register_t *rv)
{
	struct file *fp;
	int error;

	uint64_t t0 = nanouptime();

	*rv = 0;
	error = getvnode((int)args[0], &fp);
	if (error != 0)
		return error;
	if (fp->f_vnode->v_object != NULL)
		error = vm_object_page_clean(fp->f_vnode->v_object, 0, 0, OBJPC_SYNC);
	if (error == 0)
		error = VOP_FSYNC(fp->f_vnode, MNT_WAIT);
	fdrop(fp);
	syncio_record(SYNCIO_FSYNC, t0, -1);
	return error;
}

/* sync(): write everything and wait (FreeBSD 4 does not wait; wdrain does, for its tests). */
int sys_sync(register_t *args __unused, register_t *rv)
{
	*rv = 0;
	return vfs_sync_all(MNT_WAIT);
}

/* ftruncate(fd, off_t *length) */
int sys_ftruncate(register_t *args, register_t *rv)
{
	struct file *fp;
	off_t length;
	int error;

	*rv = 0;
	error = copyin((const void *)args[1], &length, sizeof(length));
	if (error != 0)
		return error;
	if (length < 0)
		return EINVAL;
	error = getvnode((int)args[0], &fp);
	if (error != 0)
		return error;
	if (!(fp->f_flag & FWRITE))
		error = EINVAL;
	else if (fp->f_vnode->v_type == VDIR)
		error = EISDIR;
	else if (fp->f_vnode->v_type != VREG)
		error = EINVAL;
	else
		error = VOP_TRUNCATE(fp->f_vnode, length);
	fdrop(fp);
	return error;
}

/* getdents(fd, buf, nbytes): whole struct dirent records from the file offset on. */
int sys_getdents(register_t *args, register_t *rv)
{
	size_t nbytes = args[2];
	struct file *fp;
	struct iovec iov;
	struct uio uio;
	int error;

	if (nbytes > 0x7fffffff)
		return EINVAL;
	error = getvnode((int)args[0], &fp);
	if (error != 0)
		return error;
	if (fp->f_vnode->v_type != VDIR) {
		fdrop(fp);
		return EINVAL;                  /* FreeBSD's getdirentries(2) on a non-directory */
	}
	if (!(fp->f_flag & FREAD)) {
		fdrop(fp);
		return EBADF;
	}
	iov.iov_base = (void *)args[1];
	iov.iov_len = nbytes;
	sleeplock_acquire(&fp->f_lock);
	uio = (struct uio){ &iov, 1, fp->f_offset, nbytes, UIO_USERSPACE, UIO_READ };
	error = VOP_READDIR(fp->f_vnode, &uio);
	fp->f_offset = uio.uio_offset;
	sleeplock_release(&fp->f_lock);
	fdrop(fp);
	*rv = nbytes - uio.uio_resid;
	return error;
}
