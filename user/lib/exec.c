/* exec.c: execv and execvp(3) over execve(2) (user/libc). execvp searches $PATH, default /bin:/sbin. */
#include <unistd.h>
#include <string.h>
#include <stdlib.h>
#include <limits.h>
#include <errno.h>

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

int execvp(const char *file, char *const argv[])
{
	const char *path = getenv("PATH"), *p, *e;
	char full[PATH_MAX];
	int saved = ENOENT;

	if (strchr(file, '/'))
		return execve(file, argv, environ);
	if (!path)
		path = "/bin:/sbin";
	for (p = path;; p = e + 1) {
		size_t dl;
		e = strchr(p, ':');
		dl = e ? (size_t)(e - p) : strlen(p);
		if (dl + strlen(file) + 2 <= sizeof full) {
			memcpy(full, p, dl);
			full[dl] = 0;
			if (dl)
				strcat(full, "/");
			strcat(full, file);
			execve(full, argv, environ);
			if (errno != ENOENT)
				saved = errno;   /* e.g. ENOEXEC or EACCES: worth reporting over ENOENT */
		}
		if (!e)
			break;
	}
	errno = saved;
	return -1;
}
