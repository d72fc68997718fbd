/*
 * Mounted file systems.
 * A file system type provides a struct vfsops and registers it with vfs_register(). Mounting
 * (mount(2), or vfs_mountroot at boot) opens the device, calls vfs_mount, and covers a directory.
 *   vfs_mount(mp, devvp)  - read and check the superblock; refuse a corrupt one with a clear
 *                           console message and EINVAL/EFTYPE (never panic); set mp->mnt_data.
 *   vfs_root(mp, &vp)     - the root directory, referenced.
 *   vfs_sync(mp, waitfor) - write all dirty metadata and data.
 *   vfs_unmount(mp, flags)- flush and release everything; EBUSY if files are still open.
 *   vfs_statfs(mp, sbp)   - sizes and free counts.
 */
#ifndef _VFS_MOUNT_H_
#define _VFS_MOUNT_H_

#include "kern/types.h"

struct vnode;
struct mount;

struct statfs {
	uint32_t f_bsize;        /* block size */
	uint64_t f_blocks;       /* total blocks */
	uint64_t f_bfree;        /* free blocks */
	uint64_t f_files;        /* total inodes */
	uint64_t f_ffree;        /* free inodes */
	char     f_fstypename[16];
	char     f_mntonname[88];
	char     f_mntfromname[88];
};

struct vfsops {
	const char *vfs_name;    /* "wdfs" */
	int (*vfs_mount)(struct mount *mp, struct vnode *devvp);
	int (*vfs_unmount)(struct mount *mp, int flags);
	int (*vfs_root)(struct mount *mp, struct vnode **vpp);
	int (*vfs_sync)(struct mount *mp, int waitfor);
	int (*vfs_statfs)(struct mount *mp, struct statfs *sbp);
};

struct mount {
	struct vfsops *mnt_op;
	struct vnode  *mnt_vnodecovered;  /* the directory mounted on (NULL for the root) */
	struct vnode  *mnt_devvp;         /* the device holding it */
	void          *mnt_data;          /* the file system's private state */
	int            mnt_flag;          /* MNT_RDONLY ... */
	struct statfs  mnt_stat;          /* names filled in by the VFS */
	struct vnode  *mnt_vnodelist;     /* vnodes of this mount (vnode_lock) */
	struct mount  *mnt_next;
};

void           vfs_register(struct vfsops *ops);
struct vfsops *vfs_byname(const char *name);
int            vfs_mountroot(const char *devname);   /* "md0", "da0" ... */
struct mount  *mount_first(void);

#endif
