/*
 * wdfs directories (FFS's ufs_lookup.c): the records of wdfs_format.h, read and written through
 * the directory vnode's own buffers (logical blocks, mapped by VOP_STRATEGY).
 *
 *   wdfs_dirlookup   name -> inode number (ENOENT)
 *   wdfs_direnter    add a record, in the first gap big enough or in a new block
 *   wdfs_dirremove   remove a record (folded into the previous one, as FFS does)
 *   wdfs_dirrewrite  point an existing name at another inode (rename over a file, "..")
 *   wdfs_dirempty    only "." and ".." left?
 *   wdfs_dirinit     the first block of a new directory
 *   wdfs_readdir_locked  records as struct dirent, with byte offsets as the cookies
 *
 * Every record is checked with wdfs_dirent_check() before it is used: a damaged one fails the
 * operation with EIO and a console message, never a wild access. Changes are written with
 * wdfs_bwrite (synchronously, then a cache flush): the ordering rules of docs/fs.md need a name
 * on stable storage before the operation that depends on it. Caller holds the directory's v_lock.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/uio.h"
#include "fs/wdfs/wdfs.h"
#include <sys/dirent.h>
#include <sys/errno.h>
#include <sys/stat.h>

uint8_t wdfs_dtype(uint16_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return WDFS_DT_DIR;
	case S_IFREG: return WDFS_DT_REG;
	case S_IFLNK: return WDFS_DT_LNK;
	case S_IFIFO: return WDFS_DT_FIFO;
	case S_IFCHR: return WDFS_DT_CHR;
	case S_IFBLK: return WDFS_DT_BLK;
	case S_IFSOCK: return WDFS_DT_SOCK;
	default:      return WDFS_DT_UNKNOWN;
	}
}

static struct wdfs_direct *rec(struct buf *bp, uint32_t off)
{
	return (struct wdfs_direct *)(bp->b_data + off);
}

static int read_dirblk(struct wdfs_inode *dp, daddr_t lbn, struct buf **bpp)
{
	int error = bread(dp->i_vnode, lbn, (int)dp->i_wm->wm_bsize, bpp);

	if (error) {
		brelse(*bpp);
		*bpp = NULL;
	}
	return error;
}

/* Check the record at off; EIO with a message if it is damaged. */
static int check_rec(struct wdfs_inode *dp, struct buf *bp, daddr_t lbn, uint32_t off)
{
	struct wdfs_mount *wm = dp->i_wm;
	char msg[WDFS_MSGLEN];

	if (wdfs_dirent_check((const uint8_t *)bp->b_data, off, wm->wm_bsize, wm->wm_sb.s_ninodes,
	                      msg, sizeof(msg)) == 0)
		return 0;
	return wdfs_corrupt(wm, "directory inode %u, block %lld: %s", dp->i_ino, (long long)lbn, msg);
}

/*
 * Find `name` in the directory: returns 0 with its block held in *bpp, the record's offset in
 * *offp and the previous record of the same chunk in *prevp (WDFS_NONE if it is the first).
 */
static int dir_find(struct wdfs_inode *dp, const char *name, struct buf **bpp, daddr_t *lbnp,
                    uint32_t *offp, uint32_t *prevp)
{
	uint32_t bs = dp->i_wm->wm_bsize, namlen = (uint32_t)strlen(name);
	daddr_t nblk = (daddr_t)(dp->i_din.di_size / bs);
	struct buf *bp;
	int error;

	for (daddr_t lbn = 0; lbn < nblk; lbn++) {
		error = read_dirblk(dp, lbn, &bp);
		if (error)
			return error;
		for (uint32_t chunk = 0; chunk < bs; chunk += WDFS_DIRBLKSIZ) {
			uint32_t prev = WDFS_NONE;
			for (uint32_t off = chunk; off < chunk + WDFS_DIRBLKSIZ; off += rec(bp, off)->d_reclen) {
				error = check_rec(dp, bp, lbn, off);
				if (error) {
					brelse(bp);
					return error;
				}
				if (rec(bp, off)->d_ino != 0 && wdfs_name_eq(rec(bp, off), name, namlen)) {
					*bpp = bp;
					*lbnp = lbn;
					*offp = off;
					*prevp = prev;
					return 0;
				}
				prev = off;
			}
		}
		bqrelse(bp);
	}
	return ENOENT;
}

int wdfs_dirlookup(struct wdfs_inode *dp, const char *name, uint32_t *inop)
{
	struct buf *bp;
	daddr_t lbn;
	uint32_t off, prev;
	int error;

	error = dir_find(dp, name, &bp, &lbn, &off, &prev);
	if (error)
		return error;
	*inop = rec(bp, off)->d_ino;
	bqrelse(bp);
	return 0;
}

static void fill_rec(struct wdfs_direct *d, const char *name, uint32_t ino, uint8_t type)
{
	uint32_t namlen = (uint32_t)strlen(name);

	d->d_ino = ino;
	d->d_type = type;
	d->d_namlen = (uint8_t)namlen;
	memcpy(d->d_name, name, namlen);
}

/* Put the record into the first gap of at least `need` bytes in bp; false if there is none. */
static int place_rec(struct wdfs_inode *dp, struct buf *bp, daddr_t lbn, const char *name,
                     uint32_t ino, uint8_t type, bool *placed)
{
	uint32_t bs = dp->i_wm->wm_bsize, need = WDFS_DIRSIZ(strlen(name));
	int error;

	*placed = false;
	for (uint32_t off = 0; off < bs; off += rec(bp, off)->d_reclen) {
		struct wdfs_direct *d = rec(bp, off), *n;
		uint32_t used;

		error = check_rec(dp, bp, lbn, off);
		if (error)
			return error;
		used = d->d_ino ? WDFS_DIRSIZ(d->d_namlen) : 0;
		if (d->d_reclen - used < need)
			continue;
		n = (struct wdfs_direct *)((char *)d + used);
		if (used) {
			n->d_reclen = (uint16_t)(d->d_reclen - used);
			d->d_reclen = (uint16_t)used;
		}
		fill_rec(n, name, ino, type);
		*placed = true;
		return 0;
	}
	return 0;
}

/* Lay out an empty directory block: each chunk one unused record. */
static void init_dirblk(struct buf *bp, uint32_t bs)
{
	memset(bp->b_data, 0, bs);
	for (uint32_t off = 0; off < bs; off += WDFS_DIRBLKSIZ)
		rec(bp, off)->d_reclen = WDFS_DIRBLKSIZ;
}

/*
 * wdfs_direnter (FFS's ufs_direnter): add name -> ino. The caller has checked that the name is
 * absent and has already written the inode (so the new name never points at garbage). The
 * record reaches the disk before this returns; a new block is written before the inode that
 * points to it.
 */
int wdfs_direnter(struct wdfs_inode *dp, const char *name, uint32_t ino, uint8_t type)
{
	uint32_t bs = dp->i_wm->wm_bsize, blk;
	daddr_t nblk = (daddr_t)(dp->i_din.di_size / bs);
	struct buf *bp;
	bool placed, isnew;
	int error;

	for (daddr_t lbn = 0; lbn < nblk; lbn++) {
		error = read_dirblk(dp, lbn, &bp);
		if (error)
			return error;
		error = place_rec(dp, bp, lbn, name, ino, type, &placed);
		if (error || !placed) {
			bqrelse(bp);
			if (error)
				return error;
			continue;
		}
		return wdfs_bwrite(dp->i_wm, bp);
	}
	error = wdfs_balloc(dp, nblk, &blk, &isnew);
	if (error)
		return error;
	bp = getblk(dp->i_vnode, nblk, (int)bs, 0, 0);
	init_dirblk(bp, bs);
	fill_rec(rec(bp, 0), name, ino, type);
	error = wdfs_bwrite(dp->i_wm, bp);
	if (error) {
		wdfs_itrunc(dp, (off_t)dp->i_din.di_size);
		return error;
	}
	dp->i_din.di_size += bs;
	return wdfs_iupdate(dp, true);
}

/* wdfs_dirremove (FFS's ufs_dirremove): drop the record for name (of inode ino, if not 0). */
int wdfs_dirremove(struct wdfs_inode *dp, const char *name, uint32_t ino)
{
	struct buf *bp;
	daddr_t lbn;
	uint32_t off, prev;
	int error;

	error = dir_find(dp, name, &bp, &lbn, &off, &prev);
	if (error)
		return error;
	if (ino != 0 && rec(bp, off)->d_ino != ino) {
		bqrelse(bp);
		return ENOENT;
	}
	if (prev != WDFS_NONE)
		rec(bp, prev)->d_reclen += rec(bp, off)->d_reclen;
	else
		rec(bp, off)->d_ino = 0;
	return wdfs_bwrite(dp->i_wm, bp);
}

int wdfs_dirrewrite(struct wdfs_inode *dp, const char *name, uint32_t ino, uint8_t type)
{
	struct buf *bp;
	daddr_t lbn;
	uint32_t off, prev;
	int error;

	error = dir_find(dp, name, &bp, &lbn, &off, &prev);
	if (error)
		return error;
	rec(bp, off)->d_ino = ino;
	rec(bp, off)->d_type = type;
	return wdfs_bwrite(dp->i_wm, bp);
}

int wdfs_dirempty(struct wdfs_inode *dp, bool *emptyp)
{
	uint32_t bs = dp->i_wm->wm_bsize;
	daddr_t nblk = (daddr_t)(dp->i_din.di_size / bs);
	struct buf *bp;
	int error;

	*emptyp = true;
	for (daddr_t lbn = 0; lbn < nblk && *emptyp; lbn++) {
		error = read_dirblk(dp, lbn, &bp);
		if (error)
			return error;
		for (uint32_t off = 0; off < bs; off += rec(bp, off)->d_reclen) {
			struct wdfs_direct *d = rec(bp, off);

			error = check_rec(dp, bp, lbn, off);
			if (error) {
				brelse(bp);
				return error;
			}
			if (d->d_ino == 0 || wdfs_name_eq(d, ".", 1) || wdfs_name_eq(d, "..", 2))
				continue;
			*emptyp = false;
			break;
		}
		bqrelse(bp);
	}
	return 0;
}

/* wdfs_dirinit: block 0 of new directory ip with "." and ".."; written before the caller's inode. */
int wdfs_dirinit(struct wdfs_inode *ip, uint32_t parent)
{
	uint32_t bs = ip->i_wm->wm_bsize, blk;
	struct wdfs_direct *d;
	struct buf *bp;
	bool isnew;
	int error;

	error = wdfs_balloc(ip, 0, &blk, &isnew);
	if (error)
		return error;
	bp = getblk(ip->i_vnode, 0, (int)bs, 0, 0);
	init_dirblk(bp, bs);
	d = rec(bp, 0);
	fill_rec(d, ".", ip->i_ino, WDFS_DT_DIR);
	d->d_reclen = (uint16_t)WDFS_DIRSIZ(1);
	d = rec(bp, WDFS_DIRSIZ(1));
	fill_rec(d, "..", parent, WDFS_DT_DIR);
	d->d_reclen = (uint16_t)(WDFS_DIRBLKSIZ - WDFS_DIRSIZ(1));
	ip->i_din.di_size = bs;
	return wdfs_bwrite(ip->i_wm, bp);
}

/* Copy one record out as a struct dirent; *fullp if it does not fit the caller's buffer. */
static int emit(struct wdfs_direct *d, struct uio *uio, bool *fullp)
{
	struct dirent de;
	uint16_t reclen = (uint16_t)roundup(8u + d->d_namlen + 1u, 4u);

	if (uio->uio_resid < reclen) {
		*fullp = true;
		return 0;
	}
	memset(&de, 0, sizeof(de));
	de.d_ino = d->d_ino;
	de.d_reclen = reclen;
	de.d_type = d->d_type;
	de.d_namlen = d->d_namlen;
	memcpy(de.d_name, d->d_name, d->d_namlen);
	return uiomove(&de, reclen, uio);
}

/*
 * wdfs_readdir_locked: records from directory offset uio_offset on (a cookie: the byte offset of
 * a record; an offset inside a record starts at the next one). uio_offset ends at the first
 * record not returned. EINVAL if the buffer cannot hold even one record.
 */
int wdfs_readdir_locked(struct wdfs_inode *dp, struct uio *uio)
{
	uint32_t bs = dp->i_wm->wm_bsize;
	off_t pos = uio->uio_offset, size = (off_t)dp->i_din.di_size;
	bool full = false, any = false;
	struct buf *bp;
	int error = 0;

	if (pos < 0)
		return EINVAL;
	while (pos < size && !full && !error) {
		daddr_t lbn = pos / bs;
		uint32_t from = (uint32_t)(pos % bs), off;

		error = read_dirblk(dp, lbn, &bp);
		if (error)
			break;
		for (off = 0; off < bs; off += rec(bp, off)->d_reclen) {
			error = check_rec(dp, bp, lbn, off);
			if (error)
				break;
			if (off < from || rec(bp, off)->d_ino == 0)
				continue;
			error = emit(rec(bp, off), uio, &full);
			if (error || full)
				break;
			any = true;
		}
		bqrelse(bp);
		pos = (off_t)lbn * bs + off;
	}
	uio->uio_offset = pos;
	if (!error && full && !any)
		error = EINVAL;
	return error;
}
