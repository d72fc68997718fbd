/*
 * The wdfs checker (interface and exit codes in fsck_wdfs.h). It follows FFS fsck's phases:
 *
 *   1  superblock, then every inode: type, block pointers in range, no block claimed twice, no
 *      block past the end of the file, the block count; a symbolic link's target (its first
 *      block: 1..WDFS_MAXSYMLINK bytes, no NUL), the emptiness of a FIFO, socket or device
 *      node (no size, no blocks) and that only a device node has a device number
 *   2  directories from the root: every record well formed, "." and "..", entries naming
 *      allocated inodes of the right type, each directory reachable by exactly one name
 *   3  directories not reachable from the root: reconnected into /lost+found
 *   4  link counts against the references counted in phase 2; unreferenced files reconnected
 *      (or cleared when empty)
 *   5  the block and inode bitmaps and the superblock's free counts against what phases 1-4
 *      found in use; the clean flag
 *
 * Each problem is one line on stdout; with FSCK_FIX the repair is made as the problem is found
 * ("- fixed"). The whole inode table and both bitmaps are held in memory; directory and
 * indirect blocks are read (and, when repaired, written) one at a time.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsck_wdfs.h"
#include "../../kernel/fs/wdfs/wdfs_layout.h"

#define S_IFMT_   0170000
#define S_IFDIR_  0040000
#define S_IFREG_  0100000
#define S_IFLNK_  0120000
#define S_IFIFO_  0010000
#define S_IFCHR_  0020000
#define S_IFBLK_  0060000
#define S_IFSOCK_ 0140000
#define OWNER_META 0xffffffffu     /* owner[] of the metadata blocks */
#define MAXREPORT  10              /* bitmap mismatches listed one by one */

struct fsck {
	struct fsck_io     *io;
	int                 fix;
	struct wdfs_super   sb;
	uint32_t            bs, nindir;
	uint8_t            *bmap, *imap;   /* the bitmaps as read from disk */
	struct wdfs_dinode *itab;
	uint8_t            *itab_dirty;    /* per inode-table block */
	uint32_t           *owner;         /* per block: the inode using it, 0 = free */
	uint32_t           *refs;          /* per inode: directory entries naming it */
	uint32_t           *parent;        /* per directory: the directory naming it, 0 = unseen */
	uint8_t            *doomed;        /* per inode: to be cleared, but -n leaves it: later phases
	                                      treat it as cleared, as they would see it under -y */
	uint32_t            lostfound;
	unsigned            problems, unfixed;
	int                 ioerror;
};

/* Report one problem. Returns true if the caller should repair it (FSCK_FIX and fixable). */
static bool problem(struct fsck *fs, bool fixable, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fs->problems++;
	if (fs->fix && fixable) {
		printf(" - fixed\n");
		return true;
	}
	fs->unfixed++;
	printf(fixable ? "\n" : " - cannot fix\n");
	return false;
}

static int rd(struct fsck *fs, uint32_t blk, void *buf)
{
	if (fs->io->read(fs->io->arg, (uint64_t)blk * fs->bs, buf, fs->bs) != 0) {
		printf("%s: cannot read block %u\n", fs->io->name, blk);
		fs->ioerror = 1;
		memset(buf, 0, fs->bs);
		return -1;
	}
	return 0;
}

static void wr(struct fsck *fs, uint32_t blk, const void *buf)
{
	if (fs->io->write(fs->io->arg, (uint64_t)blk * fs->bs, buf, fs->bs) != 0) {
		printf("%s: cannot write block %u\n", fs->io->name, blk);
		fs->ioerror = 1;
	}
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		printf("fsck: out of memory (%zu bytes)\n", n);
		exit(FSCK_EXIT_FATAL);
	}
	return p;
}

static struct wdfs_dinode *ip(struct fsck *fs, uint32_t ino)
{
	return &fs->itab[ino];
}

static void idirty(struct fsck *fs, uint32_t ino)
{
	fs->itab_dirty[ino / (fs->bs / WDFS_INODE_SIZE)] = 1;
}

static const char *tname(uint16_t mode)
{
	switch (mode & S_IFMT_) {
	case S_IFDIR_: return "directory";
	case S_IFREG_: return "file";
	case S_IFLNK_: return "symlink";
	case S_IFIFO_: return "FIFO";
	case S_IFCHR_: return "character device";
	case S_IFBLK_: return "block device";
	case S_IFSOCK_: return "socket";
	default:       return "inode";
	}
}

static uint8_t dtype_of(uint16_t mode)
{
	switch (mode & S_IFMT_) {
	case S_IFDIR_: return WDFS_DT_DIR;
	case S_IFREG_: return WDFS_DT_REG;
	case S_IFLNK_: return WDFS_DT_LNK;
	case S_IFIFO_: return WDFS_DT_FIFO;
	case S_IFCHR_: return WDFS_DT_CHR;
	case S_IFBLK_: return WDFS_DT_BLK;
	case S_IFSOCK_: return WDFS_DT_SOCK;
	default:       return WDFS_DT_UNKNOWN;
	}
}

/* ---- phase 1: inodes and blocks ------------------------------------------------------------ */

/*
 * Check the pointer *ptr at `level` (0 = a data block) whose subtree starts at logical block
 * lbn; `limit` is the file's length in blocks. Returns true if it changed *ptr.
 */
static bool walk_ptr(struct fsck *fs, uint32_t ino, uint32_t *ptr, int level, uint64_t lbn,
                     uint64_t limit, uint64_t *count)
{
	uint32_t b = *ptr;

	if (b == 0)
		return false;
	if (!wdfs_blk_valid(&fs->sb, b)) {
		if (problem(fs, true, "inode %u: %s pointer %u (logical block %llu) is outside the data area %u..%u",
		            ino, level ? "indirect" : "block", b, (unsigned long long)lbn,
		            fs->sb.s_data_start, fs->sb.s_nblocks - 1)) {
			*ptr = 0;
			return true;
		}
		return false;
	}
	if (fs->owner[b] != 0) {
		bool fixed = fs->owner[b] == OWNER_META ?
			problem(fs, true, "inode %u: block %u (logical block %llu) is file system metadata",
			        ino, b, (unsigned long long)lbn) :
			problem(fs, true, "inode %u: block %u (logical block %llu) is already used by inode %u",
			        ino, b, (unsigned long long)lbn, fs->owner[b]);
		if (fixed)
			*ptr = 0;
		return fixed;
	}
	if (lbn >= limit &&
	    problem(fs, true, "inode %u: %s %u at logical block %llu is past the end of the file (%llu blocks)",
	            ino, level ? "indirect block" : "block", b, (unsigned long long)lbn,
	            (unsigned long long)limit)) {
		*ptr = 0;
		return true;
	}
	fs->owner[b] = ino;
	(*count)++;
	if (level > 0) {
		uint32_t *tab = xmalloc(fs->bs);
		uint64_t span = wdfs_level_span(fs->nindir, level - 1);
		bool dirty = false;

		if (rd(fs, b, tab) == 0) {
			for (uint32_t i = 0; i < fs->nindir; i++)
				dirty |= walk_ptr(fs, ino, &tab[i], level - 1, lbn + i * span, limit, count);
			if (dirty)
				wr(fs, b, tab);
		}
		free(tab);
	}
	return false;
}

/* Give back the blocks of a subtree that phase 1 recorded as inode ino's; returns how many. */
static uint64_t release_ptr(struct fsck *fs, uint32_t ino, uint32_t b, int level)
{
	uint64_t n = 1;

	if (b == 0 || !wdfs_blk_valid(&fs->sb, b) || fs->owner[b] != ino)
		return 0;
	fs->owner[b] = 0;
	if (level > 0) {
		uint32_t *tab = xmalloc(fs->bs);
		if (rd(fs, b, tab) == 0)
			for (uint32_t i = 0; i < fs->nindir; i++)
				n += release_ptr(fs, ino, tab[i], level - 1);
		free(tab);
	}
	return n;
}

/*
 * Cut inode ino's pointer *ptr (its subtree starts at logical block lbn) down to the logical
 * blocks below `keep`: whole subtrees past it are released and their pointers zeroed, a
 * subtree that straddles it is cut inside its indirect block (written back). Returns the
 * number of blocks released.
 */
static uint64_t trunc_ptr(struct fsck *fs, uint32_t ino, uint32_t *ptr, int level, uint64_t lbn,
                          uint64_t keep)
{
	uint64_t span = wdfs_level_span(fs->nindir, level), n = 0;
	uint32_t *tab;
	bool dirty = false;

	if (*ptr == 0 || lbn + span <= keep)
		return 0;
	if (lbn >= keep) {
		n = release_ptr(fs, ino, *ptr, level);
		*ptr = 0;
		return n;
	}
	tab = xmalloc(fs->bs);
	if (rd(fs, *ptr, tab) == 0) {
		for (uint32_t i = 0; i < fs->nindir; i++) {
			uint64_t got = trunc_ptr(fs, ino, &tab[i], level - 1, lbn + i * (span / fs->nindir), keep);
			dirty |= got != 0;
			n += got;
		}
		if (dirty)
			wr(fs, *ptr, tab);
	}
	free(tab);
	return n;
}

/* Keep only inode ino's first `keep` logical blocks (its size is the caller's business). */
static void trunc_inode(struct fsck *fs, uint32_t ino, uint64_t keep)
{
	struct wdfs_dinode *dp = ip(fs, ino);
	uint64_t lbn = WDFS_NDADDR, n = 0;

	for (int i = 0; i < WDFS_NDADDR; i++)
		n += trunc_ptr(fs, ino, &dp->di_db[i], 0, (uint64_t)i, keep);
	for (int i = 0; i < WDFS_NIADDR; i++) {
		n += trunc_ptr(fs, ino, &dp->di_ib[i], i + 1, lbn, keep);
		lbn += wdfs_level_span(fs->nindir, i + 1);
	}
	dp->di_blocks -= n < dp->di_blocks ? n : dp->di_blocks;
	idirty(fs, ino);
}

static void clear_inode(struct fsck *fs, uint32_t ino)
{
	struct wdfs_dinode *dp = ip(fs, ino);

	for (int i = 0; i < WDFS_NDADDR; i++)
		release_ptr(fs, ino, dp->di_db[i], 0);
	for (int i = 0; i < WDFS_NIADDR; i++)
		release_ptr(fs, ino, dp->di_ib[i], i + 1);
	memset(dp, 0, sizeof(*dp));
	idirty(fs, ino);
}

/* The data block holding logical block lbn of inode dp, 0 for a hole (or a bad pointer). */
static uint32_t bmap(struct fsck *fs, struct wdfs_dinode *dp, uint64_t lbn)
{
	struct wdfs_bpath path;
	uint32_t b, *tab;

	if (wdfs_bmap_path(lbn, fs->nindir, &path) != 0)
		return 0;
	if (path.level == 0)
		return dp->di_db[path.idx[0]];
	b = dp->di_ib[path.level - 1];
	tab = xmalloc(fs->bs);
	for (int i = 0; i < path.level && b != 0; i++) {
		if (!wdfs_blk_valid(&fs->sb, b) || rd(fs, b, tab) != 0) {
			b = 0;
			break;
		}
		b = tab[path.idx[i]];
	}
	free(tab);
	return wdfs_blk_valid(&fs->sb, b) ? b : 0;
}

/* Is the record at byte off of blk a used one named `name` (and, if ino != 0, naming ino)? */
static bool record_is(struct fsck *fs, const uint8_t *blk, uint32_t off, const char *name, uint32_t ino)
{
	const struct wdfs_direct *d = (const struct wdfs_direct *)(blk + off);
	uint32_t len = (uint32_t)strlen(name);

	return wdfs_dirent_check(blk, off, fs->bs, fs->sb.s_ninodes, NULL, 0) == 0 && d->d_ino != 0 &&
	       (ino == 0 || d->d_ino == ino) && wdfs_name_eq(d, name, len);
}

/*
 * Does inode ino's first block start like a directory? The kernel writes a directory's first
 * block, '.' then '..', before the inode that points to it (docs/fs.md rule 1), so a block that
 * starts with neither was never a directory. `strict`: both records, '.' naming ino itself.
 */
static bool looks_like_dir(struct fsck *fs, uint32_t ino, bool strict)
{
	struct wdfs_dinode *dp = ip(fs, ino);
	uint8_t *blk;
	bool dot, dotdot = false;

	if (!wdfs_blk_valid(&fs->sb, dp->di_db[0]))
		return false;
	blk = xmalloc(fs->bs);
	if (rd(fs, dp->di_db[0], blk) != 0) {
		free(blk);
		return false;
	}
	dot = record_is(fs, blk, 0, ".", strict ? ino : 0);
	if (dot)
		dotdot = record_is(fs, blk, ((struct wdfs_direct *)blk)->d_reclen, "..", 0);
	else if (!strict)
		dotdot = record_is(fs, blk, WDFS_DIRSIZ(1), "..", 0);
	free(blk);
	return strict ? dot && dotdot : dot || dotdot;
}

/*
 * The type bits against the contents. A "directory" whose first block holds neither '.' nor
 * '..' (but that has data) is a file whose mode was damaged: made a regular file again, so its
 * data stays. A "regular file" whose first block holds this directory's own '.' and a '..'
 * is a directory whose mode was damaged. (FFS's fsck trusts the mode and clears instead.)
 */
static void check_type(struct fsck *fs, uint32_t ino)
{
	struct wdfs_dinode *dp = ip(fs, ino);
	uint16_t fmt = dp->di_mode & S_IFMT_;

	if (fmt == S_IFDIR_ && dp->di_size != 0 && dp->di_db[0] != 0 && !looks_like_dir(fs, ino, false)) {
		if (problem(fs, true, "inode %u: mode 0%o is a directory's, but its first block holds no '.' or '..': "
		            "made a regular file", ino, dp->di_mode)) {
			dp->di_mode = (uint16_t)(S_IFREG_ | (dp->di_mode & 07777));
			idirty(fs, ino);
		}
	} else if (fmt == S_IFREG_ && dp->di_size % fs->bs == 0 && looks_like_dir(fs, ino, true)) {
		if (problem(fs, true, "inode %u: mode 0%o is a regular file's, but it holds a directory: made a directory",
		            ino, dp->di_mode)) {
			dp->di_mode = (uint16_t)(S_IFDIR_ | (dp->di_mode & 07777));
			idirty(fs, ino);
		}
	}
}

/*
 * A directory is its blocks from logical block 0 up to the first hole. Blocks after a hole are
 * cut off and the size set to what is left; a directory left with no block at all (it has no
 * '.' or '..', e.g. a crash inside rmdir) is cleared, as FFS's fsck clears a zero-length one.
 */
static void check_dir_extent(struct fsck *fs, uint32_t ino)
{
	struct wdfs_dinode *dp = ip(fs, ino);
	uint64_t n = 0;

	/* At most di_blocks (just recounted) blocks are mapped, so this ends even on a loop. */
	while (n < dp->di_blocks && bmap(fs, dp, n) != 0)
		n++;
	if (n == 0 && ino == WDFS_ROOTINO)
		return;                     /* fsck_wdfs() gives up: nothing to check from */
	if (n == 0) {
		if (problem(fs, true, "directory inode %u has no blocks (size %llu): no '.' or '..': cleared",
		            ino, (unsigned long long)dp->di_size))
			clear_inode(fs, ino);
		else
			fs->doomed[ino] = 1;
		return;
	}
	if (dp->di_size != n * fs->bs &&
	    problem(fs, true, "directory inode %u: size %llu, but its blocks up to the first hole make %llu bytes",
	            ino, (unsigned long long)dp->di_size, (unsigned long long)(n * fs->bs))) {
		trunc_inode(fs, ino, n);
		dp->di_size = n * fs->bs;
		idirty(fs, ino);
	}
}

/*
 * The root's type, before phase 1 judges inode 2 by it: if inode 2 holds the root directory
 * whatever its mode says, it is taken as a directory (in memory also under -n, which writes
 * nothing, so the check can go on from the root) and, with -y, written back as one.
 */
static void check_root_mode(struct fsck *fs)
{
	struct wdfs_dinode *root = ip(fs, WDFS_ROOTINO);

	if ((root->di_mode & S_IFMT_) == S_IFDIR_ || !looks_like_dir(fs, WDFS_ROOTINO, true))
		return;
	problem(fs, true, "root inode %u has mode 0%o, but it holds the root directory: made a directory",
	        WDFS_ROOTINO, root->di_mode);
	root->di_mode = (uint16_t)(S_IFDIR_ | ((root->di_mode & 07777) ? (root->di_mode & 07777) : 0755));
	idirty(fs, WDFS_ROOTINO);
}

/*
 * A symbolic link's target is its first block, di_size bytes long (1..WDFS_MAXSYMLINK), with no
 * NUL in it: what the kernel's readlink checks. Its blocks were checked by the caller (one past
 * the end is gone already). A link that fails has no target to keep: it is cleared, and phase
 * 2 removes its names (FFS's fsck clears a link whose size and blocks disagree).
 */
static void check_symlink(struct fsck *fs, uint32_t ino)
{
	struct wdfs_dinode *dp = ip(fs, ino);
	const char *why = NULL;
	uint32_t b = 0;
	char *blk;

	if (dp->di_size == 0 || dp->di_size > WDFS_MAXSYMLINK)
		why = "its length is not 1..1023";
	else if ((b = bmap(fs, dp, 0)) == 0)
		why = "it has no target block";
	if (why == NULL) {
		blk = xmalloc(fs->bs);
		if (rd(fs, b, blk) == 0 && strnlen(blk, (size_t)dp->di_size) != dp->di_size)
			why = "its target has a NUL byte in it";
		free(blk);
	}
	if (why == NULL)
		return;
	if (problem(fs, true, "symlink inode %u (length %llu): %s: cleared", ino,
	            (unsigned long long)dp->di_size, why))
		clear_inode(fs, ino);
	else
		fs->doomed[ino] = 1;
}

static void check_inode(struct fsck *fs, uint32_t ino)
{
	struct wdfs_dinode *dp = ip(fs, ino);
	uint16_t fmt;
	uint64_t limit, count = 0, span;
	bool changed = false;

	if (dp->di_mode == 0) {
		if ((dp->di_nlink || dp->di_size || dp->di_blocks) &&
		    problem(fs, true, "inode %u: free inode (mode 0) has link count %u, size %llu",
		            ino, dp->di_nlink, (unsigned long long)dp->di_size)) {
			memset(dp, 0, sizeof(*dp));
			idirty(fs, ino);
		}
		return;
	}
	check_type(fs, ino);
	fmt = dp->di_mode & S_IFMT_;
	if (fmt != S_IFDIR_ && fmt != S_IFREG_ && fmt != S_IFLNK_ && fmt != S_IFIFO_ &&
	    fmt != S_IFCHR_ && fmt != S_IFBLK_ && fmt != S_IFSOCK_) {
		if (problem(fs, true, "inode %u: unknown file type (mode 0%o)", ino, dp->di_mode))
			clear_inode(fs, ino);
		else
			fs->doomed[ino] = 1;
		return;
	}
	if (fmt != S_IFDIR_ && fmt != S_IFREG_ && fmt != S_IFLNK_ && dp->di_size != 0 &&
	    problem(fs, true, "inode %u: %s has size %llu, should be 0", ino, tname(dp->di_mode),
	            (unsigned long long)dp->di_size)) {
		dp->di_size = 0;                /* its blocks are past the end now: freed below */
		changed = true;
	}
	if (fmt != S_IFCHR_ && fmt != S_IFBLK_ && dp->di_rdev != 0 &&
	    problem(fs, true, "inode %u: %s has device number %u, should be 0", ino,
	            tname(dp->di_mode), dp->di_rdev)) {
		dp->di_rdev = 0;
		changed = true;
	}
	/* A directory's extent is decided by its blocks below (its size may be what is damaged). */
	limit = fmt == S_IFDIR_ ? wdfs_max_lblocks(fs->nindir) : (dp->di_size + fs->bs - 1) / fs->bs;
	for (int i = 0; i < WDFS_NDADDR; i++)
		changed |= walk_ptr(fs, ino, &dp->di_db[i], 0, (uint64_t)i, limit, &count);
	span = WDFS_NDADDR;
	for (int i = 0; i < WDFS_NIADDR; i++) {
		changed |= walk_ptr(fs, ino, &dp->di_ib[i], i + 1, span, limit, &count);
		span += wdfs_level_span(fs->nindir, i + 1);
	}
	if (dp->di_blocks != count &&
	    problem(fs, true, "inode %u: block count is %llu, should be %llu", ino,
	            (unsigned long long)dp->di_blocks, (unsigned long long)count)) {
		dp->di_blocks = count;
		changed = true;
	}
	if (changed)
		idirty(fs, ino);
	if (fmt == S_IFDIR_)
		check_dir_extent(fs, ino);
	if (fmt == S_IFLNK_)
		check_symlink(fs, ino);
}

/* ---- directories ----------------------------------------------------------------------------- */

/* Add name -> ino to lost+found in space its blocks already have (fsck never allocates). */
static bool lf_add(struct fsck *fs, uint32_t ino)
{
	struct wdfs_dinode *lf;
	char name[16];
	uint32_t namlen, need;
	uint8_t *blk;
	bool done = false;

	if (fs->lostfound == 0)
		return false;
	lf = ip(fs, fs->lostfound);
	namlen = (uint32_t)snprintf(name, sizeof(name), "#%u", ino);
	need = WDFS_DIRSIZ(namlen);
	blk = xmalloc(fs->bs);
	for (uint64_t lbn = 0; lbn < lf->di_size / fs->bs && !done; lbn++) {
		uint32_t b = bmap(fs, lf, lbn);
		if (b == 0 || rd(fs, b, blk) != 0)
			continue;
		for (uint32_t off = 0; off < fs->bs && !done; ) {
			struct wdfs_direct *d = (struct wdfs_direct *)(blk + off), *n;
			uint32_t used;
			if (wdfs_dirent_check(blk, off, fs->bs, fs->sb.s_ninodes, NULL, 0) != 0)
				break;
			used = d->d_ino ? WDFS_DIRSIZ(d->d_namlen) : 0;
			if (d->d_reclen - used >= need) {
				n = (struct wdfs_direct *)(blk + off + used);
				if (used) {
					n->d_reclen = (uint16_t)(d->d_reclen - used);
					d->d_reclen = (uint16_t)used;
				}
				n->d_ino = ino;
				n->d_type = dtype_of(ip(fs, ino)->di_mode);
				n->d_namlen = (uint8_t)namlen;
				memcpy(n->d_name, name, namlen);
				wr(fs, b, blk);
				done = true;
			}
			off += d->d_reclen;
		}
	}
	free(blk);
	if (done)
		printf("  reconnected inode %u as /lost+found/%s\n", ino, name);
	return done;
}

static void check_dir(struct fsck *fs, uint32_t dino, uint32_t parent, const char *path);

/*
 * One used record of directory dino: "." and ".." in their places, the target allocated and
 * of the recorded type. Returns false if the record should be removed.
 */
static bool check_entry(struct fsck *fs, uint32_t dino, uint32_t parent, const char *path,
                        struct wdfs_direct *d, int index, bool *dirty)
{
	char name[WDFS_MAXNAMLEN + 1];
	bool isdot, isdotdot;
	struct wdfs_dinode *tp;
	uint32_t target;

	memcpy(name, d->d_name, d->d_namlen);
	name[d->d_namlen] = '\0';
	isdot = strcmp(name, ".") == 0;
	isdotdot = strcmp(name, "..") == 0;
	if ((isdot && index != 0) || (isdotdot && index != 1))
		return !problem(fs, true, "directory %s: extra '%s' entry", path, name);
	if (isdot && d->d_ino != dino &&
	    problem(fs, true, "directory %s: '.' is inode %u, should be %u", path, d->d_ino, dino)) {
		d->d_ino = dino;
		*dirty = true;
	}
	if (isdotdot && parent != 0 && d->d_ino != parent &&
	    problem(fs, true, "directory %s: '..' is inode %u, should be %u", path, d->d_ino, parent)) {
		d->d_ino = parent;
		*dirty = true;
	}
	/* '.' and '..' count for what they should name, as after -y (under -n they may not yet). */
	target = isdot ? dino : isdotdot && parent != 0 ? parent : d->d_ino;
	tp = ip(fs, target);
	if (tp->di_mode == 0 || fs->doomed[target])
		return !problem(fs, true, "directory %s: entry '%s' names %s inode %u", path, name,
		                tp->di_mode == 0 ? "unallocated" : "cleared", target);
	if (d->d_type != dtype_of(tp->di_mode) &&
	    problem(fs, true, "directory %s: entry '%s' has type %u, inode %u is a %s", path, name,
	            d->d_type, d->d_ino, tname(tp->di_mode))) {
		d->d_type = dtype_of(tp->di_mode);
		*dirty = true;
	}
	if (!isdot && !isdotdot && (tp->di_mode & S_IFMT_) == S_IFDIR_) {
		char sub[4096];
		if (fs->parent[d->d_ino] != 0)
			return !problem(fs, true, "directory %s: entry '%s' is a second name for directory inode %u",
			                path, name, d->d_ino);
		snprintf(sub, sizeof(sub), "%s%s%s", path, strcmp(path, "/") ? "/" : "", name);
		if (dino == WDFS_ROOTINO && strcmp(name, "lost+found") == 0)
			fs->lostfound = d->d_ino;
		fs->refs[d->d_ino]++;
		check_dir(fs, d->d_ino, dino, sub);
		return true;
	}
	fs->refs[target]++;
	return true;
}

/* Check one WDFS_DIRBLKSIZ chunk of a directory block. */
static void check_chunk(struct fsck *fs, uint32_t dino, uint32_t parent, const char *path,
                        uint8_t *blk, uint32_t chunk, uint64_t lbn, int *index, bool *dirty)
{
	uint32_t end = chunk + WDFS_DIRBLKSIZ, off = chunk, prev = WDFS_NONE;
	char msg[WDFS_MSGLEN];

	while (off < end) {
		struct wdfs_direct *d = (struct wdfs_direct *)(blk + off);
		uint32_t reclen;

		if (wdfs_dirent_check(blk, off, fs->bs, fs->sb.s_ninodes, msg, sizeof(msg)) != 0) {
			if (problem(fs, true, "directory %s: logical block %llu: %s", path,
			            (unsigned long long)lbn, msg)) {
				if (prev == WDFS_NONE) {
					d = (struct wdfs_direct *)(blk + chunk);
					memset(d, 0, WDFS_DIRHDR);
					d->d_reclen = WDFS_DIRBLKSIZ;
				} else {
					((struct wdfs_direct *)(blk + prev))->d_reclen = (uint16_t)(end - prev);
				}
				*dirty = true;
			}
			return;
		}
		reclen = d->d_reclen;
		if (d->d_ino != 0) {
			if (check_entry(fs, dino, parent, path, d, (*index)++, dirty)) {
				prev = off;
			} else if (prev != WDFS_NONE) {
				((struct wdfs_direct *)(blk + prev))->d_reclen += (uint16_t)reclen;
				*dirty = true;
			} else {
				d->d_ino = 0;
				*dirty = true;
				prev = off;
			}
		} else {
			prev = off;
		}
		off += reclen;
	}
}

static void put_record(uint8_t *blk, uint32_t off, uint32_t ino, uint32_t reclen, const char *name)
{
	struct wdfs_direct *d = (struct wdfs_direct *)(blk + off);

	d->d_ino = ino;
	d->d_reclen = (uint16_t)reclen;
	d->d_type = WDFS_DT_DIR;
	d->d_namlen = (uint8_t)strlen(name);
	memcpy(d->d_name, name, d->d_namlen);
}

/*
 * A directory's first block must begin with '.' and then '..'. If it does not (FFS's fsck
 * gives up with "CANNOT FIX, FIRST ENTRY IN DIRECTORY CONTAINS ..." where there is no room),
 * rewrite its head: '.' at offset 0, '..' after it, up to the first well-formed record at or
 * past the 24 bytes they need. The records that were in their place are dropped (each named
 * in the report); the files they named lose that name and phase 4 reconnects or clears them.
 */
static void fix_header(struct fsck *fs, uint32_t dino, uint32_t parent, const char *path, uint8_t *blk,
                       bool *dirty)
{
	const uint32_t need = WDFS_DIRSIZ(1) + WDFS_DIRSIZ(2);
	uint32_t off = 0, keep = WDFS_DIRBLKSIZ;

	if (record_is(fs, blk, 0, ".", 0) && record_is(fs, blk, ((struct wdfs_direct *)blk)->d_reclen, "..", 0))
		return;
	if (!problem(fs, true, "directory %s: does not begin with '.' and '..'", path))
		return;
	while (off < WDFS_DIRBLKSIZ && wdfs_dirent_check(blk, off, fs->bs, fs->sb.s_ninodes, NULL, 0) == 0) {
		struct wdfs_direct *d = (struct wdfs_direct *)(blk + off);

		if (off >= need) {
			keep = off;
			break;
		}
		if (d->d_ino != 0 && !(d->d_namlen <= 2 && d->d_name[0] == '.' && (d->d_namlen == 1 || d->d_name[1] == '.')))
			printf("  entry '%.*s' (inode %u) dropped to make room\n", d->d_namlen, d->d_name, d->d_ino);
		off += d->d_reclen;
	}
	put_record(blk, 0, dino, WDFS_DIRSIZ(1), ".");
	put_record(blk, WDFS_DIRSIZ(1), parent ? parent : WDFS_ROOTINO, keep - WDFS_DIRSIZ(1), "..");
	*dirty = true;
}

/* Check directory dino, named from `parent` (0 = an orphan: accept its ".."), and below. */
static void check_dir(struct fsck *fs, uint32_t dino, uint32_t parent, const char *path)
{
	struct wdfs_dinode *dp = ip(fs, dino);
	uint64_t nblk = dp->di_size / fs->bs;
	uint8_t *blk = xmalloc(fs->bs);
	int index = 0;

	fs->parent[dino] = parent ? parent : dino;
	if (nblk == 0)
		problem(fs, false, "directory %s (inode %u) is empty: no '.' or '..'", path, dino);
	for (uint64_t lbn = 0; lbn < nblk; lbn++) {
		uint32_t b = bmap(fs, dp, lbn);
		bool dirty = false;

		if (b == 0) {
			if (problem(fs, true, "directory %s: hole at logical block %llu", path,
			            (unsigned long long)lbn)) {
				trunc_inode(fs, dino, lbn);
				dp->di_size = lbn * fs->bs;
			}
			break;
		}
		if (rd(fs, b, blk) != 0)
			continue;
		if (lbn == 0)
			fix_header(fs, dino, parent, path, blk, &dirty);
		for (uint32_t chunk = 0; chunk < fs->bs; chunk += WDFS_DIRBLKSIZ)
			check_chunk(fs, dino, parent, path, blk, chunk, lbn, &index, &dirty);
		if (dirty && fs->fix)
			wr(fs, b, blk);
	}
	free(blk);
}

/* ---- phases 3 and 4 ------------------------------------------------------------------------- */

/* The inode a directory's '..' names (0 if its first block cannot say). */
static uint32_t dotdot_of(struct fsck *fs, uint32_t ino)
{
	struct wdfs_dinode *dp = ip(fs, ino);
	uint8_t *blk = xmalloc(fs->bs);
	uint32_t up = 0, off;

	if (wdfs_blk_valid(&fs->sb, dp->di_db[0]) && rd(fs, dp->di_db[0], blk) == 0 &&
	    record_is(fs, blk, 0, ".", 0)) {
		off = ((struct wdfs_direct *)blk)->d_reclen;
		if (record_is(fs, blk, off, "..", 0))
			up = ((struct wdfs_direct *)(blk + off))->d_ino;
	}
	free(blk);
	return up;
}

/*
 * The top of a chain of unreachable directories: follow '..' while it names another directory
 * that phase 2 did not reach either (FFS's pass 3 does the same), so a whole lost subtree is
 * reconnected as one. The walk is bounded, so a loop of '..'s ends somewhere on the loop.
 */
static uint32_t orphan_top(struct fsck *fs, uint32_t ino)
{
	for (uint32_t steps = 0; steps < fs->sb.s_ninodes; steps++) {
		uint32_t up = dotdot_of(fs, ino);

		if (up == ino || !wdfs_ino_valid(&fs->sb, up) || up < WDFS_ROOTINO || fs->parent[up] != 0 ||
		    (ip(fs, up)->di_mode & S_IFMT_) != S_IFDIR_ || fs->doomed[up])
			break;
		ino = up;
	}
	return ino;
}

/* Does directory ino hold nothing but '.' and '..' (as far as its records are well formed)? */
static bool dir_is_empty(struct fsck *fs, uint32_t ino)
{
	struct wdfs_dinode *dp = ip(fs, ino);
	uint8_t *blk = xmalloc(fs->bs);
	bool empty = true;

	for (uint64_t lbn = 0; empty && lbn < dp->di_size / fs->bs; lbn++) {
		uint32_t b = bmap(fs, dp, lbn);
		if (b == 0 || rd(fs, b, blk) != 0)
			continue;
		for (uint32_t off = 0; empty && off < fs->bs; ) {
			struct wdfs_direct *d = (struct wdfs_direct *)(blk + off);
			if (wdfs_dirent_check(blk, off, fs->bs, fs->sb.s_ninodes, NULL, 0) != 0)
				break;
			if (d->d_ino != 0 && !(d->d_namlen <= 2 && d->d_name[0] == '.' &&
			                       (d->d_namlen == 1 || d->d_name[1] == '.')))
				empty = false;
			off += d->d_reclen;
		}
	}
	free(blk);
	return empty;
}

/*
 * Phase 3. An unreachable directory is reconnected into /lost+found, except an empty one with
 * link count 0: that is a directory rmdir was removing (its name is gone, its count dropped),
 * left to phase 4, which clears it - FFS's fsck does the same (its pass 4 clears an
 * unreferenced directory with link count 0, "UNREF DIR").
 */
static void check_orphan_dirs(struct fsck *fs)
{
	for (uint32_t ino = WDFS_ROOTINO; ino < fs->sb.s_ninodes; ino++) {
		/* Each round either reaches a directory (check_dir sets parent[]) or clears one. */
		while ((ip(fs, ino)->di_mode & S_IFMT_) == S_IFDIR_ && fs->parent[ino] == 0 && !fs->doomed[ino]) {
			uint32_t top = orphan_top(fs, ino);
			char path[32];

			if (ip(fs, top)->di_nlink == 0 && dir_is_empty(fs, top)) {
				fs->parent[top] = top;     /* not reconnected: phase 4 clears it */
				continue;
			}
			if (!problem(fs, true, "directory inode %u is not reachable from the root", top)) {
				/* -n: counted as -y would leave it, named in /lost+found */
				snprintf(path, sizeof(path), "(inode %u)", top);
				fs->refs[top] += fs->lostfound != 0;
				check_dir(fs, top, fs->lostfound, path);
			} else if (lf_add(fs, top)) {
				snprintf(path, sizeof(path), "/lost+found/#%u", top);
				fs->refs[top]++;
				check_dir(fs, top, fs->lostfound, path);
			} else {
				printf("  cannot reconnect (no /lost+found, or no room in it): cleared directory inode %u\n",
				       top);
				clear_inode(fs, top);
			}
		}
	}
}

static void check_links(struct fsck *fs)
{
	for (uint32_t ino = WDFS_ROOTINO; ino < fs->sb.s_ninodes; ino++) {
		struct wdfs_dinode *dp = ip(fs, ino);

		if (dp->di_mode == 0 || fs->doomed[ino])
			continue;
		if (fs->refs[ino] == 0) {
			if (dp->di_nlink == 0 || dp->di_size == 0) {
				if (problem(fs, true, "inode %u: unreferenced %s with link count %u and size %llu: cleared",
				            ino, tname(dp->di_mode), dp->di_nlink, (unsigned long long)dp->di_size))
					clear_inode(fs, ino);
				continue;
			}
			if (!problem(fs, true, "inode %u: unreferenced %s (size %llu)", ino,
			             tname(dp->di_mode), (unsigned long long)dp->di_size))
				continue;
			if (lf_add(fs, ino)) {
				fs->refs[ino] = 1;
			} else {
				printf("  cannot reconnect (no /lost+found, or no room in it): cleared inode %u\n", ino);
				clear_inode(fs, ino);
				continue;
			}
		}
		if (dp->di_nlink != fs->refs[ino] &&
		    problem(fs, true, "inode %u (%s): link count is %u, should be %u", ino,
		            tname(dp->di_mode), dp->di_nlink, fs->refs[ino])) {
			dp->di_nlink = (uint16_t)fs->refs[ino];
			idirty(fs, ino);
		}
	}
}

/* ---- phase 5: bitmaps and counts ------------------------------------------------------------ */

static void check_bitmap(struct fsck *fs, const char *what, uint8_t *map, uint32_t nbits,
                         uint32_t mapbits, bool (*inuse)(struct fsck *, uint32_t))
{
	unsigned nfree = 0, nused = 0;

	for (uint32_t i = 0; i < nbits; i++) {
		bool want = inuse(fs, i), have = wdfs_bit_test(map, i);
		if (want == have)
			continue;
		if (want && nused++ < MAXREPORT)
			printf("%s %u is in use but marked free\n", what, i);
		if (!want && nfree++ < MAXREPORT)
			printf("%s %u is unused but marked in use\n", what, i);
		if (fs->fix) {
			if (want)
				wdfs_bit_set(map, i);
			else
				wdfs_bit_clr(map, i);
		}
	}
	for (uint32_t i = nbits; i < mapbits; i++) {
		if (!wdfs_bit_test(map, i)) {
			problem(fs, true, "%s bitmap: bits past the end (%u..%u) are not set", what,
			        nbits, mapbits - 1);
			if (fs->fix)
				for (uint32_t j = nbits; j < mapbits; j++)
					wdfs_bit_set(map, j);
			break;
		}
	}
	if (nused || nfree)
		problem(fs, true, "%s bitmap: %u in use but marked free, %u unused but marked in use%s",
		        what, nused, nfree, nused + nfree > 2 * MAXREPORT ? " (first ones listed)" : "");
}

static bool block_inuse(struct fsck *fs, uint32_t b)
{
	return fs->owner[b] != 0;
}

static bool inode_inuse(struct fsck *fs, uint32_t ino)
{
	return ino < WDFS_ROOTINO || fs->itab[ino].di_mode != 0;
}

static void check_summary(struct fsck *fs)
{
	uint32_t fb = 0, fi = 0;

	for (uint32_t b = fs->sb.s_data_start; b < fs->sb.s_nblocks; b++)
		fb += fs->owner[b] == 0;
	for (uint32_t i = WDFS_ROOTINO; i < fs->sb.s_ninodes; i++)
		fi += fs->itab[i].di_mode == 0;
	if (fs->sb.s_free_blocks != fb &&
	    problem(fs, true, "superblock: free block count is %u, should be %u", fs->sb.s_free_blocks, fb))
		fs->sb.s_free_blocks = fb;
	if (fs->sb.s_free_inodes != fi &&
	    problem(fs, true, "superblock: free inode count is %u, should be %u", fs->sb.s_free_inodes, fi))
		fs->sb.s_free_inodes = fi;
	/* Only a file system with nothing left to repair may be marked clean (docs/fs.md). */
	if (fs->sb.s_clean != WDFS_SB_CLEAN &&
	    problem(fs, !fs->fix || fs->unfixed == 0,
	            "superblock: clean flag not set (the file system was not unmounted cleanly)"))
		fs->sb.s_clean = WDFS_SB_CLEAN;
	else if (fs->sb.s_clean == WDFS_SB_CLEAN && fs->fix && fs->unfixed != 0) {
		printf("superblock: %u problems are left: clean flag cleared\n", fs->unfixed);
		fs->sb.s_clean = WDFS_SB_DIRTY;
	}
}

/* ---- driver --------------------------------------------------------------------------------- */

static int load(struct fsck *fs)
{
	uint8_t *blk = xmalloc(WDFS_BSIZE_MIN);
	char msg[WDFS_MSGLEN];
	int err;

	if (fs->io->read(fs->io->arg, 0, blk, WDFS_BSIZE_MIN) != 0) {
		printf("%s: cannot read the superblock\n", fs->io->name);
		return -1;
	}
	memcpy(&fs->sb, blk, sizeof(fs->sb));
	free(blk);
	err = wdfs_super_check(&fs->sb, fs->io->size, msg, sizeof(msg));
	if (err != WDFS_OK) {
		printf("%s: bad superblock: %s\n", fs->io->name, msg);
		return -1;
	}
	fs->bs = fs->sb.s_bsize;
	fs->nindir = fs->bs / 4;
	fs->bmap = xmalloc((size_t)fs->sb.s_bmap_blocks * fs->bs);
	fs->imap = xmalloc((size_t)fs->sb.s_imap_blocks * fs->bs);
	fs->itab = xmalloc((size_t)fs->sb.s_itab_blocks * fs->bs);
	fs->itab_dirty = xmalloc(fs->sb.s_itab_blocks);
	fs->owner = xmalloc((size_t)fs->sb.s_nblocks * sizeof(uint32_t));
	fs->refs = xmalloc((size_t)fs->sb.s_ninodes * sizeof(uint32_t));
	fs->parent = xmalloc((size_t)fs->sb.s_ninodes * sizeof(uint32_t));
	fs->doomed = xmalloc(fs->sb.s_ninodes);
	for (uint32_t i = 0; i < fs->sb.s_bmap_blocks; i++)
		rd(fs, fs->sb.s_bmap_start + i, fs->bmap + (size_t)i * fs->bs);
	for (uint32_t i = 0; i < fs->sb.s_imap_blocks; i++)
		rd(fs, fs->sb.s_imap_start + i, fs->imap + (size_t)i * fs->bs);
	for (uint32_t i = 0; i < fs->sb.s_itab_blocks; i++)
		rd(fs, fs->sb.s_itab_start + i, (uint8_t *)fs->itab + (size_t)i * fs->bs);
	for (uint32_t b = 0; b < fs->sb.s_data_start; b++)
		fs->owner[b] = OWNER_META;
	return fs->ioerror ? -1 : 0;
}

static void store(struct fsck *fs)
{
	uint8_t *blk = xmalloc(fs->bs);

	for (uint32_t i = 0; i < fs->sb.s_itab_blocks; i++)
		if (fs->itab_dirty[i])
			wr(fs, fs->sb.s_itab_start + i, (uint8_t *)fs->itab + (size_t)i * fs->bs);
	for (uint32_t i = 0; i < fs->sb.s_bmap_blocks; i++)
		wr(fs, fs->sb.s_bmap_start + i, fs->bmap + (size_t)i * fs->bs);
	for (uint32_t i = 0; i < fs->sb.s_imap_blocks; i++)
		wr(fs, fs->sb.s_imap_start + i, fs->imap + (size_t)i * fs->bs);
	rd(fs, 0, blk);
	wdfs_super_seal(&fs->sb);
	memcpy(blk, &fs->sb, sizeof(fs->sb));
	wr(fs, 0, blk);
	free(blk);
}

static void phase(int flags, const char *what)
{
	if (flags & FSCK_VERBOSE)
		printf("** %s\n", what);
}

int fsck_wdfs(struct fsck_io *io, int flags)
{
	struct fsck fsbuf, *fs = &fsbuf;
	struct wdfs_dinode *root;
	uint32_t mapbits;

	memset(fs, 0, sizeof(*fs));
	fs->io = io;
	fs->fix = (flags & FSCK_FIX) != 0;
	phase(flags, "Phase 1 - Check Superblock, Inodes and Blocks");
	if (load(fs) != 0)
		return FSCK_EXIT_FATAL;
	check_root_mode(fs);
	for (uint32_t ino = WDFS_ROOTINO; ino < fs->sb.s_ninodes; ino++)
		check_inode(fs, ino);
	phase(flags, "Phase 2 - Check Directory Structure");
	root = ip(fs, WDFS_ROOTINO);
	if ((root->di_mode & S_IFMT_) != S_IFDIR_ || root->di_size == 0) {
		printf("%s: root inode %u is not a directory with blocks (mode 0%o, size %llu): cannot check\n",
		       io->name, WDFS_ROOTINO, root->di_mode, (unsigned long long)root->di_size);
		return FSCK_EXIT_FATAL;
	}
	check_dir(fs, WDFS_ROOTINO, WDFS_ROOTINO, "/");
	phase(flags, "Phase 3 - Check Connectivity");
	check_orphan_dirs(fs);
	phase(flags, "Phase 4 - Check Reference Counts");
	check_links(fs);
	phase(flags, "Phase 5 - Check Bitmaps and Summary");
	mapbits = fs->sb.s_bmap_blocks * fs->bs * 8;
	check_bitmap(fs, "block", fs->bmap, fs->sb.s_nblocks, mapbits, block_inuse);
	mapbits = fs->sb.s_imap_blocks * fs->bs * 8;
	check_bitmap(fs, "inode", fs->imap, fs->sb.s_ninodes, mapbits, inode_inuse);
	check_summary(fs);
	if (fs->fix && fs->problems)
		store(fs);
	if (fs->ioerror) {
		printf("%s: I/O errors: the check is incomplete\n", io->name);
		return FSCK_EXIT_FATAL;
	}
	if (fs->problems == 0) {
		printf("%s: clean: %u files, %u blocks used, %u free (%u inodes free)\n", io->name,
		       fs->sb.s_ninodes - 2 - fs->sb.s_free_inodes,
		       fs->sb.s_nblocks - fs->sb.s_free_blocks, fs->sb.s_free_blocks,
		       fs->sb.s_free_inodes);
		return FSCK_EXIT_CLEAN;
	}
	printf("%s: %u problem%s found, %u fixed\n", io->name, fs->problems,
	       fs->problems == 1 ? "" : "s", fs->problems - fs->unfixed);
	if (fs->unfixed == 0)
		return FSCK_EXIT_FIXED;
	return FSCK_EXIT_DIRTY;
}
