/*
 * Host unit tests of wdfs's pure helpers (kernel/fs/wdfs/wdfs_layout.c, compiled in directly):
 * layout computation, superblock validation (each corruption rejected with its message),
 * bitmap search, block-pointer index math at the direct/single/double/triple boundaries, and
 * directory-record checks. One line per case: PASS name / FAIL name: expected X, got Y.
 */
#include <stdio.h>
#include <string.h>
#include "fs/wdfs/wdfs_layout.c"

static int failures;

static void check_u64(const char *name, unsigned long long got, unsigned long long want)
{
	if (got == want) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s: expected %llu, got %llu\n", name, want, got);
		failures++;
	}
}

/* The result code and a piece of the message. */
static void check_err(const char *name, int got, int want, const char *msg, const char *needle)
{
	if (got == want && strstr(msg, needle)) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s: expected %d with \"%s\", got %d with \"%s\"\n", name, want, needle, got, msg);
		failures++;
	}
}

/* ---- layout -------------------------------------------------------------------------------- */

static void test_layout(void)
{
	struct wdfs_super sb;
	char msg[WDFS_MSGLEN];
	int r;

	r = wdfs_layout(48u << 20, 8192, 0, &sb, msg, sizeof(msg));
	check_u64("layout 48m: succeeds", (unsigned long long)r, 0);
	check_u64("layout 48m: 6144 blocks", sb.s_nblocks, 6144);
	check_u64("layout 48m: one inode per 16 KB", sb.s_ninodes, 3072);
	check_u64("layout 48m: block bitmap at 1", sb.s_bmap_start, 1);
	check_u64("layout 48m: inode bitmap at 2", sb.s_imap_start, 2);
	check_u64("layout 48m: inode table at 3", sb.s_itab_start, 3);
	check_u64("layout 48m: inode table 48 blocks", sb.s_itab_blocks, 48);
	check_u64("layout 48m: data from block 51", sb.s_data_start, 51);
	check_u64("layout 48m: free blocks", sb.s_free_blocks, 6144 - 51);
	check_u64("layout 48m: free inodes exclude 0 and 1", sb.s_free_inodes, 3070);
	check_u64("layout 48m: bshift 13", sb.s_bshift, 13);

	r = wdfs_layout(1u << 20, 4096, 20, &sb, msg, sizeof(msg));
	check_u64("layout 1m/4k: succeeds", (unsigned long long)r, 0);
	check_u64("layout 1m/4k: inodes rounded up to a block (32)", sb.s_ninodes, 32);
	check_u64("layout 1m/4k: data from block 4", sb.s_data_start, 4);

	r = wdfs_layout(64u << 20, 65536, 0, &sb, msg, sizeof(msg));
	check_u64("layout 64k blocks: succeeds", (unsigned long long)r, 0);
	check_u64("layout 64k blocks: 1024 blocks", sb.s_nblocks, 1024);

	/* A bitmap block of 8 KB covers 65536 blocks: one more needs a second bitmap block. */
	r = wdfs_layout(65537ull * 8192, 8192, 64, &sb, msg, sizeof(msg));
	check_u64("layout 65537 blocks: two bitmap blocks", sb.s_bmap_blocks, 2);

	r = wdfs_layout(1u << 20, 3000, 0, &sb, msg, sizeof(msg));
	check_err("layout rejects block size 3000", r, -1, msg, "not a power of two");
	r = wdfs_layout(1u << 20, 131072, 0, &sb, msg, sizeof(msg));
	check_err("layout rejects block size 131072", r, -1, msg, "between 4096 and 65536");
	r = wdfs_layout(64u << 10, 8192, 0, &sb, msg, sizeof(msg));
	check_err("layout rejects a 64 KB image", r, -1, msg, "too small");
	r = wdfs_layout((1ull << 32) * 4096 + 4096, 4096, 0, &sb, msg, sizeof(msg));
	check_err("layout rejects more than 2^32-1 blocks", r, -1, msg, "32-bit block numbers");
}

/* ---- superblock validation ------------------------------------------------------------------- */

static struct wdfs_super good_super(void)
{
	struct wdfs_super sb;
	char msg[WDFS_MSGLEN];

	wdfs_layout(48u << 20, 8192, 0, &sb, msg, sizeof(msg));
	wdfs_super_seal(&sb);
	return sb;
}

static void test_super(void)
{
	struct wdfs_super sb;
	char msg[WDFS_MSGLEN];
	uint64_t dev = 48u << 20;

	check_u64("crc32 of \"123456789\" is 0xcbf43926", wdfs_crc32("123456789", 9), 0xcbf43926u);

	sb = good_super();
	check_err("super: a fresh superblock is valid", wdfs_super_check(&sb, dev, msg, sizeof(msg)),
	          WDFS_OK, msg, "");
	check_err("super: device size unknown is fine", wdfs_super_check(&sb, 0, msg, sizeof(msg)),
	          WDFS_OK, msg, "");

	sb = good_super(); sb.s_magic = 0x12345678; wdfs_super_seal(&sb);
	check_err("super: bad magic", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_EMAGIC, msg,
	          "bad magic 0x12345678 (expected 0x53464457)");
	sb = good_super(); sb.s_version = 9; wdfs_super_seal(&sb);
	check_err("super: unknown version", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_EVERSION,
	          msg, "unsupported version 9");
	sb = good_super(); sb.s_version = 0; wdfs_super_seal(&sb);
	check_err("super: version 0 is refused", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_EVERSION,
	          msg, "unsupported version 0 (this code reads versions 1 to 3)");
	sb = good_super(); sb.s_version = 1; wdfs_super_seal(&sb);
	check_err("super: version 1 (before symbolic links) is read", wdfs_super_check(&sb, dev, msg, sizeof(msg)),
	          WDFS_OK, msg, "");
	sb = good_super(); sb.s_nblocks ^= 0x100;
	check_err("super: a flipped bit fails the checksum", wdfs_super_check(&sb, dev, msg, sizeof(msg)),
	          WDFS_ECKSUM, msg, "checksum mismatch");
	sb = good_super(); sb.s_bsize = 5000; wdfs_super_seal(&sb);
	check_err("super: block size 5000", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_EBSIZE,
	          msg, "block size 5000 is not a power of two");
	sb = good_super(); sb.s_bshift = 12; wdfs_super_seal(&sb);
	check_err("super: block shift disagrees", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_EBSIZE,
	          msg, "block shift is 12, expected 13");
	sb = good_super(); sb.s_inodesize = 256; wdfs_super_seal(&sb);
	check_err("super: inode size 256", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_EINODESIZE,
	          msg, "inode size is 256, expected 128");
	sb = good_super(); sb.s_rootino = 5; wdfs_super_seal(&sb);
	check_err("super: root inode 5", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_EROOTINO,
	          msg, "root inode is 5, expected 2");
	sb = good_super();
	check_err("super: larger than the device", wdfs_super_check(&sb, dev / 2, msg, sizeof(msg)),
	          WDFS_ESIZE, msg, "device holds only 25165824 bytes");
	sb = good_super(); sb.s_bmap_start = 2; wdfs_super_seal(&sb);
	check_err("super: block bitmap moved", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_ELAYOUT,
	          msg, "block bitmap start is 2, expected 1");
	sb = good_super(); sb.s_data_start = 40; wdfs_super_seal(&sb);
	check_err("super: data area overlaps the inode table", wdfs_super_check(&sb, dev, msg, sizeof(msg)),
	          WDFS_ELAYOUT, msg, "first data block is 40, expected 51");
	sb = good_super(); sb.s_ninodes = 3000; wdfs_super_seal(&sb);
	check_err("super: inode count not a multiple of a block", wdfs_super_check(&sb, dev, msg, sizeof(msg)),
	          WDFS_ELAYOUT, msg, "inode count 3000");
	sb = good_super(); sb.s_free_blocks = 7000; wdfs_super_seal(&sb);
	check_err("super: free blocks out of range", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_ECOUNT,
	          msg, "free block count 7000 exceeds the 6093 data blocks");
	sb = good_super(); sb.s_free_inodes = 3071; wdfs_super_seal(&sb);
	check_err("super: free inodes out of range", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_ECOUNT,
	          msg, "free inode count 3071 exceeds");
	sb = good_super(); sb.s_clean = 7; wdfs_super_seal(&sb);
	check_err("super: clean flag 7", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_ECLEAN, msg,
	          "clean flag 7");
	sb = good_super(); sb.s_nblocks = 3; wdfs_super_seal(&sb);
	check_err("super: impossible geometry", wdfs_super_check(&sb, dev, msg, sizeof(msg)), WDFS_ESIZE,
	          msg, "too small");
}

/* ---- bitmaps --------------------------------------------------------------------------------- */

static void test_bitmap(void)
{
	uint8_t map[128];

	memset(map, 0, sizeof(map));
	check_u64("bitmap: empty map, first is 0", wdfs_bitmap_find(map, 1024, 0), 0);
	for (uint32_t i = 0; i < 10; i++)
		wdfs_bit_set(map, i);
	check_u64("bitmap: after 0..9 set, first is 10", wdfs_bitmap_find(map, 1024, 0), 10);
	check_u64("bitmap: search from 5 finds 10", wdfs_bitmap_find(map, 1024, 5), 10);
	check_u64("bitmap: search from 500 finds 500", wdfs_bitmap_find(map, 1024, 500), 500);
	check_u64("bitmap: count 10", wdfs_bitmap_count(map, 1024), 10);
	wdfs_bit_clr(map, 4);
	check_u64("bitmap: cleared bit 4 is found again", wdfs_bitmap_find(map, 1024, 0), 4);
	check_u64("bitmap: bit 4 tests clear", wdfs_bit_test(map, 4), 0);
	check_u64("bitmap: bit 5 tests set", wdfs_bit_test(map, 5), 1);

	memset(map, 0, sizeof(map));
	for (uint32_t i = 0; i < 800; i++)
		wdfs_bit_set(map, i);
	check_u64("bitmap: skips 100 full bytes to 800", wdfs_bitmap_find(map, 1024, 0), 800);

	memset(map, 0xff, sizeof(map));
	wdfs_bit_clr(map, 3);
	check_u64("bitmap: wraps around to 3 from 40", wdfs_bitmap_find(map, 64, 40), 3);
	check_u64("bitmap: a start past the end wraps", wdfs_bitmap_find(map, 64, 64), 3);
	wdfs_bit_set(map, 3);
	check_u64("bitmap: full map gives WDFS_NONE", wdfs_bitmap_find(map, 64, 0), WDFS_NONE);
	memset(map, 0xff, sizeof(map));
	wdfs_bit_clr(map, 70);
	check_u64("bitmap: bits past nbits are ignored", wdfs_bitmap_find(map, 64, 0), WDFS_NONE);
	check_u64("bitmap: a non-multiple-of-8 size", wdfs_bitmap_find(map, 71, 0), 70);
}

/* ---- block pointer math ------------------------------------------------------------------------ */

static void check_path(const char *name, uint64_t lbn, uint32_t nindir, int level, uint32_t i0,
                       uint32_t i1, uint32_t i2)
{
	struct wdfs_bpath p;
	int r = wdfs_bmap_path(lbn, nindir, &p);
	uint32_t want[3] = { i0, i1, i2 };
	bool ok = r == 0 && p.level == level;

	for (int i = 0; ok && i < (level ? level : 1); i++)
		ok = p.idx[i] == want[i];
	if (ok) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s: expected level %d (%u,%u,%u), got r=%d level %d (%u,%u,%u)\n", name,
		       level, i0, i1, i2, r, p.level, p.idx[0], level > 1 ? p.idx[1] : 0,
		       level > 2 ? p.idx[2] : 0);
		failures++;
	}
}

static void test_bmap(void)
{
	const uint64_t n = 2048, s1 = 12, s2 = s1 + n, s3 = s2 + n * n, end = s3 + n * n * n;
	struct wdfs_bpath p;

	check_path("bmap: block 0 is direct 0", 0, 2048, 0, 0, 0, 0);
	check_path("bmap: block 11 is direct 11", 11, 2048, 0, 11, 0, 0);
	check_path("bmap: block 12 is single[0]", s1, 2048, 1, 0, 0, 0);
	check_path("bmap: block 2059 is single[2047]", s2 - 1, 2048, 1, 2047, 0, 0);
	check_path("bmap: block 2060 is double[0][0]", s2, 2048, 2, 0, 0, 0);
	check_path("bmap: double[0][2047]", s2 + n - 1, 2048, 2, 0, 2047, 0);
	check_path("bmap: double[1][0]", s2 + n, 2048, 2, 1, 0, 0);
	check_path("bmap: last double block", s3 - 1, 2048, 2, 2047, 2047, 0);
	check_path("bmap: first triple block", s3, 2048, 3, 0, 0, 0);
	check_path("bmap: triple[0][1][5]", s3 + n + 5, 2048, 3, 0, 1, 5);
	check_path("bmap: last triple block", end - 1, 2048, 3, 2047, 2047, 2047);
	check_u64("bmap: past the triple is refused", (unsigned long long)(wdfs_bmap_path(end, 2048, &p) + 1), 0);
	check_u64("bmap: max blocks with 8 KB blocks", wdfs_max_lblocks(2048), end);
	check_path("bmap 4k: block 1036 is double[0][0]", 12 + 1024, 1024, 2, 0, 0, 0);
	check_path("bmap 4k: first triple block", 12 + 1024 + 1024 * 1024, 1024, 3, 0, 0, 0);
	check_u64("bmap: span of a double pointer", wdfs_level_span(2048, 2), n * n);
}

/* ---- directory records ---------------------------------------------------------------------- */

static void put(uint8_t *blk, uint32_t off, uint32_t ino, uint16_t reclen, const char *name)
{
	struct wdfs_direct *d = (struct wdfs_direct *)(blk + off);

	d->d_ino = ino;
	d->d_reclen = reclen;
	d->d_type = WDFS_DT_REG;
	d->d_namlen = (uint8_t)strlen(name);
	memcpy(d->d_name, name, strlen(name));
}

static void test_dirent(void)
{
	static uint8_t blk[8192];
	char msg[WDFS_MSGLEN];
	int r;

	memset(blk, 0, sizeof(blk));
	put(blk, 0, 5, 16, "hello");
	put(blk, 16, 0, 4096 - 16, "");
	r = wdfs_dirent_check(blk, 0, 8192, 100, msg, sizeof(msg));
	check_err("dirent: a good record", r, 0, msg, "");
	r = wdfs_dirent_check(blk, 16, 8192, 100, msg, sizeof(msg));
	check_err("dirent: an unused record", r, 0, msg, "");
	put(blk, 0, 5, 0, "hello");
	r = wdfs_dirent_check(blk, 0, 8192, 100, msg, sizeof(msg));
	check_err("dirent: length 0 is bad", r, -1, msg, "bad length 0");
	put(blk, 4000, 5, 200, "x");
	r = wdfs_dirent_check(blk, 4000, 8192, 100, msg, sizeof(msg));
	check_err("dirent: crossing a 4 KB chunk is bad", r, -1, msg, "bad length 200");
	put(blk, 0, 5, 14, "hello");
	r = wdfs_dirent_check(blk, 0, 8192, 100, msg, sizeof(msg));
	check_err("dirent: length not a multiple of 4", r, -1, msg, "bad length 14");
	put(blk, 0, 5, 12, "hello");
	r = wdfs_dirent_check(blk, 0, 8192, 100, msg, sizeof(msg));
	check_err("dirent: name longer than the record", r, -1, msg, "name length 5");
	put(blk, 0, 100, 16, "hello");
	r = wdfs_dirent_check(blk, 0, 8192, 100, msg, sizeof(msg));
	check_err("dirent: inode out of range", r, -1, msg, "names inode 100, out of range 2..99");
	put(blk, 0, 1, 16, "hello");
	r = wdfs_dirent_check(blk, 0, 8192, 100, msg, sizeof(msg));
	check_err("dirent: reserved inode 1", r, -1, msg, "names inode 1");
	put(blk, 0, 5, 16, "he/lo");
	r = wdfs_dirent_check(blk, 0, 8192, 100, msg, sizeof(msg));
	check_err("dirent: a slash in the name", r, -1, msg, "'/'");
	r = wdfs_dirent_check(blk, 8190, 8192, 100, msg, sizeof(msg));
	check_err("dirent: offset at the block end", r, -1, msg, "does not fit");
	put(blk, 0, 5, 16, "hello");
	check_u64("dirent: name_eq matches", wdfs_name_eq((struct wdfs_direct *)blk, "hello", 5), 1);
	check_u64("dirent: name_eq differs by length", wdfs_name_eq((struct wdfs_direct *)blk, "hell", 4), 0);
	check_u64("dirent: DIRSIZ(255) is 264", WDFS_DIRSIZ(255), 264);
}

int main(void)
{
	test_layout();
	test_super();
	test_bitmap();
	test_bmap();
	test_dirent();
	return failures ? 1 : 0;
}
