/*
 * <sys/select.h>: select(2), in the libc over poll(2) (user/lib/select.c). fd_set is FreeBSD's:
 * FD_SETSIZE bits, one per descriptor.
 */
#ifndef _USER_SYS_SELECT_H_
#define _USER_SYS_SELECT_H_

#include <sys/types.h>
#include <sys/time.h>

#define FD_SETSIZE 1024
#define NFDBITS    32

typedef struct fd_set {
	uint32_t fds_bits[FD_SETSIZE / NFDBITS];
} fd_set;

#define FD_SET(n, p)   ((p)->fds_bits[(n) / NFDBITS] |= 1u << ((n) % NFDBITS))
#define FD_CLR(n, p)   ((p)->fds_bits[(n) / NFDBITS] &= ~(1u << ((n) % NFDBITS)))
#define FD_ISSET(n, p) (((p)->fds_bits[(n) / NFDBITS] >> ((n) % NFDBITS)) & 1u)
#define FD_ZERO(p)     __builtin_memset((p), 0, sizeof(*(p)))

int select(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds, struct timeval *timeout);

#endif
