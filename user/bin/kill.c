/*
 * kill: send a signal (default TERM) to processes or process groups, as FreeBSD's kill(1).
 *   kill [-s signal_name] pid ...     kill -signal_name pid ...     kill -signal_number pid ...
 *   kill -l [exit_status]
 * A pid below -1 names a process group (kill(2): -pgid); `--` ends the options, so
 * `kill -- -1234` sends TERM to group 1234. Errors name the operand: "kill: 1234: No such
 * process". kill -l lists the signal names; with an exit status (128 + a signal, or a signal
 * number) it names that one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <ctype.h>
#include <err.h>

static void usage(void)
{
	fprintf(stderr, "usage: kill [-s signal_name] pid ...\n"
	                "       kill -l [exit_status]\n"
	                "       kill -signal_name pid ...\n"
	                "       kill -signal_number pid ...\n");
	exit(2);
}

static void printname(int sig)
{
	for (const char *p = sys_signame[sig]; *p; p++)
		putchar(toupper((unsigned char)*p));
}

static int listsigs(const char *status)
{
	char *end;
	long n;

	if (status) {
		n = strtol(status, &end, 10);
		if (!*status || *end || n < 0)
			errx(2, "illegal exit status: %s", status);
		if (n > 128)
			n -= 128;
		if (n <= 0 || n >= NSIG || !sys_signame[n])
			errx(2, "unknown signal %s; valid signals: see kill -l", status);
		printname((int)n);
		putchar('\n');
		return 0;
	}
	for (int s = 1; s < NSIG; s++)
		if (sys_signame[s]) {
			printname(s);
			putchar(' ');
		}
	putchar('\n');
	return 0;
}

static int signum(const char *name)
{
	int sig = signame_to_num(name);

	if (sig < 0)
		errx(2, "unknown signal %s; valid signals: see kill -l", name);
	return sig;
}

int main(int argc, char **argv)
{
	int sig = SIGTERM, status = 0, i = 1;
	char *end;

	if (argc < 2)
		usage();
	if (strcmp(argv[1], "-l") == 0) {
		if (argc > 3)
			usage();
		return listsigs(argv[2]);
	}
	if (strcmp(argv[1], "-s") == 0) {
		if (argc < 3)
			usage();
		sig = signum(argv[2]);
		i = 3;
	} else if (argv[1][0] == '-' && argv[1][1] && strcmp(argv[1], "--") != 0) {
		sig = signum(argv[1] + 1);
		i = 2;
	}
	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	if (i == argc)
		usage();
	for (; i < argc; i++) {
		long pid = strtol(argv[i], &end, 10);
		if (!*argv[i] || *end) {
			warnx("illegal process id: %s", argv[i]);
			status = 1;
		} else if (kill((pid_t)pid, sig) < 0) {
			warn("%s", argv[i]);
			status = 1;
		}
	}
	return status;
}
