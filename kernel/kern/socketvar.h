/*
 * Sockets (kern/uipc_socket.c, uipc_usrreq.c, uipc_syscalls.c): AF_UNIX stream and datagram
 * sockets, the struct file operations of DTYPE_SOCKET files, and what the VFS and poll need.
 *   socreate(type, &so)                  - a new unconnected socket (EPROTONOSUPPORT).
 *   soclose(so)                          - its file's last close: peers see EOF or ECONNRESET,
 *                                          a listener's unaccepted connections go, the name
 *                                          (a socket file) stays.
 *   sosend(so, uio, flags, fflag, to)    - write/send: stream data into the peer's buffer, or
 *                                          one datagram (to: an AF_UNIX path, or NULL).
 *   soreceive(so, uio, flags, fflag, from, &msgflags) - read/recv: from (may be NULL) gets
 *                                          the sender's address.
 *   soshutdown(so, how), sostat(so, st)  - shutdown(2); fstat(2).
 *   sopoll(so, events)                   - the poll(2) events that hold now.
 *   unp_bind/unp_connect/unp_listen/unp_accept/unp_connect2/unp_destination - uipc_usrreq.c
 *                                          (the names and connections of the AF_UNIX domain).
 *   poll_wakeup()                        - kern/poll.h: pollers look again.
 * Locking: so_lock (a spinlock, one for all sockets) protects every socket's state, buffers,
 * connections and queues and every vnode's v_socket; data moves between the user and a kernel
 * buffer with it released. so_sndlock/so_rcvlock (sleeplocks) keep one writer / one reader of a
 * socket at a time so a transfer's pieces stay in order.
 */
#ifndef _KERN_SOCKETVAR_H_
#define _KERN_SOCKETVAR_H_

#include "kern/types.h"
#include "kern/lock.h"
#include "kern/uio.h"
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>

struct vnode;

/* Buffer sizes: FreeBSD 4's unpst_recvspace, unpdg_sendspace and unpdg_recvspace. */
#define SO_STREAMBUF   8192        /* a stream socket's receive buffer */
#define SO_DGRAMMAX    2048        /* the largest datagram (EMSGSIZE) */
#define SO_DGRAMBUF    4096        /* a datagram socket's receive queue, in data bytes (ENOBUFS) */

/* so_state */
#define SS_ISCONNECTED  0x01       /* stream: has a peer; datagram: has a default destination */
#define SS_CANTSENDMORE 0x02       /* shut down for writing, or the peer is gone: EPIPE */
#define SS_CANTRCVMORE  0x04       /* shut down for reading, or the peer is gone: EOF */
#define SS_ACCEPTCONN   0x08       /* listen(2) was called */

/* One queued datagram. */
struct sorecord {
	struct sorecord   *sr_next;
	struct sockaddr_un sr_from;     /* the sender's name (sun_len 0: it had none) */
	size_t             sr_len;
	char               sr_data[];
};

struct socket {
	int                so_type;     /* SOCK_STREAM or SOCK_DGRAM */
	int                so_state;    /* SS_* */
	int                so_error;    /* an error for the next call (a dropped datagram peer) */
	struct socket     *so_conn;     /* the peer (stream) or default destination (datagram) */
	/* receive side */
	char              *so_buf;      /* stream: a ring of SO_STREAMBUF bytes */
	size_t             so_head;     /* stream: first unread byte in the ring */
	size_t             so_cc;       /* bytes waiting: stream, or datagram data */
	struct sorecord   *so_rq;       /* datagram: the queue, oldest first */
	struct sorecord  **so_rqtail;
	/* listening */
	struct socket     *so_q;        /* connections made, not yet accepted (oldest first) */
	struct socket     *so_qnext;    /* the next in the listener's queue */
	int                so_qlen, so_qlimit;
	/* name */
	struct sockaddr_un so_addr;     /* bound name, or the listener's for an accepted socket */
	struct vnode      *so_vnode;    /* bound: the socket file (referenced) */
	struct socket     *so_next;     /* every socket (so_lock) */
	struct sleeplock   so_sndlock, so_rcvlock;
	char               so_rcvwait;  /* channel: readers and accepters wait for data / a connection */
	char               so_sndwait;  /* channel: writers wait for room in this socket's buffer */
};

extern struct spinlock so_lock;

int  socreate(int type, struct socket **sop);
void soclose(struct socket *so);
int  sosend(struct socket *so, struct uio *uio, int flags, int fflag, const struct sockaddr_un *to);
int  soreceive(struct socket *so, struct uio *uio, int flags, int fflag, struct sockaddr_un *from,
               int *msgflagsp);
int  soshutdown(struct socket *so, int how);
int  sostat(struct socket *so, struct stat *st);
int  sopoll(struct socket *so, int events);
void so_wakeup(struct socket *so);                  /* so_lock held: its readers, writers, poll */
void so_disconnect(struct socket *so);              /* so_lock held: it has no peer any more */

int  unp_bind(struct socket *so, const struct sockaddr_un *sun);
int  unp_connect(struct socket *so, const struct sockaddr_un *sun);
int  unp_destination(const struct sockaddr_un *sun, struct vnode **vpp);
void unp_connect2(struct socket *so1, struct socket *so2);
int  unp_listen(struct socket *so, int backlog);
int  unp_accept(struct socket *so, int fflag, struct socket **sop);
void unp_detach(struct socket *so);                 /* so_lock held: what soclose undoes */
void unp_noname(struct sockaddr_un *sun);           /* the name of a socket without one */

#endif
