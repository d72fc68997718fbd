/*
 * Vnodes: the kernel's handle on a file, directory, symbolic link, FIFO or device, whatever
 * file system holds it.
 *
 * Reference counting: v_usecount counts holders. vref() adds one; vrele() drops one, and at zero
 * calls VOP_INACTIVE (a file system frees an unlinked inode's blocks there) and puts the vnode on
 * the free list, still cached: its buffers stay valid and the file system's inode hash can revive it
 * with vget(). getnewvnode() recycles the least recently freed vnode when all are in use: it writes
 * its dirty buffers (vinvalbuf V_SAVE), calls VOP_RECLAIM (the fs forgets it) and reuses it.
 *
 * Locking protocol (simpler than FreeBSD's on purpose): VOPs are called with no vnode lock held
 * and a reference on each vnode argument. Each file system serializes inside its VOPs as it needs
 * (wdfs takes the inode's v_lock). namei() walks one component at a time through VOP_LOOKUP,
 * crossing mount points and following symbolic links itself.
 *
 * Credentials: a VOP acts for the current process, as FreeBSD's VOPs act for the ucred they are
 * passed (always the caller's there too). A file system that needs them - the owner of a new
 * file, the sticky bit, the permission checks of chmod, chown and utimes - reads cred_cur()
 * (kern/ucred.h), and applies the VFS's rules below (vaccess, vn_*_check) under its own locks.
 *
 *   vget(vp)  - take a reference on a vnode found in a file system's hash; fails with ENOENT if
 *               it is being reclaimed (the caller then looks it up again / reloads it).
 *   vn_rdwr() - read or write a vnode from the kernel (exec uses it).
 */
#ifndef _VFS_VNODE_H_
#define _VFS_VNODE_H_

#include "kern/types.h"
#include "kern/lock.h"
#include "kern/uio.h"
#include "kern/ucred.h"
#include <sys/stat.h>
#include <sys/queue.h>

struct mount;
struct buf;
struct disk;
struct cdevsw;
struct pipe;
struct socket;
struct vm_page;

enum vtype { VNON, VREG, VDIR, VBLK, VCHR, VLNK, VFIFO, VSOCK };

TAILQ_HEAD(buflists, buf);

/* v_iflag */
#define VI_FREE     0x0001   /* on the free list (usecount 0) */
#define VI_DOOMED   0x0002   /* being reclaimed */

/* VOP_ACCESS modes (FreeBSD's, the owner's permission bits) */
#define VREAD       0000400
#define VWRITE      0000200
#define VEXEC       0000100

/* VOP_SETTIMES vaflags */
#define VA_UTIMES_NULL 0x01  /* utimes(path, NULL): "now", which write permission suffices for */

/* ioflag for VOP_READ/VOP_WRITE */
#define IO_APPEND   0x0002
#define IO_SYNC     0x0004
#define IO_NDELAY   0x0010
#define IO_ASYNC    0x0080   /* start each block's write now, do not wait (FreeBSD's) */
#define IO_SEQMAX   0x7f     /* the sequential count rides in ioflag's bits 16-22 (FreeBSD's) */
#define IO_SEQSHIFT 16

struct vnode {
	enum vtype          v_type;
	int                 v_usecount;     /* vnode_lock */
	int                 v_iflag;        /* vnode_lock */
	struct mount       *v_mount;        /* file system it belongs to (NULL for devfs/pipe-less) */
	struct vop_vector  *v_op;
	void               *v_data;         /* the file system's private node (inode) */
	struct sleeplock    v_lock;         /* for the file system's use */
	struct mount       *v_mountedhere;  /* a file system is mounted on this directory */
	struct disk        *v_disk;         /* VBLK/VCHR on a disk: the disk */
	struct cdevsw      *v_cdev;         /* VCHR on a character device (console, null, zero) */
	void               *v_cdevarg;
	struct buflists     v_cleanblkhd;   /* its clean buffers (bufcache_lock) */
	struct buflists     v_dirtyblkhd;   /* its B_DELWRI buffers, oldest first (bufcache_lock) */
	int                 v_numoutput;    /* its writes in flight (bufcache_lock) */
	uint32_t            v_writeerrs;    /* failed writes of its buffers, ever (bufcache_lock) */
	uint32_t            v_writeerrs_seen; /* ... of them, those an fsync has reported (bufcache_lock) */
	int                 v_lastwriteerr; /* the error of the last failed write (bufcache_lock) */
	daddr_t             v_lastw;        /* cluster_write: last block written (v_lock) */
	daddr_t             v_cstart;       /* ... first block of the cluster being built */
	daddr_t             v_lasta;        /* ... disk address of v_lastw */
	int                 v_clen;         /* ... blocks the cluster may still grow by */
	struct vnode       *v_freenext, *v_freeprev; /* free list (vnode_lock) */
	struct vnode       *v_mntnext;      /* per-mount list (vnode_lock) */
	struct vm_object   *v_object;       /* (the VM issue) */
	int                 v_writecount;   /* writers: open files with FWRITE on it and writable
	                                       shared mappings of it (atomic) */
	int                 v_textcount;    /* mappings of it as a program's image (atomic): while
	                                       any, writing it is ETXTBSY */
	struct pipe        *v_fifo;         /* VFIFO while open: the pipe behind it (sys_pipe.c) */
	struct socket      *v_socket;       /* VSOCK: the socket bound to it, or NULL (so_lock) */
	int                 v_flockers;     /* flock(2): shared holders, or -1 if held exclusive
	                                       (kern_lockf.c's lock) */
};

struct vop_vector {
	/* Directory operations: `name` is one path component (no '/'), 1..MAXNAMLEN bytes. */
	int (*vop_lookup)(struct vnode *dvp, const char *name, struct vnode **vpp);  /* ENOENT if absent */
	int (*vop_create)(struct vnode *dvp, const char *name, int mode, struct vnode **vpp); /* EEXIST */
	int (*vop_mkdir)(struct vnode *dvp, const char *name, int mode, struct vnode **vpp);
	int (*vop_remove)(struct vnode *dvp, const char *name);   /* EPERM for a directory */
	int (*vop_rmdir)(struct vnode *dvp, const char *name);    /* ENOTEMPTY, ENOTDIR */
	int (*vop_link)(struct vnode *dvp, const char *name, struct vnode *vp);
	int (*vop_rename)(struct vnode *fdvp, const char *fname, struct vnode *tdvp, const char *tname);
	/* symlink: a symbolic link `name` -> target (1..PATH_MAX-1 bytes); EEXIST. */
	int (*vop_symlink)(struct vnode *dvp, const char *name, int mode, const char *target,
	                   struct vnode **vpp);
	/* mknod: a special file of type mode & S_IFMT (a FIFO, a socket, or a character or block
	 * device numbered rdev); EOPNOTSUPP for what it cannot make. */
	int (*vop_mknod)(struct vnode *dvp, const char *name, int mode, dev_t rdev, struct vnode **vpp);
	/* readdir: fill uio with whole struct dirent records starting at directory position
	 * uio_offset (an fs-defined cookie, 0 = start); advances uio_offset past what it returned. */
	int (*vop_readdir)(struct vnode *vp, struct uio *uio);
	/* Data. */
	int (*vop_read)(struct vnode *vp, struct uio *uio, int ioflag);
	int (*vop_write)(struct vnode *vp, struct uio *uio, int ioflag);
	int (*vop_readlink)(struct vnode *vp, struct uio *uio);   /* the target of a VLNK */
	int (*vop_getattr)(struct vnode *vp, struct stat *st);
	/* access: may the current process read/write/search (VREAD|VWRITE|VEXEC) vp? EACCES,
	 * EROFS; NULL: vaccess() on what VOP_GETATTR reports. */
	int (*vop_access)(struct vnode *vp, int mode);
	/* chmod/chown: new permission bits (ALLPERMS of mode) / owner and group ((uid_t)-1 and
	 * (gid_t)-1 leave one as it is), with vn_chmod_check/vn_chown_check's rules. NULL: the
	 * file system keeps them fixed (EOPNOTSUPP). */
	int (*vop_chmod)(struct vnode *vp, mode_t mode);
	int (*vop_chown)(struct vnode *vp, uid_t uid, gid_t gid);
	int (*vop_truncate)(struct vnode *vp, off_t length);
	/* clearsetid: a process has mapped vp writable and shared, so it may change the contents
	 * without write(2): unless it is root, the set-user-ID and set-group-ID bits go, as a
	 * write by it would take them. NULL: the file system keeps no set-ID files (0). */
	int (*vop_clearsetid)(struct vnode *vp);
	/* settimes: set the access and modification times (seconds); the change time becomes now.
	 * vaflags VA_UTIMES_NULL: the caller asked for "now" (vn_utimes_check). */
	int (*vop_settimes)(struct vnode *vp, time_t atime, time_t mtime, int vaflags);
	int (*vop_fsync)(struct vnode *vp, int waitfor);
	int (*vop_open)(struct vnode *vp, int fflag);
	int (*vop_close)(struct vnode *vp, int fflag);
	int (*vop_ioctl)(struct vnode *vp, u_long cmd, void *data, int fflag);
	/* Life cycle. */
	int (*vop_inactive)(struct vnode *vp);
	int (*vop_reclaim)(struct vnode *vp);
	/* Buffer I/O: map bp->b_lblkno to b_blkno and hand it to the disk (or complete it). */
	int (*vop_strategy)(struct vnode *vp, struct buf *bp);
	int (*vop_bmap)(struct vnode *vp, daddr_t lblkno, daddr_t *blknop);
	/* Pages of vp->v_object (docs/vm.md "The vnode pager"). getpages: make the busy page
	 * m[reqpage] valid from the file (holes and past EOF zeroed), and those of m[0..count)
	 * (consecutive pindexes) that one read brings with it; the rest stay not valid, for the
	 * caller to free; no vnode lock held; NULL:
	 * cannot (a file system whose files have VM objects has one). putpages: write the soft-busy pages and
	 * mark them clean, called with vp->v_lock held; rtvals[i] = VM_PAGER_*; NULL: cannot. */
	int (*vop_getpages)(struct vnode *vp, struct vm_page **m, int count, int reqpage);
	int (*vop_putpages)(struct vnode *vp, struct vm_page **m, int count, int flags, int *rtvals);
};

/* A NULL vop means "not supported": the VOP_ wrappers below then return EOPNOTSUPP-ish errors
 * (ENOTDIR for directory ops on non-directories, ENODEV for device ops, EINVAL otherwise). */
int VOP_LOOKUP(struct vnode *dvp, const char *name, struct vnode **vpp);
int VOP_CREATE(struct vnode *dvp, const char *name, int mode, struct vnode **vpp);
int VOP_MKDIR(struct vnode *dvp, const char *name, int mode, struct vnode **vpp);
int VOP_REMOVE(struct vnode *dvp, const char *name);
int VOP_RMDIR(struct vnode *dvp, const char *name);
int VOP_LINK(struct vnode *dvp, const char *name, struct vnode *vp);
int VOP_RENAME(struct vnode *fdvp, const char *fname, struct vnode *tdvp, const char *tname);
int VOP_SYMLINK(struct vnode *dvp, const char *name, int mode, const char *target, struct vnode **vpp);
int VOP_MKNOD(struct vnode *dvp, const char *name, int mode, dev_t rdev, struct vnode **vpp);
int VOP_READDIR(struct vnode *vp, struct uio *uio);
int VOP_READLINK(struct vnode *vp, struct uio *uio);
int VOP_READ(struct vnode *vp, struct uio *uio, int ioflag);
int VOP_WRITE(struct vnode *vp, struct uio *uio, int ioflag);
int VOP_GETATTR(struct vnode *vp, struct stat *st);
int VOP_ACCESS(struct vnode *vp, int mode);
int VOP_CHMOD(struct vnode *vp, mode_t mode);
int VOP_CHOWN(struct vnode *vp, uid_t uid, gid_t gid);
int VOP_TRUNCATE(struct vnode *vp, off_t length);
int VOP_CLEARSETID(struct vnode *vp);
int VOP_SETTIMES(struct vnode *vp, time_t atime, time_t mtime, int vaflags);
int VOP_FSYNC(struct vnode *vp, int waitfor);
int VOP_OPEN(struct vnode *vp, int fflag);
int VOP_CLOSE(struct vnode *vp, int fflag);
int VOP_IOCTL(struct vnode *vp, u_long cmd, void *data, int fflag);
int VOP_STRATEGY(struct vnode *vp, struct buf *bp);
int VOP_BMAP(struct vnode *vp, daddr_t lblkno, daddr_t *blknop);
int VOP_GETPAGES(struct vnode *vp, struct vm_page **m, int count, int reqpage);
int VOP_PUTPAGES(struct vnode *vp, struct vm_page **m, int count, int flags, int *rtvals);

void vfsinit(void);                      /* vnode table, buffer cache, devfs, root mount */
int  getnewvnode(struct mount *mp, struct vop_vector *ops, struct vnode **vpp); /* usecount 1 */
void vref(struct vnode *vp);
void vrele(struct vnode *vp);
int  vget(struct vnode *vp);
int  vn_rdwr(enum uio_rw rw, struct vnode *vp, void *base, size_t len, off_t offset,
             enum uio_seg seg, int ioflag, size_t *residp);

/*
 * The VFS's permission rules (vfs_subr.c), FreeBSD 4's, for the file systems to apply:
 *   vaccess(fmode, fuid, fgid, acc, cred) - ufs_access's owner / group / other test of the
 *       permission bits against VREAD|VWRITE|VEXEC; root may do anything. 0 or EACCES.
 *   vn_chmod_check(type, fuid, fgid, mode, cred) - ufs_chmod's: owner or root (EPERM); a
 *       non-root owner may not set the sticky bit on a non-directory (EFTYPE) nor the
 *       set-group-ID bit on a file whose group she is not in (EPERM).
 *   vn_chown_check(fuid, fgid, uid, gid, cred) - ufs_chown's: root, or the owner keeping the
 *       owner and choosing a group she is in (EPERM otherwise).
 *   vn_utimes_check(fmode, fuid, fgid, vaflags, cred) - ufs_setattr's: owner or root; anyone
 *       with write permission for utimes(path, NULL) (EPERM, EACCES).
 *   vn_sticky_check(dmode, duid, fuid, cred) - removing or renaming a file owned by fuid out
 *       of a directory (dmode, duid): in a sticky directory only root, the directory's owner
 *       and the file's owner may (EPERM), as ufs_lookup and ufs_rename allow.
 */
int vaccess(mode_t fmode, uid_t fuid, gid_t fgid, int acc, const struct ucred *cred);
int vn_chmod_check(enum vtype type, uid_t fuid, gid_t fgid, mode_t mode, const struct ucred *cred);
int vn_chown_check(uid_t fuid, gid_t fgid, uid_t uid, gid_t gid, const struct ucred *cred);
int vn_utimes_check(mode_t fmode, uid_t fuid, gid_t fgid, int vaflags, const struct ucred *cred);
int vn_sticky_check(mode_t dmode, uid_t duid, uid_t fuid, const struct ucred *cred);

/*
 * vfs_lookup.c: path lookup relative to the current process's cwd (or the root for absolute
 * paths), with search permission (VEXEC) checked on every directory searched. `path` is a
 * kernel string. Empty paths are ENOENT; components over MAXNAMLEN and paths (symbolic links
 * expanded) over PATH_MAX are ENAMETOOLONG; more than MAXSYMLINKS links followed is ELOOP.
 *   namei(path, &vp)              - the vnode path names, symbolic links followed.
 *   namei_flags(path, flags, &vp) - the same; without FOLLOW a symbolic link in the last
 *                                   component is the result itself (lstat, readlink, lchown).
 *   namei_parent(path, &dvp, name) - the directory holding the last component, and that
 *                                   component, never followed (EISDIR for "/").
 *   namei_create(path, flags, &dvp, name, &vp) - where the file is or would be created: its
 *                                   directory and name, and the file (NULL if absent). With
 *                                   FOLLOW a symbolic link in the last component is followed,
 *                                   to a name that does not exist yet too (open(2) with O_CREAT).
 */
#define NOFOLLOW    0x0
#define FOLLOW      0x1
#define MAXSYMLINKS 32             /* links one lookup may follow (FreeBSD's <sys/param.h>) */

int namei(const char *path, struct vnode **vpp);
int namei_flags(const char *path, int flags, struct vnode **vpp);
int namei_parent(const char *path, struct vnode **dvpp, char name[256]);
int namei_create(const char *path, int flags, struct vnode **dvpp, char name[256],
                 struct vnode **vpp);

extern struct vnode *rootvnode;

#endif
