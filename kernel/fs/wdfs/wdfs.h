/*
 * wdfs: the kernel's on-disk file system (format: wdfs_format.h; design: docs/fs.md).
 *
 * Interface to the rest of the kernel: none in this header. wdfs_vfsops.c names the type "wdfs"
 * in the VFS's table with VFS_SET (vfs/mount.h). Everything here is shared by the wdfs_*.c
 * files only:
 *   wdfs_vfsops.c  mount/unmount/sync/statfs, the superblock, the inode hash (wdfs_vget), inode
 *                  read/update
 *   wdfs_alloc.c   block and inode bitmaps, bmap/balloc (logical -> disk block), truncation
 *   wdfs_dir.c     directory records: lookup, enter, remove, rewrite, emptiness, readdir
 *   wdfs_vnops.c   the vnode operations
 *   wdfs_readwrite.c  file data: read, write, the pager's getpages/putpages
 *
 * Locking (VOPs are called with no vnode lock held, see vfs/vnode.h):
 *   vp->v_lock (sleeplock "wdfsin")  an inode's i_din and the file's contents/directory records.
 *                                    Two are held at once only parent before child.
 *   wm_alloclock (sleeplock)         the in-memory bitmaps, their dirty marks, the free counts
 *                                    and s_clean in wm_sb. Taken inside v_lock, never around it.
 *   wm_hashlock (spinlock)           the inode hash chains.
 *   wm_vgetlock (sleeplock)          serializes creating in-core inodes, so one inode never gets
 *                                    two vnodes.
 *   wm_renamelock (sleeplock)        serializes rename, so the tree's shape is stable while a
 *                                    rename checks that a directory is not moved below itself.
 *   wm_wlock (spinlock)              the write gate (wdfs_wbegin/wdfs_wend): wm_rdonly's changes,
 *                                    wm_writers, wm_suspended, wm_wgen. Taken by no one holding
 *                                    it around a sleep but the gate's own waits.
 *   wm_updatelock (sleeplock)        serializes mount -u's switches (wdfs_update).
 *
 * The write gate: every operation that may change the file system enters with wdfs_wbegin
 * (EROFS on a read-only mount) and leaves with wdfs_wend, so that `mount -u -r` can wait until
 * none is inside before it writes everything and marks the file system clean and read-only.
 * While a switch waits (wm_suspended), new operations wait at the gate; the ones an operation
 * already inside may start (VOP_INACTIVE of a file it unlinked, the pager's putpages) enter
 * with WDFS_WB_NOWAIT, which does not wait, so they cannot deadlock against the switch.
 * Buffers are locked (B_BUSY) by the buffer cache; metadata buffers may be taken while holding
 * v_lock or wm_alloclock, and VOP_STRATEGY takes no lock at all.
 */
#ifndef _FS_WDFS_WDFS_H_
#define _FS_WDFS_WDFS_H_

#include "kern/types.h"
#include "kern/lock.h"
#include "vfs/mount.h"
#include "vfs/vnode.h"
#include "vfs/buf.h"
#include "fs/wdfs/wdfs_layout.h"

#define WDFS_NHASH  64

struct wdfs_mount {
	struct mount       *wm_mp;
	struct vnode       *wm_devvp;
	struct disk        *wm_disk;
	const char         *wm_name;       /* the disk's name, for messages */
	uint32_t            wm_bsize;
	uint32_t            wm_bshift;
	uint32_t            wm_nindir;     /* block numbers per indirect block */
	bool                wm_rdonly;     /* read-only: set and cleared under wm_wlock, read freely */
	bool                wm_unmounted;  /* freed when the last in-core inode goes */
	struct sleeplock    wm_alloclock;
	struct wdfs_super   wm_sb;         /* the superblock (counts, s_clean: wm_alloclock) */
	uint8_t            *wm_bmap;       /* block bitmap (wm_alloclock) */
	uint8_t            *wm_imap;       /* inode bitmap (wm_alloclock) */
	uint8_t            *wm_bmap_dirty; /* one flag per bitmap block (wm_alloclock) */
	uint8_t            *wm_imap_dirty;
	uint32_t            wm_brotor;     /* where the next block search starts (wm_alloclock) */
	uint32_t            wm_irotor;
	bool                wm_sbdirty;    /* counts changed since the last superblock write */
	struct spinlock     wm_hashlock;
	struct wdfs_inode  *wm_hash[WDFS_NHASH];  /* (wm_hashlock) */
	int                 wm_ninodes;    /* in-core inodes (wm_hashlock) */
	struct sleeplock    wm_vgetlock;
	struct sleeplock    wm_renamelock;
	dev_t               wm_dev;        /* st_dev of its files */
	uint32_t            wm_werrs0;     /* wm_devvp->v_writeerrs when mounted */
	uint32_t            wm_lostwerrs;  /* vnodes reclaimed with a write error unreported (wm_hashlock) */
	struct spinlock     wm_wlock;      /* the write gate (see the top) */
	int                 wm_writers;    /* operations inside the gate (wm_wlock) */
	bool                wm_suspended;  /* a switch to read-only is waiting (wm_wlock) */
	uint32_t            wm_wgen;       /* entries into the gate so far (wm_wlock) */
	struct sleeplock    wm_updatelock;
};

struct wdfs_inode {
	struct wdfs_inode  *i_hnext;       /* hash chain (wm_hashlock) */
	struct vnode       *i_vnode;
	struct wdfs_mount  *i_wm;
	uint32_t            i_ino;
	struct wdfs_dinode  i_din;         /* the inode (v_lock) */
	uint32_t            i_fswerrs_seen; /* wdfs_fs_writeerrs() as of this file's last fsync (v_lock) */
};

#define VTOI(vp)   ((struct wdfs_inode *)(vp)->v_data)
#define VFSTOWM(mp) ((struct wdfs_mount *)(mp)->mnt_data)

/* A file system block number as a DEV_BSIZE device block number (FFS's fsbtodb). */
static inline daddr_t wdfs_fsbtodb(struct wdfs_mount *wm, uint32_t blk)
{
	return (daddr_t)blk << (wm->wm_bshift - 9);
}

/* wdfs_vfsops.c */
#define WDFS_VGET_NEW  0x1      /* the inode was just allocated: it must be free on disk */
#define WDFS_WB_NOWAIT 0x1      /* wdfs_wbegin: do not wait out a switch to read-only */
int  wdfs_vget(struct wdfs_mount *wm, uint32_t ino, int flags, struct vnode **vpp);
enum vtype wdfs_vtype(uint16_t mode);
int  wdfs_wbegin(struct wdfs_mount *wm, int flags);   /* 0, or EROFS */
void wdfs_wend(struct wdfs_mount *wm);
int  wdfs_bwrite(struct wdfs_mount *wm, struct buf *bp);   /* bwrite, then BIO_FLUSH (ordering) */
int  wdfs_iupdate(struct wdfs_inode *ip, bool sync);
int  wdfs_sbupdate(struct wdfs_mount *wm, bool sync);
void wdfs_inode_forget(struct wdfs_inode *ip);            /* VOP_RECLAIM */
int  wdfs_corrupt(struct wdfs_mount *wm, const char *fmt, ...) __printflike(2, 3);  /* EIO */
uint32_t wdfs_fs_writeerrs(struct wdfs_mount *wm);    /* failed writes no file owns, since mount */

/* wdfs_alloc.c */
int  wdfs_blkalloc(struct wdfs_mount *wm, uint32_t pref, uint32_t *blkp);
void wdfs_blkfree(struct wdfs_mount *wm, uint32_t blk);
int  wdfs_ialloc(struct wdfs_mount *wm, uint32_t *inop);
void wdfs_ifree(struct wdfs_mount *wm, uint32_t ino);
int  wdfs_bitmap_flush(struct wdfs_mount *wm, bool sync);
int  wdfs_bmap_blk(struct wdfs_inode *ip, daddr_t lbn, uint32_t *blkp);   /* 0 = hole */
int  wdfs_balloc(struct wdfs_inode *ip, daddr_t lbn, uint32_t *blkp, bool *newp);
int  wdfs_itrunc(struct wdfs_inode *ip, off_t length);
off_t wdfs_maxfilesize(struct wdfs_mount *wm);

/* an inode's lock is its vnode's v_lock */
#define ILOCK(ip)    sleeplock_acquire(&(ip)->i_vnode->v_lock)
#define IUNLOCK(ip)  sleeplock_release(&(ip)->i_vnode->v_lock)

/* wdfs_vnops.c */
void wdfs_settimes(struct wdfs_inode *ip, bool mod, bool chg);   /* mtime, ctime := now */

/* wdfs_readwrite.c: the file data VOPs (entered unlocked) */
int  wdfs_read(struct vnode *vp, struct uio *uio, int ioflag);
int  wdfs_write(struct vnode *vp, struct uio *uio, int ioflag);
int  wdfs_write_locked(struct wdfs_inode *ip, struct uio *uio, int ioflag);   /* v_lock held */
bool wdfs_clearsetid(struct wdfs_inode *ip);     /* a non-root change: set-ID bits go; v_lock held */
int  wdfs_putpages(struct vnode *vp, struct vm_page **m, int count, int flags, int *rtvals);
int  wdfs_getpages(struct vnode *vp, struct vm_page **m, int count, int reqpage);

/* wdfs_dir.c: all with the directory's v_lock held */
int  wdfs_dirlookup(struct wdfs_inode *dp, const char *name, uint32_t *inop);
int  wdfs_direnter(struct wdfs_inode *dp, const char *name, uint32_t ino, uint8_t type);
int  wdfs_dirremove(struct wdfs_inode *dp, const char *name, uint32_t ino);
int  wdfs_dirrewrite(struct wdfs_inode *dp, const char *name, uint32_t ino, uint8_t type);
int  wdfs_dirempty(struct wdfs_inode *dp, bool *emptyp);
int  wdfs_dirinit(struct wdfs_inode *ip, uint32_t parent);
int  wdfs_readdir_locked(struct wdfs_inode *dp, struct uio *uio);
uint8_t wdfs_dtype(uint16_t mode);

#endif
