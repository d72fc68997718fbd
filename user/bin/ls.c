/*
 * ls: list files and directories, one name a line (after FreeBSD's ls(1), bin/ls).
 *   -a  include names starting with '.'      -l  long format (mode, links, owner, group,
 *   -d  list directories themselves              size, modification time, name)
 *   -n  -l with the owner and group as numbers (FreeBSD's -n)
 * Operands that are files are listed first, then each directory (headed "dir:" when there
 * are several operands). Owners and groups are named from /etc/passwd and /etc/group, or
 * printed as numbers. A symbolic link operand is followed unless -d or -l (FreeBSD's rule);
 * names found in a directory are never followed, and -l shows a link as "name -> target".
 * The mode shows the file type (- d l p c b), and s/S for set-user-ID or set-group-ID and t/T
 * for the sticky bit, capitalised when the execute bit under them is off (strmode(3)).
 * usage: ls [-adln1] [file ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <time.h>
#include <limits.h>
#include <err.h>
#include <errno.h>
#include <pwd.h>
#include <grp.h>

static int aflag, dflag, lflag, nflag;

struct entry {
	char       *name;      /* as printed */
	char       *path;      /* where it is, to read a link's target */
	struct stat st;
};

static int cmpentry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* The owner's and group's names, or their numbers (always with -n). */
static void owner_names(const struct stat *st, char *user, char *group, size_t n)
{
	struct passwd *pw = nflag ? NULL : getpwuid(st->st_uid);
	struct group *gr = nflag ? NULL : getgrgid(st->st_gid);

	if (pw != NULL)
		snprintf(user, n, "%s", pw->pw_name);
	else
		snprintf(user, n, "%u", (unsigned)st->st_uid);
	if (gr != NULL)
		snprintf(group, n, "%s", gr->gr_name);
	else
		snprintf(group, n, "%u", (unsigned)st->st_gid);
}

/* " -> target" for a symbolic link (empty for anything else), in buf. */
static void link_target(const struct entry *e, char *buf, size_t n)
{
	ssize_t len;

	buf[0] = '\0';
	if (!S_ISLNK(e->st.st_mode) || n < 5)
		return;
	len = readlink(e->path, buf + 4, n - 5);
	if (len < 0) {
		warn("%s", e->path);
		return;
	}
	memcpy(buf, " -> ", 4);
	buf[4 + len] = '\0';
}

static int width(unsigned long long v)
{
	int w = 1;

	while (v >= 10) {
		v /= 10;
		w++;
	}
	return w;
}

/*
 * The size column: a device's "major, minor" (each at least 3 wide, as FreeBSD 4's ls prints
 * them, bin/ls/print.c printlong), else the size in bytes.
 */
static void size_field(const struct stat *st, char *buf, size_t n)
{
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		snprintf(buf, n, "%3d, %3d", major(st->st_rdev), minor(st->st_rdev));
	else
		snprintf(buf, n, "%lld", (long long)st->st_size);
}

/* Print entries (sorted by the caller); -l computes column widths over the whole set. */
static void print(struct entry *e, int n, int total)
{
	int lw = 1, sw = 1, uw = 1, gw = 1;
	long long blocks = 0;
	time_t now = time(NULL);
	char user[32], group[32], size[32];

	for (int i = 0; i < n && lflag; i++) {
		if (width(e[i].st.st_nlink) > lw)
			lw = width(e[i].st.st_nlink);
		size_field(&e[i].st, size, sizeof size);
		if ((int)strlen(size) > sw)
			sw = (int)strlen(size);
		owner_names(&e[i].st, user, group, sizeof user);
		if ((int)strlen(user) > uw)
			uw = (int)strlen(user);
		if ((int)strlen(group) > gw)
			gw = (int)strlen(group);
		blocks += e[i].st.st_blocks;
	}
	if (lflag && total)
		printf("total %lld\n", blocks);
	for (int i = 0; i < n; i++) {
		struct stat *st = &e[i].st;
		char mode[12], date[32], target[PATH_MAX + 4];
		struct tm tm;

		if (!lflag) {
			printf("%s\n", e[i].name);
			continue;
		}
		strmode(st->st_mode, mode);
		mode[10] = 0;
		owner_names(st, user, group, sizeof user);
		link_target(&e[i], target, sizeof target);
		size_field(st, size, sizeof size);
		gmtime_r(&st->st_mtime, &tm);
		/* FreeBSD shows the year instead of the time for files older than six months */
		strftime(date, sizeof date, st->st_mtime + 15778800 < now || st->st_mtime > now + 15778800
		                            ? "%b %e  %Y" : "%b %e %H:%M", &tm);
		printf("%s  %*u %-*s  %-*s  %*s %s %s%s\n", mode, lw, (unsigned)st->st_nlink, uw, user,
		       gw, group, sw, size, date, e[i].name, target);
	}
}

/* List a directory's contents; 0 or -1 (message printed). */
static int listdir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	struct entry *e = NULL;
	char full[PATH_MAX];
	int n = 0, status = 0;

	if (!d) {
		warn("%s", path);
		return -1;
	}
	for (;;) {
		errno = 0;
		if (!(de = readdir(d))) {
			if (errno) {             /* end of directory leaves errno alone; EIO does not */
				warn("%s", path);
				status = -1;
			}
			break;
		}
		if (de->d_name[0] == '.' && !aflag)
			continue;
		snprintf(full, sizeof full, "%s/%s", path, de->d_name);
		if (!(e = realloc(e, (n + 1) * sizeof *e)) || !(e[n].name = strdup(de->d_name)) ||
		    !(e[n].path = strdup(full)))
			errx(1, "out of memory");
		memset(&e[n].st, 0, sizeof e[n].st);
		if (lflag && lstat(full, &e[n].st) < 0) {
			warn("%s", full);
			free(e[n].name);
			free(e[n].path);
			status = -1;
			continue;
		}
		n++;
	}
	closedir(d);
	qsort(e, n, sizeof *e, cmpentry);
	print(e, n, 1);
	for (int i = 0; i < n; i++) {
		free(e[i].name);
		free(e[i].path);
	}
	free(e);
	return status;
}

int main(int argc, char **argv)
{
	struct entry *files, *dirs;
	int c, nf = 0, nd = 0, status = 0, nops;
	char *dot[] = { ".", NULL };
	char **ops;

	while ((c = getopt(argc, argv, "adln1")) != -1) {
		switch (c) {
		case 'a': aflag = 1; break;
		case 'd': dflag = 1; break;
		case 'l': lflag = 1; break;
		case 'n': lflag = nflag = 1; break;
		case '1': break;
		default:
			fprintf(stderr, "usage: ls [-adln1] [file ...]\n");
			return 1;
		}
	}
	ops = optind < argc ? argv + optind : dot;
	nops = optind < argc ? argc - optind : 1;
	files = calloc(nops, sizeof *files);
	dirs = calloc(nops, sizeof *dirs);
	if (!files || !dirs)
		errx(1, "out of memory");
	for (int i = 0; i < nops; i++) {
		struct stat st;
		if (((dflag || lflag) ? lstat(ops[i], &st) : stat(ops[i], &st)) < 0) {
			warn("%s", ops[i]);
			status = 1;
			continue;
		}
		struct entry *e = S_ISDIR(st.st_mode) && !dflag ? &dirs[nd++] : &files[nf++];
		e->name = e->path = ops[i];
		e->st = st;
	}
	qsort(files, nf, sizeof *files, cmpentry);
	qsort(dirs, nd, sizeof *dirs, cmpentry);
	print(files, nf, 0);
	for (int i = 0; i < nd; i++) {
		if (nops > 1)
			printf("%s%s:\n", nf > 0 || i > 0 ? "\n" : "", dirs[i].name);
		if (listdir(dirs[i].name) < 0)
			status = 1;
	}
	return status;
}
