/* getopt.c: POSIX getopt(3) (user/libc). Options end at "--" or the first operand. */
#include <unistd.h>
#include <string.h>
#include <stdio.h>

char *optarg;
int   optind = 1, opterr = 1, optopt;
static int optpos = 1;   /* index of the next option letter within argv[optind] */

int getopt(int argc, char *const argv[], const char *optstring)
{
	const char *arg, *spec;
	int silent = optstring[0] == ':';

	optarg = NULL;
	if (optind >= argc || !(arg = argv[optind]) || arg[0] != '-' || arg[1] == 0)
		return -1;
	if (strcmp(arg, "--") == 0) {
		optind++;
		return -1;
	}
	optopt = arg[optpos++];
	spec = strchr(optstring + silent, optopt);
	if (!spec || optopt == ':') {
		if (opterr && !silent)
			fprintf(stderr, "%s: illegal option -- %c\n", argv[0], optopt);
		if (!arg[optpos]) {
			optind++;
			optpos = 1;
		}
		return '?';
	}
	if (spec[1] == ':') {
		if (arg[optpos]) {
			optarg = (char *)arg + optpos;
		} else if (optind + 1 < argc) {
			optarg = argv[++optind];
		} else {
			optind++;
			optpos = 1;
			if (opterr && !silent)
				fprintf(stderr, "%s: option requires an argument -- %c\n", argv[0], optopt);
			return silent ? ':' : '?';
		}
		optind++;
		optpos = 1;
	} else if (!arg[optpos]) {
		optind++;
		optpos = 1;
	}
	return optopt;
}
