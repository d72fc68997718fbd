/*
 * fsck: check (and with -y repair) a wdfs image file on the host.
 *
 *   fsck [-n | -y] [-v] IMAGE
 *
 * -n (the default) only reports and opens the image read-only; -y repairs every problem it can.
 * -v prints the phase names. Exit status (see fsck_wdfs.h): 0 clean, 1 problems found and all
 * fixed, 4 problems left unfixed, 8 could not check (unreadable image or bad superblock), 2 usage.
 * The checking itself is fsck_wdfs.c, shared with the in-guest fsck.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsck_wdfs.h"

static int img_read(void *arg, uint64_t off, void *buf, uint32_t len)
{
	return pread(*(int *)arg, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static int img_write(void *arg, uint64_t off, const void *buf, uint32_t len)
{
	return pwrite(*(int *)arg, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: fsck [-n | -y] [-v] image\n");
}

int main(int argc, char **argv)
{
	int c, flags = 0, fd, status;
	bool no = false;
	struct stat st;
	struct fsck_io io;

	while ((c = getopt(argc, argv, "nyv")) != -1) {
		switch (c) {
		case 'n': no = true; break;
		case 'y': flags |= FSCK_FIX; break;
		case 'v': flags |= FSCK_VERBOSE; break;
		default: usage(); return 2;
		}
	}
	if (optind != argc - 1 || (no && (flags & FSCK_FIX))) {
		usage();
		return 2;
	}
	fd = open(argv[optind], (flags & FSCK_FIX) ? O_RDWR : O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "fsck: %s: %s\n", argv[optind], strerror(errno));
		return 8;
	}
	io.arg = &fd;
	io.size = (uint64_t)st.st_size;
	io.read = img_read;
	io.write = img_write;
	io.name = argv[optind];
	status = fsck_wdfs(&io, flags);
	if ((flags & FSCK_FIX) && fsync(fd) != 0) {
		fprintf(stderr, "fsck: %s: %s\n", argv[optind], strerror(errno));
		status = 8;
	}
	close(fd);
	return status;
}
