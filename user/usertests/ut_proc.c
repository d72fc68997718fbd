/* ut_proc.c: usertests cases for processes: fork, exit, wait, exec (busy text too), kill, sbrk, the stack. */
#include "usertests.h"
#include <sys/ioctl.h>
#include <sys/mman.h>

UT_CASE(t_fork_wait)
{
	int status;
	pid_t pid = fork(), w;

	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	w = wait(&status);
	CHECK(w == pid, "wait returned %d, expected the child %d", w, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x, expected exit 0", status);
}

/* Exit codes 0..255 come back to the parent; wait4 returns the child's rusage. */
UT_CASE(t_exit_status)
{
	static const int codes[] = { 0, 1, 42, 127, 255 };
	struct rusage ru;
	int status;

	for (unsigned i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		pid_t pid = fork();
		CHECK(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0)
			exit(codes[i]);
		CHECK(wait4(pid, &status, 0, &ru) == pid, "wait4: %s", strerror(errno));
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == codes[i],
		      "child exit(%d) gave status %#x", codes[i], status);
	}
}

/* Start /bin/echo with argv, its output into a pipe whose read end is *rfd; the child's pid. */
static pid_t echo_start(char **argv, int *rfd)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execve("/bin/echo", argv, environ);
		_exit(99);
	}
	close(fds[1]);
	*rfd = fds[0];
	return pid;
}

/* exec passes argv: run /bin/echo with arguments, read its output through a pipe. */
UT_CASE(t_exec_args)
{
	char *argv[] = { "echo", "one", "two words", "", "three", NULL };
	char buf[64] = { 0 };
	int fd, code, n = 0, k;
	pid_t pid = echo_start(argv, &fd);

	CHECK(pid >= 0, "pipe or fork: %s", strerror(errno));
	while ((k = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
		n += k;
	close(fd);
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "echo exited with %d", code);
	CHECK(strcmp(buf, "one two words  three\n") == 0, "echo printed \"%s\"", buf);
}

/* exec passes envp: sh -c 'exit $CODE' with CODE=7 in the environment. */
UT_CASE(t_exec_env)
{
	char *argv[] = { "sh", "-c", "exit $UT_CODE", NULL };
	char *envp[] = { "UT_CODE=7", NULL };
	int code;
	pid_t pid = fork();

	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		execve("/bin/sh", argv, envp);
		_exit(99);
	}
	CHECK(ut_waitexit(pid, &code) == pid && code == 7, "sh -c 'exit $UT_CODE' exited %d, expected 7", code);
}

/* Not-ELF files, truncated ELF headers and directories are refused with ENOEXEC/EACCES; the
 * caller keeps running. */
UT_CASE(t_exec_badelf)
{
	static const char junk[] = "this is not an executable\n";
	unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 1, 1, 1 };   /* header cut short, no phdrs */
	char *argv[] = { "bad", NULL };
	int fd;

	fd = open("/tmp/ut/badexec", O_CREAT | O_WRONLY | O_TRUNC, 0755);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	CHECK(write(fd, junk, sizeof junk) == sizeof junk, "write: %s", strerror(errno));
	close(fd);
	EXPECT_ERR(execve("/tmp/ut/badexec", argv, environ), ENOEXEC);
	fd = open("/tmp/ut/badelf", O_CREAT | O_WRONLY | O_TRUNC, 0755);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	CHECK(write(fd, elf, 20) == 20, "write: %s", strerror(errno));
	close(fd);
	EXPECT_ERR(execve("/tmp/ut/badelf", argv, environ), ENOEXEC);
	/* FreeBSD's exec_check_permissions refuses anything but a regular file with EACCES */
	EXPECT_ERR(execve("/tmp", argv, environ), EACCES);
}

/* Arguments past a page reach the program whole (the kernel's buffer grows: kern_exec.c); more
 * than ARG_MAX (256 KB) in all, or one string longer than that, is E2BIG. */
UT_CASE(t_exec_bigargs)
{
	enum { NARG = 40, LEN = 3000, HUGE = 300 * 1024 };
	char *argv[NARG + 2], *big = malloc(HUGE + 1), *one[] = { "echo", big, NULL };
	char buf[512];
	long total = 0, want = 0;
	int fd, code, k;
	pid_t pid;

	CHECK(big != NULL, "malloc: %s", strerror(errno));
	memset(big, 'a', HUGE);
	big[HUGE] = 0;
	argv[0] = "echo";
	for (int i = 1; i <= NARG; i++) {
		argv[i] = big + HUGE - (LEN + i);     /* 3,001 .. 3,040 bytes: 118 KB in all */
		want += LEN + i + 1;
	}
	argv[NARG + 1] = NULL;
	pid = echo_start(argv, &fd);
	CHECK(pid >= 0, "pipe or fork: %s", strerror(errno));
	while ((k = read(fd, buf, sizeof buf)) > 0)
		total += k;
	close(fd);
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "echo with 118 KB of arguments exited with %d", code);
	CHECK(total == want, "echo printed %ld bytes, expected %ld", total, want);
	EXPECT_ERR(execve("/bin/echo", one, environ), E2BIG);
	for (int i = 1; i <= NARG; i++)
		argv[i] = big + HUGE - 8000;           /* 40 x 8 KB = 320 KB */
	EXPECT_ERR(execve("/bin/echo", argv, environ), E2BIG);
	free(big);
}

UT_CASE(t_exec_enoent)
{
	char *argv[] = { "nosuch", NULL };

	EXPECT_ERR(execve("/nosuch/program", argv, environ), ENOENT);
	EXPECT_ERR(execve("/bin/nosuchprogram", argv, environ), ENOENT);
}

/* Fork until the kernel says no (EAGAIN: process table full, or ENOMEM), then reap all. */
UT_CASE(t_forkall)
{
	int n = 0, status, reaped = 0, fds[2];
	char c;
	pid_t pid;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	for (;;) {
		pid = fork();
		if (pid < 0)
			break;
		if (pid == 0) {
			close(fds[1]);
			read(fds[0], &c, 1);   /* wait until the parent has finished forking */
			_exit(0);
		}
		n++;
		if (n > 10000)
			break;
	}
	CHECK(pid < 0, "fork never failed after %d children", n);
	CHECK(errno == EAGAIN || errno == ENOMEM, "fork failed with %s, expected EAGAIN or ENOMEM",
	      ut_errname(errno));
	close(fds[1]);   /* every child's read returns 0 now */
	close(fds[0]);
	while ((pid = wait(&status)) > 0)
		reaped++;
	CHECK(errno == ECHILD, "wait ended with %s, expected ECHILD", ut_errname(errno));
	CHECK(reaped == n && n > 10, "forked %d children, reaped %d", n, reaped);
	/* the system recovers: one more fork works */
	pid = fork();
	CHECK(pid >= 0, "fork after reaping: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	wait(&status);
}

UT_CASE(t_wait_nochild)
{
	int status;

	EXPECT_ERR(wait(&status), ECHILD);
	EXPECT_ERR(waitpid(1, &status, 0), ECHILD);   /* init is not our child */
	pid_t pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		sleep(1);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, WNOHANG) == 0, "WNOHANG on a running child did not return 0");
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
}

/* A sleeping child killed with SIGKILL and SIGTERM reports the signal (default action). */
UT_CASE(t_kill)
{
	static const int sigs[] = { SIGKILL, SIGTERM };
	int status;

	for (int i = 0; i < 2; i++) {
		pid_t pid = fork();
		CHECK(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0) {
			for (;;)
				sleep(100);
		}
		usleep(50000);
		CHECK(kill(pid, sigs[i]) == 0, "kill(%d, %d): %s", pid, sigs[i], strerror(errno));
		CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i],
		      "killed child status %#x, expected signal %d", status, sigs[i]);
	}
	/* and one that is busy computing, not sleeping */
	pid_t pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		for (volatile int x = 0;; x++)
			;
	usleep(50000);
	CHECK(kill(pid, SIGKILL) == 0, "kill: %s", strerror(errno));
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status), "spinning child not killed (%#x)", status);
}

UT_CASE(t_kill_esrch)
{
	EXPECT_ERR(kill(99999, SIGTERM), ESRCH);
	EXPECT_ERR(kill(getpid(), 99), EINVAL);
	EXPECT_ERR(kill(getpid(), -1), EINVAL);
}

/* getppid is the parent; an orphan is adopted by init (pid 1). */
UT_CASE(t_getppid)
{
	int fds[2], code;
	pid_t me = getpid(), pid, ppid = 0;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		pid_t p = getppid();
		if (fork() == 0) {
			usleep(200000);   /* let the middle process exit */
			p = getppid();
			write(fds[1], &p, sizeof p);
			_exit(0);
		}
		_exit(p == me ? 0 : 1);
	}
	close(fds[1]);
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "child's getppid was not the parent");
	CHECK(read(fds[0], &ppid, sizeof ppid) == sizeof ppid, "orphan did not report");
	CHECK(ppid == 1, "orphan's parent is %d, expected init (1)", ppid);
}

/*
 * Process groups, what the console's ^C signals: a child starts in its parent's group;
 * setpgid moves the caller or a child into a group of its own or one that exists (ESRCH for
 * others' processes, EPERM for a group that does not exist, EINVAL for a negative one); the
 * console's foreground group (TIOCSPGRP) reads back, and other descriptors are ENOTTY.
 */
UT_CASE(t_pgrp)
{
	pid_t me = getpid(), pid;
	int fds[2], code, fg, saved, bad = -1;
	char c = 0;

	CHECK(setpgid(0, 0) == 0, "setpgid(0, 0): %s", strerror(errno));
	CHECK(getpgrp() == me, "getpgrp() is %d after setpgid(0, 0), expected %d", getpgrp(), me);
	if ((pid = fork()) == 0)
		_exit(getpgrp() == me ? 0 : 1);
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "a child is not in its parent's group");
	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	if ((pid = fork()) == 0) {
		read(fds[0], &c, 1);          /* until the parent has moved it */
		_exit(getpgrp() == getpid() ? 0 : 1);
	}
	CHECK(setpgid(pid, pid) == 0, "setpgid(child, child): %s", strerror(errno));
	CHECK(setpgid(pid, me) == 0 && setpgid(pid, 0) == 0, "moving the child back and forth: %s", strerror(errno));
	write(fds[1], &c, 1);
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "the child is not in the group of its own it was moved to");
	EXPECT_ERR(setpgid(1, 0), ESRCH);
	EXPECT_ERR(setpgid(0, 99999), EPERM);
	EXPECT_ERR(setpgid(0, -1), EINVAL);
	EXPECT_ERR(ioctl(fds[0], TIOCGPGRP, &fg), ENOTTY);
	if (ioctl(0, TIOCGPGRP, &saved) == 0) {      /* stdin is the console (under the test harness) */
		fg = me;
		CHECK(ioctl(0, TIOCSPGRP, &fg) == 0, "TIOCSPGRP: %s", strerror(errno));
		fg = 0;
		ioctl(0, TIOCGPGRP, &fg);
		ioctl(0, TIOCSPGRP, &saved);
		CHECK(fg == me, "the console's foreground group read back as %d, expected %d", fg, me);
		EXPECT_ERR(ioctl(0, TIOCSPGRP, &bad), EINVAL);
	}
}

/* sbrk grows the heap (zero-filled, usable), shrinks it, and returns the old break. */
UT_CASE(t_sbrk)
{
	char *a = sbrk(0), *b, *c;
	const int n = 4 << 20;

	CHECK(a != (void *)-1, "sbrk(0): %s", strerror(errno));
	b = sbrk(n);
	CHECK(b == a, "sbrk(%d) returned %p, expected the old break %p", n, b, a);
	CHECK(sbrk(0) == a + n, "break is %p after growing, expected %p", sbrk(0), a + n);
	for (int i = 0; i < n; i += 4096)
		CHECK(b[i] == 0, "new heap byte at +%d is %d, not 0", i, b[i]);
	for (int i = 0; i < n; i += 512)
		b[i] = (char)i;
	for (int i = 0; i < n; i += 512)
		CHECK(b[i] == (char)i, "heap byte at +%d lost", i);
	c = sbrk(-n);
	CHECK(c == a + n, "sbrk(-%d) returned %p, expected %p", n, c, a + n);
	CHECK(sbrk(0) == a, "break is %p after shrinking, expected %p", sbrk(0), a);
	/* grow again: the memory must be zero again, not the old contents */
	b = sbrk(n);
	CHECK(b == a, "regrow returned %p", b);
	for (int i = 512; i < n; i += 512 * 7)
		CHECK(b[i] == 0, "re-grown heap byte at +%d is %d, not 0", i, b[i]);
	sbrk(-n);
}

/* Asking for more than the address space fails with ENOMEM and changes nothing. */
UT_CASE(t_sbrk_huge)
{
	char *a = sbrk(0);

	EXPECT_ERR((long)sbrk(0x7f000000), ENOMEM);
	CHECK(sbrk(0) == a, "break moved after a failed sbrk");
	errno = 0;
	CHECK(sbrk(-0x10000000) == (void *)-1 && (errno == EINVAL || errno == ENOMEM),
	      "shrinking below the heap's start: expected EINVAL or ENOMEM, got %s", ut_errname(errno));
	CHECK(sbrk(0) == a, "break moved after a failed shrink");
}

static int recurse(int depth, volatile char *prev)
{
	volatile char frame[1024];

	frame[0] = (char)depth;
	frame[1023] = prev ? prev[0] : 0;
	if (depth == 0)
		return frame[0] + frame[1023];
	return recurse(depth - 1, frame) + frame[0];
}

/* The stack grows to several MB (the limit is 8 MB). */
UT_CASE(t_stack)
{
	int r = recurse(4000, NULL);   /* about 4 MB of frames */

	CHECK(r != -1, "unreachable");
}

/* Touching unmapped memory kills only the offender, with SIGSEGV. */
/* A program's text is read-only: a store into it is SIGSEGV, a read(2) into it EFAULT. */
UT_CASE(t_text_ro)
{
	volatile char *text = (volatile char *)(uintptr_t)t_segv;
	char before = *text;
	int status, fd;
	pid_t pid = fork();

	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		*text = 0;
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "a store into the text gave status %#x", status);
	CHECK((fd = open("/dev/zero", O_RDONLY)) >= 0, "open /dev/zero: %s", strerror(errno));
	EXPECT_ERR(read(fd, (void *)text, 16), EFAULT);
	close(fd);
	CHECK(*text == before, "read(2) changed the text");
}

/*
 * exec(2) of TXT/cat with /dev/null for input, in a child: 0 if it ran (and ended well), else
 * the errno execve failed with.
 */
#define TXT "/tmp/ut/txt"

static int exec_cat_errno(void)
{
	char *argv[] = { "cat", NULL };
	pid_t pid = fork();
	int code;

	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0)
			_exit(200);
		execve(TXT "/cat", argv, NULL);
		_exit(errno);
	}
	return pid < 0 || ut_waitexit(pid, &code) != pid ? -1 : code;
}

/*
 * Busy text (FreeBSD 4's vn_writechk and exec_check_permissions): a program being run cannot be
 * opened for writing, truncated or reported writable, by root either, but may be read; a file
 * open for writing, or mapped writable and shared, cannot be run. Each lasts as long as the
 * other side does.
 */
UT_CASE(t_text_busy)
{
	char *argv[] = { "cat", NULL };
	int in[2], fd, code, tries;
	void *p;
	pid_t pid;

	ut_rmtree(TXT);
	CHECK(mkdir(TXT, 0755) == 0 && ut_copyfile("/bin/cat", TXT "/cat") == 0 && pipe(in) == 0,
	      "setup: %s", strerror(errno));
	if ((pid = fork()) == 0) {             /* cat, running, waiting on the pipe */
		dup2(in[0], 0);
		close(in[0]);
		close(in[1]);
		execve(TXT "/cat", argv, NULL);
		_exit(127);
	}
	close(in[0]);
	for (tries = 0; tries < 500 && access(TXT "/cat", W_OK) == 0; tries++)
		usleep(10000);                  /* until its exec has mapped the file */
	EXPECT_ERR(access(TXT "/cat", W_OK), ETXTBSY);
	EXPECT_ERR(open(TXT "/cat", O_WRONLY), ETXTBSY);
	EXPECT_ERR(open(TXT "/cat", O_RDWR), ETXTBSY);
	EXPECT_ERR(open(TXT "/cat", O_RDONLY | O_TRUNC), ETXTBSY);
	EXPECT_ERR(open(TXT "/cat", O_WRONLY | O_CREAT, 0644), ETXTBSY);
	EXPECT_ERR(truncate(TXT "/cat", 0), ETXTBSY);
	CHECK((fd = open(TXT "/cat", O_RDONLY)) >= 0 && close(fd) == 0 && access(TXT "/cat", R_OK | X_OK) == 0,
	      "reading a running program: %s", strerror(errno));
	close(in[1]);                           /* cat reads its end and exits */
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "cat ended with %d", code);
	CHECK((fd = open(TXT "/cat", O_WRONLY)) >= 0, "writing the program once it ended: %s", strerror(errno));
	/* the other way round: a writer keeps it from running */
	CHECK((code = exec_cat_errno()) == ETXTBSY, "exec of a file open for writing: %s, expected ETXTBSY",
	      code == 0 ? "it ran" : ut_errname(code));
	close(fd);
	CHECK((fd = open(TXT "/cat", O_RDWR)) >= 0 &&
	      (p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0)) != MAP_FAILED && close(fd) == 0,
	      "mapping it shared: %s", strerror(errno));
	CHECK((code = exec_cat_errno()) == ETXTBSY, "exec of a file mapped writable and shared: %s, expected "
	      "ETXTBSY", code == 0 ? "it ran" : ut_errname(code));
	CHECK(munmap(p, 4096) == 0 && (code = exec_cat_errno()) == 0, "exec once the mapping is gone: %s",
	      code == 0 ? "ran" : ut_errname(code));
}

/* The kernel keeps its own %gs (this CPU's struct cpu) and gives the user's back: a process that
 * loads the null selector or its data selector into %gs and %fs makes system calls, forks and is
 * preempted, and finds its values again; the kernel goes on working for everyone. */
UT_CASE(t_segregs)
{
	uint16_t ds, fs, gs;
	int status;

	__asm__ volatile("movw %%ds, %0" : "=r"(ds));
	for (int round = 0; round < 2; round++) {
		uint16_t want = round == 0 ? 0 : ds;
		__asm__ volatile("movw %0, %%fs; movw %0, %%gs" : : "r"(want));
		for (int i = 0; i < 2000; i++)
			getpid();
		pid_t pid = fork();
		CHECK(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0) {
			__asm__ volatile("movw %%gs, %0" : "=r"(gs));
			_exit(gs == want ? 0 : 1);
		}
		CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
		__asm__ volatile("movw %%fs, %0; movw %%gs, %1" : "=r"(fs), "=r"(gs));
		CHECK(fs == want && gs == want, "after system calls %%fs=%#x %%gs=%#x, expected %#x", fs, gs, want);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's %%gs was not %#x (status %#x)",
		      want, status);
	}
}

UT_CASE(t_segv)
{
	static void *const addrs[] = { (void *)0, (void *)0x1000, (void *)0x80000000, (void *)0xfffff000 };
	int status;

	for (unsigned i = 0; i < sizeof addrs / sizeof addrs[0]; i++) {
		pid_t pid = fork();
		CHECK(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0) {
			*(volatile int *)addrs[i] = 1;
			_exit(0);
		}
		CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
		      "writing %p gave status %#x, expected SIGSEGV", addrs[i], status);
	}
}
