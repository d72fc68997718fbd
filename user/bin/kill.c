/* kill: send a signal (default TERM) to processes.
 * usage: kill [-s signal_name] pid ... | kill -signal_name pid ... | kill -signal_number pid ... | kill -l */
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

static void listsigs(void)
{
	for (int s = 1; s < NSIG; s++)
		if (sys_signame[s]) {
			for (const char *p = sys_signame[s]; *p; p++)
				putchar(toupper((unsigned char)*p));
			putchar(s + 1 < NSIG ? ' ' : '\n');
		}
	putchar('\n');
}

int main(int argc, char **argv)
{
	int sig = SIGTERM, status = 0, i = 1;
	char *end;

	if (argc < 2)
		usage();
	if (strcmp(argv[1], "-l") == 0) {
		listsigs();
		return 0;
	}
	if (strcmp(argv[1], "-s") == 0) {
		if (argc < 3)
			usage();
		if ((sig = signame_to_num(argv[2])) < 0)
			errx(2, "unknown signal %s; valid signals: see kill -l", argv[2]);
		i = 3;
	} else if (argv[1][0] == '-' && argv[1][1]) {
		if ((sig = signame_to_num(argv[1] + 1)) < 0)
			errx(2, "unknown signal %s; valid signals: see kill -l", argv[1] + 1);
		i = 2;
	}
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
