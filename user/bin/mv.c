/* mv: rename files (within one file system). usage: mv source target | mv source ... dir */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <err.h>

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int main(int argc, char **argv)
{
	struct stat st;
	char target[PATH_MAX];
	int status = 0, todir;

	if (argc < 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: mv source target\n       mv source ... directory\n");
		return 1;
	}
	todir = stat(argv[argc - 1], &st) == 0 && S_ISDIR(st.st_mode);
	if (argc > 3 && !todir)
		errx(1, "%s: Not a directory", argv[argc - 1]);
	for (int i = 1; i < argc - 1; i++) {
		if (todir)
			snprintf(target, sizeof target, "%s/%s", argv[argc - 1], base(argv[i]));
		else
			strlcpy(target, argv[argc - 1], sizeof target);
		if (rename(argv[i], target) < 0) {
			warn("rename %s to %s", argv[i], target);
			status = 1;
		}
	}
	return status;
}
