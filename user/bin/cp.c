/*
 * cp: copy files.
 *   cp [-f | -i | -n] [-pv] source target
 *   cp [-f | -i | -n] [-pv] source ... directory
 * FreeBSD's cp(1) without -R (directories are not copied; each is named and skipped). Facts
 * from FreeBSD's bin/cp/utils.c (copy_file, setfile; freebsd-src 0336d895):
 *   - a new target gets the source's mode less the set-user-ID and set-group-ID bits (then
 *     the umask); an existing target keeps its own mode and is truncated and rewritten;
 *   -f  an existing target is removed first and a new file made (so a target without write
 *       permission is replaced, as long as its directory may be written);
 *   -i  ask "overwrite TARGET? (y/n [n]) " on standard error; anything but y leaves it, with
 *       "not overwritten" (status 1);   -n  never overwrite (status 0);
 *       the last of -f, -i and -n wins;
 *   -p  keep the source's access and modification times, owner and group (if permitted: a
 *       chown refused with EPERM is silent and drops the set-ID bits) and mode, set-ID bits
 *       included;
 *   -v  print "SOURCE -> TARGET" for each file copied.
 * A source and target that are the same file are refused: "cp: A and B are identical (not
 * copied)." Errors are reported per file and the status is 1 if any failed.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <errno.h>
#include <err.h>

static char buf[65536];
static int fflag, iflag, nflag, pflag, vflag;

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* -i: the user's answer; 1 to overwrite. */
static int ask_overwrite(const char *to)
{
	int c, first;

	fprintf(stderr, "overwrite %s? (y/n [n]) ", to);
	first = c = getchar();
	while (c != '\n' && c != EOF)
		c = getchar();
	return first == 'y' || first == 'Y';
}

/* -p: the source's times, owner, group and mode onto the target (FreeBSD's setfile order:
 * times, then owner, then mode, since a chown clears the set-ID bits). 0 or -1. */
static int keep_attributes(const struct stat *st, int fd, const char *to)
{
	struct timeval tv[2] = { { st->st_atime, 0 }, { st->st_mtime, 0 } };
	mode_t mode = st->st_mode & 07777;
	int status = 0;

	if (utimes(to, tv) < 0) {
		warn("utimes: %s", to);
		status = -1;
	}
	if (fchown(fd, st->st_uid, st->st_gid) < 0) {
		if (errno != EPERM) {
			warn("chown: %s", to);
			status = -1;
		}
		mode &= ~(S_ISUID | S_ISGID);
	}
	if (fchmod(fd, mode) < 0) {
		warn("chmod: %s", to);
		status = -1;
	}
	return status;
}

/* Open the target as the options say: a new file, the existing one truncated, or (-f) the
 * existing one replaced. The descriptor, -1 after a message, or -2 when it is to be left. */
static int open_target(const char *to, const struct stat *from, int exists)
{
	int fd, newmode = from->st_mode & 0777 & ~(S_ISUID | S_ISGID);

	if (exists) {
		if (nflag) {
			if (vflag)
				printf("%s not overwritten\n", to);
			return -2;
		}
		if (iflag && !ask_overwrite(to)) {
			fprintf(stderr, "not overwritten\n");
			return -1;
		}
	}
	if (exists && fflag) {
		unlink(to);
		fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, newmode);
	} else if (exists) {
		fd = open(to, O_WRONLY | O_TRUNC);
	} else {
		fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, newmode);
	}
	if (fd < 0)
		warn("%s", to);
	return fd;
}

/* Copy one file; 0 or -1 (message printed). */
static int copyfile(const char *from, const char *to)
{
	struct stat st, tst;
	int in, out, status = 0, exists;
	ssize_t n;

	if ((in = open(from, O_RDONLY)) < 0 || fstat(in, &st) < 0) {
		warn("%s", from);
		if (in >= 0)
			close(in);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		warnx("%s is a directory (not copied).", from);
		close(in);
		return -1;
	}
	exists = stat(to, &tst) == 0;
	if (exists && tst.st_dev == st.st_dev && tst.st_ino == st.st_ino) {
		warnx("%s and %s are identical (not copied).", from, to);
		close(in);
		return -1;
	}
	if ((out = open_target(to, &st, exists)) < 0) {
		close(in);
		return out == -2 ? 0 : -1;
	}
	while ((n = read(in, buf, sizeof buf)) > 0) {
		if (write(out, buf, n) != n) {
			warn("%s", to);
			status = -1;
			break;
		}
	}
	if (n < 0) {
		warn("%s", from);
		status = -1;
	}
	if (pflag && keep_attributes(&st, out, to) < 0)
		status = -1;
	close(in);
	if (close(out) < 0) {
		warn("%s", to);
		status = -1;
	}
	if (status == 0 && vflag)
		printf("%s -> %s\n", from, to);
	return status;
}

static void usage(void)
{
	fprintf(stderr, "usage: cp [-f | -i | -n] [-pv] source target\n"
	                "       cp [-f | -i | -n] [-pv] source ... directory\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct stat st;
	char target[PATH_MAX];
	int c, status = 0, todir;

	while ((c = getopt(argc, argv, "finpv")) != -1) {
		switch (c) {
		case 'f': fflag = 1; iflag = nflag = 0; break;
		case 'i': iflag = 1; fflag = nflag = 0; break;
		case 'n': nflag = 1; fflag = iflag = 0; break;
		case 'p': pflag = 1; break;
		case 'v': vflag = 1; break;
		default:  usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	todir = stat(argv[argc - 1], &st) == 0 && S_ISDIR(st.st_mode);
	if (argc > 2 && !todir)
		errx(1, "%s is not a directory", argv[argc - 1]);
	for (int i = 0; i < argc - 1; i++) {
		if (todir)
			snprintf(target, sizeof target, "%s/%s", argv[argc - 1], base(argv[i]));
		else
			strlcpy(target, argv[argc - 1], sizeof target);
		if (copyfile(argv[i], target) < 0)
			status = 1;
	}
	return status;
}
