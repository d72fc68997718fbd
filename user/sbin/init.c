/*
 * init: the first user process (pid 1), started by the kernel as /sbin/init.
 * It makes /dev/console its stdin, stdout and stderr, runs `/bin/sh /etc/rc` once, then
 * keeps an interactive /bin/sh on the console, starting a new one whenever it exits. Each
 * exit is reported on the console, `init: /bin/sh exited with status 3` (or `killed by signal
 * kill (9)`): the user who typed `exit 3` or ^D sees why the prompt came back, and tools/run
 * takes the status from that line (tools/wdrun.py).
 * While waiting it also reaps orphans, which the kernel re-parents to init.
 */
#include <stdio.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <time.h>
#include <err.h>
#include <signal.h>

static char *const env[] = { "PATH=/bin:/sbin", "HOME=/", NULL };

/* Console on fds 0, 1, 2. The kernel may already have set them up; then keep those. */
static void console(void)
{
	int fd = open("/dev/console", O_RDWR);

	if (fd < 0) {
		if (fcntl(1, F_GETFD) >= 0) {
			warn("/dev/console (using the descriptors init was given)");
			return;
		}
		_exit(1);   /* no console at all: the kernel reports init's exit */
	}
	for (int i = 0; i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

/* Start argv and wait for it, reaping any orphans that exit meanwhile. Its wait status, -1 if none. */
static int run(char *const argv[])
{
	pid_t pid, w;
	int status = 0;

	fflush(NULL);
	if ((pid = fork()) < 0) {
		warn("fork");
		sleep(1);
		return -1;
	}
	if (pid == 0) {
		execve(argv[0], argv, env);
		warn("%s", argv[0]);
		_exit(127);
	}
	do {
		w = wait(&status);
	} while (w != pid && !(w < 0 && errno == ECHILD));
	return w == pid ? status : -1;
}

static void report(const char *prog, int status)
{
	int sig;

	if (status < 0)
		return;
	if (WIFEXITED(status)) {
		printf("init: %s exited with status %d\n", prog, WEXITSTATUS(status));
	} else {
		sig = WTERMSIG(status);
		printf("init: %s killed by signal %s (%d)\n", prog, sig < NSIG && sys_signame[sig] ? sys_signame[sig] : "?", sig);
	}
	fflush(stdout);
}

int main(void)
{
	char *rc[] = { "/bin/sh", "/etc/rc", NULL };
	char *sh[] = { "/bin/sh", NULL };
	time_t started;

	console();
	environ = (char **)env;
	run(rc);
	for (;;) {
		started = time(NULL);
		report(sh[0], run(sh));
		if (time(NULL) - started < 1)
			sleep(1);   /* a shell that dies at once must not make init spin */
	}
}
