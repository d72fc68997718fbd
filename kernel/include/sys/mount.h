/*
 * Mounted file systems: the ABI of mount(2), unmount(2), statfs(2), fstatfs(2) and getfsstat(2),
 * shared by the kernel and user/lib. Names and values are FreeBSD 4's <sys/mount.h> where the
 * concept exists there; struct statfs keeps the fields that mean something in wdrain, with
 * 64-bit counts.
 *
 *   mount(fstype, dir, flags, data)   data: the device's path ("/dev/da1"); NULL for devfs
 *                                     (and with MNT_UPDATE)
 *   unmount(dir, flags)               dir: the root of a mounted file system
 *   statfs(path, &sb)  fstatfs(fd, &sb)
 *   getfsstat(buf, bufsize, flags)    one struct statfs per mount (newest first) into buf, at
 *                                     most bufsize bytes; returns how many mounts there are
 *                                     (buf NULL: only the count). flags MNT_WAIT / MNT_NOWAIT.
 */
#ifndef _SYS_MOUNT_H_
#define _SYS_MOUNT_H_

#include <sys/types.h>

#define MFSNAMELEN  16          /* a file-system type name, NUL included */
#define MNAMELEN    88          /* a mount-on or mount-from name, NUL included */

struct statfs {
	uint32_t f_bsize;                   /* fundamental block size: the unit of f_blocks... */
	uint32_t f_iosize;                  /* optimal transfer size */
	uint64_t f_blocks;                  /* data blocks in the file system */
	uint64_t f_bfree;                   /* free blocks */
	uint64_t f_bavail;                  /* free blocks an unprivileged user may take */
	uint64_t f_files;                   /* inodes */
	uint64_t f_ffree;                   /* free inodes */
	uint32_t f_flags;                   /* MNT_* flags of the mount */
	uint32_t f_spare;
	char     f_fstypename[MFSNAMELEN];  /* "wdfs", "devfs" */
	char     f_mntonname[MNAMELEN];     /* the directory it is mounted on */
	char     f_mntfromname[MNAMELEN];   /* the device ("/dev/ccd0"), or the type's name */
};

/* Mount flags: mount(2) takes MNT_RDONLY, MNT_FORCE (mount an unclean file system
 * read-write), MNT_UPDATE (change a mounted file system between read-only and read-write:
 * `mount -u`; dir is its mount point, fstype and data are ignored), MNT_NOCLUSTERR and
 * MNT_NOCLUSTERW (docs/bufcache.md); statfs reports them and MNT_LOCAL and MNT_ROOTFS. */
#define MNT_RDONLY  0x00000001      /* read-only */
#define MNT_LOCAL   0x00001000      /* stored locally (every wdrain file system) */
#define MNT_ROOTFS  0x00004000      /* the root file system */
#define MNT_UPDATE  0x00010000      /* mount(2): change the flags of an existing mount */
#define MNT_FORCE   0x00080000      /* mount(2): despite an unclean file system; unmount(2):
                                       despite write errors in the final flush (docs/vfs.md) */
#define MNT_NOCLUSTERR 0x40000000   /* file reads are not clustered (no read-ahead) */
#define MNT_NOCLUSTERW 0x80000000u  /* file writes are not clustered: each full block bawrite */

/* getfsstat(2) flags; also VFS_SYNC's waitfor inside the kernel. */
#define MNT_WAIT    1               /* wait for the data / refresh the counts */
#define MNT_NOWAIT  2               /* start the writes only / counts may be stale */

#endif
