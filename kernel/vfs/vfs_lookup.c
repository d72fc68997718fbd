/*
 * vfs_lookup.c - path name lookup (FreeBSD's namei/lookup, without symbolic links).
 *
 *   namei(path, &vp)                 - the vnode a path names, referenced.
 *   namei_parent(path, &dvp, name)   - the directory holding the last component, referenced,
 *                                      and that component (for create, remove, rename...).
 *
 * A path is walked one component at a time with VOP_LOOKUP, starting at rootvnode for an
 * absolute path and at the current process's p_cwd otherwise (rootvnode for kernel threads).
 * Mount points are crossed both ways, as FreeBSD's lookup() does:
 *   down - a vnode with v_mountedhere is replaced by the root of the file system mounted there;
 *   up   - ".." in the root directory of a mounted file system is looked up in the directory it
 *          covers (mnt_vnodecovered); ".." in "/" is "/".
 * A trailing slash requires a directory (ENOTDIR otherwise).
 *
 * Locking: none of its own; every vnode held is referenced, and VOPs are called unlocked.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "vfs/vnode.h"
#include "vfs/mount.h"
#include "vfs/vfs.h"
#include <sys/dirent.h>
#include <sys/errno.h>

/* Where a relative path starts. */
static struct vnode *lookup_cwd(void)
{
	struct proc *p = curproc;

	if (p != NULL && p->p_cwd != NULL)
		return p->p_cwd;
	return rootvnode;
}

/*
 * vfs_cross_mounts: replace a covered directory by the root of the file system mounted on it
 * (again, if another is mounted on that root's directory). The mount is kept busy while its
 * root is fetched, so an unmount cannot free it meanwhile; a lookup that meets an unmount in
 * progress waits for it (vfs_busy_mountedhere) and then sees the directory or the mount that
 * is there. The reference on *vpp is consumed; on an error *vpp is NULL.
 */
int vfs_cross_mounts(struct vnode **vpp)
{
	struct vnode *vp = *vpp, *rvp;
	struct mount *mp;
	int error;

	while ((mp = vfs_busy_mountedhere(vp)) != NULL) {
		error = mp->mnt_op->vfs_root(mp, &rvp);
		vfs_unbusy(mp);
		vrele(vp);
		if (error != 0) {
			*vpp = NULL;
			return error;
		}
		vp = rvp;
	}
	*vpp = vp;
	return 0;
}

/* Replace the root directory of a mounted file system by the directory it covers. */
static void cross_up(struct vnode **vpp)
{
	struct vnode *vp = *vpp, *covered;

	while (vp != rootvnode && vn_isroot(vp) && vp->v_mount->mnt_vnodecovered != NULL) {
		covered = vp->v_mount->mnt_vnodecovered;
		vref(covered);
		vrele(vp);
		vp = covered;
	}
	*vpp = vp;
}

/*
 * Look up one component `name` in directory dvp. The reference on dvp is consumed; on
 * success *vpp is the (referenced) result.
 */
static int lookup_component(struct vnode *dvp, const char *name, struct vnode **vpp)
{
	struct vnode *vp;
	int error;

	if (dvp->v_type != VDIR) {
		vrele(dvp);
		return ENOTDIR;
	}
	if (strcmp(name, ".") == 0) {
		*vpp = dvp;
		return 0;
	}
	if (strcmp(name, "..") == 0) {
		if (dvp == rootvnode) {
			*vpp = dvp;
			return 0;
		}
		cross_up(&dvp);
		if (dvp == rootvnode) {
			*vpp = dvp;
			return 0;
		}
	}
	error = VOP_LOOKUP(dvp, name, &vp);
	vrele(dvp);
	if (error != 0)
		return error;
	error = vfs_cross_mounts(&vp);
	if (error != 0)
		return error;
	*vpp = vp;
	return 0;
}

/*
 * Walk the first `len` bytes of `path` from `start` (referenced; the reference is consumed).
 * On success *vpp is the referenced result (start itself for an empty walk).
 */
static int lookup_walk(struct vnode *start, const char *path, size_t len, struct vnode **vpp)
{
	char name[MAXNAMLEN + 1];
	struct vnode *vp = start;
	size_t i = 0, first, n;
	int error;

	while (i < len) {
		while (i < len && path[i] == '/')
			i++;
		if (i == len)
			break;
		first = i;
		while (i < len && path[i] != '/')
			i++;
		n = i - first;
		if (n > MAXNAMLEN) {
			vrele(vp);
			return ENAMETOOLONG;
		}
		memcpy(name, path + first, n);
		name[n] = '\0';
		error = lookup_component(vp, name, &vp);
		if (error != 0)
			return error;
	}
	*vpp = vp;
	return 0;
}

/* Check a kernel path: its length, or ENOENT (empty) / ENAMETOOLONG. */
static int path_check(const char *path, size_t *lenp)
{
	size_t len = strnlen(path, PATH_MAX);

	if (len == PATH_MAX)
		return ENAMETOOLONG;
	if (len == 0 || rootvnode == NULL)
		return ENOENT;
	*lenp = len;
	return 0;
}

/* The referenced starting directory for `path`. */
static struct vnode *lookup_start(const char *path)
{
	struct vnode *start = path[0] == '/' ? rootvnode : lookup_cwd();

	vref(start);
	return start;
}

/* namei: the vnode `path` names, referenced (vrele it). */
int namei(const char *path, struct vnode **vpp)
{
	struct vnode *vp;
	size_t len;
	int error;

	error = path_check(path, &len);
	if (error != 0)
		return error;
	error = lookup_walk(lookup_start(path), path, len, &vp);
	if (error != 0)
		return error;
	if (path[len - 1] == '/' && vp->v_type != VDIR) {
		vrele(vp);
		return ENOTDIR;
	}
	*vpp = vp;
	return 0;
}

/*
 * namei_parent: the directory holding the last component of `path`, referenced, and the
 * component in name[]. Trailing slashes are ignored ("a/b/" names b in a). ENOENT for "";
 * EISDIR for "/" (no last component to create, remove or rename: FreeBSD's lookup() answers
 * a "degenerate name" that way for every operation but LOOKUP, sys/kern/vfs_lookup.c).
 */
int namei_parent(const char *path, struct vnode **dvpp, char name[256])
{
	struct vnode *dvp;
	size_t len, end, first;
	int error;

	error = path_check(path, &len);
	if (error != 0)
		return error;
	end = len;
	while (end > 0 && path[end - 1] == '/')
		end--;
	if (end == 0)
		return EISDIR;
	first = end;
	while (first > 0 && path[first - 1] != '/')
		first--;
	if (end - first > MAXNAMLEN)
		return ENAMETOOLONG;
	error = lookup_walk(lookup_start(path), path, first, &dvp);
	if (error != 0)
		return error;
	if (dvp->v_type != VDIR) {
		vrele(dvp);
		return ENOTDIR;
	}
	memcpy(name, path + first, end - first);
	name[end - first] = '\0';
	*dvpp = dvp;
	return 0;
}
