/*
 * wdfs pure helpers: computations on the on-disk format that need no kernel and no libc, so the
 * kernel, mkfs, fsck and the host unit tests all compile wdfs_layout.c unchanged.
 *
 *   wdfs_layout(bytes, bsize, ninodes, sb, msg)  - where everything goes in an image of `bytes`
 *                                                  bytes (mkfs); ninodes 0 = one per 16 KB.
 *   wdfs_geometry(nblocks, bsize, ninodes, sb)   - the same from a block count (also used to check
 *                                                  that a superblock's fields agree).
 *   wdfs_super_check(sb, devbytes, msg)          - validate a superblock read from a device of
 *                                                  `devbytes` bytes (0 = unknown); WDFS_OK or a
 *                                                  WDFS_E* code with a precise message in msg.
 *   wdfs_super_seal(sb)                          - compute and store s_cksum before writing it.
 *   wdfs_bitmap_find(map, nbits, from)           - first clear bit at or after `from`, wrapping
 *                                                  around; WDFS_NONE if all are set.
 *   wdfs_bmap_path(lbn, nindir, path)            - which pointer chain holds logical block lbn.
 *   wdfs_dirent_check(blk, off, bsize, ninodes, msg) - is the directory record at `off` sane?
 *
 * `msg` arguments are caller buffers of `msglen` bytes (WDFS_MSGLEN is enough), always
 * NUL-terminated. No locking: the functions touch only their arguments.
 */
#ifndef _WDFS_LAYOUT_H_
#define _WDFS_LAYOUT_H_

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "wdfs_format.h"

#define WDFS_NONE        0xffffffffu
#define WDFS_MSGLEN      160
#define WDFS_MIN_DATA    8             /* data blocks an image must have at least */
#define WDFS_BYTES_PER_INODE 16384     /* default inode density */

/* wdfs_super_check() results. */
enum {
	WDFS_OK = 0,
	WDFS_EMAGIC,        /* not a wdfs image */
	WDFS_EVERSION,      /* unknown format version */
	WDFS_ECKSUM,        /* checksum mismatch: the superblock is corrupt */
	WDFS_EBSIZE,        /* block size not a power of two in 4096..65536, or bshift wrong */
	WDFS_EINODESIZE,    /* inode size is not 128 */
	WDFS_EROOTINO,      /* root inode is not 2 */
	WDFS_ESIZE,         /* file system larger than the device, or too small */
	WDFS_ELAYOUT,       /* region starts/lengths disagree with the geometry */
	WDFS_ECOUNT,        /* free counts out of range */
	WDFS_ECLEAN,        /* clean flag neither 0 nor 1 */
};

uint32_t wdfs_crc32(const void *buf, size_t len);
uint32_t wdfs_super_cksum(const struct wdfs_super *sb);
void     wdfs_super_seal(struct wdfs_super *sb);

int  wdfs_layout(uint64_t bytes, uint32_t bsize, uint32_t ninodes, struct wdfs_super *sb,
                 char *msg, size_t msglen);
int  wdfs_geometry(uint32_t nblocks, uint32_t bsize, uint32_t ninodes, struct wdfs_super *sb,
                   char *msg, size_t msglen);
int  wdfs_super_check(const struct wdfs_super *sb, uint64_t devbytes, char *msg, size_t msglen);

/* Is blk a block number a file may point to (a data block inside the file system)? */
bool wdfs_blk_valid(const struct wdfs_super *sb, uint32_t blk);
bool wdfs_ino_valid(const struct wdfs_super *sb, uint32_t ino);

bool     wdfs_bit_test(const uint8_t *map, uint32_t i);
void     wdfs_bit_set(uint8_t *map, uint32_t i);
void     wdfs_bit_clr(uint8_t *map, uint32_t i);
uint32_t wdfs_bitmap_find(const uint8_t *map, uint32_t nbits, uint32_t from);
uint32_t wdfs_bitmap_count(const uint8_t *map, uint32_t nbits);

/*
 * A logical block's place in the pointer tree. level 0: di_db[idx[0]]. level 1..3: start at
 * di_ib[level-1], then take entry idx[0] of that block, idx[1] of the next, ... idx[level-1]
 * of the last (single) indirect block, which holds the data block's number.
 */
struct wdfs_bpath {
	int      level;
	uint32_t idx[WDFS_NIADDR];
};
int      wdfs_bmap_path(uint64_t lbn, uint32_t nindir, struct wdfs_bpath *path); /* 0, or -1 if too big */
uint64_t wdfs_max_lblocks(uint32_t nindir);        /* logical blocks a file can have */
uint64_t wdfs_level_span(uint32_t nindir, int level); /* data blocks under one pointer at level
                                                         (0 = a data block itself: 1) */

int  wdfs_dirent_check(const uint8_t *blk, uint32_t off, uint32_t bsize, uint32_t ninodes,
                       char *msg, size_t msglen);
bool wdfs_name_eq(const struct wdfs_direct *d, const char *name, uint32_t namlen);

#endif
