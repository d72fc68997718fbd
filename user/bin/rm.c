/* rm: remove files; -r removes directories and their contents, -f ignores missing files.
 * usage: rm [-fr] file ... */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <err.h>

static int fflag, rflag;

static int rmtree(const char *path);

/* Remove one operand; 0 or -1 (message printed). */
static int rmone(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0) {             /* a symbolic link is removed, not followed */
		if (fflag && errno == ENOENT)
			return 0;
		warn("%s", path);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		if (!rflag) {
			warnx("%s: is a directory", path);
			return -1;
		}
		return rmtree(path);
	}
	if (unlink(path) < 0) {
		warn("%s", path);
		return -1;
	}
	return 0;
}

/* Empty a directory depth first, then remove it. Names are read before any is removed. */
static int rmtree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL, child[PATH_MAX];
	int n = 0, status = 0;

	if (!d) {
		warn("%s", path);
		return -1;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char **more = realloc(names, (n + 1) * sizeof *names);
		if (!more || !(more[n] = strdup(de->d_name)))
			errx(1, "out of memory");
		names = more;
		n++;
	}
	closedir(d);
	for (int i = 0; i < n; i++) {
		if (snprintf(child, sizeof child, "%s/%s", path, names[i]) >= (int)sizeof child) {
			warnx("%s/%s: %s", path, names[i], strerror(ENAMETOOLONG));
			status = -1;
		} else if (rmone(child) < 0) {
			status = -1;
		}
		free(names[i]);
	}
	free(names);
	if (status == 0 && rmdir(path) < 0) {
		warn("%s", path);
		status = -1;
	}
	return status;
}

int main(int argc, char **argv)
{
	int c, status = 0;

	while ((c = getopt(argc, argv, "frR")) != -1) {
		switch (c) {
		case 'f': fflag = 1; break;
		case 'r':
		case 'R': rflag = 1; break;
		default:  goto usage;
		}
	}
	if (optind == argc) {
		if (fflag)
			return 0;
		goto usage;
	}
	for (int i = optind; i < argc; i++)
		if (rmone(argv[i]) < 0)
			status = 1;
	return status;
usage:
	fprintf(stderr, "usage: rm [-fr] file ...\n");
	return 1;
}
