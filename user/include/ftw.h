/*
 * ftw.h: walking a file tree, POSIX's nftw(3) (user/libc, lib/ftw.c). wdrain's implements the
 * flags chmod -R and chown -R need: FTW_PHYS (do not follow symbolic links: report them as
 * FTW_SL) and FTW_DEPTH (a directory after its contents, as FTW_DP).
 *
 *   nftw(path, fn, depth, flags) - call fn(path, &st, type, &ftw) for path and everything below
 *       it, names in directory order; stops at the first fn that returns non-zero and returns
 *       that. -1 with errno if path itself cannot be looked at. depth (how many directories may
 *       be open at once) is accepted and ignored: each level holds one open directory.
 *   type: FTW_F file, FTW_D directory (before its contents), FTW_DP (after, with FTW_DEPTH),
 *         FTW_DNR directory that cannot be read, FTW_SL symbolic link (FTW_PHYS), FTW_SLN
 *         dangling link (without FTW_PHYS), FTW_NS no stat (st is not valid; errno says why).
 */
#ifndef _FTW_H_
#define _FTW_H_

#include <sys/stat.h>

#define FTW_F    0
#define FTW_D    1
#define FTW_DNR  2
#define FTW_NS   3
#define FTW_SL   4
#define FTW_DP   5
#define FTW_SLN  6

#define FTW_PHYS   0x01
#define FTW_DEPTH  0x08

struct FTW {
	int base;       /* offset of the last component in path */
	int level;      /* depth below the starting path (0 for it) */
};

int nftw(const char *path, int (*fn)(const char *, const struct stat *, int, struct FTW *),
         int depth, int flags);

#endif
