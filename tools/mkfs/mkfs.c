/*
 * mkfs: make a wdfs image on the host (the on-disk format is kernel/fs/wdfs/wdfs_format.h).
 *
 *   mkfs [-b bsize] [-i ninodes] -s SIZE[k|m|g] [-d DIR] IMAGE
 *
 * Creates IMAGE of SIZE bytes holding an empty root directory and /lost+found, then copies the
 * host tree DIR into it: regular files and directories, keeping the permission bits and
 * modification times; everything is owned by root. Other file types are skipped with a warning.
 *
 * The image is built with plain pread/pwrite: data and directory blocks are written as they are
 * allocated (sequentially from the first data block, so files are contiguous), and the bitmaps,
 * the inode table (kept in memory) and the superblock are written last, sealed with its checksum.
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

static const char *progname = "mkfs";

static struct {
	int                 fd;
	const char         *path;
	struct wdfs_super   sb;
	uint8_t            *bmap;      /* block bitmap */
	uint8_t            *imap;      /* inode bitmap */
	struct wdfs_dinode *itab;      /* the whole inode table */
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
	if (img.path)
		unlink(img.path);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [-b bsize] [-i ninodes] -s size[k|m|g] [-d dir] image\n", progname);
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

static uint32_t ino_alloc(uint16_t mode)
{
	uint32_t ino = wdfs_bitmap_find(img.imap, img.sb.s_ninodes, img.nextino);
	struct wdfs_dinode *dp;

	if (ino == WDFS_NONE)
		die("out of inodes: the tree has more than %u files; use a larger -i", img.sb.s_ninodes);
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
		} else {
			fprintf(stderr, "%s: warning: %s: not a regular file or directory, skipped\n",
			        progname, path);
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

static void write_metadata(void)
{
	uint32_t bs = img.sb.s_bsize;
	uint8_t *blk = xcalloc(1, bs);

	for (uint32_t i = 0; i < img.sb.s_bmap_blocks; i++)
		blk_write(img.sb.s_bmap_start + i, img.bmap + (size_t)i * bs);
	for (uint32_t i = 0; i < img.sb.s_imap_blocks; i++)
		blk_write(img.sb.s_imap_start + i, img.imap + (size_t)i * bs);
	for (uint32_t i = 0; i < img.sb.s_itab_blocks; i++)
		blk_write(img.sb.s_itab_start + i, (uint8_t *)img.itab + (size_t)i * bs);
	img.sb.s_clean = WDFS_SB_CLEAN;
	img.sb.s_ctime = img.sb.s_wtime = img.now;
	wdfs_super_seal(&img.sb);
	memcpy(blk, &img.sb, sizeof(img.sb));
	blk_write(0, blk);
	free(blk);
}

int main(int argc, char **argv)
{
	uint32_t bsize = WDFS_BSIZE_DEF, ninodes = 0, root;
	uint64_t size = 0;
	const char *dir = NULL;
	char msg[WDFS_MSGLEN];
	struct dirbuf rootdb;
	int c;

	while ((c = getopt(argc, argv, "b:i:s:d:")) != -1) {
		switch (c) {
		case 'b': bsize = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'i': ninodes = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 's': size = parse_size(optarg); break;
		case 'd': dir = optarg; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || size == 0)
		usage();
	if (wdfs_layout(size, bsize, ninodes, &img.sb, msg, sizeof(msg)) != 0)
		die("cannot make a %llu-byte file system: %s", (unsigned long long)size, msg);
	img.now = time(NULL);
	img.nindir = bsize / 4;
	img.zero = xcalloc(1, bsize);
	img.bmap = xcalloc(img.sb.s_bmap_blocks, bsize);
	img.imap = xcalloc(img.sb.s_imap_blocks, bsize);
	img.itab = xcalloc(img.sb.s_itab_blocks, bsize);
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

	img.path = argv[optind];
	img.fd = open(img.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (img.fd < 0) {
		const char *p = img.path;
		img.path = NULL;
		die("%s: %s", p, strerror(errno));
	}
	if (ftruncate(img.fd, (off_t)size) != 0)
		die("%s: cannot size it to %llu bytes: %s", img.path, (unsigned long long)size,
		    strerror(errno));

	root = make_dir(0755, 0, &rootdb);
	if (root != WDFS_ROOTINO)
		die("internal error: root is inode %u", root);
	make_lost_found(root, &rootdb);
	if (dir)
		copy_tree(dir, root, &rootdb, 0);
	dir_write(&rootdb, root);
	write_metadata();
	if (close(img.fd) != 0)
		die("%s: %s", img.path, strerror(errno));
	printf("%s: %u blocks of %u bytes, %u inodes, %u blocks and %u inodes free\n",
	       img.path, img.sb.s_nblocks, bsize, img.sb.s_ninodes, img.sb.s_free_blocks,
	       img.sb.s_free_inodes);
	return 0;
}
