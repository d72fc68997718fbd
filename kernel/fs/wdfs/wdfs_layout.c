/*
 * wdfs pure helpers (interface and contracts in wdfs_layout.h): layout computation, superblock
 * validation, bitmaps, block-pointer index math and directory-record checks. Includes only
 * <stdint.h>/<stddef.h>/<stdbool.h> and its own header, so the kernel, mkfs, fsck and the unit
 * tests share this one copy. No locking: everything works on its arguments only.
 */
#include "wdfs_layout.h"

/* ---- messages without libc: a bounded string builder ------------------------------------- */

struct msgbuf {
	char  *p;
	size_t size;
	size_t len;
};

static void mb_init(struct msgbuf *mb, char *p, size_t size)
{
	mb->p = p;
	mb->size = p ? size : 0;
	mb->len = 0;
	if (mb->size)
		p[0] = '\0';
}

static void mb_putc(struct msgbuf *mb, char c)
{
	if (mb->len + 1 < mb->size) {
		mb->p[mb->len++] = c;
		mb->p[mb->len] = '\0';
	}
}

static void mb_str(struct msgbuf *mb, const char *s)
{
	while (*s)
		mb_putc(mb, *s++);
}

static void mb_u64(struct msgbuf *mb, uint64_t v)
{
	char digits[24];
	int n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n > 0)
		mb_putc(mb, digits[--n]);
}

static void mb_hex(struct msgbuf *mb, uint32_t v)
{
	mb_str(mb, "0x");
	for (int shift = 28; shift >= 0; shift -= 4)
		mb_putc(mb, "0123456789abcdef"[(v >> shift) & 0xf]);
}

/* "<what> is <got>, expected <want>" */
static void mb_mismatch(struct msgbuf *mb, const char *what, uint64_t got, uint64_t want)
{
	mb_str(mb, what);
	mb_str(mb, " is ");
	mb_u64(mb, got);
	mb_str(mb, ", expected ");
	mb_u64(mb, want);
}

/* ---- CRC-32 (IEEE 802.3 polynomial, reflected, as in zlib's crc32) ---------------------- */

uint32_t wdfs_crc32(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t crc = 0xffffffffu;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

uint32_t wdfs_super_cksum(const struct wdfs_super *sb)
{
	return wdfs_crc32(sb, __builtin_offsetof(struct wdfs_super, s_cksum));
}

void wdfs_super_seal(struct wdfs_super *sb)
{
	sb->s_cksum = wdfs_super_cksum(sb);
}

/* ---- layout ----------------------------------------------------------------------------- */

static bool bsize_ok(uint32_t bsize, uint32_t *shiftp)
{
	for (uint32_t shift = 12; shift <= 16; shift++) {
		if (bsize == (1u << shift)) {
			if (shiftp)
				*shiftp = shift;
			return true;
		}
	}
	return false;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/*
 * wdfs_geometry: fill in the geometry of a file system of `nblocks` blocks of `bsize` bytes with
 * (at least) `ninodes` inodes, rounded up to fill whole inode-table blocks. Sets the free counts
 * to "everything but the metadata and inodes 0 and 1 is free". Returns 0 or -1 with a message.
 */
int wdfs_geometry(uint32_t nblocks, uint32_t bsize, uint32_t ninodes, struct wdfs_super *sb,
                  char *msg, size_t msglen)
{
	struct msgbuf mb;
	uint32_t shift;
	uint64_t inopb, nino, bits, meta;

	mb_init(&mb, msg, msglen);
	if (!bsize_ok(bsize, &shift)) {
		mb_str(&mb, "block size ");
		mb_u64(&mb, bsize);
		mb_str(&mb, " is not a power of two between 4096 and 65536");
		return -1;
	}
	inopb = bsize / WDFS_INODE_SIZE;
	bits = (uint64_t)bsize * 8;
	nino = ninodes < 16 ? 16 : ninodes;
	nino = div_up(nino, inopb) * inopb;
	if (nino > 0x7fffffffu) {
		mb_str(&mb, "too many inodes (");
		mb_u64(&mb, nino);
		mb_str(&mb, "; at most 2147483647)");
		return -1;
	}
	for (uint32_t i = 0; i < sizeof(*sb); i++)
		((uint8_t *)sb)[i] = 0;
	sb->s_magic = WDFS_MAGIC;
	sb->s_version = WDFS_VERSION;
	sb->s_bsize = bsize;
	sb->s_bshift = shift;
	sb->s_nblocks = nblocks;
	sb->s_ninodes = (uint32_t)nino;
	sb->s_inodesize = WDFS_INODE_SIZE;
	sb->s_rootino = WDFS_ROOTINO;
	sb->s_bmap_start = 1;
	sb->s_bmap_blocks = (uint32_t)div_up(nblocks, bits);
	sb->s_imap_start = sb->s_bmap_start + sb->s_bmap_blocks;
	sb->s_imap_blocks = (uint32_t)div_up(nino, bits);
	sb->s_itab_start = sb->s_imap_start + sb->s_imap_blocks;
	sb->s_itab_blocks = (uint32_t)(nino / inopb);
	meta = 1 + (uint64_t)sb->s_bmap_blocks + sb->s_imap_blocks + sb->s_itab_blocks;
	if (meta + WDFS_MIN_DATA > nblocks) {
		mb_str(&mb, "too small: ");
		mb_u64(&mb, nblocks);
		mb_str(&mb, " blocks, but the metadata for ");
		mb_u64(&mb, nino);
		mb_str(&mb, " inodes needs ");
		mb_u64(&mb, meta);
		mb_str(&mb, " and at least ");
		mb_u64(&mb, WDFS_MIN_DATA);
		mb_str(&mb, " data blocks are required");
		return -1;
	}
	sb->s_data_start = (uint32_t)meta;
	sb->s_free_blocks = nblocks - (uint32_t)meta;
	sb->s_free_inodes = (uint32_t)nino - 2;
	sb->s_clean = WDFS_SB_CLEAN;
	return 0;
}

/*
 * wdfs_layout: the geometry of an image of `bytes` bytes (mkfs). ninodes 0 picks one inode per
 * WDFS_BYTES_PER_INODE bytes.
 */
int wdfs_layout(uint64_t bytes, uint32_t bsize, uint32_t ninodes, struct wdfs_super *sb,
                char *msg, size_t msglen)
{
	struct msgbuf mb;
	uint64_t nblocks;

	mb_init(&mb, msg, msglen);
	if (!bsize_ok(bsize, NULL))
		return wdfs_geometry(0, bsize, ninodes, sb, msg, msglen);
	nblocks = bytes / bsize;
	if (nblocks > 0xffffffffu) {
		mb_str(&mb, "image too large: ");
		mb_u64(&mb, nblocks);
		mb_str(&mb, " blocks do not fit 32-bit block numbers");
		return -1;
	}
	if (ninodes == 0)
		ninodes = (uint32_t)(bytes / WDFS_BYTES_PER_INODE < 0x7fff0000u ?
		                     bytes / WDFS_BYTES_PER_INODE : 0x7fff0000u);
	return wdfs_geometry((uint32_t)nblocks, bsize, ninodes, sb, msg, msglen);
}

/* ---- superblock validation ---------------------------------------------------------------- */

/* Compare one region field with the geometry's value. */
static bool layout_field(struct msgbuf *mb, const char *what, uint32_t got, uint32_t want)
{
	if (got == want)
		return true;
	mb_mismatch(mb, what, got, want);
	return false;
}

/*
 * wdfs_super_check: everything the kernel and fsck rely on before trusting any other field:
 * magic, version, checksum, block size, the region layout (recomputed from nblocks, bsize and
 * ninodes), the size against the device, and the summary counts.
 */
int wdfs_super_check(const struct wdfs_super *sb, uint64_t devbytes, char *msg, size_t msglen)
{
	struct msgbuf mb;
	struct wdfs_super g;
	uint32_t shift, sum;
	char gmsg[WDFS_MSGLEN];

	mb_init(&mb, msg, msglen);
	if (sb->s_magic != WDFS_MAGIC) {
		mb_str(&mb, "bad magic ");
		mb_hex(&mb, sb->s_magic);
		mb_str(&mb, " (expected ");
		mb_hex(&mb, WDFS_MAGIC);
		mb_str(&mb, "): not a wdfs file system");
		return WDFS_EMAGIC;
	}
	if (sb->s_version < WDFS_VERSION_MIN || sb->s_version > WDFS_VERSION) {
		mb_str(&mb, "unsupported version ");
		mb_u64(&mb, sb->s_version);
		mb_str(&mb, " (this code reads versions ");
		mb_u64(&mb, WDFS_VERSION_MIN);
		mb_str(&mb, " to ");
		mb_u64(&mb, WDFS_VERSION);
		mb_str(&mb, ")");
		return WDFS_EVERSION;
	}
	sum = wdfs_super_cksum(sb);
	if (sum != sb->s_cksum) {
		mb_str(&mb, "checksum mismatch: stored ");
		mb_hex(&mb, sb->s_cksum);
		mb_str(&mb, ", computed ");
		mb_hex(&mb, sum);
		return WDFS_ECKSUM;
	}
	if (!bsize_ok(sb->s_bsize, &shift)) {
		mb_str(&mb, "block size ");
		mb_u64(&mb, sb->s_bsize);
		mb_str(&mb, " is not a power of two between 4096 and 65536");
		return WDFS_EBSIZE;
	}
	if (sb->s_bshift != shift) {
		mb_mismatch(&mb, "block shift", sb->s_bshift, shift);
		return WDFS_EBSIZE;
	}
	if (sb->s_inodesize != WDFS_INODE_SIZE) {
		mb_mismatch(&mb, "inode size", sb->s_inodesize, WDFS_INODE_SIZE);
		return WDFS_EINODESIZE;
	}
	if (sb->s_rootino != WDFS_ROOTINO) {
		mb_mismatch(&mb, "root inode", sb->s_rootino, WDFS_ROOTINO);
		return WDFS_EROOTINO;
	}
	if (devbytes != 0 && (uint64_t)sb->s_nblocks * sb->s_bsize > devbytes) {
		mb_str(&mb, "file system has ");
		mb_u64(&mb, sb->s_nblocks);
		mb_str(&mb, " blocks of ");
		mb_u64(&mb, sb->s_bsize);
		mb_str(&mb, " bytes but the device holds only ");
		mb_u64(&mb, devbytes);
		mb_str(&mb, " bytes");
		return WDFS_ESIZE;
	}
	if (sb->s_ninodes % (sb->s_bsize / WDFS_INODE_SIZE) != 0 || sb->s_ninodes < 16) {
		mb_str(&mb, "inode count ");
		mb_u64(&mb, sb->s_ninodes);
		mb_str(&mb, " is not a multiple of the inodes per block (");
		mb_u64(&mb, sb->s_bsize / WDFS_INODE_SIZE);
		mb_str(&mb, ") of at least 16");
		return WDFS_ELAYOUT;
	}
	if (wdfs_geometry(sb->s_nblocks, sb->s_bsize, sb->s_ninodes, &g, gmsg, sizeof(gmsg)) != 0) {
		mb_str(&mb, "impossible geometry: ");
		mb_str(&mb, gmsg);
		return WDFS_ESIZE;
	}
	if (!layout_field(&mb, "block bitmap start", sb->s_bmap_start, g.s_bmap_start) ||
	    !layout_field(&mb, "block bitmap length", sb->s_bmap_blocks, g.s_bmap_blocks) ||
	    !layout_field(&mb, "inode bitmap start", sb->s_imap_start, g.s_imap_start) ||
	    !layout_field(&mb, "inode bitmap length", sb->s_imap_blocks, g.s_imap_blocks) ||
	    !layout_field(&mb, "inode table start", sb->s_itab_start, g.s_itab_start) ||
	    !layout_field(&mb, "inode table length", sb->s_itab_blocks, g.s_itab_blocks) ||
	    !layout_field(&mb, "first data block", sb->s_data_start, g.s_data_start))
		return WDFS_ELAYOUT;
	if (sb->s_free_blocks > g.s_free_blocks) {
		mb_str(&mb, "free block count ");
		mb_u64(&mb, sb->s_free_blocks);
		mb_str(&mb, " exceeds the ");
		mb_u64(&mb, g.s_free_blocks);
		mb_str(&mb, " data blocks");
		return WDFS_ECOUNT;
	}
	if (sb->s_free_inodes > g.s_free_inodes) {
		mb_str(&mb, "free inode count ");
		mb_u64(&mb, sb->s_free_inodes);
		mb_str(&mb, " exceeds the ");
		mb_u64(&mb, g.s_free_inodes);
		mb_str(&mb, " usable inodes");
		return WDFS_ECOUNT;
	}
	if (sb->s_clean != WDFS_SB_CLEAN && sb->s_clean != WDFS_SB_DIRTY) {
		mb_str(&mb, "clean flag ");
		mb_u64(&mb, sb->s_clean);
		mb_str(&mb, " is neither 0 nor 1");
		return WDFS_ECLEAN;
	}
	return WDFS_OK;
}

bool wdfs_blk_valid(const struct wdfs_super *sb, uint32_t blk)
{
	return blk >= sb->s_data_start && blk < sb->s_nblocks;
}

bool wdfs_ino_valid(const struct wdfs_super *sb, uint32_t ino)
{
	return ino >= WDFS_ROOTINO && ino < sb->s_ninodes;
}

/* ---- bitmaps ------------------------------------------------------------------------------ */

bool wdfs_bit_test(const uint8_t *map, uint32_t i)
{
	return (map[i >> 3] >> (i & 7)) & 1;
}

void wdfs_bit_set(uint8_t *map, uint32_t i)
{
	map[i >> 3] |= (uint8_t)(1u << (i & 7));
}

void wdfs_bit_clr(uint8_t *map, uint32_t i)
{
	map[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

/* First clear bit in [lo, hi), skipping full bytes quickly; WDFS_NONE if none. */
static uint32_t find_clear(const uint8_t *map, uint32_t lo, uint32_t hi)
{
	uint32_t i = lo;

	while (i < hi) {
		if ((i & 7) == 0 && i + 8 <= hi && map[i >> 3] == 0xff) {
			i += 8;
			continue;
		}
		if (!wdfs_bit_test(map, i))
			return i;
		i++;
	}
	return WDFS_NONE;
}

/*
 * wdfs_bitmap_find: the first clear bit at or after `from`, wrapping around to 0 (a rotor, so
 * allocation moves forward through the disk as FFS's does); WDFS_NONE if every bit is set.
 */
uint32_t wdfs_bitmap_find(const uint8_t *map, uint32_t nbits, uint32_t from)
{
	uint32_t i;

	if (from >= nbits)
		from = 0;
	i = find_clear(map, from, nbits);
	if (i == WDFS_NONE)
		i = find_clear(map, 0, from);
	return i;
}

uint32_t wdfs_bitmap_count(const uint8_t *map, uint32_t nbits)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < nbits; i++)
		n += wdfs_bit_test(map, i);
	return n;
}

/* ---- block-pointer index math ------------------------------------------------------------- */

uint64_t wdfs_level_span(uint32_t nindir, int level)
{
	uint64_t span = 1;

	for (int l = 0; l < level; l++)
		span *= nindir;
	return span;
}

uint64_t wdfs_max_lblocks(uint32_t nindir)
{
	uint64_t n = WDFS_NDADDR;

	for (int level = 1; level <= WDFS_NIADDR; level++)
		n += wdfs_level_span(nindir, level);
	return n;
}

/*
 * wdfs_bmap_path (FFS's ufs_getlbns): blocks 0..11 are direct; the next nindir go through the
 * single indirect block, the next nindir^2 through the double, then nindir^3 through the triple.
 */
int wdfs_bmap_path(uint64_t lbn, uint32_t nindir, struct wdfs_bpath *path)
{
	uint64_t span;
	int level;

	if (lbn < WDFS_NDADDR) {
		path->level = 0;
		path->idx[0] = (uint32_t)lbn;
		return 0;
	}
	lbn -= WDFS_NDADDR;
	for (level = 1; level <= WDFS_NIADDR; level++) {
		span = wdfs_level_span(nindir, level);
		if (lbn < span)
			break;
		lbn -= span;
	}
	if (level > WDFS_NIADDR)
		return -1;
	path->level = level;
	for (int i = 0; i < level; i++) {
		span = wdfs_level_span(nindir, level - 1 - i);
		path->idx[i] = (uint32_t)(lbn / span);
		lbn %= span;
	}
	return 0;
}

/* ---- directory records -------------------------------------------------------------------- */

/*
 * wdfs_dirent_check: the record at byte `off` of a directory block must lie inside its
 * WDFS_DIRBLKSIZ chunk, be 4-byte aligned, be long enough for its name, and (if used) name a valid inode with a name
 * free of '/' and NUL. Returns 0 or -1 with the reason in msg.
 */
int wdfs_dirent_check(const uint8_t *blk, uint32_t off, uint32_t bsize, uint32_t ninodes,
                      char *msg, size_t msglen)
{
	struct msgbuf mb;
	const struct wdfs_direct *d;
	uint32_t chunk_end;

	mb_init(&mb, msg, msglen);
	chunk_end = (off & ~(uint32_t)(WDFS_DIRBLKSIZ - 1)) + WDFS_DIRBLKSIZ;
	if (off % 4 != 0 || off + WDFS_DIRHDR > chunk_end || chunk_end > bsize) {
		mb_str(&mb, "record at offset ");
		mb_u64(&mb, off);
		mb_str(&mb, " does not fit in the block");
		return -1;
	}
	d = (const struct wdfs_direct *)(blk + off);
	if (d->d_reclen < WDFS_DIRHDR || d->d_reclen % 4 != 0 || off + d->d_reclen > chunk_end) {
		mb_str(&mb, "record at offset ");
		mb_u64(&mb, off);
		mb_str(&mb, " has bad length ");
		mb_u64(&mb, d->d_reclen);
		return -1;
	}
	if (d->d_ino == 0)
		return 0;
	if (d->d_namlen == 0 || WDFS_DIRSIZ(d->d_namlen) > d->d_reclen) {
		mb_str(&mb, "record at offset ");
		mb_u64(&mb, off);
		mb_str(&mb, " has name length ");
		mb_u64(&mb, d->d_namlen);
		mb_str(&mb, " that does not fit its length ");
		mb_u64(&mb, d->d_reclen);
		return -1;
	}
	if (d->d_ino < WDFS_ROOTINO || d->d_ino >= ninodes) {
		mb_str(&mb, "record at offset ");
		mb_u64(&mb, off);
		mb_str(&mb, " names inode ");
		mb_u64(&mb, d->d_ino);
		mb_str(&mb, ", out of range 2..");
		mb_u64(&mb, ninodes - 1);
		return -1;
	}
	for (uint32_t i = 0; i < d->d_namlen; i++) {
		if (d->d_name[i] == '/' || d->d_name[i] == '\0') {
			mb_str(&mb, "record at offset ");
			mb_u64(&mb, off);
			mb_str(&mb, " has a name containing '/' or NUL");
			return -1;
		}
	}
	return 0;
}

bool wdfs_name_eq(const struct wdfs_direct *d, const char *name, uint32_t namlen)
{
	if (d->d_namlen != namlen)
		return false;
	for (uint32_t i = 0; i < namlen; i++)
		if (d->d_name[i] != name[i])
			return false;
	return true;
}
