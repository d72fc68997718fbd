/* wc: count lines, words and bytes, FreeBSD's format ("%8ju" per column, then the name).
 * usage: wc [-clw] [file ...] */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <ctype.h>
#include <err.h>

static int lflag, wflag, cflag;
static unsigned long long tlines, twords, tbytes;

static void show(unsigned long long l, unsigned long long w, unsigned long long c, const char *name)
{
	if (lflag) printf(" %7llu", l);
	if (wflag) printf(" %7llu", w);
	if (cflag) printf(" %7llu", c);
	if (name)
		printf(" %s", name);
	putchar('\n');
}

static int count(int fd, const char *name)
{
	static char buf[32768];
	unsigned long long l = 0, w = 0, c = 0;
	int inword = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0) {
		c += n;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n')
				l++;
			if (isspace((unsigned char)buf[i]))
				inword = 0;
			else if (!inword) {
				inword = 1;
				w++;
			}
		}
	}
	if (n < 0) {
		warn("%s", name ? name : "stdin");
		return -1;
	}
	show(l, w, c, name);
	tlines += l;
	twords += w;
	tbytes += c;
	return 0;
}

int main(int argc, char **argv)
{
	int c, status = 0;

	while ((c = getopt(argc, argv, "clw")) != -1) {
		switch (c) {
		case 'c': cflag = 1; break;
		case 'l': lflag = 1; break;
		case 'w': wflag = 1; break;
		default:
			fprintf(stderr, "usage: wc [-clw] [file ...]\n");
			return 1;
		}
	}
	if (!lflag && !wflag && !cflag)
		lflag = wflag = cflag = 1;
	if (optind == argc)
		return count(0, NULL) < 0;
	for (int i = optind; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		if (count(fd, argv[i]) < 0)
			status = 1;
		close(fd);
	}
	if (argc - optind > 1)
		show(tlines, twords, tbytes, "total");
	return status;
}
