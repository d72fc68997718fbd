/* cat: copy each file (or stdin, also for "-") to stdout. usage: cat [-u] [file ...] */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <err.h>

static char buf[32768];

/* Copy fd to stdout; 0 or -1 (message printed). */
static int copy(int fd, const char *name)
{
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(1, buf + off, n - off);
			if (w <= 0) {
				warn("stdout");
				return -1;
			}
			off += w;
		}
	}
	if (n < 0) {
		warn("%s", name);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int c, status = 0;

	while ((c = getopt(argc, argv, "u")) != -1) {
		if (c != 'u') {
			fprintf(stderr, "usage: cat [-u] [file ...]\n");
			return 1;
		}
	}
	if (optind == argc)
		return copy(0, "stdin") < 0;
	for (int i = optind; i < argc; i++) {
		int fd = strcmp(argv[i], "-") == 0 ? 0 : open(argv[i], O_RDONLY);
		if (fd < 0) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		if (copy(fd, argv[i]) < 0)
			status = 1;
		if (fd != 0)
			close(fd);
	}
	return status;
}
