/*
 * which: find the programs that names would run (FreeBSD's which(1), usr.bin/which).
 *   which [-as] program ...
 * Each program is looked for in the directories of $PATH (wdrain's default, as execvp's,
 * /bin:/sbin), and its first executable regular file is printed; a name holding a '/' is
 * checked as it is. -a prints every match, not only the first; -s prints nothing. An empty
 * $PATH element is the current directory ("./prog"). Executable means access(X_OK) with the
 * real ids and, since that is true for root on any file, at least one execute bit. Exit status
 * 0 if every program was found, else 1 (a bad option too). Facts from FreeBSD's
 * usr.bin/which/which.c 1.6.22.1.8.1 (is_there, print_matches).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>

static int aflag, sflag;

/* An executable regular file? */
static int runnable(const char *path)
{
	struct stat st;

	return access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       (getuid() != 0 || (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0);
}

static int found(const char *path)
{
	if (!sflag)
		printf("%s\n", path);
	return 1;
}

/* Look for one program; 1 if found. */
static int which(const char *prog, const char *path)
{
	char full[PATH_MAX];
	int hits = 0;

	if (strchr(prog, '/') != NULL)
		return runnable(prog) && found(prog);
	while (path != NULL) {
		const char *colon = strchr(path, ':');
		int dlen = colon ? (int)(colon - path) : (int)strlen(path);

		if (dlen == 0)
			snprintf(full, sizeof full, "./%s", prog);
		else
			snprintf(full, sizeof full, "%.*s/%s", dlen, path, prog);
		if (runnable(full)) {
			hits += found(full);
			if (!aflag)
				return 1;
		}
		path = colon ? colon + 1 : NULL;
	}
	return hits > 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: which [-as] program ...\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *path = getenv("PATH");
	int c, status = 0;

	while ((c = getopt(argc, argv, "as")) != -1) {
		switch (c) {
		case 'a': aflag = 1; break;
		case 's': sflag = 1; break;
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
	if (path == NULL)
		path = "/bin:/sbin";
	for (int i = optind; i < argc; i++)
		if (!which(argv[i], path))
			status = 1;
	return status;
}
