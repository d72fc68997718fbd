/*
 * time: run a command and report its real, user and system time on stderr in FreeBSD's format
 *   "%9ld.%02ld real %9ld.%02ld user %9ld.%02ld sys" (-p: POSIX's "real 1.23" lines).
 * Exits with the command's status (128 + signal if it was killed; 127 if it was not found).
 * usage: time [-p] utility [argument ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <err.h>

int main(int argc, char **argv)
{
	struct timeval t0, t1;
	struct rusage ru;
	int c, pflag = 0, status;
	long rs, rcs;
	pid_t pid;

	while ((c = getopt(argc, argv, "p")) != -1) {
		if (c != 'p')
			goto usage;
		pflag = 1;
	}
	if (optind == argc)
		goto usage;
	gettimeofday(&t0, NULL);
	fflush(NULL);
	if ((pid = fork()) < 0)
		err(1, "fork");
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		warn("%s", argv[optind]);
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		err(1, "wait4");
	gettimeofday(&t1, NULL);
	rs = (long)(t1.tv_sec - t0.tv_sec);
	rcs = (t1.tv_usec - t0.tv_usec) / 10000;
	if (rcs < 0) {
		rs--;
		rcs += 100;
	}
	if (pflag)
		fprintf(stderr, "real %ld.%02ld\nuser %ld.%02ld\nsys %ld.%02ld\n", rs, rcs,
		        (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec / 10000,
		        (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec / 10000);
	else
		fprintf(stderr, "%9ld.%02ld real %9ld.%02ld user %9ld.%02ld sys\n", rs, rcs,
		        (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec / 10000,
		        (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec / 10000);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
usage:
	fprintf(stderr, "usage: time [-p] utility [argument ...]\n");
	return 1;
}
