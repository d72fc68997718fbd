/* Basic ABI types shared by kernel and user space (i386: int/long/pointer are 32 bits). */
#ifndef _SYS_TYPES_H_
#define _SYS_TYPES_H_

#include <stdint.h>
#include <stddef.h>

typedef int64_t  off_t;     /* file offsets and sizes are 64-bit */
typedef int32_t  pid_t;
typedef uint32_t ino_t;
typedef uint32_t dev_t;
typedef uint32_t mode_t;
typedef uint32_t nlink_t;
typedef uint32_t uid_t;
typedef uint32_t gid_t;
typedef int32_t  ssize_t;
typedef int64_t  time_t;
typedef int32_t  suseconds_t;
typedef int32_t  clockid_t;
typedef int64_t  blkcnt_t;
typedef int32_t  blksize_t;

/*
 * A device number: FreeBSD 4's encoding (sys/types.h, RELENG_4): the major number in bits 8-15,
 * the minor in the other 24 bits. devfs numbers its nodes this way and mknod(2) stores it.
 */
#define major(d)       ((int)(((uint32_t)(d) >> 8) & 0xff))
#define minor(d)       ((int)((uint32_t)(d) & 0xffff00ff))
#define makedev(ma, mi) ((dev_t)(((uint32_t)(ma) << 8) | (uint32_t)(mi)))

#endif
