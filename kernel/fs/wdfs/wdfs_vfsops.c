/*
 * wdfs mount-level operations (FFS's ffs_vfsops.c): mount, update (mount -u), unmount, root,
 * sync, statfs; the superblock; the write gate; the in-core inode hash and wdfs_vget();
 * reading and writing on-disk inodes.
 *
 * Mounting reads the superblock with one synchronous disk read, checks it with the pure
 * wdfs_super_check() (a corrupt one is refused with "wdfs: md0: bad superblock: ..." and an
 * errno, never a panic), loads both bitmaps into memory, checks the root inode, and for a
 * read-write mount marks the superblock not clean on disk before anything else is written.
 * A file system of an older format version (1: before symbolic links and FIFOs; 2: before device
 * nodes and sockets) is read as it is and becomes version 3 the first time it is mounted
 * read-write, with a console line saying so.
 * Locking: see wdfs.h.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/sysctl.h"
#include "kern/time.h"
#include "dev/disk.h"
#include "fs/wdfs/wdfs.h"
#include "vm/vnode_pager.h"
#include "vm/vm_object.h"
#include <sys/errno.h>
#include <sys/mount.h>
#include <sys/stat.h>

extern struct vop_vector wdfs_vnodeops;

static dev_t wdfs_nextdev = 0x5700;   /* st_dev of each new mount (set under mount serialization) */

/* Report on-disk damage found after mount; the operation fails with EIO. */
int wdfs_corrupt(struct wdfs_mount *wm, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kprintf("wdfs: %s: %s; run fsck\n", wm->wm_name, msg);
	return EIO;
}

/* ---- the write gate (wdfs.h) --------------------------------------------------------------------- */

/*
 * wdfs_wbegin: enter an operation that may change the file system. EROFS on a read-only mount;
 * while a switch to read-only waits for the operations inside to finish, wait for it to end
 * (and then, likely, fail with EROFS) - unless WDFS_WB_NOWAIT.
 */
int wdfs_wbegin(struct wdfs_mount *wm, int flags)
{
	int error = 0;

	spin_lock(&wm->wm_wlock);
	while (wm->wm_suspended && !wm->wm_rdonly && !(flags & WDFS_WB_NOWAIT))
		msleep(&wm->wm_suspended, &wm->wm_wlock, 0, "wdfssus", 0);
	if (wm->wm_rdonly) {
		error = EROFS;
	} else {
		wm->wm_writers++;
		wm->wm_wgen++;
	}
	spin_unlock(&wm->wm_wlock);
	return error;
}

/* wdfs_wend: leave it; the last one out wakes a switch to read-only waiting for that. */
void wdfs_wend(struct wdfs_mount *wm)
{
	spin_lock(&wm->wm_wlock);
	if (--wm->wm_writers == 0)
		wakeup(&wm->wm_writers);
	spin_unlock(&wm->wm_wlock);
}

/* ---- inodes on disk ------------------------------------------------------------------------ */

static void inode_blk(struct wdfs_mount *wm, uint32_t ino, uint32_t *blkp, uint32_t *offp)
{
	uint32_t inopb = wm->wm_bsize / WDFS_INODE_SIZE;

	*blkp = wm->wm_sb.s_itab_start + ino / inopb;
	*offp = (ino % inopb) * WDFS_INODE_SIZE;
}

/*
 * Every field the kernel later trusts: the type, the block pointers, a directory's size, a
 * symbolic link's length (its target lives in its first block: 1..WDFS_MAXSYMLINK bytes).
 */
static int inode_check(struct wdfs_mount *wm, uint32_t ino, const struct wdfs_dinode *dp)
{
	uint16_t fmt = dp->di_mode & S_IFMT;

	if (dp->di_mode == 0)
		return 0;
	if (fmt != S_IFREG && fmt != S_IFDIR && fmt != S_IFLNK && fmt != S_IFIFO &&
	    fmt != S_IFCHR && fmt != S_IFBLK && fmt != S_IFSOCK)
		return wdfs_corrupt(wm, "inode %u has unknown type (mode 0%o)", ino, dp->di_mode);
	if (fmt == S_IFLNK && (dp->di_size == 0 || dp->di_size > WDFS_MAXSYMLINK))
		return wdfs_corrupt(wm, "symbolic link inode %u has length %llu, not 1..%d", ino,
		                    (unsigned long long)dp->di_size, WDFS_MAXSYMLINK);
	for (int i = 0; i < WDFS_NDADDR; i++)
		if (dp->di_db[i] != 0 && !wdfs_blk_valid(&wm->wm_sb, dp->di_db[i]))
			return wdfs_corrupt(wm, "inode %u: direct block %d is %u, outside the data area",
			                    ino, i, dp->di_db[i]);
	for (int i = 0; i < WDFS_NIADDR; i++)
		if (dp->di_ib[i] != 0 && !wdfs_blk_valid(&wm->wm_sb, dp->di_ib[i]))
			return wdfs_corrupt(wm, "inode %u: indirect block %d is %u, outside the data area",
			                    ino, i, dp->di_ib[i]);
	if (fmt == S_IFDIR && dp->di_size % wm->wm_bsize != 0)
		return wdfs_corrupt(wm, "directory inode %u has size %llu, not a multiple of %u", ino,
		                    (unsigned long long)dp->di_size, wm->wm_bsize);
	if (dp->di_size > (uint64_t)wdfs_maxfilesize(wm))
		return wdfs_corrupt(wm, "inode %u has impossible size %llu", ino,
		                    (unsigned long long)dp->di_size);
	return 0;
}

static int wdfs_iread(struct wdfs_mount *wm, uint32_t ino, struct wdfs_dinode *dp)
{
	struct buf *bp;
	uint32_t blk, off;
	int error;

	inode_blk(wm, ino, &blk, &off);
	error = bread(wm->wm_devvp, wdfs_fsbtodb(wm, blk), (int)wm->wm_bsize, &bp);
	if (error) {
		brelse(bp);
		kprintf("wdfs: %s: cannot read inode %u: error %d\n", wm->wm_name, ino, error);
		return error;
	}
	memcpy(dp, bp->b_data + off, sizeof(*dp));
	brelse(bp);
	return inode_check(wm, ino, dp);
}

/*
 * Ordering on a drive with a volatile write cache. The rules of docs/fs.md need each synchronous
 * write on the media before the write that depends on it is issued. bwrite returns when the
 * drive reports the write complete; with its write cache on (most IDE drives of 2000, every SATA
 * drive today) that means "in the cache", and the drive may put the later, dependent write on
 * the media first and lose the earlier one when the power goes. So wdfs_bwrite follows such a
 * write with a BIO_FLUSH. vfs.wdfs.ordered_flush=0 drops that flush: FreeBSD 4's FFS, which
 * trusted a completed write to be on the media (docs/fs.md "Power cuts", docs/history.md).
 */
static int ordered_flush = 1;
SYSCTL_DECL_OID(sysctl_vfs_wdfs_ordered_flush, "vfs.wdfs.ordered_flush", CTLTYPE_INT | CTLFLAG_RW,
                &ordered_flush, 0, NULL, "I",
                "Flush the disk's cache after each synchronous metadata write (0: trust completion, as FreeBSD 4)");

int wdfs_bwrite(struct wdfs_mount *wm, struct buf *bp)
{
	int error = bwrite(bp);

	if (error == 0 && ordered_flush)
		error = disk_io_sync(wm->wm_disk, BIO_FLUSH, 0, NULL, 0);
	return error;
}

/*
 * wdfs_iupdate: copy the in-core inode into its inode-table buffer and write that buffer now
 * (sync: wdfs_bwrite, for the ordering rules in docs/fs.md) or later (bdwrite). Caller holds v_lock.
 */
int wdfs_iupdate(struct wdfs_inode *ip, bool sync)
{
	struct wdfs_mount *wm = ip->i_wm;
	struct buf *bp;
	uint32_t blk, off;
	int error;

	if (wm->wm_rdonly)
		return 0;
	inode_blk(wm, ip->i_ino, &blk, &off);
	error = bread(wm->wm_devvp, wdfs_fsbtodb(wm, blk), (int)wm->wm_bsize, &bp);
	if (error) {
		brelse(bp);
		return error;
	}
	memcpy(bp->b_data + off, &ip->i_din, sizeof(ip->i_din));
	if (sync)
		return wdfs_bwrite(wm, bp);
	bdwrite(bp);
	return 0;
}

/* ---- the inode hash --------------------------------------------------------------------------- */

static struct wdfs_inode **hash_head(struct wdfs_mount *wm, uint32_t ino)
{
	return &wm->wm_hash[ino % WDFS_NHASH];
}

static struct wdfs_inode *hash_find(struct wdfs_mount *wm, uint32_t ino)
{
	struct wdfs_inode *ip;

	for (ip = *hash_head(wm, ino); ip; ip = ip->i_hnext)
		if (ip->i_ino == ino)
			return ip;
	return NULL;
}

static void hash_remove(struct wdfs_mount *wm, struct wdfs_inode *ip)
{
	struct wdfs_inode **pp;

	for (pp = hash_head(wm, ip->i_ino); *pp; pp = &(*pp)->i_hnext) {
		if (*pp == ip) {
			*pp = ip->i_hnext;
			wm->wm_ninodes--;
			return;
		}
	}
}

static void wdfs_mount_free(struct wdfs_mount *wm)
{
	kfree(wm->wm_bmap);
	kfree(wm->wm_imap);
	kfree(wm->wm_bmap_dirty);
	kfree(wm->wm_imap_dirty);
	kfree(wm);
}

/*
 * wdfs_fs_writeerrs: writes of this file system that failed since it was mounted and that no
 * file's vnode counts: metadata (the device's buffers: inode-table, indirect, bitmap and
 * superblock blocks, shared by files or not traceable to one once dropped), and
 * file data whose vnode was recycled before an fsync reported the failure. wdfs_fsync reports
 * each new one to every file once (docs/bufcache.md, "Write errors"): over-reporting, never
 * losing one.
 */
uint32_t wdfs_fs_writeerrs(struct wdfs_mount *wm)
{
	uint32_t lost;

	spin_lock(&wm->wm_hashlock);
	lost = wm->wm_lostwerrs;
	spin_unlock(&wm->wm_hashlock);
	return (wm->wm_devvp->v_writeerrs - wm->wm_werrs0) + lost;
}

/* VOP_RECLAIM's half: forget the in-core inode (its state is always already in a buffer). */
void wdfs_inode_forget(struct wdfs_inode *ip)
{
	struct wdfs_mount *wm = ip->i_wm;
	bool last;

	spin_lock(&wm->wm_hashlock);
	hash_remove(wm, ip);
	last = wm->wm_unmounted && wm->wm_ninodes == 0;
	spin_unlock(&wm->wm_hashlock);
	ip->i_vnode->v_data = NULL;
	kfree(ip);
	if (last)
		wdfs_mount_free(wm);
}

/* The vnode type of an inode of mode `mode`. */
enum vtype wdfs_vtype(uint16_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:  return VDIR;
	case S_IFLNK:  return VLNK;
	case S_IFIFO:  return VFIFO;
	case S_IFCHR:  return VCHR;
	case S_IFBLK:  return VBLK;
	case S_IFSOCK: return VSOCK;
	default:       return VREG;
	}
}

/* Load a new in-core inode for ino into a fresh vnode. Caller holds wm_vgetlock. */
static int vget_load(struct wdfs_mount *wm, uint32_t ino, int flags, struct vnode **vpp)
{
	struct wdfs_inode *ip;
	struct vnode *vp;
	int error;

	ip = kmalloc(sizeof(*ip), M_WAITOK | M_ZERO);
	if (!ip)
		return ENOMEM;
	error = wdfs_iread(wm, ino, &ip->i_din);
	if (!error && (flags & WDFS_VGET_NEW) && ip->i_din.di_mode != 0)
		error = wdfs_corrupt(wm, "inode %u is free in the bitmap but in use (mode 0%o)", ino,
		                     ip->i_din.di_mode);
	if (!error && !(flags & WDFS_VGET_NEW) && ip->i_din.di_mode == 0)
		error = ENOENT;
	if (!error)
		error = getnewvnode(wm->wm_mp, &wdfs_vnodeops, &vp);
	if (error) {
		kfree(ip);
		return error;
	}
	ip->i_vnode = vp;
	ip->i_wm = wm;
	ip->i_ino = ino;
	sleeplock_init(&vp->v_lock, "wdfsin");
	vp->v_data = ip;
	vp->v_type = wdfs_vtype(ip->i_din.di_mode);
	if (S_ISREG(ip->i_din.di_mode))
		vnode_pager_alloc(vp, (off_t)ip->i_din.di_size);
	spin_lock(&wm->wm_hashlock);
	ip->i_hnext = *hash_head(wm, ino);
	*hash_head(wm, ino) = ip;
	wm->wm_ninodes++;
	spin_unlock(&wm->wm_hashlock);
	*vpp = vp;
	return 0;
}

/*
 * wdfs_vget: the referenced vnode of inode `ino`, from the hash or loaded from disk. A vnode
 * being reclaimed (vget fails with ENOENT) is waited out and looked up again. WDFS_VGET_NEW is
 * for an inode just taken from the bitmap: it may still have a cached vnode from its previous
 * life (mode 0), and on disk it must be free. Without it, a free inode is ENOENT.
 */
int wdfs_vget(struct wdfs_mount *wm, uint32_t ino, int flags, struct vnode **vpp)
{
	struct wdfs_inode *ip;
	struct vnode *vp;
	int error;

	if (!wdfs_ino_valid(&wm->wm_sb, ino))
		return wdfs_corrupt(wm, "inode number %u out of range", ino);
	for (;;) {
		spin_lock(&wm->wm_hashlock);
		ip = hash_find(wm, ino);
		vp = ip ? ip->i_vnode : NULL;
		spin_unlock(&wm->wm_hashlock);
		if (vp) {
			if (vget(vp) != 0) {
				tsleep(wm, 0, "wdfsrc", 1);
				continue;
			}
			break;
		}
		sleeplock_acquire(&wm->wm_vgetlock);
		spin_lock(&wm->wm_hashlock);
		ip = hash_find(wm, ino);
		spin_unlock(&wm->wm_hashlock);
		if (ip) {
			sleeplock_release(&wm->wm_vgetlock);
			continue;
		}
		error = vget_load(wm, ino, flags, vpp);
		sleeplock_release(&wm->wm_vgetlock);
		return error;
	}
	ip = VTOI(vp);
	if (!(flags & WDFS_VGET_NEW) && ip->i_din.di_mode == 0) {
		vrele(vp);
		return ENOENT;
	}
	if ((flags & WDFS_VGET_NEW) && ip->i_din.di_mode != 0) {
		vrele(vp);
		return wdfs_corrupt(wm, "inode %u is free in the bitmap but in use in memory", ino);
	}
	*vpp = vp;
	return 0;
}

/* ---- the superblock ---------------------------------------------------------------------------- */

/* Write the in-memory superblock to block 0 whatever the mount's state (mount -u's switches). */
static int sb_write(struct wdfs_mount *wm, bool sync)
{
	struct buf *bp;

	bp = getblk(wm->wm_devvp, 0, (int)wm->wm_bsize, 0, 0);
	memset(bp->b_data, 0, wm->wm_bsize);
	sleeplock_acquire(&wm->wm_alloclock);
	wm->wm_sb.s_wtime = time_second_now();
	wdfs_super_seal(&wm->wm_sb);
	memcpy(bp->b_data, &wm->wm_sb, sizeof(wm->wm_sb));
	wm->wm_sbdirty = false;
	sleeplock_release(&wm->wm_alloclock);
	if (sync)
		return bwrite(bp);
	bdwrite(bp);
	return 0;
}

/* Write the in-memory superblock (counts, clean flag) to block 0: now, or as a delayed write. */
int wdfs_sbupdate(struct wdfs_mount *wm, bool sync)
{
	return wm->wm_rdonly ? 0 : sb_write(wm, sync);
}

/* Read a bitmap region into memory. */
static int read_map(struct wdfs_mount *wm, uint32_t start, uint32_t nblocks, uint8_t *map)
{
	struct buf *bp;
	int error;

	for (uint32_t i = 0; i < nblocks; i++) {
		error = bread(wm->wm_devvp, wdfs_fsbtodb(wm, start + i), (int)wm->wm_bsize, &bp);
		if (error) {
			brelse(bp);
			kprintf("wdfs: %s: cannot read bitmap block %u: error %d\n", wm->wm_name,
			        start + i, error);
			return error;
		}
		memcpy(map + (size_t)i * wm->wm_bsize, bp->b_data, wm->wm_bsize);
		brelse(bp);
	}
	return 0;
}

/*
 * The bitmaps as the allocator may trust them: metadata blocks, inodes 0 and 1 and the bits past
 * the end are forced in use (whatever the disk says), and the free counts are recomputed (the
 * superblock's are only a summary that a crash may leave stale).
 */
static void fix_maps(struct wdfs_mount *wm)
{
	struct wdfs_super *sb = &wm->wm_sb;
	uint32_t bfree, ifree;

	for (uint32_t b = 0; b < sb->s_data_start; b++)
		wdfs_bit_set(wm->wm_bmap, b);
	for (uint64_t b = sb->s_nblocks; b < (uint64_t)sb->s_bmap_blocks * wm->wm_bsize * 8; b++)
		wdfs_bit_set(wm->wm_bmap, (uint32_t)b);
	wdfs_bit_set(wm->wm_imap, 0);
	wdfs_bit_set(wm->wm_imap, 1);
	for (uint64_t i = sb->s_ninodes; i < (uint64_t)sb->s_imap_blocks * wm->wm_bsize * 8; i++)
		wdfs_bit_set(wm->wm_imap, (uint32_t)i);
	bfree = sb->s_nblocks - wdfs_bitmap_count(wm->wm_bmap, sb->s_nblocks);
	ifree = sb->s_ninodes - wdfs_bitmap_count(wm->wm_imap, sb->s_ninodes);
	if (bfree != sb->s_free_blocks || ifree != sb->s_free_inodes) {
		kprintf("wdfs: %s: superblock free counts (%u blocks, %u inodes) disagree with the "
		        "bitmaps (%u, %u); using the bitmaps\n", wm->wm_name, sb->s_free_blocks,
		        sb->s_free_inodes, bfree, ifree);
		sb->s_free_blocks = bfree;
		sb->s_free_inodes = ifree;
		wm->wm_sbdirty = true;
	}
	wm->wm_brotor = sb->s_data_start;
	wm->wm_irotor = WDFS_FIRSTINO;
}

static int read_super(struct wdfs_mount *wm)
{
	struct disk *dp = wm->wm_disk;
	char msg[WDFS_MSGLEN];
	uint8_t *blk;
	int error;

	if (dp->d_sectorsize == 0 || WDFS_BSIZE_MIN % dp->d_sectorsize != 0) {
		kprintf("wdfs: %s: sector size %u is not usable\n", wm->wm_name, dp->d_sectorsize);
		return EINVAL;
	}
	if (dp->d_mediasize < WDFS_BSIZE_MIN) {
		kprintf("wdfs: %s: device too small (%llu bytes) for a wdfs file system\n",
		        wm->wm_name, (unsigned long long)dp->d_mediasize);
		return EINVAL;
	}
	blk = kmalloc(WDFS_BSIZE_MIN, M_WAITOK);
	if (!blk)
		return ENOMEM;
	error = disk_io_sync(dp, BIO_READ, 0, blk, WDFS_BSIZE_MIN);
	if (error) {
		kprintf("wdfs: %s: cannot read the superblock: error %d\n", wm->wm_name, error);
		kfree(blk);
		return error;
	}
	memcpy(&wm->wm_sb, blk, sizeof(wm->wm_sb));
	kfree(blk);
	error = wdfs_super_check(&wm->wm_sb, dp->d_mediasize, msg, sizeof(msg));
	if (error != WDFS_OK) {
		kprintf("wdfs: %s: bad superblock: %s\n", wm->wm_name, msg);
		return error == WDFS_EMAGIC ? EFTYPE : EINVAL;
	}
	return 0;
}

/*
 * A read-write mount's first write: the superblock, synchronously, with the clean flag off
 * (and an older file system becomes version 3: from now on it may hold what an older kernel or
 * fsck would not know - symbolic links, FIFOs, device nodes, sockets).
 */
static int mark_dirty(struct wdfs_mount *wm)
{
	int error;

	if (wm->wm_sb.s_version < WDFS_VERSION) {
		kprintf("wdfs: %s: format version %u upgraded to %u (links, FIFOs, devices, sockets)\n",
		        wm->wm_name, wm->wm_sb.s_version, WDFS_VERSION);
		wm->wm_sb.s_version = WDFS_VERSION;
	}
	wm->wm_sb.s_clean = WDFS_SB_DIRTY;
	error = sb_write(wm, true);
	if (error)
		kprintf("wdfs: %s: cannot write the superblock: error %d\n", wm->wm_name, error);
	return error;
}

/* ---- vfsops -------------------------------------------------------------------------------------- */

static int wdfs_mount(struct mount *mp, struct vnode *devvp)
{
	struct wdfs_mount *wm;
	struct vnode *rvp;
	struct wdfs_super *sb;
	int error;

	if (!devvp || !devvp->v_disk) {
		kprintf("wdfs: mount: not a disk\n");
		return ENOTBLK;
	}
	wm = kmalloc(sizeof(*wm), M_WAITOK | M_ZERO);
	if (!wm)
		return ENOMEM;
	wm->wm_mp = mp;
	wm->wm_devvp = devvp;
	wm->wm_werrs0 = devvp->v_writeerrs;
	wm->wm_disk = devvp->v_disk;
	wm->wm_name = devvp->v_disk->d_name;
	wm->wm_rdonly = (mp->mnt_flag & MNT_RDONLY) != 0;
	sleeplock_init(&wm->wm_alloclock, "wdfsal");
	sleeplock_init(&wm->wm_vgetlock, "wdfsvg");
	sleeplock_init(&wm->wm_renamelock, "wdfsrn");
	sleeplock_init(&wm->wm_updatelock, "wdfsup");
	spin_init(&wm->wm_hashlock, "wdfshash");
	spin_init(&wm->wm_wlock, "wdfsw");
	error = read_super(wm);
	if (error)
		goto fail;
	sb = &wm->wm_sb;
	if (sb->s_clean != WDFS_SB_CLEAN && !wm->wm_rdonly && !(mp->mnt_flag & MNT_FORCE)) {
		kprintf("wdfs: %s: WARNING: R/W mount denied: file system is not clean - run fsck\n",
		        wm->wm_name);
		error = EPERM;
		goto fail;
	}
	wm->wm_bsize = sb->s_bsize;
	wm->wm_bshift = sb->s_bshift;
	wm->wm_nindir = sb->s_bsize / 4;
	wm->wm_bmap = kmalloc((size_t)sb->s_bmap_blocks * wm->wm_bsize, M_WAITOK);
	wm->wm_imap = kmalloc((size_t)sb->s_imap_blocks * wm->wm_bsize, M_WAITOK);
	wm->wm_bmap_dirty = kmalloc(sb->s_bmap_blocks, M_WAITOK | M_ZERO);
	wm->wm_imap_dirty = kmalloc(sb->s_imap_blocks, M_WAITOK | M_ZERO);
	if (!wm->wm_bmap || !wm->wm_imap || !wm->wm_bmap_dirty || !wm->wm_imap_dirty) {
		kprintf("wdfs: %s: no memory for the bitmaps\n", wm->wm_name);
		error = ENOMEM;
		goto fail;
	}
	error = read_map(wm, sb->s_bmap_start, sb->s_bmap_blocks, wm->wm_bmap);
	if (!error)
		error = read_map(wm, sb->s_imap_start, sb->s_imap_blocks, wm->wm_imap);
	if (error)
		goto fail;
	fix_maps(wm);
	mp->mnt_data = wm;
	error = wdfs_vget(wm, WDFS_ROOTINO, 0, &rvp);
	if (error) {
		kprintf("wdfs: %s: cannot load the root directory (inode %d): error %d\n",
		        wm->wm_name, WDFS_ROOTINO, error);
		goto fail_mounted;
	}
	if (rvp->v_type != VDIR) {
		kprintf("wdfs: %s: root inode %d is not a directory\n", wm->wm_name, WDFS_ROOTINO);
		vrele(rvp);
		error = EINVAL;
		goto fail_mounted;
	}
	vrele(rvp);
	wm->wm_dev = wdfs_nextdev++;
	if (!wm->wm_rdonly) {
		error = mark_dirty(wm);
		if (error)
			goto fail_mounted;
	}
	return 0;

fail_mounted:
	/* In-core inodes loaded so far stay until their vnodes are recycled; they free wm then. */
	mp->mnt_data = NULL;
	wm->wm_rdonly = true;
	spin_lock(&wm->wm_hashlock);
	wm->wm_unmounted = true;
	if (wm->wm_ninodes > 0) {
		spin_unlock(&wm->wm_hashlock);
		return error;
	}
	spin_unlock(&wm->wm_hashlock);
fail:
	wdfs_mount_free(wm);
	return error;
}

static int wdfs_root(struct mount *mp, struct vnode **vpp)
{
	struct wdfs_mount *wm = VFSTOWM(mp);

	/* A forced unmount (vfs_shutdown) has detached wm; a process still inside gets EIO. */
	return wm == NULL ? EIO : wdfs_vget(wm, WDFS_ROOTINO, 0, vpp);
}

/*
 * wdfs_sync: MNT_WAIT (sync(2), unmount): write the bitmaps, every dirty metadata buffer of the
 * device (inode and indirect blocks), then the superblock, wait for all of it and flush the
 * disk's cache. File data buffers are the caller's part: vfs_sync_all() writes every dirty
 * buffer after calling this, unmount's vflush() writes each vnode's. MNT_NOWAIT (the syncer):
 * only hand the changed bitmaps and superblock to the buffer cache as delayed writes, so the
 * periodic sync does not flush everything at once (FreeBSD's lazy ffs_sync).
 */
static int wdfs_sync(struct mount *mp, int waitfor)
{
	struct wdfs_mount *wm = VFSTOWM(mp);
	bool wait = waitfor == MNT_WAIT;
	int error, e;

	if (wm->wm_rdonly)
		return 0;
	error = wdfs_bitmap_flush(wm, wait);
	if (!wait)
		return wm->wm_sbdirty ? wdfs_sbupdate(wm, false) : error;
	e = bufsync(wm->wm_devvp, MNT_WAIT);
	if (!error)
		error = e;
	e = wdfs_sbupdate(wm, true);
	if (!error)
		error = e;
	e = disk_io_sync(wm->wm_disk, BIO_FLUSH, 0, NULL, 0);
	return error ? error : e;
}

/* Are files of this mount still in use? (The root may be held once, by the caller.) */
static bool mount_busy(struct wdfs_mount *wm)
{
	bool busy = false;

	spin_lock(&wm->wm_hashlock);
	for (int h = 0; h < WDFS_NHASH && !busy; h++)
		for (struct wdfs_inode *ip = wm->wm_hash[h]; ip && !busy; ip = ip->i_hnext)
			busy = ip->i_vnode->v_usecount > (ip->i_ino == WDFS_ROOTINO ? 1 : 0);
	spin_unlock(&wm->wm_hashlock);
	return busy;
}

/*
 * wdfs_unmount: called after the VFS's vflush() has reclaimed every vnode of the mount (so the
 * hash is normally empty; EBUSY if a file is still in use, unless MNT_FORCE). Writes all
 * metadata, marks the superblock clean and drops the device's buffers. Should an in-core inode
 * still exist, it keeps wm alive (wm_unmounted) until VOP_RECLAIM forgets the last one.
 */
static int wdfs_unmount(struct mount *mp, int flags)
{
	struct wdfs_mount *wm = VFSTOWM(mp);
	bool last;
	int error;

	if (!(flags & MNT_FORCE) && mount_busy(wm))
		return EBUSY;
	error = wdfs_sync(mp, MNT_WAIT);
	if (error && !(flags & MNT_FORCE))
		return error;
	if (!wm->wm_rdonly) {
		wm->wm_sb.s_clean = WDFS_SB_CLEAN;
		error = wdfs_sbupdate(wm, true);
		if (error && !(flags & MNT_FORCE))
			return error;
	}
	vinvalbuf(wm->wm_devvp, V_SAVE);
	wm->wm_rdonly = true;
	mp->mnt_data = NULL;
	spin_lock(&wm->wm_hashlock);
	wm->wm_unmounted = true;
	last = wm->wm_ninodes == 0;
	spin_unlock(&wm->wm_hashlock);
	if (last)
		wdfs_mount_free(wm);
	return 0;
}

/* ---- mount -u ---------------------------------------------------------------------------------- */

/*
 * Would switching to read-only lose something? A file with writers (open for writing, or mapped
 * writable and shared: its stores would reach only memory, v_writecount) would write again, and
 * an unlinked file still open would keep its inode allocated on a file system marked clean.
 * FreeBSD 4's ffs_mount refuses the first (ffs_flushfiles with WRITECLOSE), though its
 * v_writecount counted no mappings; wdfs both.
 */
static bool downgrade_busy(struct wdfs_mount *wm)
{
	bool busy = false;

	spin_lock(&wm->wm_hashlock);
	for (int h = 0; h < WDFS_NHASH && !busy; h++)
		for (struct wdfs_inode *ip = wm->wm_hash[h]; ip && !busy; ip = ip->i_hnext)
			busy = ip->i_vnode->v_writecount > 0 ||
			       (ip->i_din.di_nlink == 0 && ip->i_din.di_mode != 0 &&
			        ip->i_vnode->v_usecount > 0);
	spin_unlock(&wm->wm_hashlock);
	return busy;
}

/*
 * mount -u -r: close the write gate (new operations wait), wait until no operation is inside,
 * write everything, and only if nothing entered meanwhile (a page-out or the freeing of an
 * unlinked file may) mark the mount read-only; then the superblock goes out marked clean, as
 * at unmount. EBUSY (nothing changed) if downgrade_busy.
 */
static int downgrade(struct wdfs_mount *wm, struct mount *mp)
{
	uint32_t gen;
	int error = 0;

	spin_lock(&wm->wm_wlock);
	wm->wm_suspended = true;
	for (;;) {
		while (wm->wm_writers > 0)
			msleep(&wm->wm_writers, &wm->wm_wlock, 0, "wdfsro", 0);
		gen = wm->wm_wgen;
		spin_unlock(&wm->wm_wlock);
		error = downgrade_busy(wm) ? EBUSY : bufsync_all(MNT_WAIT);
		if (error == 0)
			error = wdfs_sync(mp, MNT_WAIT);
		spin_lock(&wm->wm_wlock);
		if (error != 0 || (wm->wm_writers == 0 && wm->wm_wgen == gen))
			break;
	}
	if (error == 0)
		wm->wm_rdonly = true;
	wm->wm_suspended = false;
	wakeup(&wm->wm_suspended);
	spin_unlock(&wm->wm_wlock);
	if (error != 0)
		return error;
	sleeplock_acquire(&wm->wm_alloclock);
	wm->wm_sb.s_clean = WDFS_SB_CLEAN;
	sleeplock_release(&wm->wm_alloclock);
	error = sb_write(wm, true);
	if (error == 0)
		error = disk_io_sync(wm->wm_disk, BIO_FLUSH, 0, NULL, 0);
	return error;
}

/*
 * mount -u -w: as a read-write mount does, refuse a file system that is not clean unless
 * MNT_FORCE (FreeBSD 4's ffs_mount: "R/W mount denied", EPERM), and mark it dirty on disk
 * before the first write.
 */
static int upgrade(struct wdfs_mount *wm, int flags)
{
	int error;

	if (wm->wm_sb.s_clean != WDFS_SB_CLEAN && !(flags & MNT_FORCE)) {
		kprintf("wdfs: %s: WARNING: R/W mount denied: file system is not clean - run fsck\n",
		        wm->wm_name);
		return EPERM;
	}
	error = mark_dirty(wm);
	if (error)
		return error;
	spin_lock(&wm->wm_wlock);
	wm->wm_rdonly = false;
	spin_unlock(&wm->wm_wlock);
	return 0;
}

/*
 * wdfs_update: mount -u, FreeBSD 4's MNT_UPDATE path of ffs_mount (sys/ufs/ffs/ffs_vfsops.c
 * 1.117.2.10, read in DragonFly's 2004 copy): read-write to read-only (downgrade) or back
 * (upgrade); anything else changes nothing here. One switch at a time (wm_updatelock).
 */
static int wdfs_update(struct mount *mp, int flags)
{
	struct wdfs_mount *wm = VFSTOWM(mp);
	bool ro = (flags & MNT_RDONLY) != 0;
	int error = 0;

	sleeplock_acquire(&wm->wm_updatelock);
	if (ro && !wm->wm_rdonly)
		error = downgrade(wm, mp);
	else if (!ro && wm->wm_rdonly)
		error = upgrade(wm, flags);
	sleeplock_release(&wm->wm_updatelock);
	return error;
}

/*
 * wdfs_statfs: the data area's blocks (the metadata regions are not counted, as FFS's f_blocks
 * leaves out its overhead) and the inodes. wdfs keeps no reserve for root, so f_bavail =
 * f_bfree. f_iosize is the block size, as FFS reports fs_bsize.
 */
static int wdfs_statfs(struct mount *mp, struct statfs *sbp)
{
	struct wdfs_mount *wm = VFSTOWM(mp);

	sleeplock_acquire(&wm->wm_alloclock);
	sbp->f_bsize = wm->wm_bsize;
	sbp->f_iosize = wm->wm_bsize;
	sbp->f_blocks = wm->wm_sb.s_nblocks - wm->wm_sb.s_data_start;
	sbp->f_bfree = wm->wm_sb.s_free_blocks;
	sbp->f_bavail = sbp->f_bfree;
	sbp->f_files = wm->wm_sb.s_ninodes - WDFS_ROOTINO;
	sbp->f_ffree = wm->wm_sb.s_free_inodes;
	sleeplock_release(&wm->wm_alloclock);
	return 0;
}

static struct vfsops wdfs_vfsops = {
	.vfs_mount   = wdfs_mount,
	.vfs_update  = wdfs_update,
	.vfs_unmount = wdfs_unmount,
	.vfs_root    = wdfs_root,
	.vfs_sync    = wdfs_sync,
	.vfs_statfs  = wdfs_statfs,
};

VFS_SET(wdfs_vfsops, wdfs, 0);
