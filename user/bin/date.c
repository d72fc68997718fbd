/* date: print the date and time (UTC) as FreeBSD does ("Thu Nov 14 22:13:20 UTC 2023"),
 * or in a strftime format. usage: date [-u] [+format] */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <err.h>

int main(int argc, char **argv)
{
	const char *fmt = "%a %b %e %H:%M:%S %Z %Y";
	char buf[512];
	struct tm tm;
	time_t now;
	int c;

	while ((c = getopt(argc, argv, "u")) != -1)
		if (c != 'u')
			goto usage;
	if (optind < argc) {
		if (argv[optind][0] != '+' || optind + 1 < argc)
			goto usage;
		fmt = argv[optind] + 1;
	}
	if (time(&now) == (time_t)-1)
		err(1, "gettimeofday");
	gmtime_r(&now, &tm);
	if (strftime(buf, sizeof buf, fmt, &tm) == 0 && *fmt)
		errx(1, "format too long");
	puts(buf);
	return 0;
usage:
	fprintf(stderr, "usage: date [-u] [+format]\n");
	return 1;
}
