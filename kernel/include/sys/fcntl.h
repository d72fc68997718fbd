/* open(2) flags and fcntl(2) commands, FreeBSD's values. Shared by kernel and user/lib. */
#ifndef _SYS_FCNTL_H_
#define _SYS_FCNTL_H_

#define O_RDONLY     0x0000
#define O_WRONLY     0x0001
#define O_RDWR       0x0002
#define O_ACCMODE    0x0003
#define O_NONBLOCK   0x0004
#define O_APPEND     0x0008
#define O_SHLOCK     0x0010   /* open with a shared flock(2) lock */
#define O_EXLOCK     0x0020   /* open with an exclusive flock(2) lock */
#define O_FSYNC      0x0080
#define O_NOFOLLOW   0x0100   /* do not follow a symbolic link in the last component */
#define O_CREAT      0x0200
#define O_TRUNC      0x0400
#define O_EXCL       0x0800
#define O_DIRECTORY  0x20000
#define O_CLOEXEC    0x100000

#define F_DUPFD      0
#define F_GETFD      1
#define F_SETFD      2
#define F_GETFL      3
#define F_SETFL      4
#define FD_CLOEXEC   1

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

#define AT_FDCWD (-100)

/* flock(2) operations (FreeBSD's <sys/fcntl.h>) */
#define LOCK_SH      0x01     /* shared lock */
#define LOCK_EX      0x02     /* exclusive lock */
#define LOCK_NB      0x04     /* do not block: EWOULDBLOCK instead */
#define LOCK_UN      0x08     /* unlock */

/* access(2) modes */
#define F_OK         0
#define X_OK         0x01
#define W_OK         0x02
#define R_OK         0x04

#endif
