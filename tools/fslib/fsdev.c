/* fsdev.c: the portability layer of the file-system tools (interface: fsdev.h). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef WDRAIN_GUEST
#include <sys/mount.h>
#endif

#include "fsdev.h"

const char *fsdev_path(const char *special, char *buf, size_t len)
{
#ifdef WDRAIN_GUEST
	if (strchr(special, '/') == NULL) {
		snprintf(buf, len, "/dev/%s", special);
		return buf;
	}
#else
	(void)buf;
	(void)len;
#endif
	return special;
}

int fsdev_size(int fd, uint64_t *bytes)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -1;
	*bytes = (uint64_t)st.st_size;
	return 0;
}

const char *fsdev_mountpoint(const char *path)
{
#ifdef WDRAIN_GUEST
	static char on[MNAMELEN];
	struct statfs *mnt;
	int n, i;

	n = getmntinfo(&mnt, MNT_NOWAIT);
	for (i = 0; i < n; i++) {
		if (strcmp(mnt[i].f_mntfromname, path) == 0) {
			strncpy(on, mnt[i].f_mntonname, sizeof(on) - 1);
			return on;
		}
	}
#else
	(void)path;
#endif
	return NULL;
}
