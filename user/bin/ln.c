/*
 * ln: make links (after FreeBSD's ln(1), bin/ln/ln.c 1.33).
 *   ln [-fhnsv] source target
 *   ln [-fhnsv] source ... directory
 * Hard links by default; -s makes symbolic links, whose source is stored as it is given (it
 * need not exist). In the second form each link gets the source's last component as its name.
 * -f removes an existing target first; -h (-n) does not follow a target that is a symbolic
 * link to a directory, so -f replaces the link itself; -v prints "target -> source" (symbolic)
 * or "target => source" (hard) for each link made. Exit status 1 if any link failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <errno.h>
#include <err.h>

static int fflag, hflag, sflag, vflag;

/* The last component of a path. */
static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Make one link named target to source; 0 or 1 (message printed). */
static int linkit(const char *source, const char *target)
{
	if (fflag && unlink(target) < 0 && errno != ENOENT) {
		warn("%s", target);
		return 1;
	}
	if ((sflag ? symlink(source, target) : link(source, target)) < 0) {
		warn("%s", target);
		return 1;
	}
	if (vflag)
		printf("%s %c> %s\n", target, sflag ? '-' : '=', source);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ln [-fhnsv] source target\n"
	                "       ln [-fhnsv] source ... directory\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct stat st;
	char target[PATH_MAX];
	const char *last;
	int c, status = 0, todir;

	while ((c = getopt(argc, argv, "fhnsv")) != -1) {
		switch (c) {
		case 'f': fflag = 1; break;
		case 'h': case 'n': hflag = 1; break;
		case 's': sflag = 1; break;
		case 'v': vflag = 1; break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	last = argv[argc - 1];
	todir = (hflag ? lstat(last, &st) : stat(last, &st)) == 0 && S_ISDIR(st.st_mode);
	if (argc > 2 && !todir)
		errx(1, "%s: Not a directory", last);
	for (int i = 0; i < argc - 1; i++) {
		if (todir)
			snprintf(target, sizeof target, "%s/%s", last, base(argv[i]));
		else
			strlcpy(target, last, sizeof target);
		status |= linkit(argv[i], target);
	}
	return status;
}
