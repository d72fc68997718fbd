/* fcntl.h: open(2) and fcntl(2) (user/libc). Flag values are the kernel's <sys/fcntl.h>. */
#ifndef _FCNTL_H_
#define _FCNTL_H_

#include <sys/types.h>
#include <sys/fcntl.h>

int open(const char *path, int flags, ...);   /* the third argument is the mode with O_CREAT */
int creat(const char *path, mode_t mode);
int fcntl(int fd, int cmd, ...);
int flock(int fd, int how);                  /* LOCK_SH, LOCK_EX, LOCK_UN (| LOCK_NB) */

#endif
