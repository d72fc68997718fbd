/* head: print the first lines of files. usage: head [-n count] [file ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <err.h>

static void head(FILE *f, long n)
{
	int c;

	while (n > 0 && (c = fgetc(f)) != EOF) {
		putchar(c);
		if (c == '\n')
			n--;
	}
}

int main(int argc, char **argv)
{
	long n = 10;
	char *end;
	int c, status = 0;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n')
			goto usage;
		n = strtol(optarg, &end, 10);
		if (*end || n <= 0)
			errx(1, "illegal line count -- %s", optarg);
	}
	if (optind == argc) {
		head(stdin, n);
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
		head(f, n);
		fclose(f);
	}
	return status;
usage:
	fprintf(stderr, "usage: head [-n lines] [file ...]\n");
	return 1;
}
