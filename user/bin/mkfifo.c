/*
 * mkfifo: make FIFOs (named pipes), after FreeBSD 4's mkfifo(1) manual page.
 *   mkfifo [-m mode] fifo ...
 * Each FIFO gets mode 0666 less the umask, or with -m exactly `mode` (octal or symbolic,
 * applied to a=rw as FreeBSD does: the umask is set to 0 for it). Exit status 1 on errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <libutil.h>
#include <err.h>

#define BASEMODE (S_IRUSR | S_IWUSR | S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH)

static void usage(void)
{
	fprintf(stderr, "usage: mkfifo [-m mode] fifo_name ...\n");
	exit(1);
}

int main(int argc, char **argv)
{
	mode_t mode = BASEMODE;
	void *set;
	int c, status = 0;

	while ((c = getopt(argc, argv, "m:")) != -1) {
		switch (c) {
		case 'm':
			umask(0);
			if ((set = setmode(optarg)) == NULL)
				errx(1, "invalid file mode: %s", optarg);
			mode = getmode(set, BASEMODE);
			free(set);
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	for (int i = optind; i < argc; i++) {
		if (mkfifo(argv[i], mode) < 0) {
			warn("%s", argv[i]);
			status = 1;
		}
	}
	return status;
}
