/*
 * mkfs / newfs: make a wdfs file system (the on-disk format is kernel/fs/wdfs/wdfs_format.h).
 * The host build is tools/mkfs/mkfs (image files); the guest build of this same file is
 * /sbin/newfs (disks), with tools/fslib/fsdev.c as the only difference between the two.
 *
 *   mkfs  [-N] [-b bsize] [-i bytes-per-inode] [-s size[k|m|g]] [-d dir] image
 *   newfs [-N] [-b bsize] [-i bytes-per-inode] [-s size[k|m|g]] [-d dir] special
 *
 *   -b  block size, a power of two from 4096 to 65536 (default 8192)
 *   -i  one inode per this many bytes of the file system (default 16384, wdfs_layout's)
 *   -s  the file system's size; a regular file is created (or truncated) to it. Without -s the
 *       file system fills the image or the disk. On a disk it may not exceed the disk.
 *   -N  print the layout and write nothing
 *   -d  copy the tree dir into the new file system (how the build makes the root image)
 *
 * The new file system holds an empty root directory and /lost+found, and, with -d, the tree
 * dir: regular files, directories, symbolic links (their targets as they are) and FIFOs,
 * keeping the permission bits (set-ID and sticky bits included) and modification times;
 * everything is owned by root. Other file types are skipped with a warning. A disk that holds
 * a mounted file system is refused.
 *
 * The image is built with plain pread/pwrite: data and directory blocks are written as they
 * are allocated (sequentially from the first data block, so files are contiguous), and the
 * bitmaps, the inode table and the superblock are written last, sealed with its checksum.
 * Inodes are handed out in order, so only the used prefix of the inode table is kept in
 * memory; the rest of the table is written as zeros (a reused disk must not keep old inodes).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../kernel/fs/wdfs/wdfs_layout.h"
#include "../fslib/fsdev.h"

#define ZERO_RUN  (256 * 1024)     /* bytes of zeros written per call for the inode table */

static const char *progname = "mkfs";

static struct {
	int                 fd;
	const char         *path;
	struct wdfs_super   sb;
	bool                created;   /* path is a file this run created: removed on failure */
	uint8_t            *bmap;      /* block bitmap */
	uint8_t            *imap;      /* inode bitmap */
	struct wdfs_dinode *itab;      /* inodes 0 .. itab_cap-1 of the table (the used prefix);
	                                  ino_alloc may move it: hold indexes, not pointers, across it */
	uint32_t            itab_cap;
	uint32_t            nextblk;   /* allocation rotor */
	uint32_t            nextino;
	uint32_t            nindir;
	uint8_t            *zero;      /* a block of zeros */
	time_t              now;
} img;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (img.created)
		unlink(img.path);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [-N] [-b bsize] [-i bytes-per-inode] [-s size[k|m|g]] [-d dir] %s\n",
	        progname, strcmp(progname, "newfs") == 0 ? "special" : "image");
	exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory");
	return p;
}

/* ---- block I/O -------------------------------------------------------------------------- */

static void blk_write(uint32_t blk, const void *data)
{
	off_t off = (off_t)blk * img.sb.s_bsize;

	if (pwrite(img.fd, data, img.sb.s_bsize, off) != (ssize_t)img.sb.s_bsize)
		die("%s: write of block %u failed: %s", img.path, blk, strerror(errno));
}

static void blk_read(uint32_t blk, void *data)
{
	off_t off = (off_t)blk * img.sb.s_bsize;

	if (pread(img.fd, data, img.sb.s_bsize, off) != (ssize_t)img.sb.s_bsize)
		die("%s: read of block %u failed: %s", img.path, blk, strerror(errno));
}

static uint32_t blk_alloc(void)
{
	uint32_t b = wdfs_bitmap_find(img.bmap, img.sb.s_nblocks, img.nextblk);

	if (b == WDFS_NONE)
		die("image full: the tree needs more than %u blocks of %u bytes; use a larger -s",
		    img.sb.s_nblocks, img.sb.s_bsize);
	wdfs_bit_set(img.bmap, b);
	img.sb.s_free_blocks--;
	img.nextblk = b + 1;
	return b;
}

/* Make room in the in-memory inode table for inode ino (the table grows by doubling). */
static void itab_grow(uint32_t ino)
{
	uint32_t cap = img.itab_cap ? img.itab_cap : 64;

	while (cap <= ino)
		cap *= 2;
	if (cap > img.sb.s_ninodes)
		cap = img.sb.s_ninodes;
	img.itab = realloc(img.itab, (size_t)cap * sizeof(*img.itab));
	if (!img.itab)
		die("out of memory");
	memset(img.itab + img.itab_cap, 0, (size_t)(cap - img.itab_cap) * sizeof(*img.itab));
	img.itab_cap = cap;
}

static uint32_t ino_alloc(uint16_t mode)
{
	uint32_t ino = wdfs_bitmap_find(img.imap, img.sb.s_ninodes, img.nextino);
	struct wdfs_dinode *dp;

	if (ino == WDFS_NONE)
		die("out of inodes: the tree has more than %u files; use a smaller -i", img.sb.s_ninodes);
	if (ino >= img.itab_cap)
		itab_grow(ino);
	wdfs_bit_set(img.imap, ino);
	img.sb.s_free_inodes--;
	img.nextino = ino + 1;
	dp = &img.itab[ino];
	memset(dp, 0, sizeof(*dp));
	dp->di_mode = mode;
	dp->di_gen = 1;
	dp->di_atime = dp->di_mtime = dp->di_ctime = img.now;
	return ino;
}

/* ---- files ------------------------------------------------------------------------------ */

/* The pointer slot in `table` (an indirect block's contents), allocating a zeroed child block. */
static uint32_t ind_child(uint32_t parent, uint32_t idx, struct wdfs_dinode *dp)
{
	uint32_t *table = xcalloc(1, img.sb.s_bsize);
	uint32_t child;

	blk_read(parent, table);
	child = table[idx];
	if (child == 0) {
		child = blk_alloc();
		dp->di_blocks++;
		blk_write(child, img.zero);
		table[idx] = child;
		blk_write(parent, table);
	}
	free(table);
	return child;
}

/* Make logical block lbn of inode dp point to data block blk, adding indirect blocks. */
static void file_map(struct wdfs_dinode *dp, uint64_t lbn, uint32_t blk)
{
	struct wdfs_bpath path;
	uint32_t *table, cur;

	if (wdfs_bmap_path(lbn, img.nindir, &path) != 0)
		die("file too large for the block size");
	if (path.level == 0) {
		dp->di_db[path.idx[0]] = blk;
		return;
	}
	if (dp->di_ib[path.level - 1] == 0) {
		dp->di_ib[path.level - 1] = blk_alloc();
		dp->di_blocks++;
		blk_write(dp->di_ib[path.level - 1], img.zero);
	}
	cur = dp->di_ib[path.level - 1];
	for (int i = 0; i < path.level - 1; i++)
		cur = ind_child(cur, path.idx[i], dp);
	table = xcalloc(1, img.sb.s_bsize);
	blk_read(cur, table);
	table[path.idx[path.level - 1]] = blk;
	blk_write(cur, table);
	free(table);
}

/* Append one block of data (bsize bytes) to the file: logical block `lbn`. */
static void file_append(struct wdfs_dinode *dp, uint64_t lbn, const void *data)
{
	uint32_t blk = blk_alloc();

	blk_write(blk, data);
	dp->di_blocks++;
	file_map(dp, lbn, blk);
}

static void copy_file(const char *hostpath, uint32_t ino)
{
	struct wdfs_dinode *dp = &img.itab[ino];
	uint8_t *buf = xcalloc(1, img.sb.s_bsize);
	uint64_t lbn = 0, size = 0;
	int fd = open(hostpath, O_RDONLY);

	if (fd < 0)
		die("%s: %s", hostpath, strerror(errno));
	for (;;) {
		size_t got = 0;
		while (got < img.sb.s_bsize) {
			ssize_t n = read(fd, buf + got, img.sb.s_bsize - got);
			if (n < 0)
				die("%s: read: %s", hostpath, strerror(errno));
			if (n == 0)
				break;
			got += (size_t)n;
		}
		if (got == 0)
			break;
		memset(buf + got, 0, img.sb.s_bsize - got);
		file_append(dp, lbn++, buf);
		size += got;
		if (got < img.sb.s_bsize)
			break;
	}
	close(fd);
	free(buf);
	dp->di_size = size;
}

/* A symbolic link's target: its first (and only) block, di_size bytes (the kernel's format). */
static void copy_link(const char *hostpath, uint32_t ino)
{
	struct wdfs_dinode *dp = &img.itab[ino];
	uint8_t *buf = xcalloc(1, img.sb.s_bsize);
	ssize_t n = readlink(hostpath, (char *)buf, img.sb.s_bsize);

	if (n < 0)
		die("%s: %s", hostpath, strerror(errno));
	if (n == 0 || n > WDFS_MAXSYMLINK)
		die("%s: symbolic link target of %zd bytes (wdfs takes 1 to %d)", hostpath, n,
		    WDFS_MAXSYMLINK);
	file_append(dp, 0, buf);
	dp->di_size = (uint64_t)n;
	free(buf);
}

/* ---- directories: built in memory, written when complete -------------------------------- */

struct dirbuf {
	uint8_t *data;
	uint32_t nblocks;
	uint32_t last;       /* byte offset of the last record of the chunk being filled */
};

/* Append an empty block: each of its chunks is one unused record. */
static void dir_newblock(struct dirbuf *db)
{
	uint32_t bs = img.sb.s_bsize;
	uint8_t *blk;

	db->data = realloc(db->data, (size_t)(db->nblocks + 1) * bs);
	if (!db->data)
		die("out of memory");
	blk = db->data + (size_t)db->nblocks * bs;
	memset(blk, 0, bs);
	for (uint32_t off = 0; off < bs; off += WDFS_DIRBLKSIZ)
		((struct wdfs_direct *)(blk + off))->d_reclen = WDFS_DIRBLKSIZ;
	db->last = db->nblocks * bs;
	db->nblocks++;
}

/* Add a name, splitting the last record's slack; a full chunk moves on to the next one. */
static void dir_add(struct dirbuf *db, const char *name, uint32_t ino, uint8_t type)
{
	uint32_t namlen = (uint32_t)strlen(name), need = WDFS_DIRSIZ(namlen), used;
	struct wdfs_direct *last, *d;

	if (namlen == 0 || namlen > WDFS_MAXNAMLEN)
		die("%s: name longer than %d bytes", name, WDFS_MAXNAMLEN);
	if (db->nblocks == 0)
		dir_newblock(db);
	last = (struct wdfs_direct *)(db->data + db->last);
	used = last->d_ino ? WDFS_DIRSIZ(last->d_namlen) : 0;
	if (last->d_reclen - used < need) {
		uint32_t next = (db->last & ~(uint32_t)(WDFS_DIRBLKSIZ - 1)) + WDFS_DIRBLKSIZ;
		if (next >= db->nblocks * img.sb.s_bsize)
			dir_newblock(db);
		else
			db->last = next;
		last = (struct wdfs_direct *)(db->data + db->last);
		used = 0;
	}
	if (used) {
		d = (struct wdfs_direct *)((uint8_t *)last + used);
		d->d_reclen = (uint16_t)(last->d_reclen - used);
		last->d_reclen = (uint16_t)used;
		db->last += used;
	} else {
		d = last;
	}
	d->d_ino = ino;
	d->d_type = type;
	d->d_namlen = (uint8_t)namlen;
	memcpy(d->d_name, name, namlen);
}

static void dir_write(struct dirbuf *db, uint32_t ino)
{
	struct wdfs_dinode *dp = &img.itab[ino];

	for (uint32_t b = 0; b < db->nblocks; b++)
		file_append(dp, b, db->data + (size_t)b * img.sb.s_bsize);
	dp->di_size = (uint64_t)db->nblocks * img.sb.s_bsize;
	free(db->data);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in a host directory (so images are reproducible), "." and ".." left out. */
static char **list_dir(const char *hostdir, size_t *np)
{
	DIR *d = opendir(hostdir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	if (!d)
		die("%s: %s", hostdir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		if (!names || !(names[n] = strdup(e->d_name)))
			die("out of memory");
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	*np = n;
	return names;
}

static uint32_t make_dir(uint16_t perm, uint32_t parent, struct dirbuf *db)
{
	uint32_t ino = ino_alloc(S_IFDIR | perm);

	img.itab[ino].di_nlink = 2;
	memset(db, 0, sizeof(*db));
	dir_add(db, ".", ino, WDFS_DT_DIR);
	dir_add(db, "..", parent ? parent : ino, WDFS_DT_DIR);
	if (parent)
		img.itab[parent].di_nlink++;
	return ino;
}

static void copy_tree(const char *hostdir, uint32_t dino, struct dirbuf *db, int depth)
{
	size_t n;
	char **names = list_dir(hostdir, &n);

	if (depth > 64)
		die("%s: directories nested too deeply", hostdir);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		uint32_t ino;

		if ((size_t)snprintf(path, sizeof(path), "%s/%s", hostdir, names[i]) >= sizeof(path))
			die("%s/%s: path too long", hostdir, names[i]);
		if (strlen(names[i]) > WDFS_MAXNAMLEN)
			die("%s: name longer than %d bytes", path, WDFS_MAXNAMLEN);
		if (lstat(path, &st) != 0)
			die("%s: %s", path, strerror(errno));
		if (S_ISREG(st.st_mode)) {
			ino = ino_alloc(S_IFREG | (st.st_mode & 07777));
			img.itab[ino].di_nlink = 1;
			copy_file(path, ino);
			img.itab[ino].di_mtime = st.st_mtime;
			dir_add(db, names[i], ino, WDFS_DT_REG);
		} else if (S_ISDIR(st.st_mode)) {
			struct dirbuf sub;
			ino = make_dir(st.st_mode & 07777, dino, &sub);
			copy_tree(path, ino, &sub, depth + 1);
			dir_write(&sub, ino);
			img.itab[ino].di_mtime = st.st_mtime;
			dir_add(db, names[i], ino, WDFS_DT_DIR);
		} else if (S_ISLNK(st.st_mode) || S_ISFIFO(st.st_mode)) {
			ino = ino_alloc((S_ISLNK(st.st_mode) ? S_IFLNK : S_IFIFO) | (st.st_mode & 07777));
			img.itab[ino].di_nlink = 1;
			if (S_ISLNK(st.st_mode))
				copy_link(path, ino);
			img.itab[ino].di_mtime = st.st_mtime;
			dir_add(db, names[i], ino, S_ISLNK(st.st_mode) ? WDFS_DT_LNK : WDFS_DT_FIFO);
		} else {
			fprintf(stderr, "%s: warning: %s: not a regular file, directory, symbolic link "
			        "or FIFO, skipped\n", progname, path);
		}
		free(names[i]);
	}
	free(names);
}

/* lost+found gets two blocks up front so fsck can reconnect files without allocating. */
static void make_lost_found(uint32_t root, struct dirbuf *rootdb)
{
	struct dirbuf db;
	uint32_t ino = make_dir(0700, root, &db);

	dir_newblock(&db);
	dir_write(&db, ino);
	dir_add(rootdb, "lost+found", ino, WDFS_DT_DIR);
}

/* ---- the image -------------------------------------------------------------------------- */

static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		die("bad size '%s' (expected a number with an optional k, m or g suffix)", s);
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: die("bad size '%s' (expected a number with an optional k, m or g suffix)", s);
	}
	if (*end != '\0')
		die("bad size '%s' (expected a number with an optional k, m or g suffix)", s);
	return v;
}

/* Write `n` zero blocks from block `blk` on, in runs of up to ZERO_RUN bytes. */
static void write_zero_blocks(uint32_t blk, uint32_t n)
{
	uint32_t bs = img.sb.s_bsize, per = ZERO_RUN / bs > 0 ? ZERO_RUN / bs : 1;
	uint8_t *zeros = xcalloc(per, bs);

	while (n > 0) {
		uint32_t k = n < per ? n : per;
		off_t off = (off_t)blk * bs;
		if (pwrite(img.fd, zeros, (size_t)k * bs, off) != (ssize_t)((size_t)k * bs))
			die("%s: write of blocks %u-%u failed: %s", img.path, blk, blk + k - 1, strerror(errno));
		blk += k;
		n -= k;
	}
	free(zeros);
}

/* The inode table: the blocks holding the in-memory prefix, then zeros. */
static void write_itab(void)
{
	uint32_t bs = img.sb.s_bsize, per = bs / sizeof(struct wdfs_dinode), i;
	uint32_t used = (img.itab_cap + per - 1) / per;
	uint8_t *blk = xcalloc(1, bs);

	for (i = 0; i < used; i++) {
		uint32_t first = i * per, n = img.itab_cap - first < per ? img.itab_cap - first : per;
		memset(blk, 0, bs);
		memcpy(blk, img.itab + first, (size_t)n * sizeof(struct wdfs_dinode));
		blk_write(img.sb.s_itab_start + i, blk);
	}
	write_zero_blocks(img.sb.s_itab_start + used, img.sb.s_itab_blocks - used);
	free(blk);
}

static void write_metadata(void)
{
	uint32_t bs = img.sb.s_bsize;
	uint8_t *blk = xcalloc(1, bs);

	for (uint32_t i = 0; i < img.sb.s_bmap_blocks; i++)
		blk_write(img.sb.s_bmap_start + i, img.bmap + (size_t)i * bs);
	for (uint32_t i = 0; i < img.sb.s_imap_blocks; i++)
		blk_write(img.sb.s_imap_start + i, img.imap + (size_t)i * bs);
	write_itab();
	img.sb.s_clean = WDFS_SB_CLEAN;
	img.sb.s_ctime = img.sb.s_wtime = img.now;
	wdfs_super_seal(&img.sb);
	memcpy(blk, &img.sb, sizeof(img.sb));
	blk_write(0, blk);
	free(blk);
}

/* A positive decimal option value, or die naming the option. */
static uint32_t parse_count(const char *opt, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end != '\0' || v == 0 || v > 0xffffffffUL)
		die("%s '%s': expected a positive number", opt, s);
	return (uint32_t)v;
}

/* Open (or, for a regular file with -s, create) the target and settle the size. */
static void open_target(uint64_t *sizep, bool dry)
{
	struct stat st;
	uint64_t have;
	bool exists = stat(img.path, &st) == 0, regular = exists && S_ISREG(st.st_mode);
	const char *on;

	if (!exists && (errno != ENOENT || *sizep == 0))
		die("%s: %s%s", img.path, strerror(errno),
		    errno == ENOENT && strncmp(img.path, "/dev/", 5) != 0 ? " (-s makes an image file)" : "");
	if (exists && !regular && (on = fsdev_mountpoint(img.path)) != NULL)
		die("%s is mounted on %s; unmount it first", img.path, on);
	if (dry && !exists)
		return;
	if (!dry && (!exists || (regular && *sizep != 0))) {
		img.fd = open(img.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (img.fd < 0)
			die("%s: %s", img.path, strerror(errno));
		img.created = true;
		if (ftruncate(img.fd, (off_t)*sizep) != 0)
			die("%s: cannot size it to %llu bytes: %s", img.path, (unsigned long long)*sizep,
			    strerror(errno));
		return;
	}
	img.fd = open(img.path, dry ? O_RDONLY : O_RDWR);
	if (img.fd < 0 || fsdev_size(img.fd, &have) != 0)
		die("%s: %s", img.path, strerror(errno));
	if (have == 0)
		die("%s: size 0 (%s)", img.path, regular ? "give -s" : "no medium: an unconfigured ccd?");
	if (*sizep > have)
		die("%s holds %llu bytes: -s %llu does not fit", img.path, (unsigned long long)have,
		    (unsigned long long)*sizep);
	if (*sizep == 0)
		*sizep = have;
}

int main(int argc, char **argv)
{
	uint32_t bsize = WDFS_BSIZE_DEF, density = 0, ninodes = 0, root;
	uint64_t size = 0;
	const char *dir = NULL, *slash = strrchr(argv[0], '/');
	char msg[WDFS_MSGLEN], devbuf[64];
	struct dirbuf rootdb;
	bool dry = false;
	int c;

	progname = slash ? slash + 1 : argv[0];
	while ((c = getopt(argc, argv, "Nb:i:s:d:")) != -1) {
		switch (c) {
		case 'N': dry = true; break;
		case 'b': bsize = parse_count("-b", optarg); break;
		case 'i': density = parse_count("-i", optarg); break;
		case 's':
			size = parse_size(optarg);
			if (size == 0)
				die("-s %s: a file system needs a size", optarg);
			break;
		case 'd': dir = optarg; break;
		default: usage();
		}
	}
	if (optind != argc - 1)
		usage();
	img.path = fsdev_path(argv[optind], devbuf, sizeof(devbuf));
	open_target(&size, dry);
	if (density != 0) {
		uint64_t n = size / density;
		if (n < 16 || n > 0x7fffffffULL)
			die("-i %u gives %llu inodes for %llu bytes; wdfs takes 16 to 2^31-1", density,
			    (unsigned long long)n, (unsigned long long)size);
		ninodes = (uint32_t)n;
	}
	if (wdfs_layout(size, bsize, ninodes, &img.sb, msg, sizeof(msg)) != 0)
		die("cannot make a %llu-byte file system: %s", (unsigned long long)size, msg);
	if (dry) {
		printf("%s: %llu bytes, %u blocks of %u bytes (%u for data), %u inodes; nothing written (-N)\n",
		       img.path, (unsigned long long)size, img.sb.s_nblocks, bsize,
		       img.sb.s_nblocks - img.sb.s_data_start, img.sb.s_ninodes);
		return 0;
	}
	img.now = time(NULL);
	img.nindir = bsize / 4;
	img.zero = xcalloc(1, bsize);
	img.bmap = xcalloc(img.sb.s_bmap_blocks, bsize);
	img.imap = xcalloc(img.sb.s_imap_blocks, bsize);
	for (uint32_t b = 0; b < img.sb.s_data_start; b++)
		wdfs_bit_set(img.bmap, b);
	/* Bits past the end of the file system are "in use" so no allocator ever finds them. */
	for (uint64_t b = img.sb.s_nblocks; b < (uint64_t)img.sb.s_bmap_blocks * bsize * 8; b++)
		wdfs_bit_set(img.bmap, (uint32_t)b);
	wdfs_bit_set(img.imap, 0);
	wdfs_bit_set(img.imap, 1);
	for (uint64_t i = img.sb.s_ninodes; i < (uint64_t)img.sb.s_imap_blocks * bsize * 8; i++)
		wdfs_bit_set(img.imap, (uint32_t)i);
	img.nextblk = img.sb.s_data_start;
	img.nextino = WDFS_ROOTINO;

	root = make_dir(0755, 0, &rootdb);
	if (root != WDFS_ROOTINO)
		die("internal error: root is inode %u", root);
	make_lost_found(root, &rootdb);
	if (dir)
		copy_tree(dir, root, &rootdb, 0);
	dir_write(&rootdb, root);
	write_metadata();
	if (fsync(img.fd) != 0 || close(img.fd) != 0)
		die("%s: %s", img.path, strerror(errno));
	printf("%s: %u blocks of %u bytes, %u inodes, %u blocks and %u inodes free\n",
	       img.path, img.sb.s_nblocks, bsize, img.sb.s_ninodes, img.sb.s_free_blocks,
	       img.sb.s_free_inodes);
	return 0;
}
