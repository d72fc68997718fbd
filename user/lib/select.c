/*
 * select(2) over poll(2): each descriptor in a set becomes a pollfd asking for POLLIN (read),
 * POLLOUT (write) or POLLPRI (except), and the answer goes back into the sets - readable with
 * POLLIN, POLLHUP or POLLERR, writable with POLLOUT or POLLERR, as FreeBSD's pipe and socket
 * poll routines mark them. A descriptor that is not open is EBADF, nfds outside 0..FD_SETSIZE
 * or a bad timeout EINVAL. The timeout is rounded up to whole milliseconds and left unchanged.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/select.h>

/* The timeout in poll's milliseconds (-1: none); -2 if it is not a valid time. */
static int timeout_ms(const struct timeval *tv)
{
	if (tv == NULL)
		return -1;
	if (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= 1000000)
		return -2;
	if (tv->tv_sec > 2000000)
		return 2000000000;
	return (int)(tv->tv_sec * 1000 + (tv->tv_usec + 999) / 1000);
}

static int in_set(fd_set *set, int fd)
{
	return set != NULL && FD_ISSET(fd, set);
}

/* Put fd back into set if ask and any of the events in `got` happened; 1 if it went in. */
static int answer(fd_set *set, int fd, int ask, int got)
{
	if (set == NULL || !ask)
		return 0;
	if (got) {
		FD_SET(fd, set);
		return 1;
	}
	FD_CLR(fd, set);
	return 0;
}

int select(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds, struct timeval *timeout)
{
	struct pollfd *pf;
	int ms = timeout_ms(timeout), n = 0, count = 0, r;

	if (nfds < 0 || nfds > FD_SETSIZE || ms == -2) {
		errno = EINVAL;
		return -1;
	}
	if ((pf = malloc((nfds > 0 ? nfds : 1) * sizeof *pf)) == NULL)
		return -1;
	for (int fd = 0; fd < nfds; fd++) {
		short ev = (in_set(readfds, fd) ? POLLIN : 0) | (in_set(writefds, fd) ? POLLOUT : 0) |
		           (in_set(exceptfds, fd) ? POLLPRI : 0);
		if (ev)
			pf[n++] = (struct pollfd){ fd, ev, 0 };
	}
	r = poll(pf, (nfds_t)n, ms);
	for (int i = 0; r >= 0 && i < n; i++) {
		int fd = pf[i].fd, ev = pf[i].events, got = pf[i].revents;

		if (got & POLLNVAL) {
			errno = EBADF;
			r = -1;
			break;
		}
		count += answer(readfds, fd, ev & POLLIN, got & (POLLIN | POLLHUP | POLLERR));
		count += answer(writefds, fd, ev & POLLOUT, got & (POLLOUT | POLLERR));
		count += answer(exceptfds, fd, ev & POLLPRI, got & POLLPRI);
	}
	free(pf);
	return r < 0 ? -1 : count;
}
