/*
 * truncate: set the length of files (after FreeBSD 4.2's truncate(1) manual).
 *   truncate [-c] -s [+|-]size[K|M|G|T] file ...
 *   truncate [-c] -r rfile file ...
 * -s sets the length to size bytes, or grows (+) or shrinks (-) it by size; the suffixes
 * (either case) are powers of 1024; a file shrunk below 0 bytes becomes empty. -r takes the
 * length of rfile. A missing file is created (mode 0666 less the umask) unless -c. Bytes a
 * file grows by read as zeros. Exit status 1 if any file could not be truncated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <err.h>

static void usage(void)
{
	fprintf(stderr, "usage: truncate [-c] -s [+|-]size[K|k|M|m|G|g|T|t] file ...\n"
	                "       truncate [-c] -r rfile file ...\n");
	exit(1);
}

/* A size with an optional K/M/G/T suffix; -1 if s is not one. */
static off_t parse_size(const char *s)
{
	char *end;
	long long v;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	}
	if (errno != 0 || *end != '\0' || v > (0x7fffffffffffffffLL >> shift))
		return -1;
	return (off_t)(v << shift);
}

int main(int argc, char **argv)
{
	const char *sizearg = NULL, *rfile = NULL;
	int c, cflag = 0, sign = 0, status = 0;
	off_t size = 0;
	struct stat st;

	while ((c = getopt(argc, argv, "cr:s:")) != -1) {
		switch (c) {
		case 'c': cflag = 1; break;
		case 'r': rfile = optarg; break;
		case 's': sizearg = optarg; break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || (sizearg == NULL) == (rfile == NULL))
		usage();
	if (rfile != NULL) {
		if (stat(rfile, &st) < 0)
			err(1, "%s", rfile);
		size = st.st_size;
	} else {
		if (*sizearg == '+' || *sizearg == '-')
			sign = *sizearg++ == '+' ? 1 : -1;
		if ((size = parse_size(sizearg)) < 0)
			errx(1, "invalid size argument `%s'", sizearg);
	}
	for (int i = 0; i < argc; i++) {
		int fd = open(argv[i], O_WRONLY | (cflag ? 0 : O_CREAT), 0666);
		off_t len = size;

		if (fd < 0) {
			if (!(cflag && errno == ENOENT)) {
				warn("%s", argv[i]);
				status = 1;
			}
			continue;
		}
		if (sign != 0 && fstat(fd, &st) == 0)
			len = sign > 0 ? st.st_size + size : (st.st_size > size ? st.st_size - size : 0);
		if (ftruncate(fd, len) < 0) {
			warn("%s", argv[i]);
			status = 1;
		}
		close(fd);
	}
	return status;
}
