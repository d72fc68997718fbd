/*
 * The wdfs checker, independent of where the image lives: the host fsck (tools/fsck/fsck.c)
 * gives it file I/O, the in-guest fsck of a later issue will give it a raw disk.
 *
 *   fsck_wdfs(io, flags) - check the file system behind `io` in five phases (superblock; inodes
 *       and their blocks; directory structure from the root; unreachable directories and link
 *       counts; bitmaps and summary counts), printing each problem on stdout as one line. With
 *       FSCK_FIX it repairs each problem as it goes (writing through io->write_block) and marks
 *       the file system clean at the end. Returns an FSCK_EXIT_* code.
 *
 * Exit codes (FreeBSD's fsck uses 0 and 8 the same way):
 *   FSCK_EXIT_CLEAN   0  no inconsistency (nothing written)
 *   FSCK_EXIT_FIXED   1  inconsistencies found and all repaired (a re-run exits 0)
 *   FSCK_EXIT_DIRTY   4  inconsistencies found and left alone (-n, the default)
 *   FSCK_EXIT_FATAL   8  cannot check: unreadable image or unusable superblock / root
 */
#ifndef _FSCK_WDFS_H_
#define _FSCK_WDFS_H_

#include <stdbool.h>
#include <stdint.h>

#define FSCK_FIX          0x1     /* repair (-y) */
#define FSCK_VERBOSE      0x2     /* print the phases */

#define FSCK_EXIT_CLEAN   0
#define FSCK_EXIT_FIXED   1
#define FSCK_EXIT_DIRTY   4
#define FSCK_EXIT_FATAL   8

struct fsck_io {
	void    *arg;
	uint64_t size;                                               /* bytes, 0 = unknown */
	int    (*read)(void *arg, uint64_t off, void *buf, uint32_t len);   /* 0 or -1 */
	int    (*write)(void *arg, uint64_t off, const void *buf, uint32_t len);
	const char *name;                                            /* for messages */
};

int fsck_wdfs(struct fsck_io *io, int flags);

#endif
