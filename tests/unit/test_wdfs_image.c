/*
 * End-to-end host test of the wdfs tools: mkfs an image from a temporary tree holding a file
 * big enough to need double-indirect blocks, symbolic links and a FIFO, read them back out of
 * the image by following the on-disk pointers (with the kernel's own wdfs_bmap_path), check
 * that fsck finds the image clean, then damage it in several ways (symbolic links and a FIFO
 * among them) and check that fsck exits non-zero naming each problem, and that fsck -y repairs
 * what it can. Runs tools/mkfs/mkfs and tools/fsck/fsck from the
 * repository root (tests/run's working directory), which build the host binaries if needed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fs/wdfs/wdfs_layout.c"
#include "unit.h"

#define BIGSIZE (20u * 1024 * 1024 + 12345)    /* past the 16 MB + 96 KB that single indirect covers */

static char tmpdir[64], tree[128], image[128], work[128];
static char output[65536];

static void check(const char *name, bool ok, const char *expected, const char *got)
{
	if (ok) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s: expected %s, got %s\n", name, expected, got);
		failures++;
	}
}

/* Run a shell command; its exit status, its stdout+stderr in output[]. */
#define run(...) unit_sh(output, sizeof(output), __VA_ARGS__)

static uint8_t pattern(uint64_t i)
{
	return (uint8_t)((i * 2654435761u) >> 13);
}

static void make_tree(void)
{
	char path[256];
	FILE *f;

	snprintf(tree, sizeof(tree), "%s/tree", tmpdir);
	mkdir(tree, 0755);
	snprintf(path, sizeof(path), "%s/big", tree);
	f = fopen(path, "w");
	for (uint64_t i = 0; i < BIGSIZE; i++)
		fputc(pattern(i), f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/sub", tree);
	mkdir(path, 0750);
	snprintf(path, sizeof(path), "%s/sub/hello", tree);
	f = fopen(path, "w");
	fputs("hello, wdfs\n", f);
	fclose(f);
	chmod(path, 0640);
	snprintf(path, sizeof(path), "%s/sub/link", tree);
	symlink("hello", path);
	snprintf(path, sizeof(path), "%s/dangling", tree);
	symlink("/no/such/file", path);
	snprintf(path, sizeof(path), "%s/pipe", tree);
	mkfifo(path, 0620);
	chmod(path, 0620);                      /* whatever the umask */
}

/* ---- reading the image directly ---------------------------------------------------------------- */

static FILE *img;
static struct wdfs_super sb;

static void rdblk(uint32_t b, void *buf)
{
	fseek(img, (long)b * sb.s_bsize, SEEK_SET);
	if (fread(buf, 1, sb.s_bsize, img) != sb.s_bsize)
		memset(buf, 0, sb.s_bsize);
}

static void rdinode(uint32_t ino, struct wdfs_dinode *dp)
{
	uint32_t inopb = sb.s_bsize / WDFS_INODE_SIZE;
	uint8_t *blk = malloc(sb.s_bsize);

	rdblk(sb.s_itab_start + ino / inopb, blk);
	memcpy(dp, blk + (ino % inopb) * WDFS_INODE_SIZE, sizeof(*dp));
	free(blk);
}

static uint32_t bmap(struct wdfs_dinode *dp, uint64_t lbn)
{
	struct wdfs_bpath p;
	uint32_t *tab = malloc(sb.s_bsize), b;

	wdfs_bmap_path(lbn, sb.s_bsize / 4, &p);
	if (p.level == 0) {
		b = dp->di_db[p.idx[0]];
	} else {
		b = dp->di_ib[p.level - 1];
		for (int i = 0; i < p.level && b; i++) {
			rdblk(b, tab);
			b = tab[p.idx[i]];
		}
	}
	free(tab);
	return b;
}

/* Inode of `name` in directory inode dino (0 if absent); *offp: its record's byte in the image. */
static uint32_t find_entry(uint32_t dino, const char *name, uint64_t *offp)
{
	struct wdfs_dinode d;
	uint8_t *blk = malloc(sb.s_bsize);
	uint32_t found = 0;

	rdinode(dino, &d);
	for (uint64_t lbn = 0; lbn < d.di_size / sb.s_bsize && !found; lbn++) {
		rdblk(bmap(&d, lbn), blk);
		for (uint32_t off = 0; off < sb.s_bsize; ) {
			struct wdfs_direct *e = (struct wdfs_direct *)(blk + off);
			if (wdfs_dirent_check(blk, off, sb.s_bsize, sb.s_ninodes, NULL, 0) != 0)
				break;
			if (e->d_ino && wdfs_name_eq(e, name, (uint32_t)strlen(name))) {
				found = e->d_ino;
				*offp = (uint64_t)bmap(&d, lbn) * sb.s_bsize + off;
				break;
			}
			off += e->d_reclen;
		}
	}
	free(blk);
	return found;
}

static uint32_t lookup(uint32_t dino, const char *name)
{
	uint64_t off;

	return find_entry(dino, name, &off);
}

/* Symbolic links keep their targets in their first block; a FIFO has no data at all. */
static void test_links(void)
{
	struct wdfs_dinode d;
	uint32_t link = lookup(lookup(WDFS_ROOTINO, "sub"), "link"), fifo = lookup(WDFS_ROOTINO, "pipe");
	uint8_t *blk = malloc(sb.s_bsize);
	char got[128];

	check("image: /sub/link exists", link != 0, "an inode", "none");
	rdinode(link, &d);
	snprintf(got, sizeof(got), "mode %o size %llu blocks %llu", d.di_mode, (unsigned long long)d.di_size,
	         (unsigned long long)d.di_blocks);
	check("image: /sub/link is a symbolic link of 5 bytes in one block",
	      (d.di_mode & 0170000) == 0120000 && d.di_size == 5 && d.di_blocks == 1, "mode 120xxx size 5 blocks 1", got);
	rdblk(d.di_db[0], blk);
	snprintf(got, sizeof(got), "%.5s", (char *)blk);
	check("image: /sub/link's block holds its target", memcmp(blk, "hello", 5) == 0, "hello", got);
	rdinode(fifo, &d);
	snprintf(got, sizeof(got), "mode %o size %llu blocks %llu", d.di_mode, (unsigned long long)d.di_size,
	         (unsigned long long)d.di_blocks);
	check("image: /pipe is a FIFO of mode 0620 with no data", fifo != 0 && d.di_mode == 010620 &&
	      d.di_size == 0 && d.di_blocks == 0, "mode 10620 size 0 blocks 0", got);
	free(blk);
}

static void test_contents(void)
{
	struct wdfs_dinode d;
	uint8_t *blk;
	uint32_t big, sub, hello;
	uint64_t bad = (uint64_t)-1;
	char got[128];

	img = fopen(image, "rb");
	fread(&sb, sizeof(sb), 1, img);
	check("image: superblock valid", wdfs_super_check(&sb, 48u << 20, got, sizeof(got)) == WDFS_OK,
	      "valid", got);
	big = lookup(WDFS_ROOTINO, "big");
	check("image: /big exists", big != 0, "an inode", "none");
	rdinode(big, &d);
	snprintf(got, sizeof(got), "%llu", (unsigned long long)d.di_size);
	check("image: /big has the right size", d.di_size == BIGSIZE, "20983065", got);
	check("image: /big uses its double-indirect block", d.di_ib[1] != 0, "di_ib[1] != 0", "0");
	snprintf(got, sizeof(got), "%o", d.di_mode);
	check("image: /big is a regular file", (d.di_mode & 0170000) == 0100000, "0100xxx", got);
	blk = malloc(sb.s_bsize);
	for (uint64_t lbn = 0; lbn * sb.s_bsize < BIGSIZE && bad == (uint64_t)-1; lbn++) {
		rdblk(bmap(&d, lbn), blk);
		for (uint32_t i = 0; i < sb.s_bsize && lbn * sb.s_bsize + i < BIGSIZE; i++)
			if (blk[i] != pattern(lbn * sb.s_bsize + i)) {
				bad = lbn * sb.s_bsize + i;
				break;
			}
	}
	snprintf(got, sizeof(got), "a difference at byte %llu", (unsigned long long)bad);
	check("image: /big reads back byte for byte", bad == (uint64_t)-1, "identical contents", got);
	free(blk);
	sub = lookup(WDFS_ROOTINO, "sub");
	hello = sub ? lookup(sub, "hello") : 0;
	check("image: /sub/hello exists", hello != 0, "an inode", "none");
	rdinode(hello, &d);
	snprintf(got, sizeof(got), "%o", d.di_mode);
	check("image: /sub/hello keeps mode 0640", d.di_mode == 0100640, "100640", got);
	rdinode(sub, &d);
	snprintf(got, sizeof(got), "%u", d.di_nlink);
	check("image: /sub has link count 2", d.di_nlink == 2, "2", got);
	check("image: /lost+found exists", lookup(WDFS_ROOTINO, "lost+found") != 0, "an inode", "none");
	test_links();
	fclose(img);
}

/* ---- damage ------------------------------------------------------------------------------------ */

static void copy_image(void)
{
	run("cp %s %s", image, work);
}

static void poke(uint64_t off, const void *data, size_t len)
{
	FILE *f = fopen(work, "r+b");

	fseek(f, (long)off, SEEK_SET);
	fwrite(data, 1, len, f);
	fclose(f);
}

static uint64_t inode_off(uint32_t ino)
{
	return (uint64_t)sb.s_itab_start * sb.s_bsize + (uint64_t)ino * WDFS_INODE_SIZE;
}

static void expect_fsck(const char *name, const char *flags, int status, const char *needle)
{
	char want[256];
	int st = run("tools/fsck/fsck %s %s", flags, work);

	snprintf(want, sizeof(want), "exit %d and \"%s\"", status, needle);
	check(name, st == status && strstr(output, needle) != NULL, want, output);
}

/* Make /pipe another type of format version 3: its mode, its record's type, its device number. */
static void retype_pipe(uint32_t fifo, uint64_t recoff, uint16_t mode, uint8_t dtype, uint32_t rdev)
{
	copy_image();
	poke(inode_off(fifo) + offsetof(struct wdfs_dinode, di_mode), &mode, 2);
	poke(inode_off(fifo) + offsetof(struct wdfs_dinode, di_rdev), &rdev, 4);
	poke(recoff + offsetof(struct wdfs_direct, d_type), &dtype, 1);
}

/* Device nodes and sockets (version 3): fsck knows them, and that they hold nothing. */
static void test_special_types(void)
{
	uint64_t recoff = 0, seven = 7;
	uint32_t fifo, five = 5;
	char needle[128];

	img = fopen(image, "rb");
	fifo = find_entry(WDFS_ROOTINO, "pipe", &recoff);
	fclose(img);
	retype_pipe(fifo, recoff, 020640, WDFS_DT_CHR, (1u << 8) | 2);
	expect_fsck("fsck: a character device node is clean", "", 0, "clean");
	poke(inode_off(fifo) + offsetof(struct wdfs_dinode, di_size), &seven, 8);
	snprintf(needle, sizeof(needle), "inode %u: character device has size 7, should be 0", fifo);
	expect_fsck("fsck: a device node with a size is found", "", 4, needle);
	retype_pipe(fifo, recoff, 060600, WDFS_DT_BLK, (2u << 8) | 0);
	expect_fsck("fsck: a block device node is clean", "", 0, "clean");
	retype_pipe(fifo, recoff, 060600, WDFS_DT_CHR, 0);
	expect_fsck("fsck: a block device named as a character device is found", "", 4, "type");
	retype_pipe(fifo, recoff, 0140755, WDFS_DT_SOCK, 5);
	snprintf(needle, sizeof(needle), "inode %u: socket has device number 5, should be 0", fifo);
	expect_fsck("fsck: a socket with a device number is found", "", 4, needle);
	expect_fsck("fsck -y: the number is set to 0", "-y", 1, "fixed");
	expect_fsck("fsck: clean after the socket repair", "", 0, "clean");
	retype_pipe(fifo, recoff, 010620, WDFS_DT_FIFO, 0);
	poke(inode_off(fifo) + offsetof(struct wdfs_dinode, di_rdev), &five, 4);
	snprintf(needle, sizeof(needle), "inode %u: FIFO has device number 5, should be 0", fifo);
	expect_fsck("fsck: a FIFO with a device number is found", "", 4, needle);
}

static void test_damage(void)
{
	struct wdfs_dinode d;
	uint32_t big, hello, blk;
	uint16_t nlink = 7, reclen = 6;
	uint8_t byte;
	uint32_t magic = 0xdeadbeef;
	char needle[128];

	img = fopen(image, "rb");
	big = lookup(WDFS_ROOTINO, "big");
	hello = lookup(lookup(WDFS_ROOTINO, "sub"), "hello");
	rdinode(big, &d);
	blk = d.di_db[0];
	fclose(img);

	copy_image();
	{
		FILE *f = fopen(work, "rb");
		fseek(f, (long)sb.s_bmap_start * sb.s_bsize + blk / 8, SEEK_SET);
		byte = (uint8_t)fgetc(f);
		fclose(f);
	}
	byte &= (uint8_t)~(1u << (blk % 8));
	poke((uint64_t)sb.s_bmap_start * sb.s_bsize + blk / 8, &byte, 1);
	snprintf(needle, sizeof(needle), "block %u is in use but marked free", blk);
	expect_fsck("fsck: a cleared block-bitmap bit is found", "", 4, needle);
	expect_fsck("fsck -y: the bitmap is repaired", "-y", 1, "fixed");
	expect_fsck("fsck: clean after the repair", "", 0, "clean");

	copy_image();
	poke(inode_off(big) + 2, &nlink, 2);
	snprintf(needle, sizeof(needle), "inode %u (file): link count is 7, should be 1", big);
	expect_fsck("fsck: a wrong link count is found", "-n", 4, needle);
	expect_fsck("fsck -y: the link count is repaired", "-y", 1, "fixed");
	expect_fsck("fsck: clean after the link repair", "", 0, "clean");

	copy_image();
	poke(inode_off(hello) + offsetof(struct wdfs_dinode, di_db), &blk, 4);
	snprintf(needle, sizeof(needle), "inode %u: block %u (logical block 0) is already used by inode %u",
	         hello, blk, big);
	expect_fsck("fsck: a block claimed twice is found", "", 4, needle);

	copy_image();
	blk = 0x7fffffff;
	poke(inode_off(big) + offsetof(struct wdfs_dinode, di_db) + 4, &blk, 4);
	expect_fsck("fsck: a block pointer out of range is found", "", 4, "is outside the data area");

	copy_image();
	{
		struct wdfs_dinode root;
		img = fopen(image, "rb");
		rdinode(WDFS_ROOTINO, &root);
		fclose(img);
		/* The first record is "." (12 bytes): make its length 6. */
		poke((uint64_t)root.di_db[0] * sb.s_bsize + 4, &reclen, 2);
	}
	expect_fsck("fsck: a directory record with a bad length is found", "", 4, "has bad length 6");

	/* a symbolic link whose length is 0; one with a NUL in its target; a FIFO with a size */
	{
		uint32_t link, fifo, lblk;
		uint64_t zero = 0, seven = 7;
		struct wdfs_dinode ld;

		img = fopen(image, "rb");
		link = lookup(lookup(WDFS_ROOTINO, "sub"), "link");
		fifo = lookup(WDFS_ROOTINO, "pipe");
		rdinode(link, &ld);
		lblk = ld.di_db[0];
		fclose(img);
		copy_image();
		poke(inode_off(link) + offsetof(struct wdfs_dinode, di_size), &zero, 8);
		snprintf(needle, sizeof(needle), "symlink inode %u (length 0): its length is not 1..1023: cleared", link);
		expect_fsck("fsck: a symbolic link of length 0 is found", "", 4, needle);
		expect_fsck("fsck -y: the link is cleared and its name removed", "-y", 1, "entry 'link' names unallocated");
		expect_fsck("fsck: clean after clearing the link", "", 0, "clean");
		copy_image();
		poke((uint64_t)lblk * sb.s_bsize + 2, &zero, 1);
		expect_fsck("fsck: a NUL inside a link's target is found", "", 4, "its target has a NUL byte in it");
		copy_image();
		poke(inode_off(fifo) + offsetof(struct wdfs_dinode, di_size), &seven, 8);
		snprintf(needle, sizeof(needle), "inode %u: FIFO has size 7, should be 0", fifo);
		expect_fsck("fsck: a FIFO with a size is found", "", 4, needle);
		expect_fsck("fsck -y: its size is set to 0", "-y", 1, "fixed");
		expect_fsck("fsck: clean after the FIFO repair", "", 0, "clean");
	}

	test_special_types();

	copy_image();
	poke(0, &magic, 4);
	expect_fsck("fsck: a bad magic number stops the check", "", 8, "bad superblock: bad magic 0xdeadbeef");

	copy_image();
	poke(offsetof(struct wdfs_super, s_free_blocks), &magic, 2);
	expect_fsck("fsck: a corrupt superblock fails its checksum", "", 8, "checksum mismatch");
}

static void test_mkfs_errors(void)
{
	int st;

	st = run("tools/mkfs/mkfs -s 1m -d %s %s", tree, work);
	check("mkfs: a tree too big for the image is refused", st != 0 && strstr(output, "image full"),
	      "non-zero exit and \"image full\"", output);
	st = run("tools/mkfs/mkfs -b 3000 -s 1m %s", work);
	check("mkfs: block size 3000 is refused", st != 0 && strstr(output, "not a power of two"),
	      "non-zero exit and \"not a power of two\"", output);
	st = run("tools/mkfs/mkfs -s 1x %s", work);
	check("mkfs: a bad size is refused", st != 0 && strstr(output, "bad size '1x'"),
	      "non-zero exit and \"bad size\"", output);
	st = run("tools/mkfs/mkfs -b 4096 -s 4m %s && tools/fsck/fsck %s", work, work);
	check("mkfs: an empty 4 KB-block image is clean", st == 0 && strstr(output, "clean"),
	      "exit 0 and \"clean\"", output);
	st = run("tools/mkfs/mkfs -b 65536 -s 8m -d %s/sub %s && tools/fsck/fsck %s", tree, work, work);
	check("mkfs: a 64 KB-block image is clean", st == 0 && strstr(output, "clean"),
	      "exit 0 and \"clean\"", output);
}

int main(void)
{
	int st;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/wdfs_test.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("FAIL setup: expected a temporary directory, got none\n");
		return 1;
	}
	snprintf(image, sizeof(image), "%s/image", tmpdir);
	snprintf(work, sizeof(work), "%s/work", tmpdir);
	make_tree();
	st = run("tools/mkfs/mkfs -s 48m -d %s %s", tree, image);
	check("mkfs: makes a 48 MB image from the tree", st == 0, "exit 0", output);
	if (st == 0) {
		st = run("tools/fsck/fsck %s", image);
		check("fsck: the fresh image is clean", st == 0 && strstr(output, "clean"),
		      "exit 0 and \"clean\"", output);
		test_contents();
		test_damage();
	}
	test_mkfs_errors();
	run("rm -rf %s", tmpdir);
	return failures ? 1 : 0;
}
