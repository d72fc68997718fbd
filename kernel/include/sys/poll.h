/* poll(2): FreeBSD's <sys/poll.h> values. Shared by kernel and user (user/include/poll.h). */
#ifndef _SYS_POLL_H_
#define _SYS_POLL_H_

struct pollfd {
	int   fd;          /* a negative fd is skipped (revents 0) */
	short events;      /* what to wait for */
	short revents;     /* what happened */
};

typedef unsigned int nfds_t;

#define POLLIN      0x0001     /* data to read (or EOF, or a connection to accept) */
#define POLLPRI     0x0002     /* urgent data: never, here */
#define POLLOUT     0x0004     /* room to write */
#define POLLRDNORM  0x0040     /* as POLLIN */
#define POLLWRNORM  POLLOUT
#define POLLERR     0x0008     /* (revents only) an error is pending */
#define POLLHUP     0x0010     /* (revents only) the other side is gone */
#define POLLNVAL    0x0020     /* (revents only) fd is not open */

#define INFTIM      (-1)       /* poll's timeout: wait for ever */

#endif
