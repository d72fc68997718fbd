/*
 * fsck: check (and with -y or -p repair) wdfs file systems. The host build is tools/fsck/fsck
 * (image files); the guest build of this same file is /sbin/fsck (disks); tools/fslib/fsdev.c
 * is the only difference between the two.
 *
 *   fsck [-n | -y | -p] [-v] [special | image ...]
 *
 * -n (the default) only reports and opens the file system read-only; -y repairs every problem
 * it can; -p ("preen", what /etc/rc runs at boot) skips a file system whose superblock says it
 * was unmounted cleanly and repairs the others as -y does. -v prints the phase names. With no
 * special, every wdfs line of /etc/fstab with a pass number above 0 is checked, pass 1 first,
 * then 2... (FreeBSD's order; one at a time); a device that does not exist is reported and
 * skipped. A mounted file system is not repaired: -p skips it, -y refuses it, -n checks it
 * with a warning.
 *
 * Exit status (see fsck_wdfs.h; for several file systems, the highest): 0 clean or skipped,
 * 1 problems found and all fixed, 4 problems left unfixed, 8 could not check (no such device,
 * unreadable, bad superblock, mounted), 2 usage. The checking itself is fsck_wdfs.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <fstab.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsck_wdfs.h"
#include "../fslib/fsdev.h"
#include "../../kernel/fs/wdfs/wdfs_layout.h"

#define FSCK_PREEN  0x100     /* -p: this front end's own flag, never passed to fsck_wdfs */

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
	fprintf(stderr, "usage: fsck [-n | -y | -p] [-v] [special | image ...]\n");
}

/* Does the superblock on fd say the file system was unmounted cleanly? */
static bool super_clean(int fd, uint64_t size)
{
	static uint8_t blk[WDFS_BSIZE_MIN];
	struct wdfs_super sb;
	char msg[WDFS_MSGLEN];

	if (pread(fd, blk, sizeof(blk), 0) != (ssize_t)sizeof(blk))
		return false;
	memcpy(&sb, blk, sizeof(sb));
	return wdfs_super_check(&sb, size, msg, sizeof(msg)) == WDFS_OK && sb.s_clean == WDFS_SB_CLEAN;
}

/* Check one file system; `what` names it in messages ("/dev/ccd0 (/data1)"; NULL: its path). */
static int check_one(const char *special, const char *what, int flags)
{
	char buf[64];
	const char *path = fsdev_path(special, buf, sizeof(buf)), *on = fsdev_mountpoint(path);

	if (what == NULL)
		what = path;
	bool fix = (flags & FSCK_FIX) != 0;
	struct fsck_io io;
	int fd, status;

	if (on != NULL && (flags & FSCK_PREEN)) {
		printf("%s: mounted on %s: skipped\n", what, on);
		return FSCK_EXIT_CLEAN;
	}
	if (on != NULL && fix) {
		fprintf(stderr, "fsck: %s is mounted on %s: unmount it first (or check it with -n)\n",
		        what, on);
		return FSCK_EXIT_FATAL;
	}
	if (on != NULL)
		printf("%s: WARNING: mounted on %s: changes in flight may show as problems\n", what, on);
	fd = open(path, fix ? O_RDWR : O_RDONLY);
	if (fd < 0 || fsdev_size(fd, &io.size) != 0) {
		fprintf(stderr, "fsck: %s: %s%s\n", what, strerror(errno),
		        (flags & FSCK_PREEN) ? "; skipped" : "");
		if (fd >= 0)
			close(fd);
		return FSCK_EXIT_FATAL;
	}
	if (io.size == 0) {
		fprintf(stderr, "fsck: %s: size 0 (no medium: an unconfigured ccd?)\n", what);
		close(fd);
		return FSCK_EXIT_FATAL;
	}
	if ((flags & FSCK_PREEN) && super_clean(fd, io.size)) {
		printf("%s: clean, skipping checks\n", what);
		close(fd);
		return FSCK_EXIT_CLEAN;
	}
	io.arg = &fd;
	io.read = img_read;
	io.write = img_write;
	io.name = what;
	status = fsck_wdfs(&io, flags & ~FSCK_PREEN);
	if (fix && fsync(fd) != 0) {
		fprintf(stderr, "fsck: %s: %s\n", what, strerror(errno));
		status = FSCK_EXIT_FATAL;
	}
	close(fd);
	return status;
}

/* Every wdfs file system of /etc/fstab with a pass number, pass by pass. */
static int check_fstab(int flags)
{
	struct fstab *fs;
	char what[256];
	int pass = 1, next, status = FSCK_EXIT_CLEAN, st;

	if (!setfsent()) {
		fprintf(stderr, "fsck: cannot read the file-system table: %s\n", strerror(errno));
		return FSCK_EXIT_FATAL;
	}
	for (; pass > 0; pass = next) {
		next = 0;
		setfsent();
		while ((fs = getfsent()) != NULL) {
			if (strcmp(fs->fs_vfstype, "wdfs") != 0 || fs->fs_passno <= 0 ||
			    strcmp(fs->fs_type, FSTAB_SW) == 0)
				continue;
			if (fs->fs_passno > pass && (next == 0 || fs->fs_passno < next))
				next = fs->fs_passno;
			if (fs->fs_passno != pass)
				continue;
			snprintf(what, sizeof(what), "%s (%s)", fs->fs_spec, fs->fs_file);
			st = check_one(fs->fs_spec, what, flags);
			if (st > status)
				status = st;
		}
	}
	endfsent();
	return status;
}

int main(int argc, char **argv)
{
	int c, mode = 0, flags = 0, status = FSCK_EXIT_CLEAN, st;

	while ((c = getopt(argc, argv, "nypv")) != -1) {
		if (c == 'v') {
			flags |= FSCK_VERBOSE;
			continue;
		}
		if (c != 'n' && c != 'y' && c != 'p') {
			usage();
			return 2;
		}
		if (mode != 0 && mode != c) {
			fprintf(stderr, "fsck: -n, -y and -p exclude each other\n");
			usage();
			return 2;
		}
		mode = c;
	}
	if (mode == 'y')
		flags |= FSCK_FIX;
	else if (mode == 'p')
		flags |= FSCK_FIX | FSCK_PREEN;
	if (optind == argc)
		return check_fstab(flags);
	for (; optind < argc; optind++) {
		st = check_one(argv[optind], NULL, flags);
		if (st > status)
			status = st;
	}
	return status;
}
