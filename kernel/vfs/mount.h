/*
 * Mounted file systems: the interface between the VFS and each file-system type.
 *
 * A file-system type is a struct vfsops named in the table of types with
 *     VFS_SET(wdfs_vfsops, wdfs, 0);
 * in its own source file: the line puts a struct vfsconf into the linker set "set_vfs"
 * (FreeBSD's VFS_SET, a linker set as in FreeBSD 4's kern/vfs_init.c), so the VFS finds every
 * type linked into the kernel without naming any of them (vfs_conf.c). VFCF_SYNTHETIC marks a
 * type with no device behind it (devfs). The operations, all called with no VFS lock held:
 *   vfs_mount(mp, devvp)  - read and check the superblock on devvp; refuse a corrupt one with a
 *                           console line naming the problem and EINVAL/EFTYPE (never panic);
 *                           set mp->mnt_data. mp->mnt_flag has MNT_RDONLY, and MNT_FORCE while
 *                           mounting an unclean file system read-write is allowed.
 *   vfs_update(mp, flags) - mount -u (NULL: EOPNOTSUPP): make the mounted file system read-only
 *                           (flags has MNT_RDONLY: write everything, mark it clean; EBUSY while
 *                           a file is open for writing) or read-write again (EPERM if it is not
 *                           clean, unless MNT_FORCE). The VFS sets mnt_flag after it succeeds.
 *   vfs_root(mp, &vp)     - the root directory, referenced.
 *   vfs_sync(mp, waitfor) - write all dirty metadata (MNT_WAIT: and wait for it).
 *   vfs_unmount(mp, flags)- after vflush(): flush and release everything; EBUSY if files are
 *                           still open. MNT_FORCE: do not stop at write errors.
 *   vfs_statfs(mp, sbp)   - f_bsize, f_iosize and the block and inode counts; the VFS fills
 *                           the names and f_flags.
 *
 * Mounts are kept busy while the VFS works in them without holding a vnode of theirs
 * (FreeBSD's vfs_busy): vfs_busy(mp, flags) fails with ENOENT once an unmount has started
 * (LK_NOWAIT: at once; else after sleeping until that unmount ends, when mp may be gone, so
 * the caller looks again); unmount waits for the busy count to drain before it flushes.
 */
#ifndef _VFS_MOUNT_H_
#define _VFS_MOUNT_H_

#include "kern/types.h"
#include <sys/mount.h>

struct vnode;
struct mount;

struct vfsops {
	int (*vfs_mount)(struct mount *mp, struct vnode *devvp);
	int (*vfs_update)(struct mount *mp, int flags);
	int (*vfs_unmount)(struct mount *mp, int flags);
	int (*vfs_root)(struct mount *mp, struct vnode **vpp);
	int (*vfs_sync)(struct mount *mp, int waitfor);
	int (*vfs_statfs)(struct mount *mp, struct statfs *sbp);
};

struct vfsconf {
	const char    *vfc_name;      /* "wdfs": mount(2)'s fstype, statfs's f_fstypename */
	struct vfsops *vfc_vfsops;
	int            vfc_flags;     /* VFCF_* */
};

#define VFCF_SYNTHETIC  0x1       /* no backing device: mount(2) takes no device path */

#define VFS_SET(vfsops, fsname, flags)                                                        \
	static const struct vfsconf fsname##_vfsconf = { #fsname, &(vfsops), (flags) };          \
	static const struct vfsconf *fsname##_vfsconf_ptr                                     \
		__attribute__((used, section("set_vfs"))) = &fsname##_vfsconf

/* mnt_kern_flag */
#define MNTK_MOUNTING   0x1       /* vfs_mount is running: not yet usable */
#define MNTK_UNMOUNT    0x2       /* an unmount is in progress: vfs_busy fails */
#define MNTK_MWAIT      0x4       /* someone sleeps (on mp) until the unmount ends */

/* vfs_busy flags */
#define LK_NOWAIT       0x1

/*
 * Locking: mountlist_mtx (vfs_mount.c) protects the mount list, mnt_next, mnt_kern_flag,
 * mnt_busy, mnt_flag's changes by mount -u (read freely), and every covered vnode's
 * v_mountedhere. The other fields are set before the mount
 * is visible and do not change until it is freed, except mnt_data (the file system's) and
 * mnt_vnodelist (vnode_lock), and mnt_writeerrs (bufcache_lock; mnt_writeerrs_told is
 * vfs_writeerr_report's own).
 */
struct mount {
	const struct vfsconf *mnt_vfc;      /* its type */
	struct vfsops *mnt_op;              /* mnt_vfc->vfc_vfsops */
	struct vnode  *mnt_vnodecovered;    /* the directory mounted on (NULL for the root) */
	struct vnode  *mnt_devvp;           /* the device holding it (NULL if synthetic) */
	void          *mnt_data;            /* the file system's private state */
	int            mnt_flag;            /* MNT_RDONLY, MNT_LOCAL, MNT_ROOTFS */
	int            mnt_kern_flag;       /* MNTK_* (mountlist_mtx) */
	int            mnt_busy;            /* vfs_busy holders (mountlist_mtx) */
	char           mnt_fromname[MNAMELEN];   /* statfs's f_mntfromname */
	char           mnt_onname[MNAMELEN];     /* statfs's f_mntonname */
	struct vnode  *mnt_vnodelist;       /* vnodes of this mount (vnode_lock) */
	struct mount  *mnt_next;            /* older mounts (mountlist_mtx) */
	uint32_t       mnt_writeerrs;       /* failed writes of its files' buffers (bufcache_lock) */
	uint32_t       mnt_writeerrs_told;  /* ... and of its device's, as of the last console report */
};

const struct vfsconf *vfs_byname(const char *name);    /* NULL if no such type */
int  vfs_mountroot(const char *spec);   /* "da0" or "wdfs:da0" (vfs_conf.c) */
int  vfs_busy(struct mount *mp, int flags);
void vfs_writeerr_report(struct mount *mp, const char *when);  /* console line if writes failed */
void vfs_unbusy(struct mount *mp);

#endif
