/* cp: copy files. usage: cp source target | cp source ... directory */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <err.h>

static char buf[65536];

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Copy one file; 0 or -1 (message printed). */
static int copyfile(const char *from, const char *to)
{
	struct stat st;
	int in, out, status = 0;
	ssize_t n;

	if ((in = open(from, O_RDONLY)) < 0 || fstat(in, &st) < 0) {
		warn("%s", from);
		if (in >= 0)
			close(in);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		warnx("%s is a directory (not copied)", from);
		close(in);
		return -1;
	}
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777)) < 0) {
		warn("%s", to);
		close(in);
		return -1;
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
	close(in);
	if (close(out) < 0) {
		warn("%s", to);
		status = -1;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct stat st;
	char target[PATH_MAX];
	int status = 0, todir;

	if (argc < 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: cp source target\n       cp source ... directory\n");
		return 1;
	}
	todir = stat(argv[argc - 1], &st) == 0 && S_ISDIR(st.st_mode);
	if (argc > 3 && !todir)
		errx(1, "%s is not a directory", argv[argc - 1]);
	for (int i = 1; i < argc - 1; i++) {
		if (todir)
			snprintf(target, sizeof target, "%s/%s", argv[argc - 1], base(argv[i]));
		else
			strlcpy(target, argv[argc - 1], sizeof target);
		if (copyfile(argv[i], target) < 0)
			status = 1;
	}
	return status;
}
