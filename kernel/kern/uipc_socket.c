/*
 * uipc_socket.c - the socket layer (FreeBSD's uipc_socket.c): sockets, their receive buffers,
 * sending and receiving, shutdown and close (interface: kern/socketvar.h).
 *
 * A stream socket's receive buffer is a ring of SO_STREAMBUF bytes; its peer's writes go straight
 * into it, so "room to write" is room in the peer's ring, as FreeBSD's unix domain accounts it
 * (uipc_usrreq.c: the sender's high-water mark follows the receiver's buffer). A datagram
 * socket's is a queue of records, each with its sender's name, up to SO_DGRAMBUF data bytes;
 * a datagram that does not fit is refused with ENOBUFS (FreeBSD 4's uipc_send) and one longer
 * than SO_DGRAMMAX (FreeBSD 4's unpdg_sendspace) with EMSGSIZE ([@fbsd-uipc_usrreq-r4]).
 *
 * Data never moves under so_lock: a sender copies a piece (at most SO_BOUNCE bytes) from the
 * user into a kernel buffer, then takes the lock and puts it into the peer's ring; a receiver
 * takes a piece out under the lock and copies it to the user after. so_sndlock and so_rcvlock
 * keep one sender and one receiver per socket, so pieces stay in order.
 *
 * Errors as POSIX and FreeBSD give them: writing a stream whose peer is gone or that was shut
 * down for writing is EPIPE with SIGPIPE (not with MSG_NOSIGNAL); a stream that was never
 * connected is ENOTCONN; a datagram without a destination EDESTADDRREQ, with one on a connected
 * socket EISCONN; a datagram socket whose connected peer closed gets ECONNRESET once (FreeBSD's
 * unp_drop) and is no longer connected. O_NONBLOCK or MSG_DONTWAIT: EAGAIN instead of waiting.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/proc.h"
#include "kern/socketvar.h"
#include "kern/poll.h"
#include "vfs/vnode.h"
#include <sys/fcntl.h>
#include <sys/signal.h>
#include <sys/poll.h>
#include <sys/errno.h>

#define SO_BOUNCE 4096                 /* a piece of a stream transfer: one page */

struct spinlock so_lock = { .name = "socket" };
static struct socket *so_all;          /* every socket (so_lock) */

/* socreate: see kern/socketvar.h. */
int socreate(int type, struct socket **sop)
{
	struct socket *so;

	if (type != SOCK_STREAM && type != SOCK_DGRAM)
		return EPROTONOSUPPORT;
	so = kmalloc(sizeof(*so), M_WAITOK | M_ZERO);
	if (so == NULL)
		return ENOBUFS;
	if (type == SOCK_STREAM) {
		so->so_buf = kmalloc(SO_STREAMBUF, M_WAITOK);
		if (so->so_buf == NULL) {
			kfree(so);
			return ENOBUFS;
		}
	}
	so->so_type = type;
	so->so_rqtail = &so->so_rq;
	sleeplock_init(&so->so_sndlock, "sosnd");
	sleeplock_init(&so->so_rcvlock, "sorcv");
	spin_lock(&so_lock);
	so->so_next = so_all;
	so_all = so;
	spin_unlock(&so_lock);
	*sop = so;
	return 0;
}

/* so_wakeup: see kern/socketvar.h. */
void so_wakeup(struct socket *so)
{
	wakeup(&so->so_rcvwait);
	wakeup(&so->so_sndwait);
	poll_wakeup();
}

/* so_disconnect: see kern/socketvar.h. A stream can neither send nor receive more. */
void so_disconnect(struct socket *so)
{
	so->so_conn = NULL;
	so->so_state &= ~SS_ISCONNECTED;
	if (so->so_type == SOCK_STREAM)
		so->so_state |= SS_CANTSENDMORE | SS_CANTRCVMORE;
	so_wakeup(so);
}

static void so_free(struct socket *so)
{
	struct socket **pp;
	struct sorecord *r;

	for (pp = &so_all; *pp != so; pp = &(*pp)->so_next)
		continue;
	*pp = so->so_next;
	while ((r = so->so_rq) != NULL) {
		so->so_rq = r->sr_next;
		kfree(r);
	}
	kfree(so->so_buf);
	kfree(so);
}

/*
 * soclose: its peer (stream) loses it, every datagram socket connected to it is dropped, the
 * connections waiting in its listen queue are closed (their clients see EOF), its name's vnode
 * is let go (the file stays, as FreeBSD's unp_detach leaves it).
 */
void soclose(struct socket *so)
{
	struct socket *q, *s;
	struct vnode *vp;

	spin_lock(&so_lock);
	while ((q = so->so_q) != NULL) {
		so->so_q = q->so_qnext;
		if (q->so_conn != NULL)
			so_disconnect(q->so_conn);
		so_free(q);
	}
	if (so->so_type == SOCK_STREAM && so->so_conn != NULL)
		so_disconnect(so->so_conn);
	for (s = so_all; s != NULL; s = s->so_next) {
		if (s->so_type == SOCK_DGRAM && s->so_conn == so) {
			so_disconnect(s);
			s->so_error = ECONNRESET;
		}
	}
	vp = so->so_vnode;
	unp_detach(so);
	so_free(so);
	spin_unlock(&so_lock);
	if (vp != NULL)
		vrele(vp);
}

/* May a sender go on? 0, or the error that stops it. so_lock held. */
static int sosend_check(struct socket *so)
{
	if (so->so_state & SS_CANTSENDMORE)
		return EPIPE;
	if (!(so->so_state & SS_ISCONNECTED))
		return ENOTCONN;
	return 0;
}

/* Wait on chan (so_lock held and kept); EAGAIN instead for a non-blocking call, EINTR. */
static int so_wait(void *chan, bool nonblock, const char *wmesg)
{
	if (nonblock)
		return EAGAIN;
	return msleep(chan, &so_lock, PCATCH, wmesg, 0);
}

/* Put n bytes into stream socket so's ring (so_lock held; the caller saw the room). */
static void ring_put(struct socket *so, const char *p, size_t n)
{
	size_t tail = (so->so_head + so->so_cc) % SO_STREAMBUF;
	size_t first = MIN(n, SO_STREAMBUF - tail);

	memcpy(so->so_buf + tail, p, first);
	memcpy(so->so_buf, p + first, n - first);
	so->so_cc += n;
}

/* Copy n bytes from the front of the ring to p; take them unless peek (so_lock held). */
static void ring_get(struct socket *so, char *p, size_t n, bool peek)
{
	size_t first = MIN(n, SO_STREAMBUF - so->so_head);

	memcpy(p, so->so_buf + so->so_head, first);
	memcpy(p + first, so->so_buf, n - first);
	if (!peek) {
		so->so_head = (so->so_head + n) % SO_STREAMBUF;
		so->so_cc -= n;
	}
}

/*
 * Stream send: wait for room in the peer's ring, copy that much from the user, put it in; again
 * until all is sent. so_sndlock held, and this socket is the only writer of its peer's ring, so
 * the room seen can only grow while the lock is let go for the copy. kbuf: SO_BOUNCE bytes.
 */
static int stream_send(struct socket *so, struct uio *uio, bool nonblock, char *kbuf)
{
	size_t n, room = 0;
	int error = 0;

	while (error == 0 && uio->uio_resid > 0) {
		spin_lock(&so_lock);
		for (;;) {
			error = sosend_check(so);
			if (error != 0 || (room = SO_STREAMBUF - so->so_conn->so_cc) > 0)
				break;
			error = so_wait(&so->so_sndwait, nonblock, "sosnd");
			if (error != 0)
				break;
		}
		spin_unlock(&so_lock);
		if (error != 0)
			break;
		n = MIN(MIN(uio->uio_resid, room), (size_t)SO_BOUNCE);
		error = uiomove(kbuf, n, uio);
		if (error != 0)
			break;
		spin_lock(&so_lock);
		error = sosend_check(so);
		if (error == 0) {
			ring_put(so->so_conn, kbuf, n);
			so_wakeup(so->so_conn);
		}
		spin_unlock(&so_lock);
	}
	return error;
}

/* The datagram socket to send to: the named one (to) or the connected one. so_lock held. */
static int dgram_target(struct socket *so, struct vnode *vp, struct socket **dstp)
{
	if (vp != NULL) {
		*dstp = vp->v_socket;
		if (*dstp == NULL)
			return ECONNREFUSED;
		return (*dstp)->so_type != SOCK_DGRAM ? EPROTOTYPE : 0;
	}
	if (so->so_error != 0) {
		int error = so->so_error;

		so->so_error = 0;
		return error;
	}
	if (!(so->so_state & SS_ISCONNECTED))
		return EDESTADDRREQ;
	*dstp = so->so_conn;
	return 0;
}

/* Datagram send: the whole message as one record, or nothing. */
static int dgram_send(struct socket *so, struct uio *uio, const struct sockaddr_un *to)
{
	struct vnode *vp = NULL;
	struct sorecord *r;
	struct socket *dst;
	size_t len = uio->uio_resid;
	int error;

	if (len > SO_DGRAMMAX)
		return EMSGSIZE;
	if (to != NULL) {
		if (so->so_state & SS_ISCONNECTED)
			return EISCONN;
		error = unp_destination(to, &vp);
		if (error != 0)
			return error;
	}
	r = kmalloc(sizeof(*r) + len, M_WAITOK);
	error = r == NULL ? ENOBUFS : uiomove(r->sr_data, len, uio);
	spin_lock(&so_lock);
	if (error == 0)
		error = dgram_target(so, vp, &dst);
	if (error == 0 && (so->so_state & SS_CANTSENDMORE))
		error = EPIPE;
	if (error == 0 && dst->so_cc + len > SO_DGRAMBUF)
		error = ENOBUFS;
	if (error == 0) {
		r->sr_next = NULL;
		r->sr_len = len;
		r->sr_from = so->so_addr;
		*dst->so_rqtail = r;
		dst->so_rqtail = &r->sr_next;
		dst->so_cc += len;
		so_wakeup(dst);
	}
	spin_unlock(&so_lock);
	if (error != 0) {
		kfree(r);
		uio->uio_resid = len;
	}
	if (vp != NULL)
		vrele(vp);
	return error;
}

/* sosend: see kern/socketvar.h. EPIPE raises SIGPIPE unless MSG_NOSIGNAL. On a stream, `to` is
 * ignored (POSIX's sendto on a connection-mode socket). */
int sosend(struct socket *so, struct uio *uio, int flags, int fflag, const struct sockaddr_un *to)
{
	bool nonblock = (fflag & O_NONBLOCK) || (flags & MSG_DONTWAIT);
	char *kbuf;
	int error;

	if (flags & MSG_OOB)
		return EOPNOTSUPP;
	sleeplock_acquire(&so->so_sndlock);
	if (so->so_type == SOCK_DGRAM) {
		error = dgram_send(so, uio, to);
	} else {                                        /* POSIX: a stream ignores `to` */
		kbuf = kmalloc(SO_BOUNCE, M_WAITOK);
		error = kbuf == NULL ? ENOBUFS : stream_send(so, uio, nonblock, kbuf);
		kfree(kbuf);
	}
	sleeplock_release(&so->so_sndlock);
	if (error == EPIPE && !(flags & MSG_NOSIGNAL))
		proc_kill(curproc->p_pid, SIGPIPE);
	return error;
}

/*
 * Stream receive: what is there, up to the request (all of it with MSG_WAITALL); waits while
 * nothing is; 0 bytes at EOF. so_rcvlock held; kbuf is SO_BOUNCE bytes (a peek sees at most
 * that much).
 */
static int stream_receive(struct socket *so, struct uio *uio, int flags, bool nonblock, char *kbuf)
{
	size_t start = uio->uio_resid, n;
	int error = 0;

	spin_lock(&so_lock);
	while (error == 0 && uio->uio_resid > 0) {
		if (so->so_cc == 0) {
			if (so->so_state & SS_CANTRCVMORE)
				break;
			if (!(so->so_state & SS_ISCONNECTED)) {
				error = uio->uio_resid == start ? ENOTCONN : 0;
				break;
			}
			if (uio->uio_resid != start && !(flags & MSG_WAITALL))
				break;
			error = so_wait(&so->so_rcvwait, nonblock, "sorcv");
			continue;
		}
		n = MIN(MIN(so->so_cc, uio->uio_resid), (size_t)SO_BOUNCE);
		ring_get(so, kbuf, n, flags & MSG_PEEK);
		if (so->so_conn != NULL)
			so_wakeup(so->so_conn);         /* room for its writer */
		spin_unlock(&so_lock);
		error = uiomove(kbuf, n, uio);
		spin_lock(&so_lock);
		if (flags & MSG_PEEK)
			break;
	}
	spin_unlock(&so_lock);
	return error;
}

/* Datagram receive: one record (cut to the request: MSG_TRUNC), or 0 bytes once shut down. */
static int dgram_receive(struct socket *so, struct uio *uio, int flags, bool nonblock,
                         struct sockaddr_un *from, int *msgflagsp)
{
	struct sorecord *r;
	int error = 0;

	spin_lock(&so_lock);
	while ((r = so->so_rq) == NULL && !(so->so_state & SS_CANTRCVMORE) && error == 0)
		error = so_wait(&so->so_rcvwait, nonblock, "sorcv");
	if (r != NULL && error == 0 && !(flags & MSG_PEEK)) {
		so->so_rq = r->sr_next;
		if (so->so_rq == NULL)
			so->so_rqtail = &so->so_rq;
		so->so_cc -= r->sr_len;
	}
	spin_unlock(&so_lock);
	if (r == NULL || error != 0)
		return error;
	if (r->sr_len > uio->uio_resid)
		*msgflagsp |= MSG_TRUNC;
	if (from != NULL)
		*from = r->sr_from;
	error = uiomove(r->sr_data, MIN(r->sr_len, uio->uio_resid), uio);
	if (!(flags & MSG_PEEK))
		kfree(r);
	return error;
}

/* soreceive: see kern/socketvar.h. from->sun_len is 0 when the sender had no name. */
int soreceive(struct socket *so, struct uio *uio, int flags, int fflag, struct sockaddr_un *from,
              int *msgflagsp)
{
	bool nonblock = (fflag & O_NONBLOCK) || (flags & MSG_DONTWAIT);
	char *kbuf;
	int error;

	*msgflagsp = 0;
	if (from != NULL)
		from->sun_len = 0;
	if (flags & MSG_OOB)
		return EOPNOTSUPP;
	sleeplock_acquire(&so->so_rcvlock);
	if (so->so_type == SOCK_DGRAM) {
		error = dgram_receive(so, uio, flags, nonblock, from, msgflagsp);
	} else {
		kbuf = kmalloc(SO_BOUNCE, M_WAITOK);
		error = kbuf == NULL ? ENOBUFS : stream_receive(so, uio, flags, nonblock, kbuf);
		kfree(kbuf);
	}
	sleeplock_release(&so->so_rcvlock);
	return error;
}

/*
 * Stop the receiving side: what is buffered goes and reads return EOF (FreeBSD's sorflush). A
 * datagram receiver may be copying a record it peeked at: its so_rcvlock is waited for.
 */
static void so_cantrcvmore(struct socket *so)
{
	struct sorecord *r, *rq;

	spin_lock(&so_lock);
	so->so_state |= SS_CANTRCVMORE;
	so->so_head = so->so_cc = 0;
	so_wakeup(so);
	spin_unlock(&so_lock);
	sleeplock_acquire(&so->so_rcvlock);
	spin_lock(&so_lock);
	rq = so->so_rq;
	so->so_rq = NULL;
	so->so_rqtail = &so->so_rq;
	spin_unlock(&so_lock);
	sleeplock_release(&so->so_rcvlock);
	for (r = rq; r != NULL; r = rq) {
		rq = r->sr_next;
		kfree(r);
	}
}

/* Stop the sending side: writes are EPIPE; a stream's peer reads EOF after what it has
 * (FreeBSD's unp_shutdown). */
static void so_cantsendmore(struct socket *so)
{
	spin_lock(&so_lock);
	so->so_state |= SS_CANTSENDMORE;
	if (so->so_type == SOCK_STREAM && so->so_conn != NULL) {
		so->so_conn->so_state |= SS_CANTRCVMORE;
		so_wakeup(so->so_conn);
	}
	so_wakeup(so);
	spin_unlock(&so_lock);
}

/* soshutdown: see kern/socketvar.h. ENOTCONN without a peer (POSIX), EINVAL for another how. */
int soshutdown(struct socket *so, int how)
{
	bool connected;

	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return EINVAL;
	spin_lock(&so_lock);
	connected = so->so_state & SS_ISCONNECTED;
	spin_unlock(&so_lock);
	if (!connected)
		return ENOTCONN;
	if (how != SHUT_WR)
		so_cantrcvmore(so);
	if (how != SHUT_RD)
		so_cantsendmore(so);
	return 0;
}

/* sostat: a socket: S_IFSOCK, the bytes waiting to be read, its buffer's size. */
int sostat(struct socket *so, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFSOCK | 0666;
	st->st_nlink = 1;
	st->st_blksize = so->so_type == SOCK_STREAM ? SO_STREAMBUF : SO_DGRAMBUF;
	spin_lock(&so_lock);
	st->st_size = (off_t)so->so_cc;
	spin_unlock(&so_lock);
	return 0;
}

/*
 * sopoll: readable with data, at EOF, or (a listener) with a connection to accept; writable
 * with room in the peer's buffer (a datagram socket: always), or when a write would fail at
 * once (EPIPE); POLLHUP once a stream's peer is gone.
 */
int sopoll(struct socket *so, int events)
{
	int revents = 0;

	spin_lock(&so_lock);
	if (so->so_cc > 0 || so->so_q != NULL || (so->so_state & SS_CANTRCVMORE) || so->so_error)
		revents |= events & (POLLIN | POLLRDNORM);
	if (so->so_type == SOCK_DGRAM || (so->so_state & SS_CANTSENDMORE) ||
	    (so->so_conn != NULL && so->so_conn->so_cc < SO_STREAMBUF))
		revents |= events & (POLLOUT | POLLWRNORM);
	if (so->so_type == SOCK_STREAM && (so->so_state & SS_CANTRCVMORE) &&
	    (so->so_state & SS_CANTSENDMORE))
		revents |= POLLHUP;
	spin_unlock(&so_lock);
	return revents;
}
