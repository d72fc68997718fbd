/*
 * mmap(2), munmap(2), mprotect(2), msync(2) (FreeBSD's flag values). mmap takes its six
 * arguments in a struct (the system-call ABI has five registers): mmap(&(struct mmap_args)).
 * The C library's mmap() builds it; its prototypes are in user/include/unistd.h.
 */
#ifndef _SYS_MMAN_H_
#define _SYS_MMAN_H_

#include <sys/types.h>

#define PROT_NONE   0x0
#define PROT_READ   0x1
#define PROT_WRITE  0x2
#define PROT_EXEC   0x4
#define MAP_SHARED  0x0001
#define MAP_PRIVATE 0x0002
#define MAP_FIXED   0x0010
#define MAP_ANON    0x1000
#define MAP_ANONYMOUS MAP_ANON
#define MAP_FAILED  ((void *)-1)

#define MS_SYNC       0x0000          /* msync: write and wait */
#define MS_ASYNC      0x0001          /* msync: start the writes */
#define MS_INVALIDATE 0x0002          /* msync: then drop the cached pages */

struct mmap_args {
	void   *addr;
	size_t  len;
	int     prot;
	int     flags;
	int     fd;
	off_t   pos;
};

#endif
