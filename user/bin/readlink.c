/*
 * readlink: print the target of symbolic links (FreeBSD's readlink(1), which is stat(1) run
 * as readlink: usr.bin/stat/stat.c, freebsd-src 01ac1ea9).
 *   readlink [-fn] [file ...]
 * Each file that is a symbolic link has its target printed as stored; a file that is not a
 * link, or does not exist, prints nothing and makes the status 1 (no message: readlink is
 * stat -q). -f prints the file's canonical absolute path instead (realpath(3): every link
 * followed, "." and ".." resolved), for any file that exists. -n leaves out the newlines.
 * With no file it prints nothing and exits 1 (FreeBSD's looks at standard input, never a link).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <limits.h>

int main(int argc, char **argv)
{
	char buf[PATH_MAX];
	int c, fflag = 0, nflag = 0, status = 0;

	while ((c = getopt(argc, argv, "fn")) != -1) {
		switch (c) {
		case 'f': fflag = 1; break;
		case 'n': nflag = 1; break;
		default:
			fprintf(stderr, "usage: readlink [-fn] [file ...]\n");
			return 1;
		}
	}
	if (optind == argc)
		return 1;
	for (int i = optind; i < argc; i++) {
		ssize_t n;

		if (fflag) {
			if (realpath(argv[i], buf) == NULL) {
				status = 1;
				continue;
			}
		} else {
			if ((n = readlink(argv[i], buf, sizeof buf - 1)) < 0) {
				status = 1;
				continue;
			}
			buf[n] = 0;
		}
		printf("%s%s", buf, nflag ? "" : "\n");
	}
	return status;
}
