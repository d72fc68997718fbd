/*
 * ut_sig.c: signals (kernel/kern/kern_sig.c): handlers, ignoring, blocking, what fork and exec
 * keep, EINTR, SIGKILL's exceptions, kill(2) of a process group, and the calls' errors.
 * Each case runs in a child of its own (usertests), so a signal that wrongly kills ends only it.
 */
#include "usertests.h"
#include <sys/wait.h>
#include <sys/syscall.h>

static volatile sig_atomic_t caught, caught_sig, depth_seen;

static void on_signal(int sig)
{
	caught++;
	caught_sig = sig;
}

/* A handler that sends itself its own signal: blocked while it runs, so taken after. */
static void on_signal_again(int sig)
{
	if (caught++ == 0) {
		kill(getpid(), sig);
		depth_seen = caught;             /* still 1: the second one waits for the return */
	}
}

static int catch(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa = { fn, flags, 0 };

	return sigaction(sig, &sa, NULL);
}

/* A handler runs, the interrupted code goes on with its registers intact, and it repeats. */
UT_CASE(t_sig_handler)
{
	volatile unsigned sum = 0;

	CHECK(catch(SIGUSR1, on_signal, 0) == 0, "sigaction: %s", strerror(errno));
	for (unsigned i = 1; i <= 1000; i++) {
		sum += i;
		if (i % 250 == 0)
			CHECK(kill(getpid(), SIGUSR1) == 0, "kill self: %s", strerror(errno));
	}
	CHECK(caught == 4 && caught_sig == SIGUSR1, "the handler ran %d times (signal %d), expected 4 (%d)",
	      (int)caught, (int)caught_sig, SIGUSR1);
	CHECK(sum == 500500, "the sum computed around the handlers is %u, expected 500500", sum);
	caught = 0;
	CHECK(catch(SIGUSR2, on_signal_again, 0) == 0, "sigaction: %s", strerror(errno));
	raise(SIGUSR2);
	CHECK(caught == 2 && depth_seen == 1, "a signal sent from its own handler: %d runs, %d inside, "
	      "expected 2 and 1 (blocked until the handler returned)", (int)caught, (int)depth_seen);
	caught = 0;
	CHECK(catch(SIGUSR1, on_signal, SA_RESETHAND) == 0, "sigaction SA_RESETHAND: %s", strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		raise(SIGUSR1);
		raise(SIGUSR1);                  /* the default action now */
		_exit(caught == 1 ? 0 : 1);
	}
	int code;
	ut_waitexit(pid, &code);
	CHECK(code == 128 + SIGUSR1, "SA_RESETHAND: the second signal gave %d, expected %d", code, 128 + SIGUSR1);
}

/* SIG_IGN drops the signal; fork and exec keep it; a caught signal is SIG_DFL after exec. */
UT_CASE(t_sig_ignore_exec)
{
	struct sigaction old;
	int code;

	CHECK(signal(SIGTERM, SIG_IGN) == SIG_DFL, "signal(SIGTERM, SIG_IGN) did not return SIG_DFL");
	CHECK(kill(getpid(), SIGTERM) == 0, "kill self: %s", strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { "sh", "-c", "kill -TERM $$; exit 7", NULL };
		execv("/bin/sh", argv);
		_exit(99);
	}
	ut_waitexit(pid, &code);
	CHECK(code == 7, "a program exec'd with SIGTERM ignored, sending itself SIGTERM: status %d, expected 7", code);
	CHECK(catch(SIGUSR1, on_signal, 0) == 0, "sigaction: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "sh", "-c", "kill -USR1 $$; exit 7", NULL };
		execv("/bin/sh", argv);
		_exit(99);
	}
	ut_waitexit(pid, &code);
	CHECK(code == 128 + SIGUSR1, "a caught signal after exec gave status %d, expected %d (SIG_DFL)", code,
	      128 + SIGUSR1);
	CHECK(sigaction(SIGUSR1, NULL, &old) == 0 && old.sa_handler == on_signal, "sigaction did not report the handler");
	CHECK(signal(SIGTERM, SIG_DFL) == SIG_IGN, "signal(SIGTERM, SIG_DFL) did not return SIG_IGN");
}

/* A blocked signal waits; unblocking it runs the handler before sigprocmask returns. */
UT_CASE(t_sig_mask)
{
	sigset_t set, old;

	CHECK(catch(SIGUSR1, on_signal, 0) == 0, "sigaction: %s", strerror(errno));
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGKILL);
	CHECK(sigprocmask(SIG_BLOCK, &set, &old) == 0 && old == 0, "sigprocmask block: %s", strerror(errno));
	raise(SIGUSR1);
	raise(SIGUSR1);
	CHECK(caught == 0, "a blocked signal's handler ran");
	CHECK(sigprocmask(SIG_SETMASK, NULL, &old) == 0 && old == sigmask(SIGUSR1),
	      "the mask is %#x, expected %#x (SIGKILL cannot be blocked)", old, sigmask(SIGUSR1));
	CHECK(sigprocmask(SIG_UNBLOCK, &set, NULL) == 0, "sigprocmask unblock: %s", strerror(errno));
	CHECK(caught == 1, "after unblocking, the handler ran %d times, expected once (pending is a set)", (int)caught);
	EXPECT_ERR(sigprocmask(0, &set, NULL), EINVAL);
	EXPECT_ERR(sigprocmask(SIG_BLOCK, (sigset_t *)0xc0000000, NULL), EFAULT);
	EXPECT_ERR(sigprocmask(SIG_BLOCK, NULL, (sigset_t *)0xc0000000), EFAULT);
}

/* A caught signal ends a blocked read with EINTR; an ignored one does not end it. */
UT_CASE(t_sig_eintr)
{
	int fds[2], code;
	char c;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[1]);
		catch(SIGUSR1, on_signal, 0);
		signal(SIGUSR2, SIG_IGN);
		ssize_t n = read(fds[0], &c, 1);
		_exit(n == -1 && errno == EINTR && caught == 1 ? 0 : 1);
	}
	close(fds[0]);
	usleep(100000);
	kill(pid, SIGUSR2);
	usleep(100000);
	kill(pid, SIGUSR1);
	ut_waitexit(pid, &code);
	close(fds[1]);
	CHECK(code == 0, "the child's read after SIGUSR2 (ignored) then SIGUSR1 (caught): status %d, expected 0 "
	      "(-1 with EINTR once the handler ran)", code);
}

/* SIGKILL cannot be caught or ignored; a fault kills even with a handler for its signal. */
UT_CASE(t_sig_kill_fault)
{
	int code;

	EXPECT_ERR(catch(SIGKILL, on_signal, 0), EINVAL);
	EXPECT_ERR(signal(SIGKILL, SIG_IGN) == SIG_ERR ? -1 : 0, EINVAL);
	EXPECT_ERR(catch(0, on_signal, 0), EINVAL);
	EXPECT_ERR(catch(NSIG, on_signal, 0), EINVAL);
	EXPECT_ERR(catch(SIGUSR1, on_signal, 0x2), EINVAL);       /* SA_RESTART: not here */
	EXPECT_ERR(sigaction(SIGUSR1, (struct sigaction *)0xc0000000, NULL), EFAULT);
	pid_t pid = fork();
	if (pid == 0) {
		catch(SIGSEGV, on_signal, 0);
		*(volatile int *)0 = 1;
		_exit(0);
	}
	ut_waitexit(pid, &code);
	CHECK(code == 128 + SIGSEGV, "a NULL store with a SIGSEGV handler gave %d, expected %d", code, 128 + SIGSEGV);
	/* sigreturn takes only user registers: a context with a kernel eip and every flag set
	 * ends the process at its next instruction, never the kernel */
	EXPECT_ERR(syscall(SYS_sigreturn, NULL), EFAULT);
	if ((pid = fork()) == 0) {
		struct sigcontext sc = { .sc_eip = 0xc0001000, .sc_esp = 0x10, .sc_eflags = 0xffffffff };
		syscall(SYS_sigreturn, &sc);
		_exit(0);
	}
	ut_waitexit(pid, &code);
	CHECK(code == 128 + SIGSEGV, "sigreturn to a kernel address gave %d, expected %d", code, 128 + SIGSEGV);
}

/* kill(-pgid, sig) signals the group; no such group is ESRCH; 0 and -1 are refused. */
UT_CASE(t_sig_killpg)
{
	pid_t kids[2];
	int code;

	for (int i = 0; i < 2; i++) {
		if ((kids[i] = fork()) == 0) {
			for (;;)
				usleep(100000);
		}
		CHECK(kids[i] > 0, "fork: %s", strerror(errno));
		CHECK(setpgid(kids[i], kids[0]) == 0, "setpgid: %s", strerror(errno));
	}
	CHECK(kill(-kids[0], SIGTERM) == 0, "kill(-%d, SIGTERM): %s", kids[0], strerror(errno));
	for (int i = 0; i < 2; i++) {
		ut_waitexit(kids[i], &code);
		CHECK(code == 128 + SIGTERM, "group member %d ended with %d, expected %d", i, code, 128 + SIGTERM);
	}
	EXPECT_ERR(kill(-kids[0], SIGTERM), ESRCH);
	EXPECT_ERR(kill(-1234567, SIGTERM), ESRCH);
	EXPECT_ERR(kill((pid_t)0x80000000, SIGTERM), ESRCH);
	EXPECT_ERR(kill(0, SIGTERM), EINVAL);
	EXPECT_ERR(kill(-1, SIGTERM), EINVAL);
	EXPECT_ERR(kill(-getpgrp(), NSIG), EINVAL);
}

/*
 * The direction flag is the user's (a sigcontext may restore it): a write(2) made with DF set
 * must still copy its bytes forward, so the kernel clears DF at every entry (trapasm.S cld).
 */
UT_CASE(t_sig_dflag)
{
	static const char msg[16] = "0123456789abcdef";
	char got[16];
	int fds[2];
	long r;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	__asm__ volatile("std\n\tint $0x80\n\tcld"
	                 : "=a"(r)
	                 : "a"(SYS_write), "b"(fds[1]), "c"(msg), "d"(sizeof msg)
	                 : "memory", "cc");
	CHECK(r == (long)sizeof msg, "write with DF set returned %ld", r);
	CHECK(read(fds[0], got, sizeof got) == (ssize_t)sizeof got && memcmp(got, msg, sizeof msg) == 0,
	      "the bytes written with DF set came out as \"%.16s\"", got);
	close(fds[0]);
	close(fds[1]);
}
