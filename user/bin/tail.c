/*
 * tail: print the last lines (or bytes) of files; the whole file is read into memory.
 * usage: tail [-n count | -c bytes] [file ...]
 * As in FreeBSD's tail(1), a count "+N" starts at line (byte) N from the beginning instead,
 * and the obsolete forms "tail -N" and "tail +N" mean "tail -n -N" and "tail -n +N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <err.h>

struct count {
	long n;
	int bybytes;	/* count bytes, not lines */
	int fromstart;	/* "+N": start at the Nth line or byte */
};

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

/* Where the output of buf[0..len) starts for count c. */
static ssize_t tail_start(const char *buf, ssize_t len, struct count c)
{
	ssize_t start;
	long n = c.n;

	if (c.bybytes) {
		start = c.fromstart ? (n > 1 ? n - 1 : 0) : len - n;
		return start < 0 ? 0 : start > len ? len : start;
	}
	if (c.fromstart) {
		for (start = 0; start < len && n > 1; start++)
			if (buf[start] == '\n')
				n--;
		return start;
	}
	if (n == 0)
		return len;
	/* walk back over n newlines (not counting a final one) */
	start = len;
	if (start > 0 && buf[start - 1] == '\n')
		start--;
	while (start > 0) {
		if (buf[start - 1] == '\n' && --n == 0)
			break;
		start--;
	}
	return start;
}

static int tail(int fd, const char *name, struct count c)
{
	char *buf;
	ssize_t len = slurp(fd, &buf), start;

	if (len < 0) {
		warn("%s", name);
		free(buf);
		return -1;
	}
	start = tail_start(buf, len, c);
	fwrite(buf + start, 1, len - start, stdout);
	free(buf);
	return 0;
}

/* Parse "[+|-]N" into c, or exit with tail(1)'s message. */
static void count_arg(const char *arg, int bybytes, struct count *c)
{
	const char *s = arg;
	char *end;

	c->bybytes = bybytes;
	c->fromstart = *s == '+';
	if (*s == '+' || *s == '-')
		s++;
	c->n = strtol(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || c->n < 0)
		errx(1, "illegal offset -- %s", arg);
}

int main(int argc, char **argv)
{
	struct count c = { 10, 0, 0 };
	int opt, status = 0;

	if (argc > 1 && (argv[1][0] == '-' || argv[1][0] == '+') &&
	    argv[1][1] >= '0' && argv[1][1] <= '9') {
		count_arg(argv[1], 0, &c);
		argv[1] = argv[0];	/* getopt then starts after the obsolete count */
		argv++;
		argc--;
	}
	while ((opt = getopt(argc, argv, "n:c:")) != -1) {
		if (opt != 'n' && opt != 'c')
			goto usage;
		count_arg(optarg, opt == 'c', &c);
	}
	if (optind == argc)
		return tail(0, "stdin", c) < 0;
	for (int i = optind; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		if (argc - optind > 1)
			printf("%s==> %s <==\n", i > optind ? "\n" : "", argv[i]);
		if (tail(fd, argv[i], c) < 0)
			status = 1;
		close(fd);
	}
	return status;
usage:
	fprintf(stderr, "usage: tail [-n lines | -c bytes] [file ...]\n");
	return 1;
}
