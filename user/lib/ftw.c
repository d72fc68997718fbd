/*
 * ftw.c: nftw(3) (interface: <ftw.h>), a depth-first walk that lstat()s (FTW_PHYS) or stat()s
 * each name, pre-order or, with FTW_DEPTH, post-order for directories. Paths are built in one
 * PATH_MAX buffer; a path that would not fit is reported as FTW_NS with ENAMETOOLONG.
 */
#include <ftw.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

typedef int ftw_fn(const char *, const struct stat *, int, struct FTW *);

static int walk(char *path, size_t len, int level, ftw_fn *fn, int flags);

/* Visit the entries of open directory d, whose path (len bytes long) is at `level`. */
static int walk_dir(DIR *d, char *path, size_t len, int level, ftw_fn *fn, int flags)
{
	struct dirent *de;
	int r = 0;

	while (r == 0 && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (len + 1 + n >= PATH_MAX) {
			struct FTW ftw = { (int)len + 1, level + 1 };
			struct stat st;

			errno = ENAMETOOLONG;
			memset(&st, 0, sizeof(st));
			r = fn(path, &st, FTW_NS, &ftw);
			continue;
		}
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		r = walk(path, len + 1 + n, level + 1, fn, flags);
		path[len] = '\0';
	}
	return r;
}

static int walk(char *path, size_t len, int level, ftw_fn *fn, int flags)
{
	struct FTW ftw = { 0, level };
	struct stat st;
	const char *slash = strrchr(path, '/');
	DIR *d;
	int r = 0, type;

	ftw.base = slash != NULL && slash[1] != '\0' ? (int)(slash + 1 - path) : 0;
	if (((flags & FTW_PHYS) ? lstat(path, &st) : stat(path, &st)) < 0) {
		type = FTW_NS;
		if (!(flags & FTW_PHYS) && errno == ENOENT && lstat(path, &st) == 0)
			type = FTW_SLN;
		return fn(path, &st, type, &ftw);
	}
	if (S_ISLNK(st.st_mode))
		return fn(path, &st, FTW_SL, &ftw);
	if (!S_ISDIR(st.st_mode))
		return fn(path, &st, FTW_F, &ftw);
	if ((d = opendir(path)) == NULL)
		return fn(path, &st, FTW_DNR, &ftw);
	if (!(flags & FTW_DEPTH))
		r = fn(path, &st, FTW_D, &ftw);
	if (r == 0)
		r = walk_dir(d, path, len, level, fn, flags);
	closedir(d);
	if (r == 0 && (flags & FTW_DEPTH))
		r = fn(path, &st, FTW_DP, &ftw);
	return r;
}

int nftw(const char *path, ftw_fn *fn, int depth __attribute__((unused)), int flags)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	return walk(buf, len, 0, fn, flags);
}
