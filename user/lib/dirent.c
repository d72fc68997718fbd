/* dirent.c: opendir/readdir/closedir over getdents(2) (user/libc, <dirent.h>). */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <errno.h>

struct _dirdesc {
	int  fd;
	int  pos, len;        /* next record and end of the records in buf */
	char buf[4096];       /* whole struct dirent records, d_reclen bytes each */
};

DIR *opendir(const char *path)
{
	DIR *d;
	int fd = open(path, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return NULL;
	if (!(d = malloc(sizeof *d))) {
		close(fd);
		return NULL;
	}
	d->fd = fd;
	d->pos = d->len = 0;
	return d;
}

struct dirent *readdir(DIR *d)
{
	struct dirent *de;

	if (d->pos >= d->len) {
		int n = getdents(d->fd, d->buf, sizeof d->buf);
		if (n <= 0)
			return NULL;
		d->pos = 0;
		d->len = n;
	}
	de = (struct dirent *)(d->buf + d->pos);
	if (de->d_reclen == 0 || d->pos + de->d_reclen > d->len) {
		errno = EIO;   /* a malformed record: stop rather than loop */
		d->pos = d->len;
		return NULL;
	}
	d->pos += de->d_reclen;
	return de;
}

int closedir(DIR *d)
{
	int r = close(d->fd);

	free(d);
	return r;
}

int dirfd(DIR *d) { return d->fd; }
