/*
 * vfs_syscalls.c - the system calls that name files: open, link, unlink, symlink, readlink,
 * chdir, stat, lstat, access, chmod, chown, lchown, utimes, mkdir, mkfifo, mknod, rmdir,
 * getcwd, rename, truncate, umask; and fsync, sync, ftruncate, fchmod, fchown, getdents on
 * descriptors (the handlers listed in kern/syscall.h; mount/unmount are in vfs_mount.c).
 *
 * Each handler copies its user path in with copyinstr into a PATH_MAX kmalloc'd buffer
 * (ENAMETOOLONG, EFAULT), resolves it with namei and friends (vfs_lookup.c: search permission,
 * symbolic links) and calls the VOPs. Every vnode reference taken is dropped on every path out.
 * No locks of its own.
 *
 * Permissions follow FreeBSD 4's namei/lookup and vn_open (sys/kern/vfs_lookup.c 1.38.2.3,
 * sys/kern/vfs_vnops.c 1.87.2.13 as DragonFly's 2003 copy keeps it): a name is created in, or
 * removed or renamed from, a directory the caller may write (VOP_ACCESS VWRITE: EACCES, and
 * EROFS on a read-only file system); a name that already exists is EEXIST before any
 * permission is asked, one that does not is ENOENT; the sticky bit and the owner rules of
 * chmod, chown and utimes are the file system's to apply (vnode.h). New files get the
 * process's umask (fd_cmask) taken out of their mode.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/proc.h"
#include "kern/proc_internal.h"
#include "kern/file.h"
#include "kern/lockf.h"
#include "kern/pipe.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include "vfs/vnode.h"
#include "vfs/mount.h"
#include "vfs/buf.h"
#include "vfs/bufdaemon.h"
#include "vfs/vfs.h"
#include "vfs/devfs.h"
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

/* namei_flags on a user path. */
static int namei_user(register_t upath, int flags, struct vnode **vpp)
{
	char *path;
	int error;

	error = vfs_copyinstr(upath, PATH_MAX, &path);
	if (error != 0)
		return error;
	error = namei_flags(path, flags, vpp);
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

/* The current process's file-creation mask. */
static mode_t cmask(void)
{
	return curproc->p_fd->fd_cmask;
}

/*
 * May `name` be created in dvp? EEXIST if it exists (also "." and ".."), else the caller must
 * be allowed to write dvp (EACCES, EROFS) - FreeBSD's lookup for CREATE.
 */
static int create_check(struct vnode *dvp, const char *name)
{
	struct vnode *vp;
	int error;

	if (isdotordotdot(name))
		return EEXIST;
	error = VOP_LOOKUP(dvp, name, &vp);
	if (error == 0) {
		vrele(vp);
		return EEXIST;
	}
	return error == ENOENT ? VOP_ACCESS(dvp, VWRITE) : error;
}

/*
 * May `name` be removed from (or renamed out of) dvp? ENOENT if it is not there, else the
 * caller must be allowed to write dvp - FreeBSD's lookup for DELETE. (The sticky bit is the
 * file system's check: it needs the file's owner under the directory's lock.)
 */
static int remove_check(struct vnode *dvp, const char *name)
{
	struct vnode *vp;
	int error;

	error = VOP_LOOKUP(dvp, name, &vp);
	if (error != 0)
		return error;
	vrele(vp);
	return VOP_ACCESS(dvp, VWRITE);
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

/*
 * The vnode open(2) with O_CREAT means: existing (EEXIST with O_EXCL; EISDIR for a directory,
 * as later FreeBSD's vn_open_cred answers - FreeBSD 4's vn_open opened it for reading) or newly
 * created (*createdp) with mode & ~umask, in a directory the caller may write. Without O_EXCL
 * and O_NOFOLLOW a symbolic link in the last component is followed, dangling or not.
 */
static int open_create(const char *path, int oflags, int mode, struct vnode **vpp, bool *createdp)
{
	char name[MAXNAMLEN + 1];
	int flags = (oflags & (O_EXCL | O_NOFOLLOW)) ? NOFOLLOW : FOLLOW;
	struct vnode *dvp, *vp;
	size_t len = strnlen(path, PATH_MAX);
	int error;

	if (len > 0 && path[len - 1] == '/')
		return EISDIR;
	mode = (mode & ~cmask() & ALLPERMS) & ~S_ISTXT;
	for (;;) {
		error = namei_create(path, flags, &dvp, name, &vp);
		if (error != 0)
			return error;
		if (vp != NULL) {
			vrele(dvp);
			error = (oflags & O_EXCL) ? EEXIST : vp->v_type == VDIR ? EISDIR : 0;
			if (error != 0) {
				vrele(vp);
				return error;
			}
			*vpp = vp;
			*createdp = false;
			return 0;
		}
		error = VOP_ACCESS(dvp, VWRITE);
		if (error == 0)
			error = VOP_CREATE(dvp, name, mode, vpp);
		vrele(dvp);
		if (error != EEXIST || (oflags & O_EXCL))
			break;
		/* Someone created it between our lookup and create: open theirs. */
	}
	*createdp = error == 0;
	return error;
}

/*
 * A device node outside devfs (mknod(2) on wdfs) stands for the devfs node of the same number:
 * *vpp, whose permissions were checked, is exchanged for that node's vnode, so the open reaches
 * the driver as /dev's would. ENXIO if no device has the number.
 */
static int open_device_node(struct vnode **vpp)
{
	struct vnode *devvp;
	struct stat st;
	int error;

	error = VOP_GETATTR(*vpp, &st);
	if (error == 0)
		error = devfs_rdev_vnode(st.st_rdev, &devvp);
	if (error != 0)
		return error;
	vrele(*vpp);
	*vpp = devvp;
	return 0;
}

/*
 * The checks open(2) makes on the vnode it found (FreeBSD 4's vn_open): a symbolic link
 * (O_NOFOLLOW) is EMLINK, a socket EOPNOTSUPP; an existing file must not be a running program
 * if it is to be written (vn_writechk: ETXTBSY), and must grant read and/or write permission as
 * asked (O_TRUNC asks for write); then a device node's devfs vnode in *vpp (open_device_node),
 * the new writer counted (vn_writer_begin, which tests for text again under its lock: an exec
 * may have begun since), VOP_OPEN, a FIFO's wait for its other end, O_TRUNC.
 */
static int open_vnode(struct vnode **vpp, int oflags, int fflag, bool created)
{
	struct vnode *vp = *vpp;
	int mode = 0, error;

	if (vp->v_type == VLNK)
		return EMLINK;
	if (vp->v_type == VSOCK)
		return EOPNOTSUPP;
	if ((oflags & O_DIRECTORY) && vp->v_type != VDIR)
		return ENOTDIR;
	if (!created) {
		if ((fflag & FWRITE) || (oflags & O_TRUNC)) {
			if (vp->v_type == VDIR)
				return EISDIR;
			error = vn_writechk(vp);
			if (error != 0)
				return error;
			mode |= VWRITE;
		}
		if (fflag & FREAD)
			mode |= VREAD;
		error = mode != 0 ? VOP_ACCESS(vp, mode) : 0;
		if (error != 0)
			return error;
	}
	if ((vp->v_type == VCHR || vp->v_type == VBLK) && vp->v_disk == NULL && vp->v_cdev == NULL) {
		error = open_device_node(vpp);
		if (error != 0)
			return error;
		vp = *vpp;
	}
	if ((fflag & FWRITE) && (error = vn_writer_begin(vp)) != 0)
		return error;
	error = VOP_OPEN(vp, fflag);
	if (error != 0)
		goto unwrite;
	if (vp->v_type == VFIFO)
		error = fifo_open(vp, fflag);           /* undoes itself when it fails */
	else if ((oflags & O_TRUNC) && (fflag & FWRITE) && vp->v_type == VREG)
		error = VOP_TRUNCATE(vp, 0);
	if (error == 0)
		return 0;
	VOP_CLOSE(vp, fflag);
unwrite:
	if (fflag & FWRITE)
		vn_writer_end(vp);
	return error;
}

/* open(path, flags, mode) -> fd */
int sys_open(register_t *args, register_t *rv)
{
	int oflags = (int)args[1], fflag, fd, error;
	struct vnode *vp = NULL;
	bool created = false;
	struct file *fp;
	char *path;

	if ((oflags & O_ACCMODE) == O_ACCMODE)
		return EINVAL;
	fflag = fflags_from_open(oflags);
	error = vfs_copyinstr(args[0], PATH_MAX, &path);
	if (error != 0)
		return error;
	if (oflags & O_CREAT)
		error = open_create(path, oflags, (int)args[2], &vp, &created);
	else
		error = namei_flags(path, (oflags & O_NOFOLLOW) ? NOFOLLOW : FOLLOW, &vp);
	kfree(path);
	if (error != 0)
		return error;
	error = open_vnode(&vp, oflags, fflag, created);
	if (error != 0) {
		vrele(vp);
		return error;
	}
	error = falloc(&fp, &fd);
	if (error != 0) {
		vn_closevnode(vp, fflag);
		return error;
	}
	fp->f_type = DTYPE_VNODE;
	fp->f_flag = fflag;
	fp->f_vnode = vp;
	fp->f_offset = 0;
	if (oflags & (O_SHLOCK | O_EXLOCK)) {
		error = vn_flock(fp, ((oflags & O_EXLOCK) ? LOCK_EX : LOCK_SH) |
		                     ((oflags & O_NONBLOCK) ? LOCK_NB : 0));
		if (error != 0) {
			fdforget(fd);
			return error;
		}
	}
	if (oflags & O_CLOEXEC)
		curproc->p_fd->fd_ofileflags[fd] |= FD_CLOEXEC;
	*rv = fd;
	return 0;
}

/* ---- names ----------------------------------------------------------------------------------- */

/* link(from, to): from is followed if it is a symbolic link, as FreeBSD 4's link() does. */
int sys_link(register_t *args, register_t *rv)
{
	char name[MAXNAMLEN + 1];
	struct vnode *vp, *dvp;
	int error;

	*rv = 0;
	error = namei_user(args[0], FOLLOW, &vp);
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
	error = create_check(dvp, name);
	if (error == 0 && dvp->v_mount != vp->v_mount)
		error = EXDEV;
	if (error == 0)
		error = VOP_LINK(dvp, name, vp);
	vrele(dvp);
	vrele(vp);
	return error;
}

/* unlink(path): remove a name that is not a directory (a symbolic link itself, not its target). */
int sys_unlink(register_t *args, register_t *rv)
{
	char name[MAXNAMLEN + 1];
	struct vnode *dvp;
	int error;

	*rv = 0;
	error = namei_parent_user(args[0], &dvp, name);
	if (error != 0)
		return error;
	error = isdotordotdot(name) ? EPERM : remove_check(dvp, name);   /* a directory */
	if (error == 0)
		error = VOP_REMOVE(dvp, name);
	vrele(dvp);
	return error;
}

/*
 * symlink(target, path): a symbolic link `path` whose contents are `target`, which need not
 * exist (1..PATH_MAX-1 bytes: ENOENT for an empty one, as POSIX.1-2008 allows; ENAMETOOLONG).
 * Its mode is 0777 less the umask, as FreeBSD 4's symlink().
 */
int sys_symlink(register_t *args, register_t *rv)
{
	char name[MAXNAMLEN + 1];
	struct vnode *dvp, *vp;
	char *target;
	int error;

	*rv = 0;
	error = vfs_copyinstr(args[0], PATH_MAX, &target);
	if (error != 0)
		return error;
	if (target[0] == '\0') {
		kfree(target);
		return ENOENT;
	}
	error = namei_parent_user(args[1], &dvp, name);
	if (error == 0) {
		error = create_check(dvp, name);
		if (error == 0)
			error = VOP_SYMLINK(dvp, name, ACCESSPERMS & ~cmask(), target, &vp);
		if (error == 0)
			vrele(vp);
		vrele(dvp);
	}
	kfree(target);
	return error;
}

/* readlink(path, buf, count): the target of symbolic link path (EINVAL if it is not one), no NUL. */
int sys_readlink(register_t *args, register_t *rv)
{
	size_t count = args[2];
	struct vnode *vp;
	struct iovec iov;
	struct uio uio;
	int error;

	if (count > 0x7fffffff)
		return EINVAL;
	error = namei_user(args[0], NOFOLLOW, &vp);
	if (error != 0)
		return error;
	iov = (struct iovec){ (void *)args[1], count };
	uio = (struct uio){ &iov, 1, 0, count, UIO_USERSPACE, UIO_READ };
	error = VOP_READLINK(vp, &uio);
	vrele(vp);
	*rv = count - uio.uio_resid;
	return error;
}

/* chdir(path): to a directory the caller may search. */
int sys_chdir(register_t *args, register_t *rv)
{
	struct proc *p = curproc;
	struct vnode *vp, *old;
	int error;

	*rv = 0;
	error = namei_user(args[0], FOLLOW, &vp);
	if (error != 0)
		return error;
	error = vp->v_type != VDIR ? ENOTDIR : VOP_ACCESS(vp, VEXEC);
	if (error != 0) {
		vrele(vp);
		return error;
	}
	old = p->p_cwd;
	p->p_cwd = vp;
	if (old != NULL)
		vrele(old);
	return 0;
}

/* stat and lstat: the attributes of path, following a symbolic link or not. */
static int stat_common(register_t upath, int flags, register_t ust)
{
	struct vnode *vp;
	struct stat st;
	int error;

	error = namei_user(upath, flags, &vp);
	if (error != 0)
		return error;
	error = vn_stat(vp, &st);
	vrele(vp);
	if (error == 0)
		error = copyout(&st, (void *)ust, sizeof(st));
	return error;
}

/* stat(path, struct stat *) */
int sys_stat(register_t *args, register_t *rv)
{
	*rv = 0;
	return stat_common(args[0], FOLLOW, args[1]);
}

/* lstat(path, struct stat *): a symbolic link's own attributes. */
int sys_lstat(register_t *args, register_t *rv)
{
	*rv = 0;
	return stat_common(args[0], NOFOLLOW, args[1]);
}

/*
 * access(path, mode): may the process's REAL user and group read, write, execute/search path
 * (R_OK, W_OK, X_OK; F_OK: does it exist)? FreeBSD 4's access() swaps the effective IDs for the
 * real ones during the lookup and VOP_ACCESS, so set-user-ID programs can ask for their user.
 * W_OK on a running program is ETXTBSY, as FreeBSD 4's vn_writechk makes it.
 */
int sys_access(register_t *args, register_t *rv)
{
	struct ucred *cr = &curproc->p_ucred;
	int amode = (int)args[1], vmode = 0, error;
	uid_t euid = cr->cr_uid;
	gid_t egid = cr->cr_groups[0];
	struct vnode *vp;

	*rv = 0;
	if (amode & ~(R_OK | W_OK | X_OK))
		return EINVAL;
	vmode |= (amode & R_OK) ? VREAD : 0;
	vmode |= (amode & W_OK) ? VWRITE : 0;
	vmode |= (amode & X_OK) ? VEXEC : 0;
	spin_lock(&proc_lock);
	cr->cr_uid = cr->cr_ruid;
	cr->cr_groups[0] = cr->cr_rgid;
	spin_unlock(&proc_lock);
	error = namei_user(args[0], FOLLOW, &vp);
	if (error == 0) {
		if (vmode & VWRITE)
			error = vn_writechk(vp);
		if (error == 0 && vmode != 0)
			error = VOP_ACCESS(vp, vmode);
		vrele(vp);
	}
	spin_lock(&proc_lock);
	cr->cr_uid = euid;
	cr->cr_groups[0] = egid;
	spin_unlock(&proc_lock);
	return error;
}

/*
 * utimes(path, times): set the file's access time to times[0] and its modification time to
 * times[1] (whole seconds: wdfs keeps no more); times NULL means now (POSIX.1-2008, utimes()),
 * which write permission is enough for; given times need the owner or root.
 */
int sys_utimes(register_t *args, register_t *rv)
{
	struct timeval tv[2];
	struct vnode *vp;
	int vaflags = 0, error;

	*rv = 0;
	if (args[1] == 0) {
		tv[0].tv_sec = tv[1].tv_sec = time_second_now();
		vaflags = VA_UTIMES_NULL;
	} else {
		error = copyin((const void *)args[1], tv, sizeof(tv));
		if (error != 0)
			return error;
		for (int i = 0; i < 2; i++)
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return EINVAL;
	}
	error = namei_user(args[0], FOLLOW, &vp);
	if (error != 0)
		return error;
	error = VOP_SETTIMES(vp, tv[0].tv_sec, tv[1].tv_sec, vaflags);
	vrele(vp);
	return error;
}

/* ---- modes and owners ------------------------------------------------------------------------ */

/* chmod(path, mode), following a symbolic link. */
int sys_chmod(register_t *args, register_t *rv)
{
	struct vnode *vp;
	int error;

	*rv = 0;
	error = namei_user(args[0], FOLLOW, &vp);
	if (error != 0)
		return error;
	error = VOP_CHMOD(vp, (mode_t)args[1] & ALLPERMS);
	vrele(vp);
	return error;
}

/* fchmod(fd, mode) */
int sys_fchmod(register_t *args, register_t *rv)
{
	struct file *fp;
	int error;

	*rv = 0;
	error = getvnode((int)args[0], &fp);
	if (error != 0)
		return error;
	error = VOP_CHMOD(fp->f_vnode, (mode_t)args[1] & ALLPERMS);
	fdrop(fp);
	return error;
}

/*
 * chown's work on the file found: -1 leaves the owner or the group as it is, and both -1 leave
 * the file alone - no permission asked, no change time set, not even EROFS - as FreeBSD 4's
 * ufs_setattr calls ufs_chown only when one of them is given (ufs_vnops.c 1.131.2.8, as
 * DragonFly's copy keeps it).
 */
static int chown_vnode(struct vnode *vp, uid_t uid, gid_t gid)
{
	if (uid == (uid_t)-1 && gid == (gid_t)-1)
		return 0;
	return VOP_CHOWN(vp, uid, gid);
}

/* chown(path, uid, gid) and lchown */
static int chown_common(register_t upath, int flags, register_t uid, register_t gid)
{
	struct vnode *vp;
	int error;

	error = namei_user(upath, flags, &vp);
	if (error != 0)
		return error;
	error = chown_vnode(vp, (uid_t)uid, (gid_t)gid);
	vrele(vp);
	return error;
}

int sys_chown(register_t *args, register_t *rv)
{
	*rv = 0;
	return chown_common(args[0], FOLLOW, args[1], args[2]);
}

/* lchown(path, uid, gid): a symbolic link's own owner. */
int sys_lchown(register_t *args, register_t *rv)
{
	*rv = 0;
	return chown_common(args[0], NOFOLLOW, args[1], args[2]);
}

/* fchown(fd, uid, gid) */
int sys_fchown(register_t *args, register_t *rv)
{
	struct file *fp;
	int error;

	*rv = 0;
	error = getvnode((int)args[0], &fp);
	if (error != 0)
		return error;
	error = chown_vnode(fp->f_vnode, (uid_t)args[1], (gid_t)args[2]);
	fdrop(fp);
	return error;
}

/* umask(mask) -> the old mask: the permission bits taken out of new files' modes. */
int sys_umask(register_t *args, register_t *rv)
{
	struct filedesc *fdp = curproc->p_fd;

	*rv = fdp->fd_cmask;
	fdp->fd_cmask = (mode_t)args[0] & ALLPERMS;
	return 0;
}

/* ---- making names ---------------------------------------------------------------------------- */

/* mkdir(path, mode): mode & 0777 less the umask (set-ID and sticky bits are dropped). */
int sys_mkdir(register_t *args, register_t *rv)
{
	char name[MAXNAMLEN + 1];
	struct vnode *dvp, *vp;
	int error;

	*rv = 0;
	error = namei_parent_user(args[0], &dvp, name);
	if (error != 0)
		return error;
	error = create_check(dvp, name);
	if (error == 0)
		error = VOP_MKDIR(dvp, name, ((int)args[1] & ACCESSPERMS) & ~cmask(), &vp);
	if (error == 0)
		vrele(vp);
	vrele(dvp);
	return error;
}

/*
 * Make a special file `path` of mode `mode` (type bits included) with VOP_MKNOD, after
 * create_check. rdev: a device's number (0 for a FIFO).
 */
static int make_node(register_t upath, int mode, dev_t rdev)
{
	char name[MAXNAMLEN + 1];
	struct vnode *dvp, *vp;
	int error;

	error = namei_parent_user(upath, &dvp, name);
	if (error != 0)
		return error;
	error = create_check(dvp, name);
	if (error == 0)
		error = VOP_MKNOD(dvp, name, mode, rdev, &vp);
	if (error == 0)
		vrele(vp);
	vrele(dvp);
	return error;
}

/*
 * vn_mksock: the socket file bind(2) makes at kernel path `path`, mode 0777 less the umask
 * (FreeBSD 4's unp_bind): the last component is not followed, and a name that exists is
 * EADDRINUSE. Returns its vnode, referenced.
 */
int vn_mksock(const char *path, struct vnode **vpp)
{
	char name[MAXNAMLEN + 1];
	struct vnode *dvp;
	int error;

	error = namei_parent(path, &dvp, name);
	if (error != 0)
		return error;
	error = create_check(dvp, name);
	if (error == EEXIST)
		error = EADDRINUSE;
	if (error == 0)
		error = VOP_MKNOD(dvp, name, S_IFSOCK | (ACCESSPERMS & ~cmask()), 0, vpp);
	vrele(dvp);
	return error;
}

/* mkfifo(path, mode): a FIFO (named pipe), mode less the umask. */
int sys_mkfifo(register_t *args, register_t *rv)
{
	*rv = 0;
	return make_node(args[0], S_IFIFO | (((int)args[1] & ALLPERMS) & ~cmask()), 0);
}

/*
 * mknod(path, mode, dev), as FreeBSD's kern_mknodat has it since FreeBSD 8 (sys/kern/
 * vfs_syscalls.c, read at freebsd-src 79b84ce54b) and POSIX asks: a FIFO with dev 0 is
 * mkfifo(2), for anyone; a character or block device needs root first (EPERM before the path
 * is looked up), then EEXIST, then the file system makes it, keeping dev (makedev(major,
 * minor), <sys/types.h>; wdfs keeps it, devfs makes none: EOPNOTSUPP); any other type, or a
 * FIFO with a dev, is EINVAL at once. FreeBSD 4's mknod (vfs_syscalls.c 1.151.2.18) asked for
 * root first whatever the type and made no FIFOs: EPERM for a user, EINVAL for root.
 */
int sys_mknod(register_t *args, register_t *rv)
{
	int mode = (int)args[1], error;

	*rv = 0;
	if (S_ISFIFO(mode) && args[2] == 0)
		return sys_mkfifo(args, rv);
	if (!S_ISCHR(mode) && !S_ISBLK(mode))
		return EINVAL;
	error = suser(cred_cur());
	if (error != 0)
		return error;
	return make_node(args[0], (mode & S_IFMT) | ((mode & ALLPERMS) & ~cmask()), (dev_t)args[2]);
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
		error = remove_check(dvp, name);
	if (error == 0)
		error = check_not_mountpoint(dvp, name);
	if (error == 0)
		error = VOP_RMDIR(dvp, name);
	vrele(dvp);
	return error;
}

/*
 * rename(from, to). The source must exist in a directory the caller may write, and the
 * target's directory must be writable too, before the two are compared: so a rename out of or
 * into a read-only file system is EROFS, not EXDEV, as in FreeBSD 4 (its namei looks both up
 * for DELETE and RENAME before rename() compares the mounts). Whether a directory would move
 * below itself is the file system's question (FreeBSD's ufs_rename asks ufs_checkpath under
 * its own locks; wdfs_rename asks is_ancestor under wm_renamelock, bounded, so a '..' loop on
 * a damaged disk is EIO, not an endless walk), and so is the sticky bit.
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
	error = remove_check(fdvp, fname);
	if (error == 0)
		error = VOP_ACCESS(tdvp, VWRITE);
	if (error == 0 && fdvp->v_mount != tdvp->v_mount)
		error = EXDEV;
	if (error == 0)
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
	error = namei_user(args[0], FOLLOW, &vp);
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
	bd_wait_begin(NULL);          /* one wait, across all of its requests (bufdaemon.h) */
	if (fp->f_vnode->v_object != NULL)
		error = vm_object_page_clean(fp->f_vnode->v_object, 0, 0, OBJPC_SYNC);
	if (error == 0)
		error = VOP_FSYNC(fp->f_vnode, MNT_WAIT);
	bd_wait_end();
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

/* The off_t that ftruncate and truncate take by address: EFAULT, EINVAL if negative. */
static int copyin_length(register_t ulen, off_t *lenp)
{
	int error = copyin((const void *)ulen, lenp, sizeof(*lenp));

	if (error == 0 && *lenp < 0)
		error = EINVAL;
	return error;
}

/*
 * ftruncate(fd, off_t *length): EINVAL unless fd is open for writing on a regular file (which
 * makes it a writer of the file: no process runs it, see vn_writer_begin).
 */
int sys_ftruncate(register_t *args, register_t *rv)
{
	struct file *fp;
	off_t length;
	int error;

	*rv = 0;
	error = copyin_length(args[1], &length);
	if (error != 0)
		return error;
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

/*
 * truncate(path, off_t *length): FreeBSD 4's truncate(): EINVAL for a negative length, EISDIR
 * for a directory, ETXTBSY for a running program (vn_writechk), then write permission (EACCES,
 * EROFS); EINVAL for what is not a regular file. It is a writer of the file while it truncates.
 */
int sys_truncate(register_t *args, register_t *rv)
{
	struct vnode *vp;
	off_t length;
	int error;

	*rv = 0;
	error = copyin_length(args[1], &length);
	if (error != 0)
		return error;
	error = namei_user(args[0], FOLLOW, &vp);
	if (error != 0)
		return error;
	error = vp->v_type == VDIR ? EISDIR : vn_writechk(vp);
	if (error == 0)
		error = VOP_ACCESS(vp, VWRITE);
	if (error == 0 && vp->v_type != VREG)
		error = EINVAL;
	if (error == 0 && (error = vn_writer_begin(vp)) == 0) {
		error = VOP_TRUNCATE(vp, length);
		vn_writer_end(vp);
	}
	vrele(vp);
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
