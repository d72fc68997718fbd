/* tail: print the last lines of files (read whole into memory). usage: tail [-n count] [file ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <err.h>

/* Read all of fd into a malloc'd buffer; -1 on error. */
static ssize_t slurp(int fd, char **bufp)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf)
		errx(1, "out of memory");
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += n;
		if (len == cap && !(buf = realloc(buf, cap *= 2)))
			errx(1, "out of memory");
	}
	*bufp = buf;
	return n < 0 ? -1 : (ssize_t)len;
}

static int tail(int fd, const char *name, long n)
{
	char *buf;
	ssize_t len = slurp(fd, &buf), start;

	if (len < 0) {
		warn("%s", name);
		free(buf);
		return -1;
	}
	/* walk back over n newlines (not counting a final one) */
	start = len;
	if (start > 0 && buf[start - 1] == '\n')
		start--;
	while (start > 0) {
		if (buf[start - 1] == '\n' && --n == 0)
			break;
		start--;
	}
	fwrite(buf + start, 1, len - start, stdout);
	free(buf);
	return 0;
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
		if (*end || n < 0)
			errx(1, "illegal offset -- %s", optarg);
	}
	if (optind == argc)
		return n > 0 && tail(0, "stdin", n) < 0;
	for (int i = optind; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		if (argc - optind > 1)
			printf("%s==> %s <==\n", i > optind ? "\n" : "", argv[i]);
		if (n > 0 && tail(fd, argv[i], n) < 0)
			status = 1;
		close(fd);
	}
	return status;
usage:
	fprintf(stderr, "usage: tail [-n lines] [file ...]\n");
	return 1;
}
