/*
 * wdfs vnode operations (FFS's ufs_vnops.c and ffs_vnops.c): the struct vop_vector the VFS
 * calls. Each VOP is entered with no vnode lock held (vfs/vnode.h) and takes the v_lock of the
 * inodes it changes, a parent directory before its child; one that changes the file system
 * enters the write gate first (wdfs_wbegin: EROFS on a read-only mount). Namespace changes
 * follow the ordered writes of docs/fs.md: an inode is written before a name points to it
 * (a symbolic link's target block before its inode), a name is removed before the inode's link
 * count drops, and rename adds the new name before removing the old.
 *
 * Owners and permissions, as FreeBSD 4's ufs_vnops.c (1.131.2.1) has them: a new file belongs
 * to the caller's effective uid and to its directory's group (and loses its set-group-ID bit
 * if the caller is not in that group, root aside); in a sticky directory only root, the
 * directory's owner or the file's may remove or rename a name (EPERM); a directory moved to
 * another parent must be writable by the caller (its ".." changes); chmod, chown and utimes
 * apply the VFS's rules (vn_*_check, vnode.h) under the inode's lock.
 *
 * File data (VOP_READ, VOP_WRITE, VOP_GETPAGES, VOP_PUTPAGES) is in wdfs_readwrite.c.
 * VOP_STRATEGY maps the buffer's logical block to a disk address for a read (a hole reads as
 * zeros without any I/O); a write is always mapped already, so a flush never reads.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/sysctl.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/time.h"
#include "kern/uio.h"
#include "kern/file.h"
#include "dev/disk.h"
#include "fs/wdfs/wdfs.h"
#include "vm/vnode_pager.h"
#include "vm/vm_pager.h"
#include "arch/memlayout.h"
#include <sys/mount.h>
#include <sys/errno.h>
#include <sys/stat.h>

#define RENAME_MAXDEPTH 4096

void wdfs_settimes(struct wdfs_inode *ip, bool mod, bool chg)
{
	time_t now = time_second_now();

	if (mod)
		ip->i_din.di_mtime = now;
	if (chg)
		ip->i_din.di_ctime = now;
}

static bool is_dot_or_dotdot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* ---- lookup and creation ------------------------------------------------------------------------ */

/*
 * wdfs_lookup: the directory is locked only while it is searched; the child is fetched after
 * unlocking it, so ".." never takes a parent's lock while a child's is held.
 */
static int wdfs_lookup(struct vnode *dvp, const char *name, struct vnode **vpp)
{
	struct wdfs_inode *dp = VTOI(dvp);
	uint32_t ino;
	int error;

	if (dvp->v_type != VDIR)
		return ENOTDIR;
	if (strcmp(name, ".") == 0) {
		vref(dvp);
		*vpp = dvp;
		return 0;
	}
	ILOCK(dp);
	error = dp->i_din.di_nlink == 0 ? ENOENT : wdfs_dirlookup(dp, name, &ino);
	IUNLOCK(dp);
	if (error)
		return error;
	if (ino == dp->i_ino) {
		vref(dvp);
		*vpp = dvp;
		return 0;
	}
	return wdfs_vget(dp->i_wm, ino, 0, vpp);
}

/*
 * Make a new inode of `mode` in locked directory dp, owned by the caller and dp's group (see
 * the top). Returns it referenced and locked, not yet written or entered in the directory.
 */
static int make_inode(struct wdfs_inode *dp, uint16_t mode, struct wdfs_inode **ipp)
{
	const struct ucred *cred = cred_cur();
	struct wdfs_mount *wm = dp->i_wm;
	struct wdfs_inode *ip;
	struct vnode *vp;
	uint32_t ino, gen;
	int error;

	if ((mode & S_ISGID) && !groupmember(dp->i_din.di_gid, cred) && suser(cred) != 0)
		mode &= (uint16_t)~S_ISGID;

	error = wdfs_ialloc(wm, &ino);
	if (error)
		return error;
	error = wdfs_vget(wm, ino, WDFS_VGET_NEW, &vp);
	if (error) {
		if (error != EIO)           /* EIO: the inode is in use after all, keep it */
			wdfs_ifree(wm, ino);
		return error;
	}
	ip = VTOI(vp);
	ILOCK(ip);
	gen = ip->i_din.di_gen + 1;
	memset(&ip->i_din, 0, sizeof(ip->i_din));
	ip->i_din.di_mode = mode;
	ip->i_din.di_nlink = S_ISDIR(mode) ? 2 : 1;
	ip->i_din.di_uid = cred->cr_uid;
	ip->i_din.di_gid = dp->i_din.di_gid;
	ip->i_din.di_gen = gen;
	ip->i_din.di_atime = ip->i_din.di_mtime = ip->i_din.di_ctime = time_second_now();
	vp->v_type = wdfs_vtype(mode);
	if (vp->v_type == VREG)
		vnode_pager_alloc(vp, 0);
	*ipp = ip;
	return 0;
}

/* Undo make_inode after a failure: no name points to it, so VOP_INACTIVE frees it. */
static void unmake_inode(struct wdfs_inode *ip)
{
	ip->i_din.di_nlink = 0;
	IUNLOCK(ip);
	vrele(ip->i_vnode);
}

static int check_newname(struct wdfs_inode *dp, const char *name)
{
	uint32_t ino;
	int error;

	if (dp->i_din.di_nlink == 0)
		return ENOENT;          /* the directory was removed */
	if (is_dot_or_dotdot(name))
		return EEXIST;
	error = wdfs_dirlookup(dp, name, &ino);
	if (error == 0)
		return EEXIST;
	return error == ENOENT ? 0 : error;
}

/* A symbolic link's target goes into its first block, written before the inode (rule 1). */
static int write_target(struct wdfs_inode *ip, const char *target)
{
	size_t len = strlen(target);
	struct iovec iov = { (void *)target, len };
	struct uio uio = { &iov, 1, 0, len, UIO_SYSSPACE, UIO_WRITE };
	int error;

	error = wdfs_write_locked(ip, &uio, IO_SYNC);   /* the block, then the inode: both wdfs_bwrite */
	return error == 0 && uio.uio_resid != 0 ? ENOSPC : error;
}

/*
 * Make a file of `mode` named `name` in dvp: a regular file, a FIFO, a socket, a device numbered
 * rdev, or a symbolic link to `target` (else NULL). Its inode - and a link's target - is on disk
 * before its name.
 */
static int make_node(struct vnode *dvp, const char *name, uint16_t mode, const char *target,
                     dev_t rdev, struct vnode **vpp)
{
	struct wdfs_inode *dp = VTOI(dvp), *ip;
	int error;

	if (dvp->v_type != VDIR)
		return ENOTDIR;
	error = wdfs_wbegin(dp->i_wm, 0);
	if (error)
		return error;
	ILOCK(dp);
	error = check_newname(dp, name);
	if (!error)
		error = make_inode(dp, mode, &ip);
	if (error) {
		IUNLOCK(dp);
		wdfs_wend(dp->i_wm);
		return error;
	}
	ip->i_din.di_rdev = rdev;
	error = target != NULL ? write_target(ip, target) : wdfs_iupdate(ip, true);
	if (!error)
		error = wdfs_direnter(dp, name, ip->i_ino, wdfs_dtype(mode));
	if (error) {
		unmake_inode(ip);
	} else {
		wdfs_settimes(dp, true, true);
		wdfs_iupdate(dp, false);
		IUNLOCK(ip);
		*vpp = ip->i_vnode;
	}
	IUNLOCK(dp);
	wdfs_wend(dp->i_wm);
	return error;
}

static int wdfs_create(struct vnode *dvp, const char *name, int mode, struct vnode **vpp)
{
	return make_node(dvp, name, (uint16_t)(S_IFREG | (mode & ALLPERMS)), NULL, 0, vpp);
}

/*
 * wdfs_mknod: a FIFO, a socket (bind(2)), or a character or block device node keeping its
 * number (FFS keeps it in di_db[0]; wdfs has a field of its own, so no block pointer is ever a
 * device number).
 */
static int wdfs_mknod(struct vnode *dvp, const char *name, int mode, dev_t rdev,
                      struct vnode **vpp)
{
	int fmt = mode & S_IFMT;

	if (fmt != S_IFIFO && fmt != S_IFSOCK && fmt != S_IFCHR && fmt != S_IFBLK)
		return EOPNOTSUPP;
	if (fmt != S_IFCHR && fmt != S_IFBLK)
		rdev = 0;
	return make_node(dvp, name, (uint16_t)(fmt | (mode & ALLPERMS)), NULL, rdev, vpp);
}

/*
 * wdfs_symlink: the target, 1..WDFS_MAXSYMLINK bytes, is kept in the link's first data block
 * (FFS keeps one shorter than 60 bytes in the inode itself, a "fast" link; wdfs always uses a
 * block, so a link costs one block - simpler for fsck and the tools).
 */
static int wdfs_symlink(struct vnode *dvp, const char *name, int mode, const char *target,
                        struct vnode **vpp)
{
	size_t len = strlen(target);

	if (len == 0)
		return ENOENT;
	if (len > WDFS_MAXSYMLINK)
		return ENAMETOOLONG;
	return make_node(dvp, name, (uint16_t)(S_IFLNK | (mode & ALLPERMS)), target, 0, vpp);
}

/*
 * wdfs_mkdir: the new directory's block and inode are written first, then the parent's link
 * count (for the child's ".."), then the name.
 */
static int wdfs_mkdir(struct vnode *dvp, const char *name, int mode, struct vnode **vpp)
{
	struct wdfs_inode *dp = VTOI(dvp), *ip;
	int error;

	if (dvp->v_type != VDIR)
		return ENOTDIR;
	error = wdfs_wbegin(dp->i_wm, 0);
	if (error)
		return error;
	ILOCK(dp);
	error = check_newname(dp, name);
	if (!error && dp->i_din.di_nlink >= WDFS_MAXLINK)
		error = EMLINK;
	if (!error)
		error = make_inode(dp, (uint16_t)(S_IFDIR | (mode & ALLPERMS)), &ip);
	if (error)
		goto out;
	error = wdfs_dirinit(ip, dp->i_ino);
	if (!error)
		error = wdfs_iupdate(ip, true);
	if (error) {
		unmake_inode(ip);
		goto out;
	}
	dp->i_din.di_nlink++;
	error = wdfs_iupdate(dp, true);
	if (!error)
		error = wdfs_direnter(dp, name, ip->i_ino, WDFS_DT_DIR);
	if (error) {
		dp->i_din.di_nlink--;
		wdfs_iupdate(dp, false);
		unmake_inode(ip);
		goto out;
	}
	wdfs_settimes(dp, true, true);
	wdfs_iupdate(dp, false);
	IUNLOCK(ip);
	*vpp = ip->i_vnode;
out:
	IUNLOCK(dp);
	wdfs_wend(dp->i_wm);
	return error;
}

/* ---- removal ----------------------------------------------------------------------------------- */

/* Look up `name` in locked dp and return its vnode (referenced, not locked). */
static int lookup_locked(struct wdfs_inode *dp, const char *name, struct vnode **vpp)
{
	uint32_t ino;
	int error;

	error = wdfs_dirlookup(dp, name, &ino);
	if (error)
		return error;
	if (ino == dp->i_ino)
		return wdfs_corrupt(dp->i_wm, "directory inode %u names itself as '%s'", ino, name);
	return wdfs_vget(dp->i_wm, ino, 0, vpp);
}

/* May the caller remove or rename ip out of directory dp? The sticky bit (vn_sticky_check). */
static int sticky_check(struct wdfs_inode *dp, struct wdfs_inode *ip)
{
	return vn_sticky_check(dp->i_din.di_mode, dp->i_din.di_uid, ip->i_din.di_uid, cred_cur());
}

static int wdfs_remove(struct vnode *dvp, const char *name)
{
	struct wdfs_inode *dp = VTOI(dvp), *ip;
	struct vnode *vp;
	int error;

	if (dvp->v_type != VDIR)
		return ENOTDIR;
	if (is_dot_or_dotdot(name))
		return EISDIR;
	error = wdfs_wbegin(dp->i_wm, 0);
	if (error)
		return error;
	ILOCK(dp);
	error = lookup_locked(dp, name, &vp);
	if (error) {
		IUNLOCK(dp);
		wdfs_wend(dp->i_wm);
		return error;
	}
	ip = VTOI(vp);
	ILOCK(ip);
	if (vp->v_type == VDIR)
		error = EPERM;                  /* unlink(2) of a directory, as on FreeBSD */
	else
		error = sticky_check(dp, ip);
	if (!error)
		error = wdfs_dirremove(dp, name, ip->i_ino);
	if (!error) {
		ip->i_din.di_nlink--;
		wdfs_settimes(ip, false, true);
		wdfs_iupdate(ip, false);
		wdfs_settimes(dp, true, true);
		wdfs_iupdate(dp, false);
	}
	IUNLOCK(ip);
	IUNLOCK(dp);
	vrele(vp);
	wdfs_wend(dp->i_wm);
	return error;
}

static int wdfs_rmdir(struct vnode *dvp, const char *name)
{
	struct wdfs_inode *dp = VTOI(dvp), *ip;
	struct vnode *vp;
	bool empty;
	int error;

	if (dvp->v_type != VDIR)
		return ENOTDIR;
	if (strcmp(name, ".") == 0)
		return EINVAL;
	if (strcmp(name, "..") == 0)
		return ENOTEMPTY;
	error = wdfs_wbegin(dp->i_wm, 0);
	if (error)
		return error;
	ILOCK(dp);
	error = lookup_locked(dp, name, &vp);
	if (error) {
		IUNLOCK(dp);
		wdfs_wend(dp->i_wm);
		return error;
	}
	ip = VTOI(vp);
	ILOCK(ip);
	error = vp->v_type != VDIR ? ENOTDIR : sticky_check(dp, ip);
	if (!error)
		error = wdfs_dirempty(ip, &empty);
	if (!error && !empty)
		error = ENOTEMPTY;
	if (!error && vp->v_mountedhere)
		error = EBUSY;
	if (!error)
		error = wdfs_dirremove(dp, name, ip->i_ino);
	if (!error) {
		dp->i_din.di_nlink--;
		wdfs_settimes(dp, true, true);
		wdfs_iupdate(dp, false);
		ip->i_din.di_nlink = 0;
		wdfs_settimes(ip, false, true);
		wdfs_iupdate(ip, false);
	}
	IUNLOCK(ip);
	IUNLOCK(dp);
	vrele(vp);
	wdfs_wend(dp->i_wm);
	return error;
}

/* ---- link and rename --------------------------------------------------------------------------- */

/* Add one to (or, with delta -1, take one from) a link count and write the inode now. */
static int adjust_links(struct wdfs_inode *ip, int delta)
{
	int error;

	ILOCK(ip);
	if (delta > 0 && ip->i_din.di_nlink >= WDFS_MAXLINK) {
		IUNLOCK(ip);
		return EMLINK;
	}
	if (delta > 0 && ip->i_din.di_nlink == 0) {
		IUNLOCK(ip);
		return ENOENT;
	}
	ip->i_din.di_nlink = (uint16_t)(ip->i_din.di_nlink + delta);
	wdfs_settimes(ip, false, true);
	error = wdfs_iupdate(ip, true);
	IUNLOCK(ip);
	return error;
}

/* wdfs_link: the link count goes up (on disk) before the new name is written. */
static int wdfs_link(struct vnode *dvp, const char *name, struct vnode *vp)
{
	struct wdfs_inode *dp = VTOI(dvp), *ip = VTOI(vp);
	int error;

	if (dvp->v_type != VDIR)
		return ENOTDIR;
	if (vp->v_mount != dvp->v_mount)
		return EXDEV;
	if (vp->v_type == VDIR)
		return EPERM;
	error = wdfs_wbegin(dp->i_wm, 0);
	if (error)
		return error;
	error = adjust_links(ip, 1);
	if (error) {
		wdfs_wend(dp->i_wm);
		return error;
	}
	ILOCK(dp);
	error = check_newname(dp, name);
	if (!error)
		error = wdfs_direnter(dp, name, ip->i_ino, wdfs_dtype(ip->i_din.di_mode));
	if (!error) {
		wdfs_settimes(dp, true, true);
		wdfs_iupdate(dp, false);
	}
	IUNLOCK(dp);
	if (error)
		adjust_links(ip, -1);
	wdfs_wend(dp->i_wm);
	return error;
}

/* Is directory `ino` the directory dvp or one of its ancestors? (wm_renamelock held.) */
static int is_ancestor(struct wdfs_mount *wm, uint32_t ino, struct vnode *dvp, bool *resultp)
{
	struct vnode *vp = dvp, *next;
	struct wdfs_inode *ip;
	uint32_t up;
	int error = 0, depth = 0;

	*resultp = false;
	vref(vp);
	for (;;) {
		ip = VTOI(vp);
		if (ip->i_ino == ino) {
			*resultp = true;
			break;
		}
		if (ip->i_ino == WDFS_ROOTINO)
			break;
		if (++depth > RENAME_MAXDEPTH) {
			error = wdfs_corrupt(wm, "directory inode %u: '..' chain does not reach the root",
			                     ip->i_ino);
			break;
		}
		ILOCK(ip);
		error = wdfs_dirlookup(ip, "..", &up);
		IUNLOCK(ip);
		if (!error)
			error = wdfs_vget(wm, up, 0, &next);
		if (error)
			break;
		vrele(vp);
		vp = next;
	}
	vrele(vp);
	return error;
}

/*
 * May a rename replace tvp, named in locked directory tdp? The sticky bit, the same kind
 * (ENOTDIR, EISDIR), and a directory must be empty and no mount point.
 */
static int replace_check(struct wdfs_inode *tdp, struct vnode *tvp, bool isdir)
{
	struct wdfs_inode *tip = VTOI(tvp);
	bool empty;
	int error;

	ILOCK(tip);
	error = sticky_check(tdp, tip);
	if (!error && isdir != (tvp->v_type == VDIR))
		error = isdir ? ENOTDIR : EISDIR;
	if (!error && tvp->v_type == VDIR) {
		error = wdfs_dirempty(tip, &empty);
		if (!error && !empty)
			error = ENOTEMPTY;
		if (!error && tvp->v_mountedhere)
			error = EBUSY;
	}
	IUNLOCK(tip);
	return error;
}

/*
 * wdfs_rename (4.4BSD's ufs_rename, with its crash-safe order): raise the source's link count,
 * write the new name (or repoint the existing target), drop the target, remove the old name,
 * fix ".." of a moved directory, and lower the link count again. A crash anywhere leaves at
 * worst a link count one too high (fsck lowers it), never a file without a name.
 * Renames are serialized by wm_renamelock; at most one directory is locked at a time, plus a
 * child below its locked parent.
 */
static int rename_locked(struct wdfs_mount *wm, struct vnode *fdvp, const char *fname,
                         struct vnode *tdvp, const char *tname)
{
	struct wdfs_inode *fdp = VTOI(fdvp), *tdp = VTOI(tdvp), *fip, *tip = NULL;
	struct vnode *fvp = NULL, *tvp = NULL;
	bool isdir, moved, inside;
	int error;

	ILOCK(fdp);
	error = lookup_locked(fdp, fname, &fvp);
	IUNLOCK(fdp);
	if (error)
		return error;
	fip = VTOI(fvp);
	isdir = fvp->v_type == VDIR;
	moved = isdir && fdp != tdp;
	ILOCK(fdp);
	ILOCK(fip);
	error = sticky_check(fdp, fip);
	if (!error && moved)            /* its ".." changes: ufs_rename asks VWRITE on it */
		error = vaccess(fip->i_din.di_mode, fip->i_din.di_uid, fip->i_din.di_gid, VWRITE,
		                cred_cur());
	IUNLOCK(fip);
	IUNLOCK(fdp);
	if (error)
		goto out;
	if (isdir) {
		error = is_ancestor(wm, fip->i_ino, tdvp, &inside);
		if (!error && inside)
			error = EINVAL;
		if (error)
			goto out;
	}
	ILOCK(tdp);
	error = tdp->i_din.di_nlink == 0 ? ENOENT : lookup_locked(tdp, tname, &tvp);
	if (error == ENOENT && tdp->i_din.di_nlink != 0) {
		error = 0;
		tvp = NULL;
	}
	if (error)
		goto out_tdp;
	if (tvp == fvp) {              /* two names of one file: nothing to do (POSIX) */
		IUNLOCK(tdp);
		goto out;
	}
	if (tvp) {
		tip = VTOI(tvp);
		error = replace_check(tdp, tvp, isdir);
		if (error)
			goto out_tdp;
	} else if (moved && tdp->i_din.di_nlink >= WDFS_MAXLINK) {
		error = EMLINK;
		goto out_tdp;
	}
	IUNLOCK(tdp);

	/* 1: the source gets an extra link, on disk, before it gets a second name. */
	error = adjust_links(fip, 1);
	if (error)
		goto out;
	/* 2: the new name. */
	ILOCK(tdp);
	if (tip)
		error = wdfs_dirrewrite(tdp, tname, fip->i_ino, wdfs_dtype(fip->i_din.di_mode));
	else
		error = wdfs_direnter(tdp, tname, fip->i_ino, wdfs_dtype(fip->i_din.di_mode));
	if (error) {
		IUNLOCK(tdp);
		adjust_links(fip, -1);
		goto out;
	}
	if (moved && !tip)
		tdp->i_din.di_nlink++;                 /* the moved directory's ".." */
	if (tip && tvp->v_type == VDIR && !moved)
		tdp->i_din.di_nlink--;                 /* the replaced directory's ".." */
	wdfs_settimes(tdp, true, true);
	wdfs_iupdate(tdp, true);
	IUNLOCK(tdp);
	/* 3: the replaced target loses its name (a directory also its "."). */
	if (tip) {
		ILOCK(tip);
		tip->i_din.di_nlink = tvp->v_type == VDIR ? 0 : (uint16_t)(tip->i_din.di_nlink - 1);
		wdfs_settimes(tip, false, true);
		wdfs_iupdate(tip, false);
		IUNLOCK(tip);
	}
	/* 4: the old name goes (unless someone removed it meanwhile). */
	ILOCK(fdp);
	error = wdfs_dirremove(fdp, fname, fip->i_ino);
	if (error == ENOENT)
		error = 0;
	if (moved)
		fdp->i_din.di_nlink--;
	wdfs_settimes(fdp, true, true);
	wdfs_iupdate(fdp, false);
	IUNLOCK(fdp);
	/* 5: a moved directory's ".." names its new parent. */
	if (moved) {
		ILOCK(fip);
		if (!error)
			error = wdfs_dirrewrite(fip, "..", tdp->i_ino, WDFS_DT_DIR);
		IUNLOCK(fip);
	}
	/* 6: drop the extra link of step 1. */
	adjust_links(fip, -1);
	goto out;

out_tdp:
	IUNLOCK(tdp);
out:
	if (tvp)
		vrele(tvp);
	vrele(fvp);
	return error;
}

static int wdfs_rename(struct vnode *fdvp, const char *fname, struct vnode *tdvp, const char *tname)
{
	struct wdfs_mount *wm = VTOI(fdvp)->i_wm;
	int error;

	if (fdvp->v_type != VDIR || tdvp->v_type != VDIR)
		return ENOTDIR;
	if (fdvp->v_mount != tdvp->v_mount)
		return EXDEV;
	if (is_dot_or_dotdot(fname) || is_dot_or_dotdot(tname))
		return EINVAL;
	error = wdfs_wbegin(wm, 0);
	if (error)
		return error;
	sleeplock_acquire(&wm->wm_renamelock);
	error = rename_locked(wm, fdvp, fname, tdvp, tname);
	sleeplock_release(&wm->wm_renamelock);
	wdfs_wend(wm);
	return error;
}

/* ---- directory reading --------------------------------------------------------------------------- */

static int wdfs_readdir(struct vnode *vp, struct uio *uio)
{
	struct wdfs_inode *ip = VTOI(vp);
	int error;

	if (vp->v_type != VDIR)
		return ENOTDIR;
	ILOCK(ip);
	error = wdfs_readdir_locked(ip, uio);
	IUNLOCK(ip);
	return error;
}

static int wdfs_getattr(struct vnode *vp, struct stat *st)
{
	struct wdfs_inode *ip = VTOI(vp);
	struct wdfs_dinode *dp = &ip->i_din;

	ILOCK(ip);
	memset(st, 0, sizeof(*st));
	st->st_dev = ip->i_wm->wm_dev;
	st->st_ino = ip->i_ino;
	st->st_mode = dp->di_mode;
	st->st_nlink = dp->di_nlink;
	st->st_uid = dp->di_uid;
	st->st_gid = dp->di_gid;
	st->st_rdev = dp->di_rdev;
	st->st_size = (off_t)dp->di_size;
	st->st_blocks = (blkcnt_t)(dp->di_blocks * (ip->i_wm->wm_bsize / 512));
	st->st_blksize = (blksize_t)ip->i_wm->wm_bsize;
	st->st_atime = dp->di_atime;
	st->st_mtime = dp->di_mtime;
	st->st_ctime = dp->di_ctime;
	IUNLOCK(ip);
	return 0;
}

static int wdfs_truncate(struct vnode *vp, off_t length)
{
	struct wdfs_inode *ip = VTOI(vp);
	int error;

	if (vp->v_type == VDIR)
		return EISDIR;
	error = wdfs_wbegin(ip->i_wm, 0);
	if (error)
		return error;
	ILOCK(ip);
	error = wdfs_itrunc(ip, length);
	if (!error) {
		wdfs_clearsetid(ip);
		wdfs_settimes(ip, true, true);
		error = wdfs_iupdate(ip, false);
	}
	IUNLOCK(ip);
	wdfs_wend(ip->i_wm);
	return error;
}

/*
 * Change inode attributes: check with `check` (the rules of vn_*_check, on the inode as it
 * is), let `set` change it, and if it did, write it with the change time now. Both under the
 * inode's lock, inside the write gate.
 */
struct attrchange {
	mode_t mode;                    /* chmod: the new permission bits */
	uid_t  uid;                     /* chown: the new owner and group, resolved */
	gid_t  gid;
	time_t atime, mtime;            /* utimes */
	int    vaflags;
};

static int change_attrs(struct vnode *vp, struct attrchange *ac,
                        int (*check)(struct wdfs_inode *, struct attrchange *),
                        bool (*set)(struct wdfs_inode *, struct attrchange *))
{
	struct wdfs_inode *ip = VTOI(vp);
	int error;

	error = wdfs_wbegin(ip->i_wm, 0);
	if (error)
		return error;
	ILOCK(ip);
	error = check(ip, ac);
	if (!error && set(ip, ac)) {
		wdfs_settimes(ip, false, true);
		error = wdfs_iupdate(ip, false);
	}
	IUNLOCK(ip);
	wdfs_wend(ip->i_wm);
	return error;
}

static int chmod_check(struct wdfs_inode *ip, struct attrchange *ac)
{
	struct wdfs_dinode *dp = &ip->i_din;

	return vn_chmod_check(ip->i_vnode->v_type, dp->di_uid, dp->di_gid, ac->mode, cred_cur());
}

static bool chmod_set(struct wdfs_inode *ip, struct attrchange *ac)
{
	ip->i_din.di_mode = (uint16_t)((ip->i_din.di_mode & S_IFMT) | (ac->mode & ALLPERMS));
	return true;
}

/* chown(2)'s -1 means "as it is": resolved here, under the lock, before the check. */
static int chown_check(struct wdfs_inode *ip, struct attrchange *ac)
{
	struct wdfs_dinode *dp = &ip->i_din;

	if (ac->uid == (uid_t)-1)
		ac->uid = dp->di_uid;
	if (ac->gid == (gid_t)-1)
		ac->gid = dp->di_gid;
	return vn_chown_check(dp->di_uid, dp->di_gid, ac->uid, ac->gid, cred_cur());
}

/* A change of owner or group by anyone but root clears the set-ID bits (ufs_chown). */
static bool chown_set(struct wdfs_inode *ip, struct attrchange *ac)
{
	struct wdfs_dinode *dp = &ip->i_din;

	if (cred_cur()->cr_uid != 0 && (dp->di_uid != ac->uid || dp->di_gid != ac->gid))
		dp->di_mode &= (uint16_t)~(S_ISUID | S_ISGID);
	dp->di_uid = ac->uid;
	dp->di_gid = ac->gid;
	return true;
}

static int utimes_check(struct wdfs_inode *ip, struct attrchange *ac)
{
	struct wdfs_dinode *dp = &ip->i_din;

	return vn_utimes_check(dp->di_mode, dp->di_uid, dp->di_gid, ac->vaflags, cred_cur());
}

static bool utimes_set(struct wdfs_inode *ip, struct attrchange *ac)
{
	ip->i_din.di_atime = ac->atime;
	ip->i_din.di_mtime = ac->mtime;
	return true;
}

/* VOP_CLEARSETID (a writable shared mapping of the file): anyone may; wdfs_clearsetid says. */
static int clearsetid_check(struct wdfs_inode *ip, struct attrchange *ac)
{
	return 0;
}

static bool clearsetid_set(struct wdfs_inode *ip, struct attrchange *ac)
{
	return wdfs_clearsetid(ip);
}

static int wdfs_chmod(struct vnode *vp, mode_t mode)
{
	struct attrchange ac = { .mode = mode };

	return change_attrs(vp, &ac, chmod_check, chmod_set);
}

static int wdfs_chown(struct vnode *vp, uid_t uid, gid_t gid)
{
	struct attrchange ac = { .uid = uid, .gid = gid };

	return change_attrs(vp, &ac, chown_check, chown_set);
}

static int wdfs_clearsetid_vop(struct vnode *vp)
{
	struct attrchange ac = { 0 };

	return change_attrs(vp, &ac, clearsetid_check, clearsetid_set);
}

/* utimes(2): the times given; the change time becomes now (POSIX.1-2008, utimes()). */
static int wdfs_utimes(struct vnode *vp, time_t atime, time_t mtime, int vaflags)
{
	struct attrchange ac = { .atime = atime, .mtime = mtime, .vaflags = vaflags };

	return change_attrs(vp, &ac, utimes_check, utimes_set);
}

/*
 * wdfs_access (FreeBSD 4's ufs_access): writing a directory, file or symbolic link of a
 * read-only mount is EROFS (a FIFO stays writable: its data is not on the disk); then the
 * permission bits (vaccess). Root's read and search need no lock.
 */
static int wdfs_access(struct vnode *vp, int mode)
{
	struct wdfs_inode *ip = VTOI(vp);
	const struct ucred *cred = cred_cur();
	int error;

	if ((mode & VWRITE) && vp->v_type != VFIFO && ip->i_wm->wm_rdonly)
		return EROFS;
	if (cred->cr_uid == 0)
		return 0;
	ILOCK(ip);
	error = vaccess(ip->i_din.di_mode, ip->i_din.di_uid, ip->i_din.di_gid, mode, cred);
	IUNLOCK(ip);
	return error;
}

/* wdfs_readlink: the target, from the link's first block; a NUL inside it is damage (EIO). */
static int wdfs_readlink(struct vnode *vp, struct uio *uio)
{
	struct wdfs_inode *ip = VTOI(vp);
	char *target;
	struct iovec iov;
	struct uio kuio;
	size_t len;
	int error;

	target = kmalloc(WDFS_MAXSYMLINK, M_WAITOK);
	if (target == NULL)
		return ENOMEM;
	iov = (struct iovec){ target, WDFS_MAXSYMLINK };
	kuio = (struct uio){ &iov, 1, 0, WDFS_MAXSYMLINK, UIO_SYSSPACE, UIO_READ };
	error = wdfs_read(vp, &kuio, 0);
	len = WDFS_MAXSYMLINK - kuio.uio_resid;
	if (!error && (len != ip->i_din.di_size || strnlen(target, len) != len))
		error = wdfs_corrupt(ip->i_wm, "symbolic link inode %u: its target is damaged", ip->i_ino);
	if (!error)
		error = uiomove(target, MIN(len, uio->uio_resid), uio);
	kfree(target);
	return error;
}

/*
 * The error of any write that failed since this file's last fsync and could have held its data
 * or metadata, whoever issued it (write(2)'s async or clustered write, the buf_daemon, the
 * syncer, the pageout daemon): a failed write of the file's own buffers (its vnode's count), or
 * one no file owns (wdfs_fs_writeerrs: metadata, shared by many files). Each is reported once.
 */
static int fsync_writeerror(struct wdfs_inode *ip)
{
	int error = vn_writeerror_take(ip->i_vnode);
	uint32_t fserrs = wdfs_fs_writeerrs(ip->i_wm);

	ILOCK(ip);
	if (fserrs != ip->i_fswerrs_seen) {
		ip->i_fswerrs_seen = fserrs;
		if (error == 0)
			error = EIO;
	}
	IUNLOCK(ip);
	return error;
}

/*
 * Test-only: vfs.wdfs.fsync_flush=0 leaves out fsync's cache flush, so that a test can check that
 * tools/powercut catches the promise this breaks on a drive with its write cache on.
 */
static int fsync_flush = 1;
SYSCTL_DECL_OID(sysctl_vfs_wdfs_fsync_flush, "vfs.wdfs.fsync_flush", CTLTYPE_INT | CTLFLAG_RW,
                &fsync_flush, 0, NULL, "I", "fsync flushes the disk's cache (0: test-only, breaks fsync)");

/*
 * wdfs_fsync: the file's data buffers, then its inode, then every dirty metadata buffer of the
 * file system (its indirect blocks are among them), then the disk's cache. When this returns
 * 0 with MNT_WAIT, every byte written to the file before the call is on stable storage and
 * reachable from the inode; the bitmaps need not be, fsck rebuilds them. With MNT_WAIT it also
 * reports a write that failed earlier (fsync_writeerror): an EIO means data written before the
 * call may be lost, and the failed write is not retried, so a second fsync does not mean it is
 * safe (docs/bufcache.md, "Write errors").
 */
static int wdfs_fsync(struct vnode *vp, int waitfor)
{
	struct wdfs_inode *ip = VTOI(vp);
	struct wdfs_mount *wm = ip->i_wm;
	int error, e;

	if (wdfs_wbegin(wm, 0) != 0)
		return 0;                           /* read-only: nothing of it is dirty */
	error = bufsync(vp, waitfor);
	ILOCK(ip);
	e = wdfs_iupdate(ip, waitfor == MNT_WAIT);
	IUNLOCK(ip);
	if (!error)
		error = e;
	e = bufsync(wm->wm_devvp, waitfor);
	if (!error)
		error = e;
	if (waitfor == MNT_WAIT) {
		e = fsync_flush ? disk_io_sync(wm->wm_disk, BIO_FLUSH, 0, NULL, 0) : 0;
		if (!error)
			error = e;
		e = fsync_writeerror(ip);
		if (!error)
			error = e;
	}
	wdfs_wend(wm);
	return error;
}

static int wdfs_open(struct vnode *vp, int fflag)
{
	if (vp->v_type == VDIR && (fflag & FWRITE))
		return EISDIR;
	if ((fflag & FWRITE) && vp->v_type == VREG && VTOI(vp)->i_wm->wm_rdonly)
		return EROFS;
	return 0;
}

static int wdfs_close(struct vnode *vp __unused, int fflag __unused)
{
	return 0;
}

/* ---- life cycle -------------------------------------------------------------------------------- */

/*
 * wdfs_inactive: the last reference is gone. An inode with no names left is freed now: its
 * blocks (wdfs_itrunc writes the cleared inode before freeing them), then the inode itself -
 * inside the write gate, without waiting (its unlink may still be inside); on a read-only
 * mount it stays allocated, for fsck.
 */
static int wdfs_inactive(struct vnode *vp)
{
	struct wdfs_inode *ip = VTOI(vp);
	struct wdfs_mount *wm;
	int error = 0;

	if (!ip)
		return 0;
	wm = ip->i_wm;
	ILOCK(ip);
	if (ip->i_din.di_nlink == 0 && ip->i_din.di_mode != 0 &&
	    wdfs_wbegin(wm, WDFS_WB_NOWAIT) == 0) {
		error = wdfs_itrunc(ip, 0);
		if (!error) {
			ip->i_din.di_mode = 0;
			ip->i_din.di_size = 0;
			ip->i_din.di_blocks = 0;
			wdfs_settimes(ip, false, true);
			error = wdfs_iupdate(ip, false);
			wdfs_ifree(wm, ip->i_ino);
		}
		wdfs_wend(wm);
	}
	IUNLOCK(ip);
	return error;
}

/*
 * wdfs_reclaim: the vnode is being recycled. A write of it that failed and that no fsync has
 * reported yet becomes the file system's (wm_lostwerrs), so the next fsync of any file still
 * reports it (the file's own next vnode starts with a clean count).
 */
static int wdfs_reclaim(struct vnode *vp)
{
	struct wdfs_inode *ip = VTOI(vp);

	vnode_pager_dealloc(vp);
	if (!ip)
		return 0;
	if (vn_writeerror_take(vp) != 0) {
		spin_lock(&ip->i_wm->wm_hashlock);
		ip->i_wm->wm_lostwerrs++;
		spin_unlock(&ip->i_wm->wm_hashlock);
	}
	wdfs_inode_forget(ip);
	return 0;
}

/*
 * wdfs_strategy (FFS's ufs_strategy): map the buffer's block if it is not yet mapped
 * (b_blkno == b_lblkno, FreeBSD's test) and start the I/O. A dirty buffer is always mapped
 * before a flusher sees it (write_block sets b_blkno from wdfs_balloc; bdwrite maps the rest),
 * so a write by the buf_daemon or the syncer goes straight to the disk without reading an
 * indirect block - unless the disk address happens to equal the logical block number, when
 * the mapping is looked up again (the same answer, from the indirect block just used). Only a
 * read can meet a hole: it reads as zeros at once. Takes no lock (see wdfs_bmap_blk).
 */
static int wdfs_strategy(struct vnode *vp, struct buf *bp)
{
	struct wdfs_inode *ip = VTOI(vp);
	struct wdfs_mount *wm = ip->i_wm;
	uint32_t blk = 0;
	int error;

	if (bp->b_blkno != bp->b_lblkno) {
		disk_strategy_buf(wm->wm_devvp->v_disk, bp);
		return 0;
	}
	error = wdfs_bmap_blk(ip, bp->b_lblkno, &blk);
	if (!error && blk == 0 && bp->b_iocmd == BIO_READ) {
		buf_zero(bp, 0, bp->b_bcount);
		bp->b_resid = 0;
		biodone(bp);
		return 0;
	}
	if (!error && blk == 0)
		error = wdfs_corrupt(wm, "inode %u: write to unallocated logical block %lld",
		                     ip->i_ino, (long long)bp->b_lblkno);
	if (error) {
		bp->b_error = error;                /* biodone turns it into B_ERROR */
		biodone(bp);
		return error;
	}
	bp->b_blkno = wdfs_fsbtodb(wm, blk);
	disk_strategy_buf(wm->wm_devvp->v_disk, bp);
	return 0;
}

/* wdfs_bmap: the device block (DEV_BSIZE units) of logical block lblkno, -1 for a hole. */
static int wdfs_bmap(struct vnode *vp, daddr_t lblkno, daddr_t *blknop)
{
	struct wdfs_inode *ip = VTOI(vp);
	uint32_t blk;
	int error;

	error = wdfs_bmap_blk(ip, lblkno, &blk);
	if (error)
		return error;
	*blknop = blk ? wdfs_fsbtodb(ip->i_wm, blk) : -1;
	return 0;
}

struct vop_vector wdfs_vnodeops = {
	.vop_lookup   = wdfs_lookup,
	.vop_create   = wdfs_create,
	.vop_mkdir    = wdfs_mkdir,
	.vop_remove   = wdfs_remove,
	.vop_rmdir    = wdfs_rmdir,
	.vop_link     = wdfs_link,
	.vop_rename   = wdfs_rename,
	.vop_symlink  = wdfs_symlink,
	.vop_mknod    = wdfs_mknod,
	.vop_readdir  = wdfs_readdir,
	.vop_readlink = wdfs_readlink,
	.vop_read     = wdfs_read,
	.vop_write    = wdfs_write,
	.vop_getattr  = wdfs_getattr,
	.vop_access   = wdfs_access,
	.vop_chmod    = wdfs_chmod,
	.vop_chown    = wdfs_chown,
	.vop_truncate = wdfs_truncate,
	.vop_clearsetid = wdfs_clearsetid_vop,
	.vop_settimes = wdfs_utimes,
	.vop_fsync    = wdfs_fsync,
	.vop_open     = wdfs_open,
	.vop_close    = wdfs_close,
	.vop_ioctl    = NULL,
	.vop_inactive = wdfs_inactive,
	.vop_reclaim  = wdfs_reclaim,
	.vop_strategy = wdfs_strategy,
	.vop_bmap     = wdfs_bmap,
	.vop_getpages = wdfs_getpages,
	.vop_putpages = wdfs_putpages,
};
