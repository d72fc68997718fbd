/*
 * mknod: make a character or block device node (FreeBSD's /sbin/mknod as FreeBSD 3 and 4 had it,
 * sbin/mknod/mknod.c, [@fbsd-mknod]).
 *   mknod name [b | c] major minor
 * The node gets mode 0666 less the umask and the number makedev(major, minor) (<sys/types.h>;
 * docs/vfs.md "Device nodes"); numbers are decimal, octal (0...) or hex (0x...). Only root may
 * make one (mknod(2): EPERM). Errors, status 1: "node must be type 'b' or 'c'",
 * "X: non-numeric major number" (minor likewise), "major or minor number too large" (a major past
 * 255, a minor using bits 8-15), "mknod: name: strerror".
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>
#include <err.h>
#include <sys/stat.h>

/* A number of the command line; its name says which one, for the message. */
static unsigned long number(const char *s, const char *name, int *range_error)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 0);
	if (end == s || *end != '\0')
		errx(1, "%s: non-numeric %s number", s, name);
	*range_error |= errno;
	return n;
}

int main(int argc, char **argv)
{
	unsigned long ma, mi;
	int range_error = 0;
	mode_t mode = 0666;
	dev_t dev;

	if (argc != 5) {
		fprintf(stderr, "usage: mknod name [b | c] major minor\n");
		return 1;
	}
	if (argv[2][0] == 'c')
		mode |= S_IFCHR;
	else if (argv[2][0] == 'b')
		mode |= S_IFBLK;
	else
		errx(1, "node must be type 'b' or 'c'");
	ma = number(argv[3], "major", &range_error);
	mi = number(argv[4], "minor", &range_error);
	dev = makedev(ma, mi);
	if (range_error || (unsigned long)major(dev) != ma || (unsigned long)(unsigned)minor(dev) != mi)
		errx(1, "major or minor number too large");
	if (mknod(argv[1], mode, dev) < 0)
		err(1, "%s", argv[1]);
	return 0;
}
