/* <poll.h>: poll(2) (the kernel's <sys/poll.h> and the libc call). */
#ifndef _POLL_H_
#define _POLL_H_

#include <sys/poll.h>

int poll(struct pollfd *fds, nfds_t nfds, int timeout);

#endif
