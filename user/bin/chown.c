/*
 * chown: change the owner and group of files (after FreeBSD's chown(8), chown.c 1.24).
 *   chown [-fhv] [-R] owner[:group] file ...
 *   chown [-fhv] [-R] :group file ...
 * owner and group are names (/etc/passwd, /etc/group) or numbers. Only root may give a file
 * away; its owner may change its group to one she is in. A symbolic link operand is followed,
 * unless -h, which changes the link itself (lchown); with -R the tree below each directory is
 * changed too, its symbolic links themselves with -h and not at all without. -f: say nothing
 * about files that cannot be changed; -v: print each file changed. Exit status 1 on errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pwd.h>
#include <grp.h>
#include <ftw.h>
#include <err.h>

static int fflag, hflag, vflag, status;
static uid_t uid = (uid_t)-1;
static gid_t gid = (gid_t)-1;

/* A decimal ID, or -1 if s is not one. */
static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s == '\0' || *end != '\0' || v < 0 || v > 0x7fffffffL) ? -1 : v;
}

/* owner[:group] or :group into uid and gid; exits with FreeBSD's messages on a bad name. */
static void parse_owner(char *spec)
{
	char *colon = strchr(spec, ':');
	struct passwd *pw;
	struct group *gr;
	long v;

	if (colon != NULL) {
		*colon = '\0';
		if ((gr = getgrnam(colon + 1)) != NULL)
			gid = gr->gr_gid;
		else if ((v = number(colon + 1)) >= 0)
			gid = (gid_t)v;
		else
			errx(1, "%s: illegal group name", colon + 1);
	}
	if (*spec == '\0')
		return;
	if ((pw = getpwnam(spec)) != NULL)
		uid = pw->pw_uid;
	else if ((v = number(spec)) >= 0)
		uid = (uid_t)v;
	else
		errx(1, "%s: illegal user name", spec);
}

static void change(const char *path, int link)
{
	if ((link ? lchown(path, uid, gid) : chown(path, uid, gid)) < 0) {
		if (!fflag)
			warn("%s", path);
		status = 1;
	} else if (vflag) {
		printf("%s\n", path);
	}
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_SL) {
		if (hflag)
			change(path, 1);
	} else if (type == FTW_NS) {
		if (!fflag)
			warn("%s", path);
		status = 1;
	} else {
		change(path, 0);
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: chown [-fhRv] owner[:group] file ...\n"
	                "       chown [-fhRv] :group file ...\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct stat st;
	int c, rflag = 0;

	while ((c = getopt(argc, argv, "fhRv")) != -1) {
		switch (c) {
		case 'f': fflag = 1; break;
		case 'h': hflag = 1; break;
		case 'R': rflag = 1; break;
		case 'v': vflag = 1; break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	parse_owner(argv[0]);
	for (int i = 1; i < argc; i++) {
		int r = hflag ? lstat(argv[i], &st) : stat(argv[i], &st);

		if (r < 0) {
			if (!fflag)
				warn("%s", argv[i]);
			status = 1;
		} else if (rflag && S_ISDIR(st.st_mode)) {
			nftw(argv[i], visit, 16, FTW_PHYS);
		} else {
			change(argv[i], hflag);
		}
	}
	return status;
}
