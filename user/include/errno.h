/* errno.h: the error numbers (kernel ABI) and the per-process errno variable (user/libc). */
#ifndef _ERRNO_H_
#define _ERRNO_H_

#include <sys/errno.h>

extern int errno;   /* set by every failing system call wrapper; never cleared by the library */

#endif
