/*
 * ut_link.c: symbolic links (symlink, readlink, lstat, lchown, following in lookups, ELOOP
 * after 32, O_NOFOLLOW), FIFOs between two processes, mknod (device nodes too), truncate(2), flock(2) with
 * O_SHLOCK/O_EXLOCK, and /dev/random and /dev/urandom.
 */
#include "usertests.h"
#include <limits.h>
#include <sys/wait.h>

#define LDIR "/tmp/ut/ln"

/* ---- symbolic links ------------------------------------------------------------------------- */

UT_CASE(t_symlink)
{
	char buf[PATH_MAX + 8], big[PATH_MAX + 8];
	struct stat st, lst;
	int fd;

	ut_rmtree(LDIR);
	CHECK(mkdir(LDIR, 0755) == 0 && mkdir(LDIR "/dir", 0755) == 0 &&
	      ut_mkfile(LDIR "/dir/file", "contents\n") == 0, "setup: %s", strerror(errno));
	CHECK(symlink("dir/file", LDIR "/rel") == 0, "symlink: %s", strerror(errno));
	CHECK(readlink(LDIR "/rel", buf, sizeof buf) == 8 && memcmp(buf, "dir/file", 8) == 0,
	      "readlink gave something else than dir/file");
	CHECK(readlink(LDIR "/rel", buf, 3) == 3 && memcmp(buf, "dir", 3) == 0, "a short readlink buffer");
	CHECK(lstat(LDIR "/rel", &lst) == 0 && S_ISLNK(lst.st_mode) && lst.st_size == 8,
	      "lstat: mode %#o size %lld", lst.st_mode, (long long)lst.st_size);
	CHECK(stat(LDIR "/rel", &st) == 0 && S_ISREG(st.st_mode) && st.st_ino != lst.st_ino,
	      "stat does not follow the link");
	CHECK(ut_readfile(LDIR "/rel", buf, sizeof buf) == 9 && strcmp(buf, "contents\n") == 0,
	      "reading through a relative link: \"%s\"", buf);
	CHECK(symlink(LDIR "/dir", LDIR "/abs") == 0 && stat(LDIR "/abs/file", &st) == 0,
	      "an absolute link to a directory, in the middle of a path: %s", strerror(errno));
	CHECK(chdir(LDIR "/abs") == 0 && stat("file", &st) == 0 && chdir("/") == 0, "chdir through a link");
	CHECK(lstat(LDIR "/abs/", &st) == 0 && S_ISDIR(st.st_mode), "a trailing slash follows the link");
	EXPECT_ERR(symlink("x", LDIR "/rel"), EEXIST);
	EXPECT_ERR(symlink("", LDIR "/empty"), ENOENT);
	EXPECT_ERR(readlink(LDIR "/dir/file", buf, sizeof buf), EINVAL);
	EXPECT_ERR(readlink(LDIR "/none", buf, sizeof buf), ENOENT);
	EXPECT_ERR(mkdir(LDIR "/rel", 0755), EEXIST);
	EXPECT_ERR(rmdir(LDIR "/abs"), ENOTDIR);
	EXPECT_ERR(open(LDIR "/rel", O_RDONLY | O_NOFOLLOW), EMLINK);   /* FreeBSD 4's answer */
	EXPECT_ERR(open(LDIR "/rel", O_WRONLY | O_CREAT | O_EXCL, 0644), EEXIST);
	/* a dangling link: stat fails, O_CREAT makes its target */
	CHECK(symlink("made", LDIR "/dangling") == 0, "symlink: %s", strerror(errno));
	EXPECT_ERR(stat(LDIR "/dangling", &st), ENOENT);
	CHECK((fd = open(LDIR "/dangling", O_WRONLY | O_CREAT, 0644)) >= 0, "create through a dangling link: %s",
	      strerror(errno));
	close(fd);
	CHECK(stat(LDIR "/made", &st) == 0 && S_ISREG(st.st_mode), "the link's target was not created");
	/* link(2) follows, unlink and rename do not */
	CHECK(link(LDIR "/rel", LDIR "/hard") == 0 && stat(LDIR "/hard", &st) == 0 && st.st_nlink == 2 &&
	      lstat(LDIR "/hard", &st) == 0 && S_ISREG(st.st_mode), "link of a symbolic link links its target");
	CHECK(rename(LDIR "/rel", LDIR "/rel2") == 0 && lstat(LDIR "/rel2", &st) == 0 && S_ISLNK(st.st_mode),
	      "rename of a link: %s", strerror(errno));
	CHECK(unlink(LDIR "/rel2") == 0 && stat(LDIR "/dir/file", &st) == 0, "unlink removed the target");
	/* chown follows, lchown does not */
	CHECK(symlink("dir/file", LDIR "/own") == 0 && lchown(LDIR "/own", 1001, 100) == 0, "lchown: %s",
	      strerror(errno));
	CHECK(lstat(LDIR "/own", &lst) == 0 && lst.st_uid == 1001 && stat(LDIR "/own", &st) == 0 && st.st_uid == 0,
	      "lchown changed the target, or not the link");
	CHECK(chown(LDIR "/own", 1002, -1) == 0 && stat(LDIR "/dir/file", &st) == 0 && st.st_uid == 1002,
	      "chown did not follow the link");
	/* targets up to PATH_MAX - 1 bytes */
	memset(big, 'x', PATH_MAX - 1);
	big[PATH_MAX - 1] = 0;
	CHECK(symlink(big, LDIR "/long") == 0 && readlink(LDIR "/long", buf, sizeof buf) == PATH_MAX - 1,
	      "a target of %d bytes: %s", PATH_MAX - 1, strerror(errno));
	big[PATH_MAX - 1] = 'x';
	big[PATH_MAX] = 0;
	EXPECT_ERR(symlink(big, LDIR "/toolong"), ENAMETOOLONG);
	EXPECT_ERR(stat(LDIR "/long", &st), ENAMETOOLONG);     /* a component of 1023 bytes */
	EXPECT_ERR(symlink((char *)1, LDIR "/fault"), EFAULT);
	EXPECT_ERR(readlink(LDIR "/dangling", (char *)1, 10), EFAULT);
}

/* Loops end with ELOOP; a chain of 32 links is followed, 33 is one too many (MAXSYMLINKS). */
UT_CASE(t_symlink_loop)
{
	char from[64], to[64];
	struct stat st;

	ut_rmtree(LDIR);
	CHECK(mkdir(LDIR, 0755) == 0 && ut_mkfile(LDIR "/target", "t\n") == 0, "setup: %s", strerror(errno));
	CHECK(symlink("b", LDIR "/a") == 0 && symlink("a", LDIR "/b") == 0 && symlink("self", LDIR "/self") == 0,
	      "symlink: %s", strerror(errno));
	EXPECT_ERR(stat(LDIR "/a", &st), ELOOP);
	EXPECT_ERR(open(LDIR "/self", O_RDONLY), ELOOP);
	EXPECT_ERR(open(LDIR "/a", O_WRONLY | O_CREAT, 0644), ELOOP);
	EXPECT_ERR(chdir(LDIR "/a/x"), ELOOP);
	CHECK(lstat(LDIR "/a", &st) == 0 && S_ISLNK(st.st_mode), "lstat of a link in a loop: %s", strerror(errno));
	for (int i = 0; i <= 32; i++) {
		snprintf(from, sizeof from, i ? "l%d" : "target", i - 1);
		snprintf(to, sizeof to, LDIR "/l%d", i);
		CHECK(symlink(from, to) == 0, "symlink %s: %s", to, strerror(errno));
	}
	CHECK(stat(LDIR "/l31", &st) == 0 && S_ISREG(st.st_mode), "32 links were not followed: %s", strerror(errno));
	EXPECT_ERR(stat(LDIR "/l32", &st), ELOOP);
}

/* ---- FIFOs ---------------------------------------------------------------------------------- */

#define FIFO LDIR "/fifo"

/* The writer: note that it is about to open, open (blocking for the reader), write, close. */
static void fifo_writer(void)
{
	int fd;

	ut_mkfile(LDIR "/writer-opening", "");
	fd = open(FIFO, O_WRONLY);
	if (fd < 0 || write(fd, "through the fifo", 16) != 16)
		exit(2);
	close(fd);
	exit(0);
}

UT_CASE(t_fifo)
{
	char buf[64];
	struct stat st;
	int fd, fd2, code;
	pid_t pid;

	ut_rmtree(LDIR);
	CHECK(mkdir(LDIR, 0755) == 0 && mkfifo(FIFO, 0644) == 0, "mkfifo: %s", strerror(errno));
	CHECK(stat(FIFO, &st) == 0 && S_ISFIFO(st.st_mode) && st.st_size == 0, "stat: mode %#o", st.st_mode);
	EXPECT_ERR(mkfifo(FIFO, 0644), EEXIST);
	EXPECT_ERR(mkfifo(LDIR "/none/fifo", 0644), ENOENT);
	EXPECT_ERR(open(FIFO, O_WRONLY | O_NONBLOCK), ENXIO);   /* no reader */
	/* a reader opening first waits for the writer */
	if ((pid = fork()) == 0) {
		usleep(100000);
		fifo_writer();
	}
	CHECK((fd = open(FIFO, O_RDONLY)) >= 0, "open for reading: %s", strerror(errno));
	CHECK(stat(LDIR "/writer-opening", &st) == 0, "the read open returned before a writer came");
	CHECK(read(fd, buf, sizeof buf) == 16 && memcmp(buf, "through the fifo", 16) == 0, "read from the fifo");
	CHECK(read(fd, buf, sizeof buf) == 0, "no end of file after the writer closed");
	EXPECT_ERR(lseek(fd, 0, SEEK_SET), ESPIPE);
	close(fd);
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "the writer ended with %d", code);
	/* a writer opening first waits for the reader; O_NONBLOCK readers do not wait */
	unlink(LDIR "/writer-opening");
	if ((pid = fork()) == 0)
		fifo_writer();
	while (stat(LDIR "/writer-opening", &st) < 0)
		usleep(10000);
	CHECK((fd = open(FIFO, O_RDONLY | O_NONBLOCK)) >= 0, "a non-blocking read open: %s", strerror(errno));
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "the waiting writer ended with %d", code);
	CHECK(read(fd, buf, sizeof buf) == 16, "the data a writer wrote before closing was lost");
	close(fd);
	/* O_RDWR never waits; the data goes with the last close */
	CHECK((fd = open(FIFO, O_RDWR)) >= 0 && write(fd, "xy", 2) == 2, "O_RDWR: %s", strerror(errno));
	CHECK((fd2 = open(FIFO, O_RDONLY)) >= 0 && read(fd2, buf, 2) == 2, "a second open shares the pipe");
	close(fd2);
	close(fd);
	CHECK((fd = open(FIFO, O_RDWR)) >= 0 && fcntl(fd, F_SETFL, O_NONBLOCK) == 0, "reopen");
	EXPECT_ERR(read(fd, buf, 2), EAGAIN);                 /* nothing was kept */
	EXPECT_ERR(ftruncate(fd, 0), EINVAL);
	close(fd);
	EXPECT_ERR(truncate(FIFO, 0), EINVAL);
	/* mknod: a FIFO with dev 0 as mkfifo makes it; devices are root's (t_devnode) */
	EXPECT_ERR(mknod(LDIR "/reg", S_IFREG | 0600, 0), EINVAL);
	EXPECT_ERR(mknod(LDIR "/dir", S_IFDIR | 0700, 0), EINVAL);
	EXPECT_ERR(mknod(LDIR "/fifo2", S_IFIFO | 0600, 1), EINVAL);   /* a FIFO has no device */
	EXPECT_ERR(mknod(FIFO, S_IFCHR | 0600, 0), EEXIST);
	EXPECT_ERR(mknod(FIFO, S_IFIFO | 0600, 0), EEXIST);
	EXPECT_ERR(mknod(LDIR "/none/fifo2", S_IFIFO | 0600, 0), ENOENT);
	CHECK(mknod(LDIR "/fifo2", S_IFIFO | 0666, 0) == 0 && stat(LDIR "/fifo2", &st) == 0 &&
	      S_ISFIFO(st.st_mode) && (st.st_mode & ALLPERMS) == 0644, "mknod of a FIFO: %s, mode %#o",
	      strerror(errno), st.st_mode);   /* the umask (022) applies */
	CHECK((fd = open(LDIR "/fifo2", O_RDWR)) >= 0 && write(fd, "ok", 2) == 2 && read(fd, buf, 2) == 2 &&
	      memcmp(buf, "ok", 2) == 0, "the FIFO mknod made does not carry data: %s", strerror(errno));
	close(fd);
	CHECK(unlink(FIFO) == 0 && unlink(LDIR "/fifo2") == 0, "unlink: %s", strerror(errno));
}

/* ---- device nodes --------------------------------------------------------------------------- */

/* As a user other than root: a device node's own permission bits decide, not /dev's. */
static void devnode_as_user(void)
{
	int fd;

	EXPECT_ERR(open(LDIR "/null600", O_WRONLY), EACCES);
	CHECK((fd = open(LDIR "/null666", O_WRONLY)) >= 0 && write(fd, "x", 1) == 1,
	      "a 0666 node of /dev/null: %s", strerror(errno));
	close(fd);
	EXPECT_ERR(mknod(LDIR "/mine", S_IFCHR | 0666, 0), EPERM);
}

/*
 * mknod(2) of character and block devices on wdfs: the node keeps the number, and opening it
 * reaches the devfs device of that number; a number no device has is ENXIO at open.
 */
UT_CASE(t_devnode)
{
	struct stat null, zero, st;
	char buf[8] = "abcdefg";
	pid_t pid;
	int fd, code;

	ut_rmtree(LDIR);
	CHECK(mkdir(LDIR, 0755) == 0, "mkdir: %s", strerror(errno));
	CHECK(stat("/dev/null", &null) == 0 && stat("/dev/zero", &zero) == 0 && null.st_rdev != zero.st_rdev,
	      "devfs gives /dev/null and /dev/zero one number (%#x)", null.st_rdev);
	CHECK(mknod(LDIR "/null600", S_IFCHR | 0600, null.st_rdev) == 0 &&
	      mknod(LDIR "/null666", S_IFCHR | 0666, null.st_rdev) == 0 &&
	      mknod(LDIR "/zero", S_IFBLK | 0644, zero.st_rdev) == 0, "mknod: %s", strerror(errno));
	CHECK(chmod(LDIR "/null666", 0666) == 0, "chmod: %s", strerror(errno));   /* past the umask */
	CHECK(lstat(LDIR "/null600", &st) == 0 && S_ISCHR(st.st_mode) && (st.st_mode & 07777) == 0600 &&
	      st.st_rdev == null.st_rdev && st.st_size == 0, "stat of the node: mode %#o rdev %#x",
	      st.st_mode, st.st_rdev);
	CHECK(major(makedev(12, 0x20005)) == 12 && minor(makedev(12, 0x20005)) == 0x20005, "makedev/major/minor");
	CHECK((fd = open(LDIR "/null600", O_RDWR)) >= 0 && write(fd, "x", 1) == 1 && read(fd, buf, 8) == 0,
	      "the node does not behave as /dev/null: %s", strerror(errno));
	close(fd);
	CHECK((fd = open(LDIR "/zero", O_RDONLY)) >= 0 && read(fd, buf, 8) == 8 && buf[0] == 0 && buf[7] == 0,
	      "the block node of /dev/zero does not read zeros: %s", strerror(errno));
	close(fd);
	CHECK(mknod(LDIR "/nodev", S_IFCHR | 0600, makedev(200, 7)) == 0, "mknod: %s", strerror(errno));
	EXPECT_ERR(open(LDIR "/nodev", O_RDONLY), ENXIO);
	EXPECT_ERR(mknod(LDIR "/zero", S_IFCHR | 0600, zero.st_rdev), EEXIST);
	EXPECT_ERR(truncate(LDIR "/null600", 0), EINVAL);
	/* names: link, rename and unlink as for any file */
	CHECK(link(LDIR "/zero", LDIR "/zero2") == 0 && rename(LDIR "/zero2", LDIR "/zero3") == 0 &&
	      stat(LDIR "/zero3", &st) == 0 && S_ISBLK(st.st_mode) && st.st_nlink == 2 && st.st_rdev == zero.st_rdev,
	      "link and rename of a device node: %s", strerror(errno));
	CHECK(unlink(LDIR "/zero3") == 0 && unlink(LDIR "/nodev") == 0, "unlink: %s", strerror(errno));
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (setuid(1001) < 0)
			exit(2);
		devnode_as_user();
		fflush(stdout);
		exit(ut_failed() ? 1 : 0);
	}
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "the part run as uid 1001 ended with %d", code);
}

/* ---- truncate ------------------------------------------------------------------------------- */

UT_CASE(t_truncate)
{
	char buf[16];
	struct stat st;

	ut_rmtree(LDIR);
	CHECK(mkdir(LDIR, 0755) == 0 && ut_mkfile(LDIR "/f", "0123456789") == 0, "setup: %s", strerror(errno));
	CHECK(truncate(LDIR "/f", 4) == 0 && stat(LDIR "/f", &st) == 0 && st.st_size == 4, "shrink to 4");
	CHECK(truncate(LDIR "/f", 100000) == 0 && stat(LDIR "/f", &st) == 0 && st.st_size == 100000,
	      "grow to 100000");
	int fd = open(LDIR "/f", O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, 8) == 8 && memcmp(buf, "0123\0\0\0\0", 8) == 0, "grown part is not zeros");
	close(fd);
	CHECK(symlink("f", LDIR "/l") == 0 && truncate(LDIR "/l", 2) == 0 && stat(LDIR "/f", &st) == 0 &&
	      st.st_size == 2, "truncate through a symbolic link");
	EXPECT_ERR(truncate(LDIR "/f", -1), EINVAL);
	EXPECT_ERR(truncate(LDIR, 0), EISDIR);
	EXPECT_ERR(truncate(LDIR "/none", 0), ENOENT);
	EXPECT_ERR(truncate(LDIR "/f/x", 0), ENOTDIR);
	EXPECT_ERR(truncate("/dev/null", 0), EINVAL);
	EXPECT_ERR(truncate((char *)1, 0), EFAULT);
}

/* ---- flock ---------------------------------------------------------------------------------- */

UT_CASE(t_flock)
{
	const char *f = LDIR "/lock";
	int a, b, c, p[2], code;
	struct stat st;
	pid_t pid;

	ut_rmtree(LDIR);
	CHECK(mkdir(LDIR, 0755) == 0 && ut_mkfile(f, "") == 0, "setup: %s", strerror(errno));
	a = open(f, O_RDWR);
	b = open(f, O_RDWR);
	c = open(f, O_RDONLY);
	CHECK(a >= 0 && b >= 0 && c >= 0, "open: %s", strerror(errno));
	CHECK(flock(a, LOCK_EX) == 0, "LOCK_EX: %s", strerror(errno));
	EXPECT_ERR(flock(b, LOCK_EX | LOCK_NB), EWOULDBLOCK);
	EXPECT_ERR(flock(b, LOCK_SH | LOCK_NB), EWOULDBLOCK);
	EXPECT_ERR(open(f, O_RDONLY | O_SHLOCK | O_NONBLOCK), EWOULDBLOCK);
	CHECK(flock(a, LOCK_EX) == 0, "taking the same lock again");
	CHECK(flock(a, LOCK_SH) == 0 && flock(b, LOCK_SH | LOCK_NB) == 0 && flock(c, LOCK_SH | LOCK_NB) == 0,
	      "shared locks side by side: %s", strerror(errno));
	EXPECT_ERR(flock(a, LOCK_EX | LOCK_NB), EWOULDBLOCK);   /* b and c share it */
	CHECK(flock(b, LOCK_UN) == 0 && close(c) == 0, "unlock and close: %s", strerror(errno));
	CHECK(flock(a, LOCK_EX | LOCK_NB) == 0, "LOCK_EX once the others let go: %s", strerror(errno));
	/* a blocked LOCK_EX gets the lock when the holder's open file closes */
	pipe(p);
	if ((pid = fork()) == 0) {
		int fd = open(f, O_RDWR);
		close(a);                               /* the open files fork shares hold the lock too */
		close(b);
		close(p[0]);
		write(p[1], "w", 1);                       /* about to wait */
		if (flock(fd, LOCK_EX) < 0)
			exit(2);
		exit(stat(LDIR "/released", &st) == 0 ? 0 : 3);
	}
	close(p[1]);
	CHECK(read(p[0], &code, 1) == 1, "the child did not start");
	close(p[0]);
	usleep(50000);
	CHECK(ut_mkfile(LDIR "/released", "") == 0 && close(a) == 0, "release: %s", strerror(errno));
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "the waiting child ended with %d (3: it got "
	      "the lock before it was released)", code);
	/* O_EXLOCK at open; dup shares the lock; it goes with the last descriptor */
	CHECK((a = open(f, O_RDWR | O_EXLOCK)) >= 0, "O_EXLOCK: %s", strerror(errno));
	c = dup(a);
	close(a);
	EXPECT_ERR(flock(b, LOCK_SH | LOCK_NB), EWOULDBLOCK);
	close(c);
	CHECK(flock(b, LOCK_EX | LOCK_NB) == 0, "after the last descriptor closed: %s", strerror(errno));
	EXPECT_ERR(flock(b, 0), EINVAL);
	EXPECT_ERR(flock(b, LOCK_SH | LOCK_EX), EINVAL);
	EXPECT_ERR(flock(-1, LOCK_SH), EBADF);
	CHECK(pipe(p) == 0, "pipe");
	EXPECT_ERR(flock(p[0], LOCK_SH), EOPNOTSUPP);
	close(b);
}

/* ---- /dev/random and /dev/urandom ----------------------------------------------------------- */

/* Bytes from a random device look random: two reads differ, and they use most byte values. */
UT_CASE(t_random)
{
	static unsigned char a[4096], b[4096];
	const char *devs[] = { "/dev/urandom", "/dev/random" };
	int seen[256], distinct, fd;

	for (int d = 0; d < 2; d++) {
		CHECK((fd = open(devs[d], O_RDWR)) >= 0, "open %s: %s", devs[d], strerror(errno));
		CHECK(read(fd, a, sizeof a) == (ssize_t)sizeof a && read(fd, b, sizeof b) == (ssize_t)sizeof b,
		      "%s: a short read", devs[d]);
		CHECK(memcmp(a, b, sizeof a) != 0, "%s: two reads gave the same bytes", devs[d]);
		memset(seen, 0, sizeof seen);
		distinct = 0;
		for (size_t i = 0; i < sizeof a; i++)
			distinct += seen[a[i]]++ == 0;
		CHECK(distinct > 240, "%s: only %d byte values in 4096 bytes", devs[d], distinct);
		CHECK(write(fd, "stir", 4) == 4, "writing to %s: %s", devs[d], strerror(errno));
		CHECK(read(fd, a, 3) == 3, "a read of 3 bytes");
		close(fd);
	}
}
