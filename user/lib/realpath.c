/*
 * realpath: the absolute path of a file with no ".", ".." or symbolic link in it (POSIX
 * realpath(3), <stdlib.h>). Every component must exist (ENOENT otherwise) and every one but
 * the last must be a directory (ENOTDIR, also for a file named with a trailing slash); more than 32 links followed is ELOOP, the kernel's
 * limit (docs/vfs.md); a result longer than PATH_MAX - 1 is ENAMETOOLONG. resolved must hold
 * PATH_MAX bytes (the NULL form, which allocates, is not supported: EINVAL).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <errno.h>
#include <sys/stat.h>

#define MAXLINKS 32

/* Drop the last component of an absolute path ("/a/b" -> "/a", "/a" -> "/"). */
static void drop_last(char *path)
{
	char *slash = strrchr(path, '/');

	slash[slash == path] = 0;
}

/* Put the link's target in front of what is left to resolve: rest = target + "/" + rest. */
static int splice_link(const char *link, char *rest)
{
	char target[PATH_MAX], joined[PATH_MAX];
	ssize_t n = readlink(link, target, sizeof target - 1);

	if (n < 0)
		return -1;
	target[n] = 0;
	if ((size_t)snprintf(joined, sizeof joined, "%s%s%s", target, *rest ? "/" : "", rest) >= sizeof joined) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(rest, joined);
	return 0;
}

char *realpath(const char *path, char *resolved)
{
	char rest[PATH_MAX], comp[NAME_MAX + 1];
	int links = 0;
	struct stat st;

	if (path == NULL || resolved == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (*path == 0) {
		errno = ENOENT;
		return NULL;
	}
	if (strlcpy(rest, path, sizeof rest) >= sizeof rest) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (*path == '/')
		strcpy(resolved, "/");
	else if (getcwd(resolved, PATH_MAX) == NULL)
		return NULL;
	while (*rest) {
		char *p = rest, *end;
		size_t len, have;

		while (*p == '/')
			p++;
		end = strchr(p, '/');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len > NAME_MAX) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		memcpy(comp, p, len);
		comp[len] = 0;
		memmove(rest, p + len, strlen(p + len) + 1);
		if (len == 0 || strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			drop_last(resolved);
			continue;
		}
		have = strlen(resolved);
		if (have + (have > 1) + len >= PATH_MAX) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		if (have > 1)
			resolved[have++] = '/';
		strcpy(resolved + have, comp);
		if (lstat(resolved, &st) < 0)
			return NULL;
		if (S_ISLNK(st.st_mode)) {
			if (++links > MAXLINKS) {
				errno = ELOOP;
				return NULL;
			}
			if (splice_link(resolved, rest) < 0)
				return NULL;
			if (*rest == '/')
				strcpy(resolved, "/");
			else
				drop_last(resolved);
			continue;
		}
		if (!S_ISDIR(st.st_mode) && *rest) {      /* more to come, or a trailing slash */
			errno = ENOTDIR;
			return NULL;
		}
	}
	return resolved;
}
