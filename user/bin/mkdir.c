/* mkdir: make directories; -p makes missing parents and accepts existing ones. usage: mkdir [-p] dir ... */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <limits.h>
#include <err.h>

/* mkdir -p: create each prefix of path in turn. */
static int mkpath(const char *path)
{
	char buf[PATH_MAX];
	struct stat st;
	char *p;

	if (strlcpy(buf, path, sizeof buf) >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = buf + 1;; p++) {
		if (*p != '/' && *p != 0)
			continue;
		char saved = *p;
		*p = 0;
		if (mkdir(buf, 0777) < 0 && !(errno == EEXIST && stat(buf, &st) == 0 && S_ISDIR(st.st_mode))) {
			if (errno == EEXIST)
				errno = ENOTDIR;
			return -1;
		}
		*p = saved;
		if (!saved || !p[1])
			return 0;
	}
}

int main(int argc, char **argv)
{
	int c, pflag = 0, status = 0;

	while ((c = getopt(argc, argv, "p")) != -1) {
		if (c != 'p')
			goto usage;
		pflag = 1;
	}
	if (optind == argc)
		goto usage;
	for (int i = optind; i < argc; i++) {
		if ((pflag ? mkpath(argv[i]) : mkdir(argv[i], 0777)) < 0) {
			warn("%s", argv[i]);
			status = 1;
		}
	}
	return status;
usage:
	fprintf(stderr, "usage: mkdir [-p] directory ...\n");
	return 1;
}
