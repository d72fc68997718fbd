/*
 * uipc_syscalls.c - the socket system calls (FreeBSD's uipc_syscalls.c, [@fbsd-uipc_syscalls-r4]):
 * their arguments, the addresses going in and out, and the descriptors (the work is
 * uipc_socket.c's and uipc_usrreq.c's). send, sendto, recv and recvfrom are the libc's, on
 * sendmsg and recvmsg.
 *
 * An address going in is a struct sockaddr_un of 3 to sizeof(struct sockaddr_un) bytes (EINVAL
 * otherwise; ENAMETOOLONG past SOCK_MAXADDRLEN, as FreeBSD's getsockaddr), of family AF_UNIX
 * (EAFNOSUPPORT). One going out is cut to the caller's buffer, and the length stored is its
 * full length; a socket without a name gives FreeBSD's empty AF_UNIX one (unp_noname).
 * Ancillary data (msg_control: descriptor passing, credentials) is not supported: EOPNOTSUPP.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/proc.h"
#include "kern/file.h"
#include "kern/syscall.h"
#include "kern/socketvar.h"
#include <sys/fcntl.h>
#include <sys/errno.h>

#define SSIZE_MAX  0x7fffffff
#define UIO_MAXIOV 1024                 /* FreeBSD's limit on msg_iovlen */
#define UIO_SMALLIOV 8                  /* iovecs kept in struct kmsg itself (FreeBSD's) */

/* The socket behind descriptor fd, its file referenced (fdrop it): EBADF, ENOTSOCK. */
static int getsock(int fd, struct file **fpp)
{
	int error = fget(fd, fpp);

	if (error == 0 && (*fpp)->f_type != DTYPE_SOCKET) {
		fdrop(*fpp);
		error = ENOTSOCK;
	}
	return error;
}

/* An address from the user (see the top). */
static int sockaddr_in(register_t uaddr, socklen_t len, struct sockaddr_un *sun)
{
	int error;

	if (len > SOCK_MAXADDRLEN)
		return ENAMETOOLONG;
	if (len <= offsetof(struct sockaddr_un, sun_path) || len > sizeof(*sun))
		return EINVAL;
	memset(sun, 0, sizeof(*sun));
	error = copyin((const void *)uaddr, sun, len);
	if (error != 0)
		return error;
	if (sun->sun_family != AF_UNIX)
		return EAFNOSUPPORT;
	sun->sun_len = (uint8_t)(offsetof(struct sockaddr_un, sun_path) +
	                         strnlen(sun->sun_path, len - offsetof(struct sockaddr_un, sun_path)));
	return 0;
}

/* An address to the user: *ulenp (in: the buffer's size; out: the address's length). */
static int sockaddr_out(const struct sockaddr_un *sun, register_t uaddr, register_t ulenp)
{
	struct sockaddr_un noname;
	socklen_t len;
	int error;

	if (sun == NULL || sun->sun_len == 0) {
		unp_noname(&noname);
		sun = &noname;
	}
	error = copyin((const void *)ulenp, &len, sizeof(len));
	if (error == 0 && (int)len < 0)
		error = EINVAL;
	if (error == 0)
		error = copyout(sun, (void *)uaddr, MIN(len, (socklen_t)sun->sun_len));
	if (error == 0) {
		len = sun->sun_len;
		error = copyout(&len, (void *)ulenp, sizeof(len));
	}
	return error;
}

/* A new descriptor for socket so (closed if there is none: EMFILE, ENFILE). */
static int sock_fd(struct socket *so, int fflag, int *fdp)
{
	struct file *fp;
	int error = falloc(&fp, fdp);

	if (error != 0) {
		soclose(so);
		return error;
	}
	fp->f_type = DTYPE_SOCKET;
	fp->f_flag = FREAD | FWRITE | (fflag & O_NONBLOCK);
	fp->f_socket = so;
	return 0;
}

/* socket(domain, type, protocol): EAFNOSUPPORT but for AF_UNIX; EPROTONOSUPPORT for a protocol
 * (AF_UNIX has only 0) or another type than SOCK_STREAM and SOCK_DGRAM. */
int sys_socket(register_t *args, register_t *rv)
{
	struct socket *so;
	int fd, error;

	if (args[0] != AF_UNIX)
		return EAFNOSUPPORT;
	if (args[2] != 0)
		return EPROTONOSUPPORT;
	error = socreate((int)args[1], &so);
	if (error == 0)
		error = sock_fd(so, 0, &fd);
	if (error == 0)
		*rv = fd;
	return error;
}

/* socketpair(domain, type, protocol, int sv[2]): two sockets connected to each other. */
int sys_socketpair(register_t *args, register_t *rv)
{
	struct socket *so1, *so2;
	int sv[2], error;

	*rv = 0;
	if (args[0] != AF_UNIX)
		return EAFNOSUPPORT;
	if (args[2] != 0)
		return EPROTONOSUPPORT;
	error = socreate((int)args[1], &so1);
	if (error != 0)
		return error;
	error = socreate((int)args[1], &so2);
	if (error != 0) {
		soclose(so1);
		return error;
	}
	unp_connect2(so1, so2);
	error = sock_fd(so1, 0, &sv[0]);
	if (error != 0) {
		soclose(so2);
		return error;
	}
	error = sock_fd(so2, 0, &sv[1]);
	if (error != 0) {
		fdforget(sv[0]);
		return error;
	}
	error = copyout(sv, (void *)args[3], sizeof(sv));
	if (error != 0) {
		fdforget(sv[1]);
		fdforget(sv[0]);
	}
	return error;
}

/* bind(s, addr, addrlen) and connect(s, addr, addrlen). */
static int sock_name_call(register_t *args, int (*call)(struct socket *, const struct sockaddr_un *))
{
	struct sockaddr_un sun;
	struct file *fp;
	int error;

	error = getsock((int)args[0], &fp);
	if (error != 0)
		return error;
	error = sockaddr_in(args[1], (socklen_t)args[2], &sun);
	if (error == 0)
		error = call(fp->f_socket, &sun);
	fdrop(fp);
	return error;
}

int sys_bind(register_t *args, register_t *rv)
{
	*rv = 0;
	return sock_name_call(args, unp_bind);
}

int sys_connect(register_t *args, register_t *rv)
{
	*rv = 0;
	return sock_name_call(args, unp_connect);
}

/* listen(s, backlog) and shutdown(s, how): a socket and a number. */
static int sock_int_call(register_t *args, int (*call)(struct socket *, int))
{
	struct file *fp;
	int error;

	error = getsock((int)args[0], &fp);
	if (error != 0)
		return error;
	error = call(fp->f_socket, (int)args[1]);
	fdrop(fp);
	return error;
}

int sys_listen(register_t *args, register_t *rv)
{
	*rv = 0;
	return sock_int_call(args, unp_listen);
}

int sys_shutdown(register_t *args, register_t *rv)
{
	*rv = 0;
	return sock_int_call(args, soshutdown);
}

/*
 * accept(s, addr, addrlen): a descriptor for the next connection; the new file has the
 * listening one's O_NONBLOCK, as FreeBSD's accept gives it. addr (if not NULL) gets the
 * client's name. The descriptor is found first, so a full table is EMFILE with the connection
 * left in the queue (FreeBSD 4 waits for a connection first, then puts it back).
 */
int sys_accept(register_t *args, register_t *rv)
{
	struct sockaddr_un peer;
	struct socket *so;
	struct file *fp, *nfp;
	int fd, error;

	error = getsock((int)args[0], &fp);
	if (error != 0)
		return error;
	error = falloc(&nfp, &fd);
	if (error == 0) {
		error = unp_accept(fp->f_socket, fp->f_flag, &so);
		if (error != 0)
			fdforget(fd);
	}
	if (error == 0) {
		nfp->f_type = DTYPE_SOCKET;
		nfp->f_flag = FREAD | FWRITE | (fp->f_flag & O_NONBLOCK);
		nfp->f_socket = so;
		spin_lock(&so_lock);
		peer.sun_len = 0;
		if (so->so_conn != NULL)
			peer = so->so_conn->so_addr;
		spin_unlock(&so_lock);
		if (args[1] != 0)
			error = sockaddr_out(&peer, args[1], args[2]);
		if (error != 0)
			fdforget(fd);
	}
	fdrop(fp);
	if (error == 0)
		*rv = fd;
	return error;
}

/* A user's msghdr and its iovecs in kernel memory, as a uio over the user's buffers. */
struct kmsg {
	struct msghdr msg;
	struct iovec  small[UIO_SMALLIOV];
	struct iovec *iov;              /* small, or kmalloc'd for more (kmsg_free) */
	struct uio    uio;
};

static void kmsg_free(struct kmsg *km)
{
	if (km->iov != km->small)
		kfree(km->iov);
}

/* Read the msghdr at umsg; kmsg_free km after, whatever this answers. */
static int kmsg_in(register_t umsg, enum uio_rw rw, struct kmsg *km)
{
	size_t total = 0;
	int error, i;

	km->iov = km->small;
	error = copyin((const void *)umsg, &km->msg, sizeof(km->msg));
	if (error != 0)
		return error;
	if (km->msg.msg_iovlen < 0 || km->msg.msg_iovlen > UIO_MAXIOV)
		return EMSGSIZE;
	if (km->msg.msg_control != NULL && km->msg.msg_controllen != 0)
		return EOPNOTSUPP;
	if (km->msg.msg_iovlen > UIO_SMALLIOV) {
		km->iov = kmalloc(km->msg.msg_iovlen * sizeof(struct iovec), M_WAITOK);
		if (km->iov == NULL) {
			km->iov = km->small;
			return ENOMEM;
		}
	}
	error = copyin(km->msg.msg_iov, km->iov, km->msg.msg_iovlen * sizeof(struct iovec));
	if (error != 0)
		return error;
	for (i = 0; i < km->msg.msg_iovlen; i++) {
		if (km->iov[i].iov_len > SSIZE_MAX - total)
			return EINVAL;
		total += km->iov[i].iov_len;
	}
	km->uio = (struct uio){ km->iov, km->msg.msg_iovlen, 0, total, UIO_USERSPACE, rw };
	return 0;
}

/* The count a transfer returns: a partial one interrupted or stopped by EAGAIN succeeds. */
static int transfer_result(int error, size_t want, size_t resid, register_t *rv)
{
	if (error != 0 && resid != want && (error == EINTR || error == EAGAIN))
		error = 0;
	*rv = want - resid;
	return error;
}

/* sendmsg(s, msg, flags) */
int sys_sendmsg(register_t *args, register_t *rv)
{
	struct sockaddr_un to;
	struct file *fp;
	struct kmsg km;
	size_t want;
	int error;

	error = getsock((int)args[0], &fp);
	if (error != 0)
		return error;
	error = kmsg_in(args[1], UIO_WRITE, &km);
	if (error == 0 && km.msg.msg_name != NULL)
		error = sockaddr_in((register_t)km.msg.msg_name, km.msg.msg_namelen, &to);
	if (error == 0) {
		want = km.uio.uio_resid;
		error = sosend(fp->f_socket, &km.uio, (int)args[2], fp->f_flag,
		               km.msg.msg_name != NULL ? &to : NULL);
		error = transfer_result(error, want, km.uio.uio_resid, rv);
	}
	kmsg_free(&km);
	fdrop(fp);
	return error;
}

/* recvmsg(s, msg, flags): msg_name, msg_namelen and msg_flags are written back; a stream
 * gives no address (msg_namelen 0), a datagram its sender's. */
int sys_recvmsg(register_t *args, register_t *rv)
{
	struct sockaddr_un from;
	struct msghdr *umsg = (struct msghdr *)args[1];
	struct file *fp;
	struct kmsg km;
	size_t want;
	int error, msgflags = 0;

	error = getsock((int)args[0], &fp);
	if (error != 0)
		return error;
	error = kmsg_in(args[1], UIO_READ, &km);
	if (error == 0) {
		want = km.uio.uio_resid;
		error = soreceive(fp->f_socket, &km.uio, (int)args[2], fp->f_flag, &from, &msgflags);
		error = transfer_result(error, want, km.uio.uio_resid, rv);
	}
	if (error == 0 && km.msg.msg_name != NULL && fp->f_socket->so_type == SOCK_DGRAM)
		error = sockaddr_out(&from, (register_t)km.msg.msg_name, (register_t)&umsg->msg_namelen);
	else if (error == 0 && km.msg.msg_name != NULL)
		error = copyout(&(socklen_t){ 0 }, &umsg->msg_namelen, sizeof(socklen_t));
	if (error == 0)
		error = copyout(&msgflags, &umsg->msg_flags, sizeof(msgflags));
	kmsg_free(&km);
	fdrop(fp);
	return error;
}

/* getsockname(s, addr, addrlen) and getpeername (ENOTCONN without a peer). */
static int sock_getname(register_t *args, bool peer)
{
	struct sockaddr_un sun;
	struct socket *so;
	struct file *fp;
	int error;

	error = getsock((int)args[0], &fp);
	if (error != 0)
		return error;
	so = fp->f_socket;
	spin_lock(&so_lock);
	sun.sun_len = 0;
	if (!peer)
		sun = so->so_addr;
	else if (!(so->so_state & SS_ISCONNECTED) || so->so_conn == NULL)
		error = ENOTCONN;
	else
		sun = so->so_conn->so_addr;
	spin_unlock(&so_lock);
	if (error == 0)
		error = sockaddr_out(&sun, args[1], args[2]);
	fdrop(fp);
	return error;
}

int sys_getsockname(register_t *args, register_t *rv)
{
	*rv = 0;
	return sock_getname(args, false);
}

int sys_getpeername(register_t *args, register_t *rv)
{
	*rv = 0;
	return sock_getname(args, true);
}
