/*
 * vfs_lookup.c - path name lookup (FreeBSD's namei/lookup; interface in vfs/vnode.h).
 *
 *   namei(path, &vp)               - the vnode a path names, symbolic links followed.
 *   namei_flags(path, flags, &vp)  - without FOLLOW, a link in the last component is returned.
 *   namei_parent(path, &dvp, name) - the directory holding the last component, referenced,
 *                                    and that component (for create, remove, rename...).
 *   namei_create(path, flags, &dvp, name, &vp) - open(2)'s O_CREAT lookup.
 *
 * A path is walked one component at a time with VOP_LOOKUP, starting at rootvnode for an
 * absolute path and at the current process's p_cwd otherwise (rootvnode for kernel threads).
 * Every directory searched must grant the caller search permission (VOP_ACCESS VEXEC: EACCES),
 * as FreeBSD's lookup asks VOP_ACCESS before each VOP_LOOKUP.
 * Mount points are crossed both ways, as FreeBSD's lookup() does:
 *   down - a vnode with v_mountedhere is replaced by the root of the file system mounted there;
 *   up   - ".." in the root directory of a mounted file system is looked up in the directory it
 *          covers (mnt_vnodecovered); ".." in "/" is "/".
 * Symbolic links, as FreeBSD 4's namei (sys/kern/vfs_lookup.c 1.38.2.3, RELENG_4): a link met
 * before the last component is always followed, one in the last component only with FOLLOW or when
 * a slash follows it. Its target takes the link's place in the path - an absolute target restarts
 * at the root, a relative one in the directory holding the link - and the walk goes on. After
 * MAXSYMLINKS (32) links the lookup fails with ELOOP; an empty target is ENOENT; a path grown past
 * PATH_MAX by a target is ENAMETOOLONG.
 * A trailing slash requires a directory (ENOTDIR otherwise).
 *
 * Locking: none of its own; every vnode held is referenced, and VOPs are called unlocked.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/proc.h"
#include "kern/uio.h"
#include "vfs/vnode.h"
#include "vfs/mount.h"
#include "vfs/vfs.h"
#include <sys/dirent.h>
#include <sys/errno.h>

/* namei_walk's modes */
#define WALK_ALL     0      /* the vnode the whole path names */
#define WALK_PARENT  1      /* the directory of the last component; the last is not looked up */
#define WALK_CREATE  2      /* the directory of the last component and, if it exists, the file */

/* The path being walked: what is left of it is buf[pos..len). */
struct nameidata {
	char   *buf;                 /* PATH_MAX bytes */
	size_t  pos, len;
	int     loopcnt;             /* symbolic links followed so far */
};

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

/* May the caller search directory dvp? ENOTDIR, EACCES. */
static int dir_searchable(struct vnode *dvp)
{
	if (dvp->v_type != VDIR)
		return ENOTDIR;
	return VOP_ACCESS(dvp, VEXEC);
}

/*
 * Look up one component `name` in directory dvp (whose reference stays the caller's). On
 * success *vpp is the referenced result, with mount points crossed.
 */
static int lookup_component(struct vnode *dvp, const char *name, struct vnode **vpp)
{
	struct vnode *vp, *up;
	int error;

	error = dir_searchable(dvp);
	if (error != 0)
		return error;
	if (strcmp(name, ".") == 0 || (strcmp(name, "..") == 0 && dvp == rootvnode)) {
		vref(dvp);
		*vpp = dvp;
		return 0;
	}
	if (strcmp(name, "..") == 0) {
		up = dvp;
		vref(up);
		cross_up(&up);
		if (up == rootvnode) {
			*vpp = up;
			return 0;
		}
		error = VOP_LOOKUP(up, name, &vp);
		vrele(up);
	} else {
		error = VOP_LOOKUP(dvp, name, &vp);
	}
	if (error == 0)
		error = vfs_cross_mounts(&vp);
	if (error == 0)
		*vpp = vp;
	return error;
}

/*
 * Put symbolic link vp's target in front of what is left of the path after the link (from
 * byte `rest`), in nd->buf. The link's reference is the caller's.
 */
static int follow_link(struct nameidata *nd, struct vnode *vp, size_t rest)
{
	struct iovec iov;
	struct uio uio;
	size_t linklen, restlen = nd->len - rest;
	char *target;
	int error;

	if (++nd->loopcnt > MAXSYMLINKS)
		return ELOOP;
	target = kmalloc(PATH_MAX, M_WAITOK);
	if (target == NULL)
		return ENOMEM;
	iov = (struct iovec){ target, PATH_MAX };
	uio = (struct uio){ &iov, 1, 0, PATH_MAX, UIO_SYSSPACE, UIO_READ };
	error = VOP_READLINK(vp, &uio);
	linklen = PATH_MAX - uio.uio_resid;
	if (error == 0 && linklen == 0)
		error = ENOENT;
	if (error == 0 && linklen + restlen >= PATH_MAX)
		error = ENAMETOOLONG;
	if (error == 0) {
		memmove(nd->buf + linklen, nd->buf + rest, restlen);
		memcpy(nd->buf, target, linklen);
		nd->buf[linklen + restlen] = '\0';
		nd->pos = 0;
		nd->len = linklen + restlen;
	}
	kfree(target);
	return error;
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

/* The referenced starting directory for a path beginning with c. */
static struct vnode *lookup_start(char c)
{
	struct vnode *start = c == '/' ? rootvnode : lookup_cwd();

	vref(start);
	return start;
}

/*
 * Walk the path in nd from directory *dvpp (referenced) in `mode` (WALK_*), following links as
 * `flags` and the rules at the top say. WALK_ALL: *vpp is the result, *dvpp released.
 * WALK_PARENT and WALK_CREATE: *dvpp is the last component's directory and name[] the
 * component; WALK_CREATE also gives the file in *vpp (NULL if there is none). On an error
 * nothing stays referenced.
 */
static int namei_walk(struct nameidata *nd, int mode, int flags, struct vnode **dvpp,
                      char name[MAXNAMLEN + 1], struct vnode **vpp)
{
	struct vnode *dvp = *dvpp, *vp;
	size_t first, end, next;
	bool last, slash;
	int error;

	for (;;) {
		while (nd->pos < nd->len && nd->buf[nd->pos] == '/')
			nd->pos++;
		if (nd->pos == nd->len) {       /* nothing but slashes left: "/" or a walk ending in one */
			if (mode != WALK_ALL) {
				vrele(dvp);
				return EISDIR;      /* no last component to create, remove or rename */
			}
			*vpp = dvp;
			return 0;
		}
		first = nd->pos;
		for (end = first; end < nd->len && nd->buf[end] != '/'; end++)
			continue;
		if (end - first > MAXNAMLEN) {
			vrele(dvp);
			return ENAMETOOLONG;
		}
		memcpy(name, nd->buf + first, end - first);
		name[end - first] = '\0';
		for (next = end; next < nd->len && nd->buf[next] == '/'; next++)
			continue;
		last = next == nd->len;
		slash = last && end != nd->len;
		if (last && mode == WALK_PARENT) {
			error = dir_searchable(dvp);
			if (error != 0) {
				vrele(dvp);
				return error;
			}
			*dvpp = dvp;
			return 0;
		}
		error = lookup_component(dvp, name, &vp);
		if (error == ENOENT && last && mode == WALK_CREATE) {
			*dvpp = dvp;
			*vpp = NULL;
			return 0;
		}
		if (error != 0) {
			vrele(dvp);
			return error;
		}
		if (vp->v_type == VLNK && (!last || (flags & FOLLOW) || slash)) {
			error = follow_link(nd, vp, end);
			vrele(vp);
			if (error == 0 && nd->buf[0] == '/') {
				vrele(dvp);
				dvp = lookup_start('/');
			}
			if (error != 0) {
				vrele(dvp);
				return error;
			}
			continue;                   /* the target's components, from dvp */
		}
		if (last && mode == WALK_CREATE) {
			*dvpp = dvp;
			*vpp = vp;
			return 0;
		}
		vrele(dvp);
		if (last) {
			if (slash && vp->v_type != VDIR) {
				vrele(vp);
				return ENOTDIR;
			}
			*vpp = vp;
			return 0;
		}
		dvp = vp;
		nd->pos = next;
	}
}

/* Set nd up for `path` and walk it (see namei_walk); the buffer is freed again. */
static int namei_path(const char *path, int mode, int flags, struct vnode **dvpp,
                      char name[MAXNAMLEN + 1], struct vnode **vpp)
{
	struct nameidata nd;
	struct vnode *dvp;
	int error;

	error = path_check(path, &nd.len);
	if (error != 0)
		return error;
	nd.buf = kmalloc(PATH_MAX, M_WAITOK);
	if (nd.buf == NULL)
		return ENOMEM;
	memcpy(nd.buf, path, nd.len + 1);
	nd.pos = 0;
	nd.loopcnt = 0;
	dvp = lookup_start(path[0]);
	error = namei_walk(&nd, mode, flags, &dvp, name, vpp);
	kfree(nd.buf);
	if (error == 0 && dvpp != NULL)
		*dvpp = dvp;
	return error;
}

/* namei_flags: the vnode `path` names, referenced (vrele it). */
int namei_flags(const char *path, int flags, struct vnode **vpp)
{
	char name[MAXNAMLEN + 1];

	return namei_path(path, WALK_ALL, flags, NULL, name, vpp);
}

/* namei: namei_flags with FOLLOW, what most system calls want. */
int namei(const char *path, struct vnode **vpp)
{
	return namei_flags(path, FOLLOW, vpp);
}

/*
 * namei_parent: the directory holding the last component of `path`, referenced, and the
 * component in name[]. Trailing slashes are ignored ("a/b/" names b in a). ENOENT for "";
 * EISDIR for "/" (no last component to create, remove or rename: FreeBSD's lookup() answers
 * a "degenerate name" that way for every operation but LOOKUP, sys/kern/vfs_lookup.c).
 */
int namei_parent(const char *path, struct vnode **dvpp, char name[256])
{
	return namei_path(path, WALK_PARENT, NOFOLLOW, dvpp, name, NULL);
}

/*
 * namei_create: the directory (referenced) and name where `path` is or would be created, and
 * the file in *vpp if it exists (referenced), else NULL. With FOLLOW a symbolic link in the
 * last component is followed, to a target that does not exist yet too (FreeBSD's vn_open
 * creates through a dangling link unless O_EXCL or O_NOFOLLOW).
 */
int namei_create(const char *path, int flags, struct vnode **dvpp, char name[256],
                 struct vnode **vpp)
{
	return namei_path(path, WALK_CREATE, flags, dvpp, name, vpp);
}
