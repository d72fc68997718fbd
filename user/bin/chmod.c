/*
 * chmod: change file modes (after FreeBSD's chmod(1), bin/chmod/chmod.c 1.27).
 *   chmod [-fv] [-R] mode file ...
 * mode is octal (644) or symbolic (u+x,go-w; see setmode(3) in lib/setmode.c), applied to
 * each file's current mode. A symbolic link operand is followed; with -R each file and
 * directory below it is changed too, and symbolic links found inside are left alone (as
 * FreeBSD's default -P walk does). -f: say nothing about files that cannot be changed;
 * -v: print each file changed. Exit status 1 if any file could not be changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <libutil.h>
#include <ftw.h>
#include <err.h>

static int fflag, vflag, status;
static void *set;

/* Change one file whose current mode is st->st_mode. */
static void change(const char *path, const struct stat *st)
{
	mode_t mode = getmode(set, st->st_mode);

	if (chmod(path, mode) < 0) {
		if (!fflag)
			warn("%s", path);
		status = 1;
	} else if (vflag) {
		printf("%s\n", path);
	}
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	switch (type) {
	case FTW_SL:                    /* a link inside the tree: not followed, not changed */
		break;
	case FTW_NS:
		if (!fflag)
			warn("%s", path);
		status = 1;
		break;
	case FTW_DNR:
		warnx("%s: cannot read the directory", path);
		status = 1;
		change(path, st);
		break;
	default:
		change(path, st);
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: chmod [-fRv] mode file ...\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct stat st;
	int c, rflag = 0;

	while ((c = getopt(argc, argv, "fRv")) != -1) {
		switch (c) {
		case 'f': fflag = 1; break;
		case 'R': rflag = 1; break;
		case 'v': vflag = 1; break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	if ((set = setmode(argv[0])) == NULL)
		errx(1, "invalid file mode: %s", argv[0]);
	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st) < 0) {
			if (!fflag)
				warn("%s", argv[i]);
			status = 1;
		} else if (rflag && S_ISDIR(st.st_mode)) {
			nftw(argv[i], visit, 16, FTW_PHYS);
		} else {
			change(argv[i], &st);
		}
	}
	return status;
}
