/*
 * wdfs allocation (FFS's ffs_alloc.c, ffs_balloc.c, ffs_inode.c in one small file):
 *
 *   wdfs_blkalloc/wdfs_blkfree   data blocks, from the in-memory block bitmap (a rotor search,
 *                                so files written alone come out contiguous)
 *   wdfs_ialloc/wdfs_ifree       inodes, from the in-memory inode bitmap
 *   wdfs_bitmap_flush            copy the changed bitmap blocks into buffers and write them
 *                                (sync: now and wait; else as delayed writes)
 *   wdfs_bmap_blk                logical block -> disk block (0 = hole); checks every pointer
 *                                read from an indirect block
 *   wdfs_balloc                  the same, allocating the block and any missing indirect blocks
 *   wdfs_itrunc                  shorten (or sparsely extend) a file, freeing what lies past the end
 *
 * Ordering (the crash-consistency rules of docs/fs.md): a new indirect block is written, zeroed,
 * before any pointer to it can reach the disk; truncation writes the inode (and any trimmed
 * indirect block) with the pointers cleared before the blocks go back to the bitmap, so a freed
 * block is never still named on disk when it is reused. The bitmaps themselves are written
 * lazily: fsck rebuilds them from the inodes after a crash.
 *
 * Locking: the caller holds the inode's v_lock for bmap/balloc/itrunc; the bitmaps are under
 * wm_alloclock, taken here for short stretches (never while waiting for a buffer).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "fs/wdfs/wdfs.h"
#include "vm/vnode_pager.h"
#include <sys/errno.h>

/* ---- bitmaps ------------------------------------------------------------------------------------ */

static void map_dirty(uint8_t *dirty, uint32_t bit, uint32_t bsize)
{
	dirty[bit / (bsize * 8)] = 1;
}

int wdfs_blkalloc(struct wdfs_mount *wm, uint32_t pref, uint32_t *blkp)
{
	struct wdfs_super *sb = &wm->wm_sb;
	uint32_t b;

	if (wm->wm_rdonly)
		return EROFS;
	sleeplock_acquire(&wm->wm_alloclock);
	if (sb->s_free_blocks == 0) {
		sleeplock_release(&wm->wm_alloclock);
		return ENOSPC;
	}
	b = wdfs_bitmap_find(wm->wm_bmap, sb->s_nblocks, pref ? pref : wm->wm_brotor);
	if (b == WDFS_NONE || !wdfs_blk_valid(sb, b)) {
		sb->s_free_blocks = 0;
		sleeplock_release(&wm->wm_alloclock);
		return ENOSPC;
	}
	wdfs_bit_set(wm->wm_bmap, b);
	map_dirty(wm->wm_bmap_dirty, b, wm->wm_bsize);
	sb->s_free_blocks--;
	wm->wm_sbdirty = true;
	wm->wm_brotor = b + 1;
	sleeplock_release(&wm->wm_alloclock);
	*blkp = b;
	return 0;
}

/*
 * wdfs_blkfree: give block blk back. A cached device buffer of it (an old indirect block) is
 * invalidated first, so a stale delayed write can never land on the block's next owner.
 */
void wdfs_blkfree(struct wdfs_mount *wm, uint32_t blk)
{
	struct wdfs_super *sb = &wm->wm_sb;
	struct buf *bp;

	if (!wdfs_blk_valid(sb, blk)) {
		wdfs_corrupt(wm, "freeing block %u outside the data area", blk);
		return;
	}
	if (incore(wm->wm_devvp, wdfs_fsbtodb(wm, blk))) {
		bp = getblk(wm->wm_devvp, wdfs_fsbtodb(wm, blk), (int)wm->wm_bsize, 0, 0);
		bdiscard(bp);
	}
	sleeplock_acquire(&wm->wm_alloclock);
	if (!wdfs_bit_test(wm->wm_bmap, blk)) {
		sleeplock_release(&wm->wm_alloclock);
		wdfs_corrupt(wm, "freeing block %u, which is already free", blk);
		return;
	}
	wdfs_bit_clr(wm->wm_bmap, blk);
	map_dirty(wm->wm_bmap_dirty, blk, wm->wm_bsize);
	sb->s_free_blocks++;
	wm->wm_sbdirty = true;
	sleeplock_release(&wm->wm_alloclock);
}

int wdfs_ialloc(struct wdfs_mount *wm, uint32_t *inop)
{
	struct wdfs_super *sb = &wm->wm_sb;
	uint32_t ino;

	if (wm->wm_rdonly)
		return EROFS;
	sleeplock_acquire(&wm->wm_alloclock);
	ino = sb->s_free_inodes ? wdfs_bitmap_find(wm->wm_imap, sb->s_ninodes, wm->wm_irotor)
	                        : WDFS_NONE;
	if (ino == WDFS_NONE || !wdfs_ino_valid(sb, ino)) {
		sleeplock_release(&wm->wm_alloclock);
		return ENOSPC;
	}
	wdfs_bit_set(wm->wm_imap, ino);
	map_dirty(wm->wm_imap_dirty, ino, wm->wm_bsize);
	sb->s_free_inodes--;
	wm->wm_sbdirty = true;
	wm->wm_irotor = ino + 1;
	sleeplock_release(&wm->wm_alloclock);
	*inop = ino;
	return 0;
}

void wdfs_ifree(struct wdfs_mount *wm, uint32_t ino)
{
	struct wdfs_super *sb = &wm->wm_sb;

	sleeplock_acquire(&wm->wm_alloclock);
	if (!wdfs_ino_valid(sb, ino) || !wdfs_bit_test(wm->wm_imap, ino)) {
		sleeplock_release(&wm->wm_alloclock);
		wdfs_corrupt(wm, "freeing inode %u, which is not in use", ino);
		return;
	}
	wdfs_bit_clr(wm->wm_imap, ino);
	map_dirty(wm->wm_imap_dirty, ino, wm->wm_bsize);
	sb->s_free_inodes++;
	wm->wm_sbdirty = true;
	if (ino < wm->wm_irotor)
		wm->wm_irotor = ino;
	sleeplock_release(&wm->wm_alloclock);
}

static int flush_map(struct wdfs_mount *wm, uint32_t start, uint32_t nblocks, uint8_t *map,
                     uint8_t *dirty, bool sync)
{
	struct buf *bp;
	bool was;
	int error = 0, e;

	for (uint32_t i = 0; i < nblocks; i++) {
		if (!dirty[i])
			continue;
		bp = getblk(wm->wm_devvp, wdfs_fsbtodb(wm, start + i), (int)wm->wm_bsize, 0, 0);
		sleeplock_acquire(&wm->wm_alloclock);
		was = dirty[i];
		memcpy(bp->b_data, map + (size_t)i * wm->wm_bsize, wm->wm_bsize);
		dirty[i] = 0;
		sleeplock_release(&wm->wm_alloclock);
		if (!was) {
			brelse(bp);
			continue;
		}
		if (sync) {
			e = bwrite(bp);
			if (e && !error)
				error = e;
		} else {
			bdwrite(bp);
		}
	}
	return error;
}

int wdfs_bitmap_flush(struct wdfs_mount *wm, bool sync)
{
	struct wdfs_super *sb = &wm->wm_sb;
	int error, e;

	error = flush_map(wm, sb->s_bmap_start, sb->s_bmap_blocks, wm->wm_bmap,
	                  wm->wm_bmap_dirty, sync);
	e = flush_map(wm, sb->s_imap_start, sb->s_imap_blocks, wm->wm_imap, wm->wm_imap_dirty, sync);
	return error ? error : e;
}

/* ---- block mapping ---------------------------------------------------------------------------- */

off_t wdfs_maxfilesize(struct wdfs_mount *wm)
{
	uint64_t blocks = wdfs_max_lblocks(wm->wm_nindir);

	if (blocks > (uint64_t)INT64_MAX / wm->wm_bsize)
		return INT64_MAX;
	return (off_t)(blocks * wm->wm_bsize);
}

/* Entry idx of indirect block blk, checked. */
static int ind_entry(struct wdfs_inode *ip, uint32_t blk, uint32_t idx, uint32_t *valp)
{
	struct wdfs_mount *wm = ip->i_wm;
	struct buf *bp;
	uint32_t v;
	int error;

	error = bread(wm->wm_devvp, wdfs_fsbtodb(wm, blk), (int)wm->wm_bsize, &bp);
	if (error) {
		brelse(bp);
		return error;
	}
	v = ((uint32_t *)bp->b_data)[idx];
	bqrelse(bp);
	if (v != 0 && !wdfs_blk_valid(&wm->wm_sb, v))
		return wdfs_corrupt(wm, "inode %u: entry %u of indirect block %u is %u, outside the data area",
		                    ip->i_ino, idx, blk, v);
	*valp = v;
	return 0;
}

/*
 * wdfs_bmap_blk: the disk block holding logical block lbn of the file, 0 for a hole. Reads
 * indirect blocks through the buffer cache; takes no lock (the pointers of a block that has a
 * buffer in flight are stable: they are set before its buffer is dirtied and cleared only after
 * vtruncbuf has thrown the buffer away).
 */
int wdfs_bmap_blk(struct wdfs_inode *ip, daddr_t lbn, uint32_t *blkp)
{
	struct wdfs_bpath path;
	uint32_t b;
	int error;

	if (lbn < 0)
		return EINVAL;
	if (wdfs_bmap_path((uint64_t)lbn, ip->i_wm->wm_nindir, &path) != 0)
		return EFBIG;
	if (path.level == 0) {
		*blkp = ip->i_din.di_db[path.idx[0]];
		return 0;
	}
	b = ip->i_din.di_ib[path.level - 1];
	for (int i = 0; i < path.level && b != 0; i++) {
		error = ind_entry(ip, b, path.idx[i], &b);
		if (error)
			return error;
	}
	*blkp = b;
	return 0;
}

/* A new indirect block: allocate it and write it zeroed before anything can point to it. */
static int new_indirect(struct wdfs_inode *ip, uint32_t *blkp)
{
	struct wdfs_mount *wm = ip->i_wm;
	struct buf *bp;
	uint32_t b;
	int error;

	error = wdfs_blkalloc(wm, 0, &b);
	if (error)
		return error;
	bp = getblk(wm->wm_devvp, wdfs_fsbtodb(wm, b), (int)wm->wm_bsize, 0, 0);
	vfs_bio_clrbuf(bp);
	error = wdfs_bwrite(wm, bp);
	if (error) {
		wdfs_blkfree(wm, b);
		return error;
	}
	ip->i_din.di_blocks++;
	*blkp = b;
	return 0;
}

/*
 * wdfs_balloc (FFS's ffs_balloc): the disk block of logical block lbn, allocating it (and any
 * missing indirect blocks) if it is a hole; *newp says whether it was just allocated, in which
 * case the caller must fill its whole buffer. The inode is changed in memory only: the caller
 * writes it (wdfs_iupdate) when it has finished with the file. Caller holds v_lock.
 */
int wdfs_balloc(struct wdfs_inode *ip, daddr_t lbn, uint32_t *blkp, bool *newp)
{
	struct wdfs_mount *wm = ip->i_wm;
	struct wdfs_bpath path;
	struct buf *bp;
	uint32_t *ptr, cur, next;
	int error;

	*newp = false;
	if (lbn < 0)
		return EINVAL;
	if (wdfs_bmap_path((uint64_t)lbn, wm->wm_nindir, &path) != 0)
		return EFBIG;
	if (path.level == 0) {
		ptr = &ip->i_din.di_db[path.idx[0]];
		if (*ptr == 0) {
			error = wdfs_blkalloc(wm, 0, ptr);
			if (error)
				return error;
			ip->i_din.di_blocks++;
			*newp = true;
		}
		*blkp = *ptr;
		return 0;
	}
	ptr = &ip->i_din.di_ib[path.level - 1];
	if (*ptr == 0) {
		error = new_indirect(ip, ptr);
		if (error)
			return error;
	}
	cur = *ptr;
	for (int i = 0; i < path.level; i++) {
		bool leaf = i == path.level - 1;

		error = bread(wm->wm_devvp, wdfs_fsbtodb(wm, cur), (int)wm->wm_bsize, &bp);
		if (error) {
			brelse(bp);
			return error;
		}
		next = ((uint32_t *)bp->b_data)[path.idx[i]];
		if (next != 0) {
			bqrelse(bp);
			if (!wdfs_blk_valid(&wm->wm_sb, next))
				return wdfs_corrupt(wm, "inode %u: entry %u of indirect block %u is %u, outside the data area",
				                    ip->i_ino, path.idx[i], cur, next);
			cur = next;
			continue;
		}
		if (leaf) {
			error = wdfs_blkalloc(wm, 0, &next);
			if (!error) {
				ip->i_din.di_blocks++;
				*newp = true;
			}
		} else {
			error = new_indirect(ip, &next);
		}
		if (error) {
			bqrelse(bp);
			return error;
		}
		((uint32_t *)bp->b_data)[path.idx[i]] = next;
		bdwrite(bp);
		cur = next;
	}
	*blkp = cur;
	return 0;
}

/* ---- truncation ----------------------------------------------------------------------------------- */

/*
 * Free what indirect block blk (at `level`: 1 = its entries are data blocks) holds past the
 * first `keep` data blocks of its subtree (FFS's ffs_indirtrunc). When keep > 0 the block stays:
 * its trimmed contents are written synchronously before any child is freed. When keep == 0 the
 * caller has already cleared the pointer to blk on disk and frees blk itself.
 */
static int indtrunc(struct wdfs_inode *ip, uint32_t blk, int level, uint64_t keep, uint64_t *freed)
{
	struct wdfs_mount *wm = ip->i_wm;
	uint64_t span = wdfs_level_span(wm->wm_nindir, level - 1);
	uint32_t *copy, *tab;
	struct buf *bp;
	bool dirty = false;
	int error;

	error = bread(wm->wm_devvp, wdfs_fsbtodb(wm, blk), (int)wm->wm_bsize, &bp);
	if (error) {
		brelse(bp);
		return error;
	}
	copy = kmalloc(wm->wm_bsize, M_WAITOK);
	if (!copy) {
		brelse(bp);
		return ENOMEM;
	}
	tab = (uint32_t *)bp->b_data;
	memcpy(copy, tab, wm->wm_bsize);
	if (keep > 0) {
		for (uint64_t i = howmany(keep, span); i < wm->wm_nindir; i++) {
			if (tab[i]) {
				tab[i] = 0;
				dirty = true;
			}
		}
	}
	if (dirty) {
		error = wdfs_bwrite(wm, bp);
		if (error) {
			kfree(copy);
			return error;
		}
	} else {
		bqrelse(bp);
	}
	for (uint32_t i = 0; i < wm->wm_nindir; i++) {
		uint32_t c = copy[i];
		uint64_t lo = i * span;

		if (c == 0)
			continue;
		if (!wdfs_blk_valid(&wm->wm_sb, c)) {
			wdfs_corrupt(wm, "inode %u: entry %u of indirect block %u is %u, outside the data area",
			             ip->i_ino, i, blk, c);
			continue;
		}
		if (lo >= keep) {
			if (level > 1)
				indtrunc(ip, c, level - 1, 0, freed);
			wdfs_blkfree(wm, c);
			(*freed)++;
		} else if (level > 1 && lo + span > keep) {
			indtrunc(ip, c, level - 1, keep - lo, freed);
		}
	}
	kfree(copy);
	return 0;
}

/*
 * Zero the bytes of the last block past the new end, so a later extension reads zeros, and
 * write the block now (FFS's ffs_truncate writes the partial block at once too). The buffer
 * then lets go of its pages (B_NOCACHE): the truncation frees the pages past the new end, and
 * a buffer must not keep pages the VM has taken back (vfs/vfs_bio_vmio.c). A hole is only
 * dropped from the cache.
 */
static int zero_tail(struct wdfs_inode *ip, off_t length)
{
	struct wdfs_mount *wm = ip->i_wm;
	uint32_t on = (uint32_t)(length % wm->wm_bsize), blk;
	daddr_t lbn = length / wm->wm_bsize;
	struct buf *bp;
	int error;

	if (on == 0)
		return 0;
	error = wdfs_bmap_blk(ip, lbn, &blk);
	if (error)
		return error;
	if (blk == 0) {
		if (incore(ip->i_vnode, lbn) != NULL)
			bdiscard(getblk(ip->i_vnode, lbn, (int)wm->wm_bsize, 0, 0));
		return 0;
	}
	error = bread(ip->i_vnode, lbn, (int)wm->wm_bsize, &bp);
	if (error) {
		brelse(bp);
		return error;
	}
	buf_zero(bp, (int)on, (int)(wm->wm_bsize - on));
	buf_setflags(bp, B_NOCACHE);
	return bwrite(bp);
}

/*
 * wdfs_itrunc (FFS's ffs_truncate): set the file's size to `length`. Growing only changes the
 * size (the new range reads as a hole). Shrinking (or length == size, which frees any blocks
 * left past the end by a failed write) discards the buffers past the end, clears the pointers
 * in the inode and writes it synchronously, then frees the blocks. Caller holds v_lock.
 */
int wdfs_itrunc(struct wdfs_inode *ip, off_t length)
{
	struct wdfs_mount *wm = ip->i_wm;
	struct wdfs_dinode *dp = &ip->i_din;
	uint32_t olddb[WDFS_NDADDR], oldib[WDFS_NIADDR];
	uint64_t nkeep, start, span, freed = 0;
	bool changed = false;
	int error;

	if (length < 0)
		return EINVAL;
	if (length > wdfs_maxfilesize(wm))
		return EFBIG;
	if ((uint64_t)length > dp->di_size) {
		dp->di_size = (uint64_t)length;
		vnode_pager_setsize(ip->i_vnode, length);
		return wdfs_iupdate(ip, false);
	}
	if ((uint64_t)length < dp->di_size) {
		error = zero_tail(ip, length);
		if (error)
			return error;
	}
	nkeep = howmany((uint64_t)length, wm->wm_bsize);
	vtruncbuf(ip->i_vnode, (daddr_t)nkeep);
	memcpy(olddb, dp->di_db, sizeof(olddb));
	memcpy(oldib, dp->di_ib, sizeof(oldib));
	for (uint64_t i = nkeep; i < WDFS_NDADDR; i++) {
		if (dp->di_db[i]) {
			dp->di_db[i] = 0;
			changed = true;
		}
	}
	start = WDFS_NDADDR;
	for (int l = 1; l <= WDFS_NIADDR; l++) {
		if (dp->di_ib[l - 1] && nkeep <= start) {
			dp->di_ib[l - 1] = 0;
			changed = true;
		}
		start += wdfs_level_span(wm->wm_nindir, l);
	}
	dp->di_size = (uint64_t)length;
	vnode_pager_setsize(ip->i_vnode, length);
	error = wdfs_iupdate(ip, changed);
	if (error)
		return error;
	start = WDFS_NDADDR;
	for (int l = 1; l <= WDFS_NIADDR; l++) {
		span = wdfs_level_span(wm->wm_nindir, l);
		if (oldib[l - 1] && nkeep <= start) {
			indtrunc(ip, oldib[l - 1], l, 0, &freed);
			wdfs_blkfree(wm, oldib[l - 1]);
			freed++;
		} else if (oldib[l - 1] && nkeep < start + span) {
			indtrunc(ip, oldib[l - 1], l, nkeep - start, &freed);
		}
		start += span;
	}
	for (uint64_t i = nkeep; i < WDFS_NDADDR; i++) {
		if (olddb[i]) {
			wdfs_blkfree(wm, olddb[i]);
			freed++;
		}
	}
	if (freed == 0)
		return 0;
	dp->di_blocks = dp->di_blocks >= freed ? dp->di_blocks - freed : 0;
	return wdfs_iupdate(ip, false);
}
