/*
 * uipc_usrreq.c - the AF_UNIX domain (FreeBSD's uipc_usrreq.c): names, connections and the listen
 * queue (interface: kern/socketvar.h). The facts followed are those of FreeBSD 4's file
 * ([@fbsd-uipc_usrreq-r4]).
 *
 * A name is a socket file: bind(2) makes one (vn_mksock: mode 0777 less the umask, EADDRINUSE
 * if the path exists, EINVAL if the socket already has a name), and its vnode's v_socket points
 * at the socket until the socket closes; the file stays after that, and connecting to it is
 * ECONNREFUSED until someone removes it and binds again. Connecting looks the path up following
 * links, needs write permission on the file (EACCES), a socket file (ENOTSOCK), a socket bound to
 * it (ECONNREFUSED) of the same type (EPROTOTYPE), and for a stream a listener with room in its
 * queue (ECONNREFUSED); all as unp_connect answers.
 *
 * A stream connection is made at once, as in FreeBSD: connect(2) makes the server's socket for
 * it (named as the listener is), connects the two and puts the new one on the listener's queue,
 * where accept(2) finds it. So connect never waits and never answers EINPROGRESS. The queue holds
 * at most listen's backlog connections (at least one; SOMAXCONN for a negative or larger one).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/sleep.h"
#include "kern/socketvar.h"
#include "vfs/vnode.h"
#include "vfs/vfs.h"
#include <sys/fcntl.h>
#include <sys/errno.h>

/* unp_noname: the name of a socket that has none - FreeBSD's sun_noname, an empty AF_UNIX one. */
void unp_noname(struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_len = sizeof(struct sockaddr);
	sun->sun_family = AF_UNIX;
}

/* The path of an address the caller checked (sun_len 3..sizeof(*sun)) as a C string in path. */
static void unp_path(const struct sockaddr_un *sun, char path[sizeof(sun->sun_path) + 1])
{
	size_t n = sun->sun_len - offsetof(struct sockaddr_un, sun_path);

	memcpy(path, sun->sun_path, n);
	path[n] = 0;
}

/* unp_bind: give so the name sun, a new socket file. */
int unp_bind(struct socket *so, const struct sockaddr_un *sun)
{
	char path[sizeof(sun->sun_path) + 1];
	struct vnode *vp;
	bool named;
	int error;

	spin_lock(&so_lock);
	named = so->so_vnode != NULL;
	spin_unlock(&so_lock);
	if (named)
		return EINVAL;
	unp_path(sun, path);
	error = vn_mksock(path, &vp);
	if (error != 0)
		return error;
	spin_lock(&so_lock);
	if (so->so_vnode == NULL) {
		so->so_vnode = vp;
		so->so_addr = *sun;
		vp->v_socket = so;
		vp = NULL;
	}
	spin_unlock(&so_lock);
	if (vp != NULL) {                 /* another thread named it meanwhile */
		vrele(vp);
		return EINVAL;
	}
	return 0;
}

/* unp_destination: the socket file sun names, referenced: ENOTSOCK, EACCES, ENOENT... */
int unp_destination(const struct sockaddr_un *sun, struct vnode **vpp)
{
	char path[sizeof(sun->sun_path) + 1];
	struct vnode *vp;
	int error;

	unp_path(sun, path);
	error = namei_flags(path, FOLLOW, &vp);
	if (error != 0)
		return error;
	error = vp->v_type != VSOCK ? ENOTSOCK : VOP_ACCESS(vp, VWRITE);
	if (error != 0) {
		vrele(vp);
		return error;
	}
	*vpp = vp;
	return 0;
}

/* Connect two sockets to each other (so_lock held). */
static void unp_pair(struct socket *so1, struct socket *so2)
{
	so1->so_conn = so2;
	so2->so_conn = so1;
	so1->so_state |= SS_ISCONNECTED;
	so2->so_state |= SS_ISCONNECTED;
}

/* A stream connection from so to listener so2 through new socket so3 (so_lock held). */
static int unp_queue(struct socket *so, struct socket *so2, struct socket *so3)
{
	struct socket **qp;

	if (so->so_state & SS_ISCONNECTED)
		return EISCONN;
	if (!(so2->so_state & SS_ACCEPTCONN) || so2->so_qlen >= so2->so_qlimit)
		return ECONNREFUSED;
	so3->so_addr = so2->so_addr;
	unp_pair(so, so3);
	for (qp = &so2->so_q; *qp != NULL; qp = &(*qp)->so_qnext)
		continue;
	*qp = so3;
	so2->so_qlen++;
	so_wakeup(so2);
	return 0;
}

/*
 * unp_connect: a stream connects to a listener (EISCONN if it has a peer; EOPNOTSUPP for a
 * listener itself, as POSIX says); a datagram socket takes sun as its destination (again
 * and again: a new connect replaces the old one).
 */
int unp_connect(struct socket *so, const struct sockaddr_un *sun)
{
	struct socket *so2, *so3 = NULL;
	struct vnode *vp;
	int error;

	spin_lock(&so_lock);
	error = (so->so_state & SS_ACCEPTCONN) ? EOPNOTSUPP :
	        (so->so_type == SOCK_STREAM && (so->so_state & SS_ISCONNECTED)) ? EISCONN : 0;
	spin_unlock(&so_lock);
	if (error == 0)
		error = unp_destination(sun, &vp);
	if (error != 0)
		return error;
	if (so->so_type == SOCK_STREAM)
		error = socreate(SOCK_STREAM, &so3);
	spin_lock(&so_lock);
	so2 = vp->v_socket;
	if (error == 0 && so2 == NULL)
		error = ECONNREFUSED;
	if (error == 0 && so2->so_type != so->so_type)
		error = EPROTOTYPE;
	if (error == 0 && so3 != NULL) {
		error = unp_queue(so, so2, so3);
	} else if (error == 0) {
		so->so_conn = so2;
		so->so_state |= SS_ISCONNECTED;
	}
	spin_unlock(&so_lock);
	vrele(vp);
	if (error != 0 && so3 != NULL)
		soclose(so3);
	return error;
}

/* unp_connect2: socketpair(2)'s two new sockets, connected to each other. */
void unp_connect2(struct socket *so1, struct socket *so2)
{
	spin_lock(&so_lock);
	unp_pair(so1, so2);
	spin_unlock(&so_lock);
}

/* unp_listen: EOPNOTSUPP for a datagram socket; EINVAL unless bound (FreeBSD's uipc_listen)
 * and unconnected. Again on a listener only changes the backlog. */
int unp_listen(struct socket *so, int backlog)
{
	int error = 0;

	if (so->so_type != SOCK_STREAM)
		return EOPNOTSUPP;
	if (backlog < 0 || backlog > SOMAXCONN)
		backlog = SOMAXCONN;
	spin_lock(&so_lock);
	if (so->so_vnode == NULL || (so->so_state & SS_ISCONNECTED)) {
		error = EINVAL;
	} else {
		so->so_state |= SS_ACCEPTCONN;
		so->so_qlimit = MAX(backlog, 1);
	}
	spin_unlock(&so_lock);
	return error;
}

/*
 * unp_accept: the oldest connection of listener so, waiting for one ("accept", interruptible)
 * unless fflag has O_NONBLOCK (EAGAIN). EINVAL if so is not listening, EOPNOTSUPP for a
 * datagram socket (POSIX).
 */
int unp_accept(struct socket *so, int fflag, struct socket **sop)
{
	int error = 0;

	if (so->so_type != SOCK_STREAM)
		return EOPNOTSUPP;
	spin_lock(&so_lock);
	if (!(so->so_state & SS_ACCEPTCONN))
		error = EINVAL;
	while (error == 0 && so->so_q == NULL) {
		if (fflag & O_NONBLOCK)
			error = EAGAIN;
		else
			error = msleep(&so->so_rcvwait, &so_lock, PCATCH, "accept", 0);
	}
	if (error == 0) {
		*sop = so->so_q;
		so->so_q = (*sop)->so_qnext;
		(*sop)->so_qnext = NULL;
		so->so_qlen--;
	}
	spin_unlock(&so_lock);
	return error;
}

/* unp_detach: see kern/socketvar.h. The socket file no longer leads to so (the caller vreles
 * so->so_vnode). */
void unp_detach(struct socket *so)
{
	if (so->so_vnode != NULL)
		so->so_vnode->v_socket = NULL;
}
