/*
 * head: print the first lines (or bytes) of files.
 * usage: head [-n count | -c bytes] [file ...]
 * Like FreeBSD's head(1), the obsolete form "head -count" means "head -n count".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <err.h>

/* Copy the first n lines of f to stdout, or the first n bytes if bybytes. */
static void head(FILE *f, long n, int bybytes)
{
	int c;

	while (n > 0 && (c = fgetc(f)) != EOF) {
		putchar(c);
		if (bybytes || c == '\n')
			n--;
	}
}

/* A positive count, or exit with head(1)'s message naming what was counted. */
static long count_arg(const char *s, const char *what)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*s == '\0' || *end || n <= 0)
		errx(1, "illegal %s count -- %s", what, s);
	return n;
}

int main(int argc, char **argv)
{
	long lines = 0, bytes = 0;
	int c, status = 0;

	if (argc > 1 && argv[1][0] == '-' && argv[1][1] >= '0' && argv[1][1] <= '9') {
		lines = count_arg(argv[1] + 1, "line");
		argv[1] = argv[0];	/* getopt then starts after the obsolete count */
		argv++;
		argc--;
	}
	while ((c = getopt(argc, argv, "n:c:")) != -1) {
		if (c == 'n')
			lines = count_arg(optarg, "line");
		else if (c == 'c')
			bytes = count_arg(optarg, "byte");
		else
			goto usage;
	}
	if (lines && bytes)
		errx(1, "can't combine line and byte counts");
	if (!lines && !bytes)
		lines = 10;
	if (optind == argc) {
		head(stdin, bytes ? bytes : lines, bytes != 0);
		return 0;
	}
	for (int i = optind; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		if (!f) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		if (argc - optind > 1)
			printf("%s==> %s <==\n", i > optind ? "\n" : "", argv[i]);
		head(f, bytes ? bytes : lines, bytes != 0);
		fclose(f);
	}
	return status;
usage:
	fprintf(stderr, "usage: head [-n lines | -c bytes] [file ...]\n");
	return 1;
}
