/*
 * ut_fault.c: usertests cases for bad arguments: every system call that takes a pointer is
 * given unmapped, kernel and wrapping addresses and must fail with EFAULT (never crash the
 * kernel or the caller); every descriptor argument is given bad descriptors (EBADF).
 * The calls are made raw (int $0x80) so the libc cannot hide a bad pointer.
 */
#include "usertests.h"
#include <sys/syscall.h>
#include <sys/ioctl.h>

static long sc(long n, long a, long b, long c, long d, long e)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
	                 : "memory", "cc");
	return r;
}

#define SC(n, a, b, c, d, e) sc((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e))

/* The call must return -EFAULT. */
#define FAULT(what, call) do { \
	long r_ = (call); \
	if (r_ != -EFAULT) \
		FAILF("%s with pointer %p: expected EFAULT, got %s", what, bad, \
		      r_ < 0 && r_ >= -4095 ? ut_errname(-r_) : "success"); \
} while (0)

/* The lowest free descriptor, to see that failing calls leak none. */
static int lowestfd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

UT_CASE(t_badptr)
{
	static char *const bads[] = { (char *)1, (char *)0x80000000, (char *)0xfffffff0,
	                              (char *)0x7fffffff, (char *)0x3ff000 };
	char ok[64];
	int fd, wfd, dfd, low = lowestfd(), status;
	off_t off = 0;
	size_t len;

	wfd = open("/tmp/ut/badptr", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(wfd >= 0, "create: %s", strerror(errno));
	CHECK(write(wfd, "0123456789abcdef", 16) == 16, "write: %s", strerror(errno));
	lseek(wfd, 0, SEEK_SET);
	fd = open("/tmp/ut/badptr", O_RDONLY);
	dfd = open("/tmp", O_RDONLY);
	CHECK(fd >= 0 && dfd >= 0, "open: %s", strerror(errno));
	for (unsigned i = 0; i < sizeof bads / sizeof bads[0]; i++) {
		char *bad = bads[i];
		char *bargv[] = { "x", bad, NULL };
		pid_t pid;

		FAULT("read", SC(SYS_read, fd, bad, 10, 0, 0));
		FAULT("write", SC(SYS_write, wfd, bad, 10, 0, 0));
		FAULT("open", SC(SYS_open, bad, O_RDONLY, 0, 0, 0));
		FAULT("open O_CREAT", SC(SYS_open, bad, O_CREAT | O_RDWR, 0644, 0, 0));
		FAULT("stat path", SC(SYS_stat, bad, ok, 0, 0, 0));
		FAULT("stat buf", SC(SYS_stat, "/tmp", bad, 0, 0, 0));
		FAULT("fstat", SC(SYS_fstat, fd, bad, 0, 0, 0));
		FAULT("pipe", SC(SYS_pipe, bad, 0, 0, 0, 0));
		FAULT("execve path", SC(SYS_execve, bad, bargv, environ, 0, 0));
		FAULT("execve argv", SC(SYS_execve, "/bin/true", bad, environ, 0, 0));
		FAULT("execve argv[1]", SC(SYS_execve, "/bin/true", bargv, environ, 0, 0));
		FAULT("execve envp", SC(SYS_execve, "/bin/true", bargv + 2, bad, 0, 0));
		FAULT("chdir", SC(SYS_chdir, bad, 0, 0, 0, 0));
		FAULT("mkdir", SC(SYS_mkdir, bad, 0755, 0, 0, 0));
		FAULT("rmdir", SC(SYS_rmdir, bad, 0, 0, 0, 0));
		FAULT("unlink", SC(SYS_unlink, bad, 0, 0, 0, 0));
		FAULT("link from", SC(SYS_link, bad, "/tmp/ut/l", 0, 0, 0));
		FAULT("link to", SC(SYS_link, "/tmp/ut/badptr", bad, 0, 0, 0));
		FAULT("rename from", SC(SYS_rename, bad, "/tmp/ut/r", 0, 0, 0));
		FAULT("rename to", SC(SYS_rename, "/tmp/ut/badptr", bad, 0, 0, 0));
		FAULT("getcwd", SC(SYS_getcwd, bad, 64, 0, 0, 0));
		FAULT("gettimeofday", SC(SYS_gettimeofday, bad, 0, 0, 0, 0));
		FAULT("clock_gettime", SC(SYS_clock_gettime, CLOCK_MONOTONIC, bad, 0, 0, 0));
		FAULT("nanosleep", SC(SYS_nanosleep, bad, 0, 0, 0, 0));
		len = sizeof ok;
		FAULT("sysctl name", SC(SYS_sysctl, bad, ok, &len, 0, 0));
		len = sizeof ok;
		FAULT("sysctl oldp", SC(SYS_sysctl, "kern.hz", bad, &len, 0, 0));
		FAULT("sysctl oldlenp", SC(SYS_sysctl, "kern.hz", ok, bad, 0, 0));
		FAULT("sysctl newp", SC(SYS_sysctl, "kern.syncdelay", 0, 0, bad, 4));
		FAULT("sysctlnext name", SC(SYS_sysctlnext, bad, ok, sizeof ok, 0, 0));
		FAULT("sysctlnext next", SC(SYS_sysctlnext, "", bad, 64, 0, 0));
		FAULT("sysctlinfo name", SC(SYS_sysctlinfo, bad, ok, 0, 0, 0));
		FAULT("sysctlinfo info", SC(SYS_sysctlinfo, "kern.hz", bad, 0, 0, 0));
		FAULT("getrusage", SC(SYS_getrusage, RUSAGE_SELF, bad, 0, 0, 0));
		FAULT("lseek offset", SC(SYS_lseek, fd, bad, SEEK_SET, 0, 0));
		FAULT("ftruncate length", SC(SYS_ftruncate, wfd, bad, 0, 0, 0));
		FAULT("getdents", SC(SYS_getdents, dfd, bad, 4096, 0, 0));
		FAULT("mount fstype", SC(SYS_mount, bad, "/tmp", 0, 0, 0));
		FAULT("unmount", SC(SYS_unmount, bad, 0, 0, 0, 0));
		FAULT("mount dir", SC(SYS_mount, "wdfs", bad, 0, "/dev/md0", 0));
		FAULT("statfs path", SC(SYS_statfs, bad, ok, 0, 0, 0));
		FAULT("statfs buf", SC(SYS_statfs, "/", bad, 0, 0, 0));
		FAULT("fstatfs", SC(SYS_fstatfs, fd, bad, 0, 0, 0));
		FAULT("getfsstat", SC(SYS_getfsstat, bad, 4096, MNT_NOWAIT, 0, 0));
		if (isatty(0))
			FAULT("ioctl TIOCGETA", SC(SYS_ioctl, 0, TIOCGETA, bad, 0, 0));
		pid = fork();
		CHECK(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0)
			_exit(5);
		usleep(20000);
		FAULT("wait4 status", SC(SYS_wait4, pid, bad, 0, 0, 0));
		FAULT("wait4 rusage", SC(SYS_wait4, pid, &status, 0, bad, 0));
		waitpid(pid, &status, 0);
	}
	/* a range that starts in user space and runs past its top */
	{
		char *bad = (char *)0x7fffff00;
		FAULT("read across the top of user space", SC(SYS_read, fd, bad, 0x200, 0, 0));
		bad = sbrk(0);
		FAULT("read past the break", SC(SYS_read, fd, bad - 4, 1 << 24, 0, 0));
	}
	/* the good path still works after all that */
	CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek: %s", strerror(errno));
	CHECK(read(fd, ok, 16) == 16 && memcmp(ok, "0123456789abcdef", 16) == 0, "file contents changed");
	CHECK(SC(SYS_lseek, fd, &off, SEEK_END, 0, 0) == 0 && off == 16, "raw lseek gave %lld", (long long)off);
	close(fd);
	close(wfd);
	close(dfd);
	CHECK(lowestfd() == low, "descriptors leaked: lowest free is %d, was %d", lowestfd(), low);
	CHECK(stat("/tmp/ut/l", (struct stat *)ok) < 0 && stat("/tmp/ut/r", (struct stat *)ok) < 0,
	      "a failed link/rename created a name");
}

UT_CASE(t_badfd)
{
	static const int bads[] = { -1, 63, 64, 1000, 0x7fffffff };
	struct stat st;
	char buf[16];
	int fds[2], rfd, wfd;

	for (unsigned i = 0; i < sizeof bads / sizeof bads[0]; i++) {
		int b = bads[i];
		EXPECT_ERR(read(b, buf, 1), EBADF);
		EXPECT_ERR(write(b, "x", 1), EBADF);
		EXPECT_ERR(close(b), EBADF);
		EXPECT_ERR(dup(b), EBADF);
		EXPECT_ERR(dup2(b, 5), EBADF);
		EXPECT_ERR(fstat(b, &st), EBADF);
		EXPECT_ERR(lseek(b, 0, SEEK_SET), EBADF);
		EXPECT_ERR(ftruncate(b, 0), EBADF);
		EXPECT_ERR(fsync(b), EBADF);
		EXPECT_ERR(getdents(b, buf, sizeof buf), EBADF);
		EXPECT_ERR(ioctl(b, TIOCGETA, buf), EBADF);
		EXPECT_ERR(fcntl(b, F_GETFD), EBADF);
	}
	EXPECT_ERR(dup2(0, -1), EBADF);
	EXPECT_ERR(dup2(0, 64), EBADF);
	rfd = open("/tmp/ut/badfd", O_CREAT | O_RDONLY, 0644);
	wfd = open("/tmp/ut/badfd", O_WRONLY);
	CHECK(rfd >= 0 && wfd >= 0, "open: %s", strerror(errno));
	EXPECT_ERR(write(rfd, "x", 1), EBADF);
	EXPECT_ERR(read(wfd, buf, 1), EBADF);
	EXPECT_ERR(ftruncate(rfd, 0), EINVAL);
	close(rfd);
	EXPECT_ERR(read(rfd, buf, 1), EBADF);   /* closed */
	close(wfd);
	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	EXPECT_ERR(lseek(fds[0], 0, SEEK_SET), ESPIPE);
	EXPECT_ERR(write(fds[0], "x", 1), EBADF);
	EXPECT_ERR(read(fds[1], buf, 1), EBADF);
	close(fds[0]);
	close(fds[1]);
	rfd = open("/tmp/ut/badfd", O_RDONLY);
	EXPECT_ERR(lseek(rfd, 0, 99), EINVAL);        /* bad whence */
	EXPECT_ERR(lseek(rfd, -5, SEEK_SET), EINVAL); /* negative offset */
	close(rfd);
}
