/*
 * wdfs on-disk format: the structures the kernel, mkfs and fsck agree on.
 *
 * A wdfs image is an array of s_bsize-byte blocks (4096..65536, 8192 by default), numbered from 0
 * with 32-bit block numbers:
 *
 *   block 0                  superblock (struct wdfs_super at byte 0, rest of the block zero)
 *   s_bmap_start ..          block bitmap: bit b (byte b/8, bit b%8) set = block b in use
 *   s_imap_start ..          inode bitmap: bit i set = inode i in use (0 and 1 always set)
 *   s_itab_start ..          inode table: s_ninodes struct wdfs_dinode, inode i at byte i*128
 *   s_data_start .. end      data blocks: file data, directory blocks, indirect blocks
 *
 * Inodes 0 (means "no inode") and 1 (reserved, as in FFS) are never used; the root directory is
 * inode 2. An inode is a regular file, a directory, a symbolic link (its target, 1..1023 bytes
 * with no NUL, is its data: di_size bytes in logical block 0), a FIFO or a socket (no data:
 * size 0, no blocks) or a character or block device (no data; di_rdev is its number,
 * makedev(major, minor) of <sys/types.h>); di_uid and di_gid are its owner and group, the mode's 07777 bits its permissions
 * with the set-user-ID, set-group-ID and sticky bits. A file's blocks: di_db[0..11] hold logical blocks 0..11, di_ib[0] a single indirect
 * block of s_bsize/4 block numbers, di_ib[1] a double and di_ib[2] a triple indirect block.
 * Block number 0 in a pointer means "hole" (block 0 is the superblock, never a data block).
 *
 * A directory is a file of whole blocks, each cut into WDFS_DIRBLKSIZ-byte chunks (FFS's
 * DIRBLKSIZ) of variable-length records (FFS's struct direct): a record never crosses a chunk,
 * d_reclen is a multiple of 4 and the records of a chunk add up to exactly WDFS_DIRBLKSIZ. A
 * record with d_ino == 0 is unused space (only the first of a chunk; later free space is folded
 * into the previous record's d_reclen). Every directory starts with "." and "..".
 *
 * All integers are little-endian (the native order of i386 and the x86-64 host tools). Every
 * 64-bit field sits at a multiple of 8 so i386 (4-byte int64 alignment) and x86-64 agree.
 * This header is pure: it includes only <stdint.h>, so host tools compile it unchanged.
 */
#ifndef _WDFS_FORMAT_H_
#define _WDFS_FORMAT_H_

#include <stdint.h>

#define WDFS_MAGIC       0x53464457u   /* "WDFS" read as little-endian bytes */
#define WDFS_VERSION     3             /* 3: device nodes and sockets; 2: symbolic links, FIFOs,
                                          owners (2026, commit d39efa7) */
#define WDFS_VERSION_MIN 1             /* 1 and 2 are read too; a read-write mount rewrites the
                                          superblock as version 3 */
#define WDFS_BSIZE_MIN   4096
#define WDFS_BSIZE_MAX   65536
#define WDFS_BSIZE_DEF   8192
#define WDFS_INODE_SIZE  128
#define WDFS_ROOTINO     2             /* the root directory */
#define WDFS_FIRSTINO    3             /* first inode number handed out by the allocator */
#define WDFS_NDADDR      12            /* direct block pointers */
#define WDFS_NIADDR      3             /* single, double, triple indirect */
#define WDFS_MAXNAMLEN   255
#define WDFS_MAXLINK     65535         /* di_nlink is 16 bits */
#define WDFS_MAXSYMLINK  1023          /* a symbolic link's target: PATH_MAX less the NUL */

/* s_clean */
#define WDFS_SB_DIRTY    0             /* mounted read-write, or crashed: run fsck */
#define WDFS_SB_CLEAN    1             /* unmounted cleanly (or just made by mkfs / repaired) */

struct wdfs_super {
	uint32_t s_magic;          /* WDFS_MAGIC */
	uint32_t s_version;        /* WDFS_VERSION_MIN..WDFS_VERSION */
	uint32_t s_bsize;          /* block size in bytes, a power of two */
	uint32_t s_bshift;         /* log2(s_bsize) */
	uint32_t s_nblocks;        /* blocks in the file system, metadata included */
	uint32_t s_ninodes;        /* inodes in the table, a multiple of s_bsize/128 */
	uint32_t s_inodesize;      /* WDFS_INODE_SIZE */
	uint32_t s_rootino;        /* WDFS_ROOTINO */
	uint32_t s_bmap_start;     /* first block of the block bitmap (always 1) */
	uint32_t s_bmap_blocks;
	uint32_t s_imap_start;     /* first block of the inode bitmap */
	uint32_t s_imap_blocks;
	uint32_t s_itab_start;     /* first block of the inode table */
	uint32_t s_itab_blocks;
	uint32_t s_data_start;     /* first data block */
	uint32_t s_free_blocks;    /* free data blocks (a summary: fsck recomputes it) */
	uint32_t s_free_inodes;    /* free inodes (likewise) */
	uint32_t s_clean;          /* WDFS_SB_CLEAN / WDFS_SB_DIRTY */
	int64_t  s_ctime;          /* when mkfs made it (seconds since the Epoch) */
	int64_t  s_wtime;          /* last superblock write */
	uint8_t  s_spare[164];
	uint32_t s_cksum;          /* CRC-32 (IEEE 802.3) of the 252 bytes before it */
};

struct wdfs_dinode {
	uint16_t di_mode;          /* S_IFREG/DIR/LNK/IFO/CHR/BLK/SOCK | 07777; 0 = free inode */
	uint16_t di_nlink;         /* directory entries naming it ("." and ".." included) */
	uint32_t di_uid;
	uint32_t di_gid;
	uint32_t di_gen;           /* bumped each time the inode is reused */
	uint64_t di_size;          /* bytes */
	uint64_t di_blocks;        /* blocks held: data and indirect, in s_bsize units */
	int64_t  di_atime;         /* seconds since the Epoch */
	int64_t  di_mtime;
	int64_t  di_ctime;
	uint32_t di_db[WDFS_NDADDR];
	uint32_t di_ib[WDFS_NIADDR];
	uint32_t di_flags;         /* none defined yet: 0 */
	uint32_t di_rdev;          /* S_IFCHR/S_IFBLK: the device number; otherwise 0 */
	uint32_t di_spare;
};

/* d_type values are the DT_* of <sys/dirent.h>. */
#define WDFS_DT_UNKNOWN  0
#define WDFS_DT_FIFO     1
#define WDFS_DT_CHR      2
#define WDFS_DT_DIR      4
#define WDFS_DT_BLK      6
#define WDFS_DT_REG      8
#define WDFS_DT_LNK      10
#define WDFS_DT_SOCK     12

struct wdfs_direct {
	uint32_t d_ino;            /* 0 = unused record */
	uint16_t d_reclen;         /* bytes to the next record, a multiple of 4 */
	uint8_t  d_type;           /* WDFS_DT_* */
	uint8_t  d_namlen;         /* 1..255 (not NUL-terminated on disk) */
	char     d_name[];         /* d_namlen bytes */
};

#define WDFS_DIRHDR          8
#define WDFS_DIRBLKSIZ       4096     /* records never cross a chunk of this size */
/* Bytes a record with a name of `namlen` bytes needs (FFS's DIRSIZ). */
#define WDFS_DIRSIZ(namlen)  ((WDFS_DIRHDR + (uint32_t)(namlen) + 3u) & ~3u)

_Static_assert(sizeof(struct wdfs_super) == 256, "superblock must be 256 bytes");
_Static_assert(__builtin_offsetof(struct wdfs_super, s_ctime) % 8 == 0, "s_ctime alignment");
_Static_assert(__builtin_offsetof(struct wdfs_super, s_cksum) == 252, "checksum is the last word");
_Static_assert(sizeof(struct wdfs_dinode) == WDFS_INODE_SIZE, "inode must be 128 bytes");
_Static_assert(__builtin_offsetof(struct wdfs_dinode, di_size) % 8 == 0, "di_size alignment");
_Static_assert(__builtin_offsetof(struct wdfs_dinode, di_atime) % 8 == 0, "di_atime alignment");
_Static_assert(sizeof(struct wdfs_direct) == WDFS_DIRHDR, "direct header is 8 bytes");

#endif
