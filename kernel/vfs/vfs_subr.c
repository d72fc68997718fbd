/*
 * vfs_subr.c - vnodes: allocation, reference counting, the free list, and the VOP_* wrappers
 * (interface: vfs/vnode.h); the permission rules every file system applies (vaccess and the
 * vn_*_check functions); vfsinit(), which starts the whole VFS.
 *
 * Vnodes are kmalloc'd on demand up to desiredvnodes (kern.maxvnodes, FreeBSD 4's
 * maxproc + physical pages / 4). A vnode whose last reference goes (vrele) is put on the tail
 * of the free list, still named and cached: its file system can revive it with vget().
 * getnewvnode() recycles the head of the free list (the least recently freed) once the table
 * is full: it writes the vnode's dirty buffers, calls VOP_RECLAIM, and reuses the memory.
 *
 * Locking: vnode_lock (spinlock) protects v_usecount, v_iflag, the free list, numvnodes and
 * every mount's mnt_vnodelist/v_mntnext. VOPs are called with no VFS lock held.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/proc.h"
#include "kern/sleep.h"
#include "kern/sysctl.h"
#include "vfs/vnode.h"
#include "vfs/mount.h"
#include "vfs/buf.h"
#include "vfs/vfs.h"
#include "vfs/devfs.h"
#include "dev/null.h"
#include "dev/random.h"
#include "vm/vnode_pager.h"
#include "vm/vm_pager.h"
#include <sys/errno.h>

extern uint32_t physmem_pages;

/* VOP_INACTIVE is running (private to this file): a concurrent last vrele skips it. */
#define VI_DOINGINACT 0x0100

static struct spinlock vnode_lock;
static struct vnode *vfree_head, *vfree_tail;   /* the free list, LRU order */

static int numvnodes;
SYSCTL_INT(vfs, numvnodes, CTLFLAG_RD, &numvnodes, "Number of vnodes allocated");
static int freevnodes;
SYSCTL_INT(vfs, freevnodes, CTLFLAG_RD, &freevnodes, "Number of vnodes on the free list");
static int desiredvnodes;
SYSCTL_INT(kern, maxvnodes, CTLFLAG_RW, &desiredvnodes, "Vnodes kept before free ones are recycled");

struct vnode *rootvnode;

/* ---- free list and mount lists (vnode_lock held) --------------------------------------------- */

static void vfree_insert_tail(struct vnode *vp)
{
	vp->v_iflag |= VI_FREE;
	vp->v_freenext = NULL;
	vp->v_freeprev = vfree_tail;
	if (vfree_tail != NULL)
		vfree_tail->v_freenext = vp;
	else
		vfree_head = vp;
	vfree_tail = vp;
	freevnodes++;
}

static void vfree_remove(struct vnode *vp)
{
	if (vp->v_freeprev != NULL)
		vp->v_freeprev->v_freenext = vp->v_freenext;
	else
		vfree_head = vp->v_freenext;
	if (vp->v_freenext != NULL)
		vp->v_freenext->v_freeprev = vp->v_freeprev;
	else
		vfree_tail = vp->v_freeprev;
	vp->v_freenext = vp->v_freeprev = NULL;
	vp->v_iflag &= ~VI_FREE;
	freevnodes--;
}

static void insmntque(struct vnode *vp, struct mount *mp)
{
	vp->v_mount = mp;
	if (mp == NULL)
		return;
	vp->v_mntnext = mp->mnt_vnodelist;
	mp->mnt_vnodelist = vp;
}

static void remmntque(struct vnode *vp)
{
	struct vnode **pp;

	if (vp->v_mount == NULL)
		return;
	for (pp = &vp->v_mount->mnt_vnodelist; *pp != NULL; pp = &(*pp)->v_mntnext) {
		if (*pp == vp) {
			*pp = vp->v_mntnext;
			break;
		}
	}
	vp->v_mntnext = NULL;
	vp->v_mount = NULL;
}

/* ---- life cycle ------------------------------------------------------------------------------ */

/* The life-cycle operations are optional and called only from this file. */
static void vop_inactive_call(struct vnode *vp)
{
	if (vp->v_op->vop_inactive != NULL)
		vp->v_op->vop_inactive(vp);
}

static void vop_reclaim_call(struct vnode *vp)
{
	if (vp->v_op->vop_reclaim != NULL)
		vp->v_op->vop_reclaim(vp);
}

/*
 * Tear down a vnode taken off the free list (VI_DOOMED set, usecount 0): write and drop its
 * buffers and let its file system forget it. Sleeps for the I/O.
 */
static void vreclaim(struct vnode *vp)
{
	if (vinvalbuf(vp, V_SAVE) != 0) {
		kprintf("vfs: write error while recycling a vnode; its dirty blocks are lost\n");
		vinvalbuf(vp, 0);
	}
	vop_reclaim_call(vp);
	spin_lock(&vnode_lock);
	remmntque(vp);
	spin_unlock(&vnode_lock);
}

/*
 * getnewvnode: a fresh vnode of mount mp (NULL for none) with operations ops, usecount 1,
 * type VNON. New memory while below desiredvnodes (or when nothing is free), else the least
 * recently freed vnode, recycled. Sleeps. 0 or ENOMEM.
 */
int getnewvnode(struct mount *mp, struct vop_vector *ops, struct vnode **vpp)
{
	struct vnode *vp;

	spin_lock(&vnode_lock);
	if (numvnodes < desiredvnodes || vfree_head == NULL) {
		numvnodes++;
		spin_unlock(&vnode_lock);
		vp = kmalloc(sizeof(*vp), M_WAITOK | M_ZERO);
		if (vp == NULL) {
			spin_lock(&vnode_lock);
			numvnodes--;
			spin_unlock(&vnode_lock);
			return ENOMEM;
		}
	} else {
		vp = vfree_head;
		vfree_remove(vp);
		vp->v_iflag |= VI_DOOMED;
		spin_unlock(&vnode_lock);
		vreclaim(vp);
		memset(vp, 0, sizeof(*vp));
	}
	vp->v_type = VNON;
	vp->v_usecount = 1;
	vp->v_op = ops;
	TAILQ_INIT(&vp->v_cleanblkhd);
	TAILQ_INIT(&vp->v_dirtyblkhd);
	sleeplock_init(&vp->v_lock, "vnlock");
	spin_lock(&vnode_lock);
	insmntque(vp, mp);
	spin_unlock(&vnode_lock);
	*vpp = vp;
	return 0;
}

/* vref: one more reference on a vnode the caller already holds one on. */
void vref(struct vnode *vp)
{
	spin_lock(&vnode_lock);
	KASSERT(vp->v_usecount > 0 || (vp->v_iflag & VI_DOINGINACT), "vref: unreferenced vnode");
	vp->v_usecount++;
	spin_unlock(&vnode_lock);
}

/*
 * vget: a reference on a vnode found in a file system's cache, perhaps on the free list.
 * ENOENT if it is being recycled (the file system must look it up afresh).
 */
int vget(struct vnode *vp)
{
	spin_lock(&vnode_lock);
	if (vp->v_iflag & VI_DOOMED) {
		spin_unlock(&vnode_lock);
		return ENOENT;
	}
	if (vp->v_iflag & VI_FREE)
		vfree_remove(vp);
	vp->v_usecount++;
	spin_unlock(&vnode_lock);
	return 0;
}

/*
 * vrele: drop a reference. The last one calls VOP_INACTIVE (an unlinked file's blocks are
 * freed there) and puts the vnode on the free list unless it was revived meanwhile. Sleeps.
 */
void vrele(struct vnode *vp)
{
	spin_lock(&vnode_lock);
	KASSERT(vp->v_usecount > 0, "vrele: negative reference count");
	if (--vp->v_usecount > 0 || (vp->v_iflag & VI_DOINGINACT)) {
		spin_unlock(&vnode_lock);
		return;
	}
	vp->v_iflag |= VI_DOINGINACT;
	spin_unlock(&vnode_lock);
	/* open files and map entries hold references: with none, nothing may count it */
	KASSERT(vp->v_writecount == 0 && vp->v_textcount == 0, "vrele: writers or text without references");

	vop_inactive_call(vp);

	spin_lock(&vnode_lock);
	vp->v_iflag &= ~VI_DOINGINACT;
	if (vp->v_usecount == 0 && !(vp->v_iflag & (VI_FREE | VI_DOOMED)))
		vfree_insert_tail(vp);
	spin_unlock(&vnode_lock);
}

/*
 * vflush: write and reclaim every vnode of mp before an unmount. EBUSY (nothing changed) if one
 * is still referenced. A vnode whose buffers cannot be written stops it with the error (that
 * vnode and the ones not reached yet stay) unless `force`, which drops what cannot be written.
 * A vnode the recycler is tearing down (VI_DOOMED) is waited for: it leaves the list when done.
 * The memory of each reclaimed vnode is freed: the file system's state is going away.
 */
int vflush(struct mount *mp, int force)
{
	struct vnode *vp;
	int error;

	spin_lock(&vnode_lock);
	for (vp = mp->mnt_vnodelist; vp != NULL; vp = vp->v_mntnext) {
		if (vp->v_usecount > 0 || (vp->v_iflag & VI_DOINGINACT)) {
			spin_unlock(&vnode_lock);
			return EBUSY;
		}
	}
	while ((vp = mp->mnt_vnodelist) != NULL) {
		if (vp->v_usecount > 0 || (vp->v_iflag & VI_DOINGINACT)) {
			spin_unlock(&vnode_lock);
			return EBUSY;
		}
		if (vp->v_iflag & VI_DOOMED) {
			spin_unlock(&vnode_lock);
			tsleep(&vp, 0, "vflush", 1);
			spin_lock(&vnode_lock);
			continue;
		}
		if (vp->v_iflag & VI_FREE)
			vfree_remove(vp);
		vp->v_iflag |= VI_DOOMED;
		spin_unlock(&vnode_lock);
		error = vinvalbuf(vp, V_SAVE);
		if (error != 0 && !force) {
			spin_lock(&vnode_lock);
			vp->v_iflag &= ~VI_DOOMED;
			vfree_insert_tail(vp);
			spin_unlock(&vnode_lock);
			return error;
		}
		vreclaim(vp);
		kfree(vp);
		spin_lock(&vnode_lock);
		numvnodes--;
	}
	spin_unlock(&vnode_lock);
	return 0;
}

/* vn_isroot: vp is the root directory of its mount (".." must cross to the covered vnode). */
bool vn_isroot(struct vnode *vp)
{
	struct vnode *rvp;

	if (vp->v_mount == NULL || vp->v_type != VDIR)
		return false;
	if (vp->v_mount->mnt_op->vfs_root(vp->v_mount, &rvp) != 0)
		return false;
	vrele(rvp);
	return rvp == vp;
}

/* ---- permission rules (FreeBSD 4's, see vnode.h) ------------------------------------------- */

/*
 * vaccess: FreeBSD 4's ufs_access test (sys/ufs/ufs/ufs_vnops.c 1.131.2.1) on the permission
 * bits: root may do anything; the owner is judged by the owner's bits alone, a member of the
 * file's group by the group's, everyone else by the others' - never by a mix.
 */
int vaccess(mode_t fmode, uid_t fuid, gid_t fgid, int acc, const struct ucred *cred)
{
	mode_t bits = acc & (VREAD | VWRITE | VEXEC);       /* the owner's bits: 0400 0200 0100 */

	if (cred->cr_uid == 0)
		return 0;
	if (cred->cr_uid != fuid) {
		bits >>= 3;                                   /* the group's */
		if (!groupmember(fgid, cred))
			bits >>= 3;                           /* the others' */
	}
	return (fmode & bits) == bits ? 0 : EACCES;
}

/* vn_chmod_check: ufs_chmod's rules (vnode.h). */
int vn_chmod_check(enum vtype type, uid_t fuid, gid_t fgid, mode_t mode, const struct ucred *cred)
{
	if (cred->cr_uid == 0)
		return 0;
	if (cred->cr_uid != fuid)
		return EPERM;
	if (type != VDIR && (mode & S_ISTXT))
		return EFTYPE;
	if ((mode & S_ISGID) && !groupmember(fgid, cred))
		return EPERM;
	return 0;
}

/* vn_chown_check: ufs_chown's rules (vnode.h); uid and gid are the new ones, resolved. */
int vn_chown_check(uid_t fuid, gid_t fgid, uid_t uid, gid_t gid, const struct ucred *cred)
{
	if (cred->cr_uid == 0)
		return 0;
	if (cred->cr_uid != fuid || uid != fuid || (gid != fgid && !groupmember(gid, cred)))
		return EPERM;
	return 0;
}

/* vn_utimes_check: ufs_setattr's rules for the times (vnode.h). */
int vn_utimes_check(mode_t fmode, uid_t fuid, gid_t fgid, int vaflags, const struct ucred *cred)
{
	if (cred->cr_uid == 0 || cred->cr_uid == fuid)
		return 0;
	if (!(vaflags & VA_UTIMES_NULL))
		return EPERM;
	return vaccess(fmode, fuid, fgid, VWRITE, cred);
}

/* vn_sticky_check: the sticky directory's rule (vnode.h). */
int vn_sticky_check(mode_t dmode, uid_t duid, uid_t fuid, const struct ucred *cred)
{
	if (!(dmode & S_ISTXT) || cred->cr_uid == 0 || cred->cr_uid == duid || cred->cr_uid == fuid)
		return 0;
	return EPERM;
}

/* ---- VOP wrappers: a NULL operation means "not supported" ------------------------------------ */

#define VOP_DIR_CALL(dvp, op, ...) \
	((dvp)->v_type != VDIR ? ENOTDIR : \
	 (dvp)->v_op->op == NULL ? ENOTSUP : (dvp)->v_op->op(__VA_ARGS__))
#define VOP_CALL_OR(vp, op, err, ...) \
	((vp)->v_op->op == NULL ? (err) : (vp)->v_op->op(__VA_ARGS__))

int VOP_LOOKUP(struct vnode *dvp, const char *name, struct vnode **vpp)
{
	return VOP_DIR_CALL(dvp, vop_lookup, dvp, name, vpp);
}

int VOP_CREATE(struct vnode *dvp, const char *name, int mode, struct vnode **vpp)
{
	return VOP_DIR_CALL(dvp, vop_create, dvp, name, mode, vpp);
}

int VOP_MKDIR(struct vnode *dvp, const char *name, int mode, struct vnode **vpp)
{
	return VOP_DIR_CALL(dvp, vop_mkdir, dvp, name, mode, vpp);
}

int VOP_REMOVE(struct vnode *dvp, const char *name)
{
	return VOP_DIR_CALL(dvp, vop_remove, dvp, name);
}

int VOP_RMDIR(struct vnode *dvp, const char *name)
{
	return VOP_DIR_CALL(dvp, vop_rmdir, dvp, name);
}

int VOP_LINK(struct vnode *dvp, const char *name, struct vnode *vp)
{
	return VOP_DIR_CALL(dvp, vop_link, dvp, name, vp);
}

int VOP_RENAME(struct vnode *fdvp, const char *fname, struct vnode *tdvp, const char *tname)
{
	if (tdvp->v_type != VDIR)
		return ENOTDIR;
	return VOP_DIR_CALL(fdvp, vop_rename, fdvp, fname, tdvp, tname);
}

int VOP_SYMLINK(struct vnode *dvp, const char *name, int mode, const char *target, struct vnode **vpp)
{
	return VOP_DIR_CALL(dvp, vop_symlink, dvp, name, mode, target, vpp);
}

int VOP_MKNOD(struct vnode *dvp, const char *name, int mode, dev_t rdev, struct vnode **vpp)
{
	return VOP_DIR_CALL(dvp, vop_mknod, dvp, name, mode, rdev, vpp);
}

int VOP_READDIR(struct vnode *vp, struct uio *uio)
{
	return VOP_DIR_CALL(vp, vop_readdir, vp, uio);
}

int VOP_READLINK(struct vnode *vp, struct uio *uio)
{
	if (vp->v_type != VLNK)
		return EINVAL;
	return VOP_CALL_OR(vp, vop_readlink, EINVAL, vp, uio);
}

int VOP_READ(struct vnode *vp, struct uio *uio, int ioflag)
{
	if (vp->v_type == VDIR)
		return EISDIR;
	return VOP_CALL_OR(vp, vop_read, EINVAL, vp, uio, ioflag);
}

int VOP_WRITE(struct vnode *vp, struct uio *uio, int ioflag)
{
	if (vp->v_type == VDIR)
		return EISDIR;
	return VOP_CALL_OR(vp, vop_write, EINVAL, vp, uio, ioflag);
}

int VOP_GETATTR(struct vnode *vp, struct stat *st)
{
	return VOP_CALL_OR(vp, vop_getattr, EINVAL, vp, st);
}

/* No access operation: the generic test (FreeBSD's vaccess) on the attributes. */
int VOP_ACCESS(struct vnode *vp, int mode)
{
	struct stat st;
	int error;

	if (vp->v_op->vop_access != NULL)
		return vp->v_op->vop_access(vp, mode);
	error = VOP_GETATTR(vp, &st);
	if (error != 0)
		return error;
	return vaccess(st.st_mode, st.st_uid, st.st_gid, mode, cred_cur());
}

int VOP_CHMOD(struct vnode *vp, mode_t mode)
{
	return VOP_CALL_OR(vp, vop_chmod, EOPNOTSUPP, vp, mode);
}

int VOP_CHOWN(struct vnode *vp, uid_t uid, gid_t gid)
{
	return VOP_CALL_OR(vp, vop_chown, EOPNOTSUPP, vp, uid, gid);
}

int VOP_TRUNCATE(struct vnode *vp, off_t length)
{
	if (vp->v_type == VDIR)
		return EISDIR;
	return VOP_CALL_OR(vp, vop_truncate, EINVAL, vp, length);
}

int VOP_CLEARSETID(struct vnode *vp)
{
	return VOP_CALL_OR(vp, vop_clearsetid, 0, vp);
}

int VOP_SETTIMES(struct vnode *vp, time_t atime, time_t mtime, int vaflags)
{
	return VOP_CALL_OR(vp, vop_settimes, ENOTSUP, vp, atime, mtime, vaflags);
}

int VOP_FSYNC(struct vnode *vp, int waitfor)
{
	return VOP_CALL_OR(vp, vop_fsync, 0, vp, waitfor);
}

int VOP_OPEN(struct vnode *vp, int fflag)
{
	return VOP_CALL_OR(vp, vop_open, 0, vp, fflag);
}

int VOP_CLOSE(struct vnode *vp, int fflag)
{
	return VOP_CALL_OR(vp, vop_close, 0, vp, fflag);
}

int VOP_IOCTL(struct vnode *vp, u_long cmd, void *data, int fflag)
{
	return VOP_CALL_OR(vp, vop_ioctl, ENOTTY, vp, cmd, data, fflag);
}

/*
 * VOP_STRATEGY always completes the buffer: a vnode without a strategy routine fails it with
 * ENODEV through biodone, so bread/bwrite callers see the error from biowait.
 */
int VOP_STRATEGY(struct vnode *vp, struct buf *bp)
{
	if (vp->v_op->vop_strategy == NULL) {
		bp->b_error = ENODEV;
		biodone(bp);
		return ENODEV;
	}
	return vp->v_op->vop_strategy(vp, bp);
}

int VOP_BMAP(struct vnode *vp, daddr_t lblkno, daddr_t *blknop)
{
	return VOP_CALL_OR(vp, vop_bmap, ENODEV, vp, lblkno, blknop);
}

/* No getpages: the file system keeps no pages (no VM object); the pages cannot be read. */
int VOP_GETPAGES(struct vnode *vp, struct vm_page **m, int count, int reqpage)
{
	if (vp->v_op->vop_getpages == NULL)
		return VM_PAGER_ERROR;
	return vp->v_op->vop_getpages(vp, m, count, reqpage);
}

/* No putpages: the file system cannot write pages with the vnode locked; every page fails. */
int VOP_PUTPAGES(struct vnode *vp, struct vm_page **m, int count, int flags, int *rtvals)
{
	if (vp->v_op->vop_putpages == NULL) {
		for (int i = 0; i < count; i++)
			rtvals[i] = VM_PAGER_ERROR;
		return VM_PAGER_ERROR;
	}
	return vp->v_op->vop_putpages(vp, m, count, flags, rtvals);
}

/* ---- start-up -------------------------------------------------------------------------------- */

/*
 * vfsinit: the buffer cache and its flusher, the vnode table, the mount list, devfs,
 * /dev/null, /dev/zero, /dev/random and /dev/urandom, and the syncer. The file-system types need no start-up: they are
 * in the linker set VFS_SET fills (vfs_conf.c). The boot code then attaches the disks and
 * calls vfs_mountroot().
 */
void vfsinit(void)
{
	spin_init(&vnode_lock, "vnode");
	desiredvnodes = NPROC + (int)physmem_pages / 4;
	bufinit();
	vfs_mount_init();
	devfs_init();
	null_init();
	random_init();
	syncer_start();
}
