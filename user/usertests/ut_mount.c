/*
 * ut_mount.c: statfs, fstatfs, getfsstat, mount/unmount's refusals, and mount -u on the root
 * file system itself - everything that needs no spare disk (the mounting of data disks is
 * tests/guest/test_mount.py's).
 */
#include "usertests.h"
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>

/* statfs of "/" and "/dev"; the counts follow a file's blocks being allocated and freed. */
UT_CASE(t_statfs)
{
	struct statfs root, dev, f, after;
	static char block[8192];
	int fd, p[2];

	CHECK(statfs("/", &root) == 0, "statfs /: %s", strerror(errno));
	CHECK(strcmp(root.f_fstypename, "wdfs") == 0 && strcmp(root.f_mntonname, "/") == 0 &&
	      strncmp(root.f_mntfromname, "/dev/", 5) == 0,
	      "statfs /: type %s on %s from %s", root.f_fstypename, root.f_mntonname, root.f_mntfromname);
	CHECK((root.f_flags & (MNT_LOCAL | MNT_ROOTFS)) == (MNT_LOCAL | MNT_ROOTFS) &&
	      !(root.f_flags & MNT_RDONLY), "statfs /: flags %#x", root.f_flags);
	CHECK(root.f_bsize >= 4096 && root.f_iosize == root.f_bsize && root.f_blocks > root.f_bfree &&
	      root.f_bfree > 0 && root.f_bavail == root.f_bfree && root.f_files > root.f_ffree,
	      "statfs /: bsize %u iosize %u blocks %llu bfree %llu bavail %llu files %llu ffree %llu",
	      root.f_bsize, root.f_iosize, (unsigned long long)root.f_blocks,
	      (unsigned long long)root.f_bfree, (unsigned long long)root.f_bavail,
	      (unsigned long long)root.f_files, (unsigned long long)root.f_ffree);
	CHECK(statfs("/dev/console", &dev) == 0 && strcmp(dev.f_fstypename, "devfs") == 0 &&
	      strcmp(dev.f_mntonname, "/dev") == 0, "statfs /dev/console: %s on %s",
	      dev.f_fstypename, dev.f_mntonname);

	mkdir("/tmp/ut", 0755);
	fd = open("/tmp/ut/statfs", O_CREAT | O_TRUNC | O_RDWR, 0644);
	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK(fstatfs(fd, &f) == 0 && strcmp(f.f_mntonname, "/") == 0 && f.f_blocks == root.f_blocks,
	      "fstatfs of a file in /tmp: %s on %s", f.f_fstypename, f.f_mntonname);
	for (int i = 0; i < 8; i++)
		CHECK(ut_writeall(fd, block, root.f_bsize) == 0, "write: %s", strerror(errno));
	CHECK(fstatfs(fd, &after) == 0 && f.f_bfree - after.f_bfree == 8 && f.f_ffree == after.f_ffree,
	      "8 blocks written: f_bfree %llu -> %llu (expected 8 fewer), f_ffree %llu -> %llu",
	      (unsigned long long)f.f_bfree, (unsigned long long)after.f_bfree,
	      (unsigned long long)f.f_ffree, (unsigned long long)after.f_ffree);
	close(fd);
	CHECK(unlink("/tmp/ut/statfs") == 0, "unlink: %s", strerror(errno));
	CHECK(statfs("/tmp", &after) == 0 && after.f_bfree == f.f_bfree && after.f_ffree == f.f_ffree + 1,
	      "after unlink: f_bfree %llu (expected %llu), f_ffree %llu (expected %llu)",
	      (unsigned long long)after.f_bfree, (unsigned long long)f.f_bfree,
	      (unsigned long long)after.f_ffree, (unsigned long long)f.f_ffree + 1);

	EXPECT_ERR(statfs("/nonexistent", &f), ENOENT);
	EXPECT_ERR(statfs("/etc/motd/x", &f), ENOTDIR);
	EXPECT_ERR(statfs("", &f), ENOENT);
	EXPECT_ERR(fstatfs(-1, &f), EBADF);
	CHECK(pipe(p) == 0, "pipe: %s", strerror(errno));
	EXPECT_ERR(fstatfs(p[0], &f), EINVAL);
	close(p[0]);
	close(p[1]);
}

/* getfsstat: the count, "/" first, a short buffer, bad flags. */
UT_CASE(t_getfsstat)
{
	struct statfs buf[16], one[2];
	int n, i, sawdev = 0;

	n = getfsstat(NULL, 0, MNT_NOWAIT);
	CHECK(n >= 2 && n <= 16, "getfsstat(NULL) = %d", n);
	CHECK(getfsstat(buf, sizeof(buf), MNT_WAIT) == n, "getfsstat(buf) disagrees with the count %d", n);
	CHECK(strcmp(buf[0].f_mntonname, "/") == 0 && (buf[0].f_flags & MNT_ROOTFS),
	      "first mount is %s, not /", buf[0].f_mntonname);
	for (i = 0; i < n; i++)
		sawdev |= strcmp(buf[i].f_mntonname, "/dev") == 0 && strcmp(buf[i].f_fstypename, "devfs") == 0;
	CHECK(sawdev, "no devfs on /dev among %d mounts", n);
	memset(one, 0x55, sizeof(one));
	CHECK(getfsstat(one, sizeof(one[0]) + 10, MNT_NOWAIT) == 1 && strcmp(one[0].f_mntonname, "/") == 0,
	      "a buffer for one entry: not exactly one entry");
	CHECK(((unsigned char *)&one[1])[0] == 0x55, "getfsstat wrote past the buffer size it was given");
	EXPECT_ERR(getfsstat(buf, sizeof(buf), 99), EINVAL);
}

/* mount(2) and unmount(2) refusals, with the root's own device for EBUSY. */
UT_CASE(t_mount_errors)
{
	struct statfs root;

	CHECK(statfs("/", &root) == 0, "statfs /: %s", strerror(errno));
	EXPECT_ERR(mount("nofs", "/tmp", 0, root.f_mntfromname), ENODEV);
	EXPECT_ERR(mount("wdfs", "/nonexistent", 0, root.f_mntfromname), ENOENT);
	EXPECT_ERR(mount("wdfs", "/etc/motd", 0, root.f_mntfromname), ENOTDIR);
	EXPECT_ERR(mount("wdfs", "/tmp", 0, "/dev/null"), ENOTBLK);
	EXPECT_ERR(mount("wdfs", "/tmp", 0, "/dev/nonexistent"), ENOENT);
	EXPECT_ERR(mount("wdfs", "/tmp", 0, root.f_mntfromname), EBUSY);
	EXPECT_ERR(mount("wdfs", "/tmp", 0x20000000, root.f_mntfromname), EINVAL);
	EXPECT_ERR(mount("wdfs", "/tmp", 0, NULL), EFAULT);
	EXPECT_ERR(mount("devfs", "/dev", 0, NULL), EBUSY);
	EXPECT_ERR(unmount("/", 0), EBUSY);
	EXPECT_ERR(unmount("/tmp", 0), EINVAL);
	EXPECT_ERR(unmount("/nonexistent", 0), ENOENT);
	EXPECT_ERR(unmount("/dev", 0), EBUSY);
	EXPECT_ERR(unmount("/dev", MNT_FORCE), EBUSY);
	EXPECT_ERR(unmount("/tmp", 0x20000000), EINVAL);
	CHECK(statfs("/dev/console", &root) == 0 && strcmp(root.f_fstypename, "devfs") == 0,
	      "/dev is no longer devfs after the refusals");
}

/* What a read-only root refuses, and what it still allows. */
static void readonly_root(void)
{
	struct statfs sf;
	char buf[8];
	int fd;

	CHECK(statfs("/", &sf) == 0 && (sf.f_flags & MNT_RDONLY), "statfs / after mount -u -r: flags %#x",
	      sf.f_flags);
	EXPECT_ERR(open("/tmp/ut/mu/new", O_CREAT | O_WRONLY, 0644), EROFS);
	EXPECT_ERR(open("/tmp/ut/mu/f", O_WRONLY), EROFS);
	EXPECT_ERR(open("/tmp/ut/mu/f", O_RDONLY | O_TRUNC), EROFS);
	EXPECT_ERR(unlink("/tmp/ut/mu/f"), EROFS);
	EXPECT_ERR(mkdir("/tmp/ut/mu/d", 0755), EROFS);
	EXPECT_ERR(rename("/tmp/ut/mu/f", "/tmp/ut/mu/g"), EROFS);
	EXPECT_ERR(rename("/tmp/ut/mu/f", "/dev/f"), EROFS);     /* not EXDEV: FreeBSD 4's order */
	EXPECT_ERR(rename("/dev/null", "/tmp/ut/mu/null"), EROFS);
	EXPECT_ERR(chmod("/tmp/ut/mu/f", 0600), EROFS);
	EXPECT_ERR(chown("/tmp/ut/mu/f", 1, 1), EROFS);
	CHECK(chown("/tmp/ut/mu/f", -1, -1) == 0, "chown(-1, -1) changes nothing, on a read-only file "
	      "system too: %s", strerror(errno));
	EXPECT_ERR(utimes("/tmp/ut/mu/f", NULL), EROFS);
	EXPECT_ERR(truncate("/tmp/ut/mu/f", 0), EROFS);
	EXPECT_ERR(symlink("f", "/tmp/ut/mu/l"), EROFS);
	EXPECT_ERR(mkfifo("/tmp/ut/mu/p", 0644), EROFS);
	EXPECT_ERR(access("/tmp/ut/mu/f", W_OK), EROFS);
	CHECK((fd = open("/tmp/ut/mu/f", O_RDONLY)) >= 0 && read(fd, buf, 4) == 4, "reading: %s",
	      strerror(errno));
	close(fd);
	CHECK((fd = open("/tmp/ut/mu/fifo", O_RDWR)) >= 0 && write(fd, "ok", 2) == 2 && read(fd, buf, 2) == 2,
	      "a FIFO on a read-only file system is still written: %s", strerror(errno));
	close(fd);
	CHECK(mount("wdfs", "/", MNT_UPDATE | MNT_RDONLY, NULL) == 0, "mount -u -r of a read-only file "
	      "system: %s", strerror(errno));
}

/*
 * mount -u -r of "/" must be EBUSY now (`why`); 0 if it was. A downgrade that succeeds is undone
 * at once, so that a failure here does not leave the cases after it a read-only root.
 */
static int downgrade_refused(const char *why)
{
	if (mount("wdfs", "/", MNT_UPDATE | MNT_RDONLY, NULL) == 0) {
		mount("wdfs", "/", MNT_UPDATE, NULL);
		ut_fail("mount -u -r with %s: it succeeded, expected EBUSY", why);
		return -1;
	}
	if (errno != EBUSY) {
		ut_fail("mount -u -r with %s: %s, expected EBUSY", why, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A writable shared mapping is a writer of its file even with the descriptor closed: its stores
 * would have nowhere to go on a read-only file system. A child's copy of it counts too.
 */
static void mapped_writer_busy(void)
{
	int fd, code, wait[2];
	char *p, c;
	pid_t pid;

	CHECK((fd = open("/tmp/ut/mu/f", O_RDWR)) >= 0 &&
	      (p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) != MAP_FAILED &&
	      close(fd) == 0 && pipe(wait) == 0, "mapping the file: %s", strerror(errno));
	downgrade_refused("the file mapped writable and shared");
	if ((pid = fork()) == 0) {             /* keeps its copy until the parent closes the pipe */
		close(wait[1]);
		_exit(read(wait[0], &c, 1) == 0 && p[0] == 'd' ? 0 : 1);
	}
	close(wait[0]);
	CHECK(munmap(p, 4096) == 0, "munmap: %s", strerror(errno));
	downgrade_refused("a child's copy of the mapping");
	close(wait[1]);
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "the child with the mapping ended with %d", code);
}

static void update_as_user(void)
{
	EXPECT_ERR(mount("wdfs", "/", MNT_UPDATE | MNT_RDONLY, NULL), EPERM);
	EXPECT_ERR(unmount("/dev", 0), EPERM);
}

/*
 * mount -u on "/": read-only and back; a file open for writing or mapped writable and shared
 * makes it EBUSY. The root goes
 * back to read-write whatever happened in between, so a failure here cannot break the cases
 * after it.
 */
UT_CASE(t_mount_update)
{
	struct statfs sf;
	pid_t pid;
	int fd, code;

	CHECK(mkdir("/tmp/ut/mu", 0755) == 0 && (fd = open("/tmp/ut/mu/f", O_CREAT | O_WRONLY, 0644)) >= 0 &&
	      write(fd, "data", 4) == 4 && mkfifo("/tmp/ut/mu/fifo", 0644) == 0, "setup: %s", strerror(errno));
	EXPECT_ERR(mount("wdfs", "/", MNT_UPDATE | MNT_RDONLY, NULL), EBUSY);   /* fd is open for writing */
	close(fd);
	mapped_writer_busy();
	EXPECT_ERR(mount("wdfs", "/tmp", MNT_UPDATE | MNT_RDONLY, NULL), EINVAL);   /* not a mount's root */
	EXPECT_ERR(mount("devfs", "/dev", MNT_UPDATE | MNT_RDONLY, NULL), EOPNOTSUPP);
	EXPECT_ERR(mount("wdfs", "/nonexistent", MNT_UPDATE, NULL), ENOENT);
	if ((pid = fork()) == 0) {
		if (setuid(1001) < 0)
			exit(2);
		update_as_user();
		exit(ut_failed() ? 1 : 0);
	}
	ut_waitexit(pid, &code);
	if (code == 1)
		exit(1);                        /* the child said what failed */
	CHECK(code == 0, "the part run as uid 1001 ended with %d", code);
	CHECK(mount("wdfs", "/", MNT_UPDATE | MNT_RDONLY, NULL) == 0, "mount -u -r /: %s", strerror(errno));
	if ((pid = fork()) == 0) {
		readonly_root();
		exit(ut_failed() ? 1 : 0);
	}
	ut_waitexit(pid, &code);
	CHECK(mount("wdfs", "/", MNT_UPDATE, NULL) == 0, "mount -u -w /: %s", strerror(errno));
	if (code == 1)
		exit(1);
	CHECK(code == 0, "the part on the read-only root ended with %d", code);
	CHECK(statfs("/", &sf) == 0 && !(sf.f_flags & MNT_RDONLY), "statfs / after mount -u -w: flags %#x",
	      sf.f_flags);
	CHECK((fd = open("/tmp/ut/mu/new", O_CREAT | O_WRONLY, 0644)) >= 0 && write(fd, "x", 1) == 1,
	      "writing after mount -u -w: %s", strerror(errno));
	close(fd);
	CHECK(mount("wdfs", "/", MNT_UPDATE, NULL) == 0, "mount -u -w of a read-write file system: %s",
	      strerror(errno));
}
