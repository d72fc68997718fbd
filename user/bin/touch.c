/*
 * touch: set files' access and modification times, creating files that do not exist.
 * usage: touch [-acm] [-r file | -t [[CC]YY]MMDDhhmm[.SS]] file ...
 * FreeBSD's touch(1) options, less -A, -d and -h. Times are UTC (wdrain has no time zones) and
 * whole seconds (all wdfs keeps).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <time.h>
#include <err.h>
#include <sys/stat.h>

static void usage(void)
{
	fprintf(stderr, "usage: touch [-acm] [-r file | -t [[CC]YY]MMDDhhmm[.SS]] file ...\n");
	exit(1);
}

/* The two digits at s as a number, or -1. */
static int two_digits(const char *s)
{
	if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9')
		return -1;
	return (s[0] - '0') * 10 + (s[1] - '0');
}

/*
 * -t's [[CC]YY]MMDDhhmm[.SS]: without CC, YY 69-99 is 19YY and 00-68 is 20YY; without YY, this
 * year (POSIX touch). Every field is checked against its range, the day against its month.
 */
static time_t parse_t(const char *arg)
{
	const char *dot = strchr(arg, '.');
	size_t len = dot ? (size_t)(dot - arg) : strlen(arg);
	int f[6], n = (int)len / 2, sec = 0;
	time_t now = time(NULL);
	struct tm tm, check;

	if ((len != 8 && len != 10 && len != 12) || (dot && strlen(dot) != 3))
		goto bad;
	for (int i = 0; i < n; i++)
		if ((f[i] = two_digits(arg + 2 * i)) < 0)
			goto bad;
	if (dot && (sec = two_digits(dot + 1)) < 0)
		goto bad;
	gmtime_r(&now, &tm);
	if (n == 6)
		tm.tm_year = f[0] * 100 + f[1] - 1900;
	else if (n == 5)
		tm.tm_year = f[0] < 69 ? f[0] + 100 : f[0];
	tm.tm_mon = f[n - 4] - 1;
	tm.tm_mday = f[n - 3];
	tm.tm_hour = f[n - 2];
	tm.tm_min = f[n - 1];
	tm.tm_sec = sec;
	check = tm;
	timegm(&check);   /* a field out of its range carries into the next, changing the date */
	if (check.tm_mon != tm.tm_mon || check.tm_mday != tm.tm_mday || check.tm_hour != tm.tm_hour ||
	    check.tm_min != tm.tm_min || check.tm_sec != tm.tm_sec)
		goto bad;
	return timegm(&tm);
bad:
	errx(1, "illegal time specification -- %s (want [[CC]YY]MMDDhhmm[.SS])", arg);
}

/* Set path's times to tv (keeping the one not asked for); create it first unless -c. */
static int touch(const char *path, struct timeval tv[2], int aflag, int mflag, int cflag)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		if (errno != ENOENT) {
			warn("%s", path);
			return 1;
		}
		if (cflag)
			return 0;
		int fd = open(path, O_WRONLY | O_CREAT, 0666);
		if (fd < 0 || fstat(fd, &st) < 0) {
			warn("%s", path);
			if (fd >= 0)
				close(fd);
			return 1;
		}
		close(fd);
	}
	struct timeval t[2] = { tv[0], tv[1] };
	if (!aflag)
		t[0].tv_sec = st.st_atime;
	if (!mflag)
		t[1].tv_sec = st.st_mtime;
	if (utimes(path, t) < 0) {
		warn("%s", path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct timeval tv[2] = { { 0, 0 }, { 0, 0 } };
	int aflag = 0, cflag = 0, mflag = 0, timeset = 0, c, status = 0;
	struct stat st;

	while ((c = getopt(argc, argv, "acmr:t:")) != -1) {
		switch (c) {
		case 'a': aflag = 1; break;
		case 'c': cflag = 1; break;
		case 'm': mflag = 1; break;
		case 'r':
			if (stat(optarg, &st) < 0)
				err(1, "%s", optarg);
			tv[0].tv_sec = st.st_atime;
			tv[1].tv_sec = st.st_mtime;
			timeset = 1;
			break;
		case 't':
			tv[0].tv_sec = tv[1].tv_sec = parse_t(optarg);
			timeset = 1;
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
	if (!aflag && !mflag)
		aflag = mflag = 1;
	if (!timeset)
		tv[0].tv_sec = tv[1].tv_sec = time(NULL);
	for (int i = optind; i < argc; i++)
		status |= touch(argv[i], tv, aflag, mflag, cflag);
	return status;
}
