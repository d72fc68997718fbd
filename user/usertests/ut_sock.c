/*
 * ut_sock.c: AF_UNIX sockets and poll(2) - socketpair, a stream echo server and its client,
 * a datagram ping-pong, each call's errors, EOF, EPIPE and SIGPIPE, non-blocking mode, the
 * descriptor limit; poll on pipes, sockets and files, its timeout and EINTR; select over it.
 */
#include "usertests.h"
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <poll.h>
#include <limits.h>
#include <sys/select.h>

#define SDIR "/tmp/ut/sock"

/* An AF_UNIX address for path; its length in *lenp. */
static struct sockaddr_un un(const char *path, socklen_t *lenp)
{
	struct sockaddr_un sun;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	strncpy(sun.sun_path, path, sizeof sun.sun_path);
	sun.sun_len = (uint8_t)SUN_LEN(&sun);
	*lenp = sun.sun_len;
	return sun;
}

/* A new socket of type, bound or connected (call) to path: the descriptor, or -1. */
static int sock_at(int type, const char *path, int (*call)(int, const struct sockaddr *, socklen_t))
{
	socklen_t len;
	struct sockaddr_un sun = un(path, &len);
	int s = socket(AF_UNIX, type, 0);

	if (s < 0 || call(s, (struct sockaddr *)&sun, len) < 0)
		return -1;
	return s;
}

static int bound(int type, const char *path)
{
	return sock_at(type, path, bind);
}

static int connected(int type, const char *path)
{
	return sock_at(type, path, connect);
}

/* socketpair: data both ways, EOF after shutdown and close, EPIPE with and without SIGPIPE. */
UT_CASE(t_socketpair)
{
	char buf[64];
	struct iovec iov[10];
	struct msghdr msg;
	struct stat st;
	int sv[2], d[2], code;
	pid_t pid;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair: %s", strerror(errno));
	CHECK(write(sv[0], "ping", 4) == 4 && read(sv[1], buf, sizeof buf) == 4 && memcmp(buf, "ping", 4) == 0,
	      "stream 0 -> 1: %s", strerror(errno));
	CHECK(send(sv[1], "pong!", 5, 0) == 5 && recv(sv[0], buf, 2, MSG_PEEK) == 2 &&
	      recv(sv[0], buf, sizeof buf, 0) == 5 && memcmp(buf, "pong!", 5) == 0, "stream 1 -> 0 with a peek");
	fflush(stdout);
	if ((pid = fork()) == 0) {              /* MSG_WAITALL waits for the second piece */
		write(sv[1], "ab", 2);
		usleep(20000);
		write(sv[1], "cd", 2);
		_exit(0);
	}
	CHECK(recv(sv[0], buf, 4, MSG_WAITALL) == 4 && memcmp(buf, "abcd", 4) == 0, "MSG_WAITALL: %s",
	      strerror(errno));
	ut_waitexit(pid, &code);
	for (int i = 0; i < 10; i++)            /* sendmsg gathers ten pieces */
		iov[i] = (struct iovec){ (char *)"0123456789" + i, 1 };
	msg = (struct msghdr){ NULL, 0, iov, 10, NULL, 0, 0 };
	CHECK(sendmsg(sv[0], &msg, 0) == 10 && recv(sv[1], buf, sizeof buf, 0) == 10 &&
	      memcmp(buf, "0123456789", 10) == 0, "sendmsg of 10 iovecs: %s", strerror(errno));
	msg.msg_iovlen = 1025;
	EXPECT_ERR(sendmsg(sv[0], &msg, 0), EMSGSIZE);
	CHECK(fstat(sv[0], &st) == 0 && S_ISSOCK(st.st_mode), "fstat: mode %#o", st.st_mode);
	EXPECT_ERR(lseek(sv[0], 0, SEEK_SET), ESPIPE);
	CHECK(shutdown(sv[0], SHUT_WR) == 0 && read(sv[1], buf, sizeof buf) == 0, "EOF after shutdown(SHUT_WR)");
	signal(SIGPIPE, SIG_IGN);
	EXPECT_ERR(write(sv[0], "x", 1), EPIPE);
	CHECK(write(sv[1], "back", 4) == 4 && read(sv[0], buf, sizeof buf) == 4, "the other way still works");
	EXPECT_ERR(shutdown(sv[0], 7), EINVAL);
	close(sv[1]);
	CHECK(read(sv[0], buf, sizeof buf) == 0, "EOF after the peer's close");
	close(sv[0]);
	/* a write with no reader: SIGPIPE ends the writer; MSG_NOSIGNAL only says EPIPE */
	signal(SIGPIPE, SIG_DFL);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair: %s", strerror(errno));
	close(sv[1]);
	EXPECT_ERR(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		write(sv[0], "x", 1);
		_exit(0);
	}
	CHECK(ut_waitexit(pid, &code) == pid && code == 128 + SIGPIPE, "the writer ended with %d, not SIGPIPE", code);
	close(sv[0]);
	/* datagrams keep their boundaries */
	CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, d) == 0, "socketpair(SOCK_DGRAM): %s", strerror(errno));
	CHECK(send(d[0], "one", 3, 0) == 3 && send(d[0], "three", 5, 0) == 5, "send: %s", strerror(errno));
	CHECK(recv(d[1], buf, sizeof buf, 0) == 3 && recv(d[1], buf, sizeof buf, 0) == 5, "two datagrams, two reads");
	close(d[0]);
	close(d[1]);
	EXPECT_ERR(socketpair(AF_INET, SOCK_STREAM, 0, sv), EAFNOSUPPORT);
}

/* The server: accept one client, echo until EOF, report the client's name length. */
static void echo_server(int ls)
{
	struct sockaddr_un peer;
	socklen_t len = sizeof peer;
	char buf[1000];
	ssize_t n;
	int s = accept(ls, (struct sockaddr *)&peer, &len);

	if (s < 0)
		_exit(10);
	if (peer.sun_family != AF_UNIX)
		_exit(11);
	while ((n = read(s, buf, sizeof buf)) > 0)
		if (ut_writeall(s, buf, n) < 0)
			_exit(12);
	_exit(n == 0 ? 0 : 13);
}

/* A stream echo server in a child and its client: 64 KB there and back, the names, the errors. */
UT_CASE(t_sock_stream)
{
	static unsigned char out[65536], in[65536];
	struct sockaddr_un sun, got;
	socklen_t len, glen;
	size_t sent = 0, recvd = 0;
	int ls, c, code, bad;
	pid_t pid;

	ut_rmtree(SDIR);
	CHECK(mkdir(SDIR, 0755) == 0, "mkdir: %s", strerror(errno));
	CHECK((ls = bound(SOCK_STREAM, SDIR "/echo")) >= 0, "bind: %s", strerror(errno));
	EXPECT_ERR(connected(SOCK_STREAM, SDIR "/echo"), ECONNREFUSED);    /* not listening yet */
	CHECK(listen(ls, 5) == 0, "listen: %s", strerror(errno));
	fflush(stdout);
	if ((pid = fork()) == 0)
		echo_server(ls);
	CHECK((c = connected(SOCK_STREAM, SDIR "/echo")) >= 0, "connect: %s", strerror(errno));
	sun = un(SDIR "/echo", &len);
	glen = sizeof got;
	CHECK(getpeername(c, (struct sockaddr *)&got, &glen) == 0 && glen == len &&
	      strcmp(got.sun_path, SDIR "/echo") == 0, "getpeername: %s (%u bytes)", got.sun_path, glen);
	glen = sizeof got;
	CHECK(getsockname(c, (struct sockaddr *)&got, &glen) == 0 && got.sun_family == AF_UNIX &&
	      got.sun_path[0] == 0, "an unbound client's name is empty");
	EXPECT_ERR(connect(c, (struct sockaddr *)&sun, len), EISCONN);
	ut_fill(out, sizeof out, 0, 7);
	while (recvd < sizeof out) {            /* interleave so neither side's buffer stops us */
		if (sent < sizeof out) {
			ssize_t n = write(c, out + sent, sizeof out - sent < 3000 ? sizeof out - sent : 3000);
			CHECK(n > 0, "write: %s", strerror(errno));
			sent += n;
		}
		ssize_t n = read(c, in + recvd, sizeof in - recvd);
		CHECK(n > 0, "read: %zd %s", n, strerror(errno));
		recvd += n;
	}
	CHECK((bad = ut_verify(in, sizeof in, 0, 7)) < 0, "byte %d came back wrong", bad);
	CHECK(shutdown(c, SHUT_WR) == 0, "shutdown: %s", strerror(errno));
	CHECK(read(c, in, 1) == 0, "no EOF after the server ended");
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "the server ended with %d", code);
	close(c);
	/* errors */
	EXPECT_ERR(bound(SOCK_STREAM, SDIR "/echo"), EADDRINUSE);
	EXPECT_ERR(bind(ls, (struct sockaddr *)&sun, len), EINVAL);          /* already named */
	CHECK(ut_mkfile(SDIR "/file", "x") == 0, "a regular file");
	EXPECT_ERR(connected(SOCK_STREAM, SDIR "/file"), ENOTSOCK);
	EXPECT_ERR(connected(SOCK_STREAM, SDIR "/none"), ENOENT);
	EXPECT_ERR(connected(SOCK_DGRAM, SDIR "/echo"), EPROTOTYPE);
	EXPECT_ERR(connect(ls, (struct sockaddr *)&sun, len), EOPNOTSUPP);   /* a listener */
	close(ls);
	EXPECT_ERR(connected(SOCK_STREAM, SDIR "/echo"), ECONNREFUSED);    /* nobody behind the name */
	CHECK((c = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0, "socket: %s", strerror(errno));
	EXPECT_ERR(listen(c, 1), EINVAL);                                  /* not bound */
	EXPECT_ERR(send(c, "x", 1, 0), ENOTCONN);
	EXPECT_ERR(recv(c, in, 1, 0), ENOTCONN);
	EXPECT_ERR(getpeername(c, (struct sockaddr *)&got, &glen), ENOTCONN);
	EXPECT_ERR(shutdown(c, SHUT_RDWR), ENOTCONN);
	EXPECT_ERR(accept(c, NULL, NULL), EINVAL);
	sun.sun_family = AF_INET;
	EXPECT_ERR(bind(c, (struct sockaddr *)&sun, len), EAFNOSUPPORT);
	EXPECT_ERR(bind(c, (struct sockaddr *)&sun, 2), EINVAL);
	EXPECT_ERR(bind(c, (struct sockaddr *)&sun, 300), ENAMETOOLONG);
	EXPECT_ERR(bind(c, (struct sockaddr *)1, len), EFAULT);
	close(c);
	EXPECT_ERR(socket(AF_INET, SOCK_STREAM, 0), EAFNOSUPPORT);
	EXPECT_ERR(socket(AF_UNIX, SOCK_SEQPACKET, 0), EPROTONOSUPPORT);
	EXPECT_ERR(socket(AF_UNIX, SOCK_STREAM, 6), EPROTONOSUPPORT);
	EXPECT_ERR(listen(0, 1), ENOTSOCK);
	EXPECT_ERR(accept(99, NULL, NULL), EBADF);
}

/* Non-blocking accept, connect and receive; a full listen queue; unaccepted connections at close. */
UT_CASE(t_sock_nonblock)
{
	char buf[16];
	int ls, c1, c2, s, i;

	ut_rmtree(SDIR);
	CHECK(mkdir(SDIR, 0755) == 0, "mkdir: %s", strerror(errno));
	CHECK((ls = bound(SOCK_STREAM, SDIR "/nb")) >= 0 && listen(ls, 1) == 0, "listen: %s", strerror(errno));
	CHECK(fcntl(ls, F_SETFL, O_NONBLOCK) == 0, "fcntl: %s", strerror(errno));
	EXPECT_ERR(accept(ls, NULL, NULL), EAGAIN);
	CHECK((c1 = connected(SOCK_STREAM, SDIR "/nb")) >= 0, "connect: %s", strerror(errno));
	EXPECT_ERR(connected(SOCK_STREAM, SDIR "/nb"), ECONNREFUSED);   /* the queue holds one */
	CHECK((s = accept(ls, NULL, NULL)) >= 0, "accept: %s", strerror(errno));
	CHECK((fcntl(s, F_GETFL) & O_NONBLOCK) != 0, "the accepted socket did not inherit O_NONBLOCK");
	EXPECT_ERR(read(s, buf, sizeof buf), EAGAIN);
	EXPECT_ERR(recv(c1, buf, sizeof buf, MSG_DONTWAIT), EAGAIN);
	/* a blocking stream fills the peer's buffer; MSG_DONTWAIT then says EAGAIN */
	for (i = 0; i < 1000 && send(c1, buf, sizeof buf, MSG_DONTWAIT) == (ssize_t)sizeof buf; i++)
		continue;
	CHECK(i == 8192 / (int)sizeof buf && errno == EAGAIN, "%d sends before EAGAIN (%s)", i, strerror(errno));
	close(s);
	/* a connection still in the queue when the listener closes: its client reads EOF */
	CHECK((c2 = connected(SOCK_STREAM, SDIR "/nb")) >= 0, "connect: %s", strerror(errno));
	close(ls);
	CHECK(read(c2, buf, sizeof buf) == 0, "no EOF for a connection never accepted");
	close(c1);
	close(c2);
}

/* A datagram ping-pong between two named sockets; datagram errors. */
UT_CASE(t_sock_dgram)
{
	static char big[4096];
	struct sockaddr_un a, b, from;
	struct msghdr msg;
	struct iovec iov;
	socklen_t alen, blen, flen;
	char buf[32];
	int sa, sb, i, n;

	ut_rmtree(SDIR);
	CHECK(mkdir(SDIR, 0755) == 0, "mkdir: %s", strerror(errno));
	a = un(SDIR "/a", &alen);
	b = un(SDIR "/b", &blen);
	CHECK((sa = bound(SOCK_DGRAM, SDIR "/a")) >= 0 && (sb = bound(SOCK_DGRAM, SDIR "/b")) >= 0,
	      "bind: %s", strerror(errno));
	for (i = 0; i < 20; i++) {
		CHECK(sendto(sa, &i, sizeof i, 0, (struct sockaddr *)&b, blen) == sizeof i, "sendto: %s", strerror(errno));
		flen = sizeof from;
		CHECK(recvfrom(sb, &n, sizeof n, 0, (struct sockaddr *)&from, &flen) == sizeof n && n == i &&
		      flen == alen && strcmp(from.sun_path, a.sun_path) == 0, "ping %d: from %s", i, from.sun_path);
		n++;
		CHECK(sendto(sb, &n, sizeof n, 0, (struct sockaddr *)&from, flen) == sizeof n, "reply: %s", strerror(errno));
		CHECK(recv(sa, &n, sizeof n, 0) == sizeof n && n == i + 1, "pong %d", i);
	}
	EXPECT_ERR(send(sa, "x", 1, 0), EDESTADDRREQ);
	EXPECT_ERR(sendto(sa, big, 2049, 0, (struct sockaddr *)&b, blen), EMSGSIZE);
	CHECK(sendto(sa, big, 2048, 0, (struct sockaddr *)&b, blen) == 2048 &&
	      sendto(sa, big, 2048, 0, (struct sockaddr *)&b, blen) == 2048, "two of 2 KB: %s", strerror(errno));
	EXPECT_ERR(sendto(sa, "x", 1, 0, (struct sockaddr *)&b, blen), ENOBUFS);   /* 4 KB queued */
	/* recvmsg cuts a long datagram: MSG_TRUNC */
	iov = (struct iovec){ buf, 10 };
	msg = (struct msghdr){ NULL, 0, &iov, 1, NULL, 0, 0 };
	CHECK(recvmsg(sb, &msg, 0) == 10 && (msg.msg_flags & MSG_TRUNC), "MSG_TRUNC not set");
	CHECK(recv(sb, big, sizeof big, 0) == 2048, "the second datagram");
	/* connect: a default destination; sendto then EISCONN; the peer's close ECONNRESET once */
	CHECK(connect(sa, (struct sockaddr *)&b, blen) == 0 && send(sa, "hi", 2, 0) == 2 &&
	      recv(sb, buf, sizeof buf, 0) == 2, "a connected datagram socket: %s", strerror(errno));
	EXPECT_ERR(sendto(sa, "x", 1, 0, (struct sockaddr *)&b, blen), EISCONN);
	close(sb);
	EXPECT_ERR(send(sa, "x", 1, 0), ECONNRESET);
	EXPECT_ERR(send(sa, "x", 1, 0), EDESTADDRREQ);
	EXPECT_ERR(sendto(sa, "x", 1, 0, (struct sockaddr *)&b, blen), ECONNREFUSED);
	EXPECT_ERR(listen(sa, 1), EOPNOTSUPP);
	EXPECT_ERR(accept(sa, NULL, NULL), EOPNOTSUPP);
	close(sa);
	CHECK(unlink(SDIR "/a") == 0 && unlink(SDIR "/b") == 0, "unlink a socket file: %s", strerror(errno));
}

/* Sockets count against the descriptor table: EMFILE, and nothing leaks. */
UT_CASE(t_sock_limits)
{
	int sv[2], n = 0, i, s, fds[OPEN_MAX];

	while (n + 1 < OPEN_MAX && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
		fds[n++] = sv[0];
		fds[n++] = sv[1];
	}
	CHECK(errno == EMFILE, "socketpair stopped with %s, not EMFILE", strerror(errno));
	while (n < OPEN_MAX && (s = socket(AF_UNIX, SOCK_DGRAM, 0)) >= 0)   /* an odd one left */
		fds[n++] = s;
	CHECK(errno == EMFILE, "socket stopped with %s, not EMFILE", strerror(errno));
	EXPECT_ERR(accept(0, NULL, NULL), ENOTSOCK);
	for (i = 0; i < n; i++)
		close(fds[i]);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "after closing them: %s", strerror(errno));
	close(sv[0]);
	close(sv[1]);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* poll: pipes, sockets, files and bad descriptors; the timeout; EINTR on a signal; select. */
UT_CASE(t_poll)
{
	struct pollfd pf[4];
	struct timeval tv = { 0, 0 };
	fd_set rs, ws;
	struct timespec t0, t1;
	int p[2], sv[2], fd, code;
	long ms;
	pid_t pid;

	CHECK(pipe(p) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "setup: %s", strerror(errno));
	CHECK((fd = open("/", O_RDONLY)) >= 0, "open: %s", strerror(errno));
	pf[0] = (struct pollfd){ p[0], POLLIN, 0 };
	pf[1] = (struct pollfd){ p[1], POLLOUT, 0 };
	pf[2] = (struct pollfd){ sv[0], POLLIN | POLLOUT, 0 };
	pf[3] = (struct pollfd){ fd, POLLIN, 0 };
	CHECK(poll(pf, 4, 0) == 3 && pf[0].revents == 0 && pf[1].revents == POLLOUT && pf[2].revents == POLLOUT &&
	      pf[3].revents == POLLIN, "ready: %d %d %d %d", pf[0].revents, pf[1].revents, pf[2].revents, pf[3].revents);
	CHECK(write(p[1], "x", 1) == 1 && write(sv[1], "y", 1) == 1, "write: %s", strerror(errno));
	CHECK(poll(pf, 3, 0) == 3 && pf[0].revents == POLLIN && pf[2].revents == (POLLIN | POLLOUT),
	      "after the writes: %d %d", pf[0].revents, pf[2].revents);
	close(sv[1]);
	CHECK(poll(&pf[2], 1, 0) == 1 && (pf[2].revents & POLLHUP), "no POLLHUP after the peer's close: %d",
	      pf[2].revents);
	/* the timeout, and a wakeup from another process */
	pf[0] = (struct pollfd){ sv[0], 0, 0 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(poll(pf, 1, 100) == 0 || (pf[0].revents & POLLHUP), "poll with nothing asked");
	CHECK(read(p[0], &code, 1) == 1, "drain");
	pf[0] = (struct pollfd){ p[0], POLLIN, 0 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(poll(pf, 1, 150) == 0 && pf[0].revents == 0, "an empty pipe was ready");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	CHECK(ms >= 130 && ms < 3000, "a 150 ms timeout took %ld ms", ms);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		usleep(50000);
		write(p[1], "z", 1);
		_exit(0);
	}
	CHECK(poll(pf, 1, -1) == 1 && pf[0].revents == POLLIN, "the writer's byte did not wake poll");
	ut_waitexit(pid, &code);
	/* EINTR: a signal with a handler interrupts an endless poll (the child keeps sending, so
	 * one comes while poll sleeps however the two are scheduled) */
	CHECK(read(p[0], &code, 1) == 1, "drain");
	signal(SIGUSR1, on_alarm);
	if ((pid = fork()) == 0) {
		for (;;) {
			usleep(20000);
			kill(getppid(), SIGUSR1);
		}
	}
	errno = 0;
	code = poll(pf, 1, -1);
	kill(pid, SIGKILL);
	CHECK(code == -1 && errno == EINTR, "poll gave %d (%s), not EINTR", code, strerror(errno));
	ut_waitexit(pid, &code);
	/* a descriptor that is not open; a negative one is skipped */
	pf[0] = (struct pollfd){ 99, POLLIN, 0 };
	pf[1] = (struct pollfd){ -1, POLLIN, 0 };
	CHECK(poll(pf, 2, 0) == 1 && pf[0].revents == POLLNVAL && pf[1].revents == 0, "POLLNVAL");
	EXPECT_ERR(poll((struct pollfd *)1, 1, 0), EFAULT);
	EXPECT_ERR(poll(pf, 100000, 0), EINVAL);
	/* select, the libc's over poll */
	CHECK(write(p[1], "s", 1) == 1, "write: %s", strerror(errno));
	FD_ZERO(&rs);
	FD_ZERO(&ws);
	FD_SET(p[0], &rs);
	FD_SET(sv[0], &rs);
	FD_SET(p[1], &ws);
	CHECK(select(p[1] > sv[0] ? p[1] + 1 : sv[0] + 1, &rs, &ws, NULL, &tv) == 3 && FD_ISSET(p[0], &rs) &&
	      FD_ISSET(sv[0], &rs) && FD_ISSET(p[1], &ws), "select: the pipe, the socket at EOF, the write end");
	CHECK(read(p[0], &code, 1) == 1, "drain");
	FD_ZERO(&rs);
	FD_SET(p[0], &rs);
	CHECK(select(p[0] + 1, &rs, NULL, NULL, &tv) == 0 && !FD_ISSET(p[0], &rs), "select: an empty pipe");
	FD_SET(99, &rs);
	EXPECT_ERR(select(100, &rs, NULL, NULL, &tv), EBADF);
	tv.tv_usec = 1000000;
	EXPECT_ERR(select(1, NULL, NULL, NULL, &tv), EINVAL);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(fd);
}
