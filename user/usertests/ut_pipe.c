/*
 * ut_pipe.c: usertests cases for pipes. wdrain has no signal handlers: SIGPIPE takes its
 * default action and terminates a writer whose pipe has no reader (FreeBSD's behaviour with
 * SIGPIPE not ignored); EPIPE is what such a write would return if it came back.
 */
#include "usertests.h"

/* 1 MB through a pipe in odd-sized writes arrives intact and in order. */
UT_CASE(t_pipe_data)
{
	static unsigned char buf[8192];
	const unsigned long long total = 1 << 20;
	unsigned long long got = 0;
	int fds[2], code, bad;
	pid_t pid;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		unsigned long long off = 0;
		close(fds[0]);
		while (off < total) {
			size_t n = 1 + (off * 7) % 5000;
			if (n > total - off)
				n = total - off;
			ut_fill(buf, n, off, 1);
			if (ut_writeall(fds[1], buf, n) < 0)
				_exit(1);
			off += n;
		}
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n = read(fds[0], buf, sizeof buf);
		CHECK(n >= 0, "read: %s", strerror(errno));
		if (n == 0)
			break;
		CHECK((bad = ut_verify(buf, n, got, 1)) < 0, "byte %llu is wrong", got + bad);
		got += n;
	}
	close(fds[0]);
	CHECK(got == total, "read %llu bytes, expected %llu", got, total);
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "writer exited with %d", code);
}

/* read returns 0 once every write end is closed, also ends held by other processes. */
UT_CASE(t_pipe_eof)
{
	int fds[2], code;
	char c;
	pid_t pid;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		write(fds[1], "x", 1);
		usleep(100000);
		_exit(0);   /* closes the child's write end */
	}
	close(fds[1]);
	CHECK(read(fds[0], &c, 1) == 1 && c == 'x', "first byte not read");
	CHECK(read(fds[0], &c, 1) == 0, "read after the writer exited did not return 0");
	CHECK(read(fds[0], &c, 1) == 0, "second read at EOF did not return 0");
	close(fds[0]);
	ut_waitexit(pid, &code);
}

/* Writing to a pipe with no reader kills the writer with SIGPIPE. */
UT_CASE(t_pipe_sigpipe)
{
	int fds[2], status;
	pid_t pid;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	close(fds[0]);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		ssize_t r = write(fds[1], "x", 1);
		_exit(r < 0 && errno == EPIPE ? 3 : 4);   /* survived: report how the write ended */
	}
	close(fds[1]);
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE,
	      "writer to a reader-less pipe: expected death by SIGPIPE, got %s",
	      WIFSIGNALED(status) ? "another signal" :
	      WEXITSTATUS(status) == 3 ? "write returned EPIPE and the writer lived" : "a successful write");
}

/* A writer blocked on a full pipe is woken (and killed) when the reader closes. */
UT_CASE(t_pipe_close_read)
{
	static char buf[4096];
	int fds[2], status;
	pid_t pid;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		for (;;)
			if (write(fds[1], buf, sizeof buf) < 0)
				_exit(errno == EPIPE ? 3 : 4);
	}
	close(fds[1]);
	usleep(200000);   /* let it fill the pipe and block */
	close(fds[0]);
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE,
	      "blocked writer after the reader closed: status %#x, expected SIGPIPE", status);
}
