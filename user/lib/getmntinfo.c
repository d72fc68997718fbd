/*
 * getmntinfo.c: getmntinfo(3), every mounted file system's struct statfs in one call
 * (FreeBSD's libc function over getfsstat(2)). The array is the library's, reused by the next
 * call. Returns the count, or 0 with errno set.
 */
#include <unistd.h>
#include <stdlib.h>
#include <errno.h>

int getmntinfo(struct statfs **mntbufp, int flags)
{
	static struct statfs *buf;
	static long room;              /* entries buf holds */
	int n;

	for (;;) {
		n = getfsstat(NULL, 0, flags);
		if (n < 0)
			return 0;
		if (n + 1 > room) {        /* one spare: a mount may come meanwhile */
			free(buf);
			room = n + 1;
			buf = malloc((size_t)room * sizeof(*buf));
			if (buf == NULL) {
				room = 0;
				errno = ENOMEM;
				return 0;
			}
		}
		n = getfsstat(buf, room * (long)sizeof(*buf), flags);
		if (n < 0)
			return 0;
		if (n < room) {
			*mntbufp = buf;
			return n;
		}
	}
}
