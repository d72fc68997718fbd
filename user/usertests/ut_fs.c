/*
 * ut_fs.c: usertests cases for files and directories: descriptor limits, big directories,
 * big and sparse files (64-bit offsets), rename/link/unlink/rmdir semantics, open flags,
 * ftruncate, concurrent writers, the working directory, dup.
 * wdfs has 8 KB blocks with 12 direct blocks and 2048 block numbers per indirect block, so a
 * file past 12 * 8 KB + 2048 * 8 KB = 16.09 MB needs the double-indirect block.
 */
#include "usertests.h"
#include <dirent.h>
#include <limits.h>

#define NOFILE 64   /* descriptors per process (kern/file.h) */

/* Open until EMFILE: exactly NOFILE descriptors, then all close again. */
UT_CASE(t_openmany)
{
	int fds[NOFILE + 1], n = 0, open0 = 0, fd;

	for (int i = 0; i < NOFILE; i++)
		if (fcntl(i, F_GETFD) >= 0)
			open0++;
	for (;;) {
		fd = open("/etc/rc", O_RDONLY);
		if (fd < 0)
			break;
		CHECK(n < NOFILE, "more than %d descriptors open", NOFILE);
		fds[n++] = fd;
	}
	CHECK(errno == EMFILE, "open failed with %s, expected EMFILE", ut_errname(errno));
	CHECK(n + open0 == NOFILE, "opened %d with %d already open; the limit is %d", n, open0, NOFILE);
	EXPECT_ERR(dup(0), EMFILE);
	EXPECT_ERR(pipe(fds + n), EMFILE);
	for (int i = 0; i < n; i++)
		CHECK(close(fds[i]) == 0, "close(%d): %s", fds[i], strerror(errno));
	fd = open("/etc/rc", O_RDONLY);
	CHECK(fd >= 0, "open after closing all: %s", strerror(errno));
	close(fd);
}

#define BIGDIR_PREFIX "file-with-a-longish-name-"

/* The index in a bigdir name, or -1. */
static int nameindex(const char *name)
{
	size_t pl = strlen(BIGDIR_PREFIX);
	char *end;
	long k;

	if (strncmp(name, BIGDIR_PREFIX, pl) != 0)
		return -1;
	k = strtol(name + pl, &end, 10);
	return *end || k < 0 || k >= 1000 ? -1 : (int)k;
}

/* 1,000 files in one directory: create, list (each name once), remove, rmdir. */
UT_CASE(t_bigdir)
{
	const int n = 1000;
	static char seen[1000];
	char name[64];
	struct dirent *de;
	DIR *d;
	int count = 0, fd;

	CHECK(mkdir("/tmp/ut/bigdir", 0755) == 0, "mkdir: %s", strerror(errno));
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "/tmp/ut/bigdir/" BIGDIR_PREFIX "%04d", i);
		fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		CHECK(fd >= 0, "create %s: %s", name, strerror(errno));
		close(fd);
	}
	CHECK((d = opendir("/tmp/ut/bigdir")) != NULL, "opendir: %s", strerror(errno));
	while ((de = readdir(d))) {
		int k = nameindex(de->d_name);
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		CHECK(k >= 0, "unexpected name %s", de->d_name);
		CHECK(!seen[k], "%s listed twice", de->d_name);
		CHECK(de->d_namlen == strlen(de->d_name), "d_namlen %d for %s", de->d_namlen, de->d_name);
		seen[k] = 1;
		count++;
	}
	closedir(d);
	CHECK(count == n, "listed %d names, expected %d", count, n);
	EXPECT_ERR(rmdir("/tmp/ut/bigdir"), ENOTEMPTY);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "/tmp/ut/bigdir/" BIGDIR_PREFIX "%04d", i);
		CHECK(unlink(name) == 0, "unlink %s: %s", name, strerror(errno));
	}
	CHECK(rmdir("/tmp/ut/bigdir") == 0, "rmdir after removing all: %s", strerror(errno));
}

/* An 18 MB file (into the double-indirect range): write, check the size, read back, unlink. */
UT_CASE(t_bigfile)
{
	static unsigned char buf[65536];
	const unsigned long long size = 18ULL << 20;
	struct stat st;
	int fd, bad;

	fd = open("/tmp/ut/bigfile", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	for (unsigned long long off = 0; off < size; off += sizeof buf) {
		ut_fill(buf, sizeof buf, off, 7);
		CHECK(ut_writeall(fd, buf, sizeof buf) == 0, "write at %llu: %s", off, strerror(errno));
	}
	CHECK(fstat(fd, &st) == 0 && (unsigned long long)st.st_size == size,
	      "size %lld after writing %llu", (long long)st.st_size, size);
	CHECK(st.st_blocks * 512 >= (long long)size, "st_blocks %lld too small for %llu bytes",
	      (long long)st.st_blocks, size);
	CHECK(fsync(fd) == 0, "fsync: %s", strerror(errno));
	CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek: %s", strerror(errno));
	for (unsigned long long off = 0; off < size;) {
		ssize_t n = read(fd, buf, sizeof buf);
		CHECK(n > 0, "read at %llu returned %d (%s)", off, (int)n, n < 0 ? strerror(errno) : "EOF");
		CHECK((bad = ut_verify(buf, n, off, 7)) < 0, "byte %llu reads back wrong", off + bad);
		off += n;
	}
	CHECK(read(fd, buf, 1) == 0, "no EOF at the end");
	/* a block in the double-indirect range, read at an odd offset */
	CHECK(lseek(fd, 17000001, SEEK_SET) == 17000001, "lseek: %s", strerror(errno));
	CHECK(read(fd, buf, 100) == 100 && ut_verify(buf, 100, 17000001, 7) < 0, "odd-offset read wrong");
	close(fd);
	CHECK(unlink("/tmp/ut/bigfile") == 0, "unlink: %s", strerror(errno));
}

/* Offsets past 4 GB: lseek keeps 64 bits; a sparse write there works (reads as zeros before). */
UT_CASE(t_lseek64)
{
	const off_t big = 5LL << 30;   /* 5 GB */
	char buf[16];
	struct stat st;
	off_t r;
	int fd;

	fd = open("/tmp/ut/sparse", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	CHECK((r = lseek(fd, big, SEEK_SET)) == big, "lseek to 5 GB returned %lld", (long long)r);
	CHECK((r = lseek(fd, 3, SEEK_CUR)) == big + 3, "SEEK_CUR returned %lld", (long long)r);
	CHECK((r = lseek(fd, 0, SEEK_END)) == 0, "SEEK_END of an empty file returned %lld", (long long)r);
	CHECK(lseek(fd, big, SEEK_SET) == big, "lseek back to 5 GB failed");
	if (write(fd, "end", 3) != 3) {
		CHECK(errno == EFBIG || errno == ENOSPC, "write at 5 GB: %s", strerror(errno));
		close(fd);
		unlink("/tmp/ut/sparse");
		return;   /* the file system refuses files this big: allowed */
	}
	CHECK(fstat(fd, &st) == 0 && st.st_size == big + 3, "size %lld, expected %lld",
	      (long long)st.st_size, (long long)(big + 3));
	CHECK(st.st_blocks < 1024, "a sparse 5 GB file uses %lld blocks", (long long)st.st_blocks);
	CHECK(lseek(fd, 0, SEEK_END) == big + 3, "SEEK_END wrong");
	CHECK(lseek(fd, big - 4, SEEK_SET) == big - 4, "lseek failed");
	CHECK(read(fd, buf, 16) == 7 && memcmp(buf, "\0\0\0\0end", 7) == 0, "read at 5 GB - 4 wrong");
	CHECK(lseek(fd, 1LL << 32, SEEK_SET) == 1LL << 32, "lseek to 4 GB failed");
	CHECK(read(fd, buf, 4) == 4 && memcmp(buf, "\0\0\0\0", 4) == 0, "hole at 4 GB is not zeros");
	close(fd);
	CHECK(unlink("/tmp/ut/sparse") == 0, "unlink: %s", strerror(errno));
}

UT_CASE(t_rename)
{
	char buf[64];
	struct stat st;

	CHECK(ut_mkfile("/tmp/ut/ra", "aaa") == 0 && ut_mkfile("/tmp/ut/rb", "bbb") == 0, "create: %s", strerror(errno));
	CHECK(rename("/tmp/ut/ra", "/tmp/ut/rc") == 0, "rename: %s", strerror(errno));
	CHECK(stat("/tmp/ut/ra", &st) < 0 && errno == ENOENT, "old name still exists");
	CHECK(ut_readfile("/tmp/ut/rc", buf, sizeof buf) == 3 && strcmp(buf, "aaa") == 0, "new name has \"%s\"", buf);
	CHECK(rename("/tmp/ut/rc", "/tmp/ut/rb") == 0, "rename over a file: %s", strerror(errno));
	CHECK(ut_readfile("/tmp/ut/rb", buf, sizeof buf) == 3 && strcmp(buf, "aaa") == 0, "replaced file has \"%s\"", buf);
	CHECK(stat("/tmp/ut/rc", &st) < 0, "source of the replacing rename still exists");
	CHECK(mkdir("/tmp/ut/rd", 0755) == 0 && mkdir("/tmp/ut/rd/sub", 0755) == 0, "mkdir: %s", strerror(errno));
	CHECK(rename("/tmp/ut/rb", "/tmp/ut/rd/sub/moved") == 0, "rename into a directory: %s", strerror(errno));
	CHECK(rename("/tmp/ut/rd", "/tmp/ut/re") == 0, "rename a directory: %s", strerror(errno));
	CHECK(ut_readfile("/tmp/ut/re/sub/moved", buf, sizeof buf) == 3, "file lost in the renamed directory");
	CHECK(stat("/tmp/ut/re/sub/..", &st) == 0 && S_ISDIR(st.st_mode), "'..' broken after rename");
	EXPECT_ERR(rename("/tmp/ut/nosuch", "/tmp/ut/x"), ENOENT);
	EXPECT_ERR(rename("/tmp/ut/re", "/tmp/ut/re/sub/inside"), EINVAL);   /* into itself */
	CHECK(ut_mkfile("/tmp/ut/rf", "f") == 0, "create: %s", strerror(errno));
	EXPECT_ERR(rename("/tmp/ut/rf", "/tmp/ut/re"), EISDIR);
	EXPECT_ERR(rename("/tmp/ut/re", "/tmp/ut/rf"), ENOTDIR);
}

/* link adds a name and a count; unlink removes them; the data lives while a name does. */
UT_CASE(t_link_unlink)
{
	struct stat st;
	char buf[64];

	CHECK(ut_mkfile("/tmp/ut/la", "linked") == 0, "create: %s", strerror(errno));
	CHECK(stat("/tmp/ut/la", &st) == 0 && st.st_nlink == 1, "new file nlink %u", (unsigned)st.st_nlink);
	CHECK(link("/tmp/ut/la", "/tmp/ut/lb") == 0, "link: %s", strerror(errno));
	CHECK(stat("/tmp/ut/la", &st) == 0 && st.st_nlink == 2, "nlink %u after link, expected 2", (unsigned)st.st_nlink);
	ino_t ino = st.st_ino;
	CHECK(stat("/tmp/ut/lb", &st) == 0 && st.st_ino == ino, "the link is another inode");
	EXPECT_ERR(link("/tmp/ut/la", "/tmp/ut/lb"), EEXIST);
	EXPECT_ERR(link("/tmp/ut/nosuch", "/tmp/ut/lc"), ENOENT);
	EXPECT_ERR(link("/tmp", "/tmp/ut/ldir"), EPERM);   /* no hard links to directories */
	CHECK(unlink("/tmp/ut/la") == 0, "unlink: %s", strerror(errno));
	CHECK(stat("/tmp/ut/lb", &st) == 0 && st.st_nlink == 1, "nlink %u after unlink, expected 1", (unsigned)st.st_nlink);
	CHECK(ut_readfile("/tmp/ut/lb", buf, sizeof buf) == 6 && strcmp(buf, "linked") == 0, "data lost: \"%s\"", buf);
	CHECK(unlink("/tmp/ut/lb") == 0, "unlink: %s", strerror(errno));
	EXPECT_ERR(unlink("/tmp/ut/lb"), ENOENT);
	CHECK(mkdir("/tmp/ut/ld", 0755) == 0, "mkdir: %s", strerror(errno));
	CHECK(stat("/tmp/ut/ld", &st) == 0 && st.st_nlink == 2, "new directory nlink %u, expected 2", (unsigned)st.st_nlink);
	CHECK(mkdir("/tmp/ut/ld/sub", 0755) == 0, "mkdir: %s", strerror(errno));
	CHECK(stat("/tmp/ut/ld", &st) == 0 && st.st_nlink == 3, "nlink %u with a subdirectory, expected 3", (unsigned)st.st_nlink);
	EXPECT_ERR(unlink("/tmp/ut/ld/sub"), EPERM);   /* FreeBSD's unlink(2): "the named file is a directory" */
}

/* An unlinked file stays readable and writable through an open descriptor. */
UT_CASE(t_unlink_open)
{
	char buf[16];
	struct stat st;
	int fd = open("/tmp/ut/uo", O_CREAT | O_RDWR | O_TRUNC, 0644);

	CHECK(fd >= 0, "create: %s", strerror(errno));
	CHECK(write(fd, "before", 6) == 6, "write: %s", strerror(errno));
	CHECK(unlink("/tmp/ut/uo") == 0, "unlink: %s", strerror(errno));
	CHECK(write(fd, "after", 5) == 5, "write after unlink: %s", strerror(errno));
	CHECK(fstat(fd, &st) == 0 && st.st_nlink == 0 && st.st_size == 11, "fstat: nlink %u size %lld",
	      (unsigned)st.st_nlink, (long long)st.st_size);
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && read(fd, buf, 16) == 11 && memcmp(buf, "beforeafter", 11) == 0,
	      "contents of the unlinked file wrong");
	close(fd);
	CHECK(stat("/tmp/ut/uo", &st) < 0, "name came back");
}

UT_CASE(t_rmdir)
{
	CHECK(mkdir("/tmp/ut/rm", 0755) == 0, "mkdir: %s", strerror(errno));
	CHECK(ut_mkfile("/tmp/ut/rm/f", "x") == 0, "create: %s", strerror(errno));
	EXPECT_ERR(rmdir("/tmp/ut/rm"), ENOTEMPTY);
	EXPECT_ERR(rmdir("/tmp/ut/rm/f"), ENOTDIR);
	EXPECT_ERR(rmdir("/tmp/ut/nosuch"), ENOENT);
	EXPECT_ERR(rmdir("/tmp/ut/rm/."), EINVAL);
	EXPECT_ERR(mkdir("/tmp/ut/rm", 0755), EEXIST);
	EXPECT_ERR(mkdir("/tmp/ut/nosuch/sub", 0755), ENOENT);
	EXPECT_ERR(mkdir("/tmp/ut/rm/f/sub", 0755), ENOTDIR);
	CHECK(unlink("/tmp/ut/rm/f") == 0, "unlink: %s", strerror(errno));
	CHECK(rmdir("/tmp/ut/rm") == 0, "rmdir of the emptied directory: %s", strerror(errno));
	EXPECT_ERR(rmdir("/tmp/ut/rm"), ENOENT);
	/* "/" has no last component to remove, create or rename: FreeBSD's lookup() says EISDIR. */
	EXPECT_ERR(rmdir("/"), EISDIR);
	EXPECT_ERR(rmdir("//"), EISDIR);
	EXPECT_ERR(mkdir("/", 0755), EISDIR);
	EXPECT_ERR(unlink("/"), EISDIR);
	EXPECT_ERR(rename("/", "/tmp/ut/rootmoved"), EISDIR);
	CHECK(ut_mkfile("/tmp/ut/rm2", "x") == 0, "create: %s", strerror(errno));
	EXPECT_ERR(rename("/tmp/ut/rm2", "/"), EISDIR);
	CHECK(unlink("/tmp/ut/rm2") == 0, "unlink: %s", strerror(errno));
}

UT_CASE(t_o_excl)
{
	int fd = open("/tmp/ut/ex", O_CREAT | O_EXCL | O_WRONLY, 0644);

	CHECK(fd >= 0, "first O_EXCL create: %s", strerror(errno));
	close(fd);
	EXPECT_ERR(open("/tmp/ut/ex", O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST);
	EXPECT_ERR(open("/tmp", O_CREAT | O_EXCL | O_RDONLY, 0644), EEXIST);
	EXPECT_ERR(open("/tmp/ut/nosuch", O_RDONLY), ENOENT);
	EXPECT_ERR(open("/tmp/ut/nosuchdir/f", O_CREAT | O_WRONLY, 0644), ENOENT);
	EXPECT_ERR(open("/tmp/ut/ex/f", O_CREAT | O_WRONLY, 0644), ENOTDIR);
	EXPECT_ERR(open("/tmp/ut/ex", O_RDONLY | O_DIRECTORY), ENOTDIR);
}

/* O_APPEND writes land at the end even when another descriptor moved it. */
UT_CASE(t_o_append)
{
	char buf[32];
	int a = open("/tmp/ut/ap", O_CREAT | O_WRONLY | O_TRUNC | O_APPEND, 0644);
	int b = open("/tmp/ut/ap", O_WRONLY | O_APPEND);

	CHECK(a >= 0 && b >= 0, "open: %s", strerror(errno));
	CHECK(write(a, "11", 2) == 2 && write(b, "22", 2) == 2 && write(a, "33", 2) == 2, "write: %s", strerror(errno));
	CHECK(lseek(a, 0, SEEK_SET) == 0, "lseek: %s", strerror(errno));
	CHECK(write(a, "44", 2) == 2, "write after lseek: %s", strerror(errno));
	close(a);
	close(b);
	CHECK(ut_readfile("/tmp/ut/ap", buf, sizeof buf) == 8 && strcmp(buf, "11223344") == 0, "file has \"%s\"", buf);
}

UT_CASE(t_o_trunc)
{
	char buf[32];
	struct stat st;
	int fd;

	CHECK(ut_mkfile("/tmp/ut/tr", "a long first version") == 0, "create: %s", strerror(errno));
	fd = open("/tmp/ut/tr", O_WRONLY | O_TRUNC);
	CHECK(fd >= 0, "open O_TRUNC: %s", strerror(errno));
	CHECK(fstat(fd, &st) == 0 && st.st_size == 0, "size %lld after O_TRUNC", (long long)st.st_size);
	CHECK(write(fd, "short", 5) == 5, "write: %s", strerror(errno));
	close(fd);
	CHECK(ut_readfile("/tmp/ut/tr", buf, sizeof buf) == 5 && strcmp(buf, "short") == 0, "file has \"%s\"", buf);
}

/* ftruncate shrinks (data gone) and grows (zeros), also across block boundaries. */
UT_CASE(t_ftruncate)
{
	static unsigned char buf[20000];
	struct stat st;
	int fd = open("/tmp/ut/ft", O_CREAT | O_RDWR | O_TRUNC, 0644), bad;

	CHECK(fd >= 0, "create: %s", strerror(errno));
	ut_fill(buf, sizeof buf, 0, 3);
	CHECK(write(fd, buf, sizeof buf) == sizeof buf, "write: %s", strerror(errno));
	CHECK(ftruncate(fd, 10000) == 0, "ftruncate down: %s", strerror(errno));
	CHECK(fstat(fd, &st) == 0 && st.st_size == 10000, "size %lld, expected 10000", (long long)st.st_size);
	CHECK(ftruncate(fd, 30000) == 0, "ftruncate up: %s", strerror(errno));
	CHECK(fstat(fd, &st) == 0 && st.st_size == 30000, "size %lld, expected 30000", (long long)st.st_size);
	CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek: %s", strerror(errno));
	CHECK(read(fd, buf, 10000) == 10000 && (bad = ut_verify(buf, 10000, 0, 3)) < 0, "kept data wrong");
	CHECK(read(fd, buf, 20000) == 20000, "read of the grown part: %s", strerror(errno));
	for (int i = 0; i < 20000; i++)
		CHECK(buf[i] == 0, "byte %d of the regrown part is %d, not 0", 10000 + i, buf[i]);
	CHECK(ftruncate(fd, 0) == 0 && fstat(fd, &st) == 0 && st.st_size == 0, "truncate to 0 failed");
	EXPECT_ERR(ftruncate(fd, -1), EINVAL);
	close(fd);
}

/* utimes sets both times (whole seconds), NULL means now, the change time moves; bad arguments fail. */
UT_CASE(t_utimes)
{
	struct timeval tv[2] = { { 977000000, 0 }, { 977299200, 999999 } };
	struct stat st;
	time_t before = time(NULL);
	int fd = open("/tmp/ut/ut", O_CREAT | O_RDWR | O_TRUNC, 0644);

	CHECK(fd >= 0, "create: %s", strerror(errno));
	close(fd);
	CHECK(utimes("/tmp/ut/ut", tv) == 0, "utimes: %s", strerror(errno));
	CHECK(stat("/tmp/ut/ut", &st) == 0, "stat: %s", strerror(errno));
	CHECK(st.st_atime == 977000000 && st.st_mtime == 977299200, "atime %lld mtime %lld, expected 977000000 977299200",
	      (long long)st.st_atime, (long long)st.st_mtime);
	CHECK(st.st_ctime >= before, "ctime %lld before the call (%lld)", (long long)st.st_ctime, (long long)before);
	CHECK(utimes("/tmp/ut/ut", NULL) == 0 && stat("/tmp/ut/ut", &st) == 0, "utimes NULL: %s", strerror(errno));
	CHECK(st.st_atime >= before && st.st_mtime >= before && st.st_mtime <= time(NULL),
	      "utimes NULL set mtime %lld, not now (%lld)", (long long)st.st_mtime, (long long)before);
	tv[1].tv_usec = 1000000;
	EXPECT_ERR(utimes("/tmp/ut/ut", tv), EINVAL);
	tv[1].tv_usec = -1;
	EXPECT_ERR(utimes("/tmp/ut/ut", tv), EINVAL);
	EXPECT_ERR(utimes("/tmp/ut/ut", (struct timeval *)1), EFAULT);
	EXPECT_ERR(utimes((const char *)1, NULL), EFAULT);
	EXPECT_ERR(utimes("/tmp/ut/nosuch", NULL), ENOENT);
	CHECK(utimes("/tmp/ut", NULL) == 0, "utimes on a directory: %s", strerror(errno));
}

/*
 * Concurrent writers (run with smp=2 this is SMP): NCHILD children each write their own
 * 64 KB region of one file with lseek+write, and append NREC records to another file with
 * O_APPEND. Every region must be intact and every record present exactly once.
 */
#define NCHILD 4
#define REGION 65536
#define NREC   200

UT_CASE(t_concurrent)
{
	static unsigned char buf[REGION];
	char rec[16];
	int counts[NCHILD] = { 0 }, fd, afd, code, bad;
	pid_t pids[NCHILD];
	struct stat st;

	fd = open("/tmp/ut/shared", O_CREAT | O_RDWR | O_TRUNC, 0644);
	afd = open("/tmp/ut/log", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(fd >= 0 && afd >= 0, "create: %s", strerror(errno));
	close(afd);
	for (int c = 0; c < NCHILD; c++) {
		pids[c] = fork();
		CHECK(pids[c] >= 0, "fork: %s", strerror(errno));
		if (pids[c] == 0) {
			int myfd = open("/tmp/ut/shared", O_WRONLY);
			int mylog = open("/tmp/ut/log", O_WRONLY | O_APPEND);
			if (myfd < 0 || mylog < 0)
				_exit(2);
			for (int i = 0; i < NREC; i++) {
				/* the region in 16 pieces, interleaved with appends */
				if (i < 16) {
					off_t off = (off_t)c * REGION + i * (REGION / 16);
					ut_fill(buf, REGION / 16, off, 11);
					if (lseek(myfd, off, SEEK_SET) != off || ut_writeall(myfd, buf, REGION / 16) < 0)
						_exit(3);
				}
				snprintf(rec, sizeof rec, "%d:%04d\n", c, i);   /* 7 bytes, one write */
				if (write(mylog, rec, 7) != 7)
					_exit(4);
			}
			_exit(0);
		}
	}
	for (int c = 0; c < NCHILD; c++)
		CHECK(ut_waitexit(pids[c], &code) == pids[c] && code == 0, "writer %d exited with %d", c, code);
	CHECK(fstat(fd, &st) == 0 && st.st_size == NCHILD * REGION, "shared file size %lld", (long long)st.st_size);
	for (int c = 0; c < NCHILD; c++) {
		CHECK(lseek(fd, (off_t)c * REGION, SEEK_SET) == (off_t)c * REGION, "lseek: %s", strerror(errno));
		CHECK(read(fd, buf, REGION) == REGION, "read region %d: %s", c, strerror(errno));
		CHECK((bad = ut_verify(buf, REGION, (unsigned long long)c * REGION, 11)) < 0,
		      "region %d byte %d wrong", c, bad);
	}
	close(fd);
	afd = open("/tmp/ut/log", O_RDONLY);
	CHECK(afd >= 0 && fstat(afd, &st) == 0, "open log: %s", strerror(errno));
	CHECK(st.st_size == NCHILD * NREC * 7, "log size %lld, expected %d", (long long)st.st_size, NCHILD * NREC * 7);
	for (int i = 0; i < NCHILD * NREC; i++) {
		int c, k;
		CHECK(read(afd, rec, 7) == 7, "short log");
		CHECK(rec[1] == ':' && rec[6] == '\n', "record %d garbled: \"%.7s\"", i, rec);
		c = rec[0] - '0';
		k = atoi(rec + 2);
		CHECK(c >= 0 && c < NCHILD && k == counts[c], "record %d is \"%.6s\", expected %d:%04d next from writer %d",
		      i, rec, c, c >= 0 && c < NCHILD ? counts[c] : -1, c);
		counts[c]++;
	}
	close(afd);
}

UT_CASE(t_cwd)
{
	char buf[PATH_MAX], small[4];
	struct stat st;

	CHECK(mkdir("/tmp/ut/cwd", 0755) == 0 && mkdir("/tmp/ut/cwd/sub", 0755) == 0, "mkdir: %s", strerror(errno));
	CHECK(chdir("/tmp/ut/cwd/sub") == 0, "chdir: %s", strerror(errno));
	CHECK(getcwd(buf, sizeof buf) && strcmp(buf, "/tmp/ut/cwd/sub") == 0, "getcwd gave \"%s\"", buf);
	CHECK(ut_mkfile("rel", "r") == 0, "relative create: %s", strerror(errno));
	CHECK(stat("/tmp/ut/cwd/sub/rel", &st) == 0, "relative create went elsewhere");
	CHECK(chdir("..") == 0 && getcwd(buf, sizeof buf) && strcmp(buf, "/tmp/ut/cwd") == 0, "after chdir ..: \"%s\"", buf);
	CHECK(stat("sub/rel", &st) == 0, "relative stat failed: %s", strerror(errno));
	EXPECT_ERR(chdir("/tmp/ut/nosuch"), ENOENT);
	EXPECT_ERR(chdir("sub/rel"), ENOTDIR);
	/* getcwd returns NULL, not -1, on failure: ERANGE when the buffer is too small */
	errno = 0;
	CHECK(getcwd(small, sizeof small) == NULL && errno == ERANGE,
	      "getcwd into %zu bytes: expected NULL with ERANGE, got %s", sizeof small, ut_errname(errno));
	CHECK(chdir("/") == 0 && getcwd(buf, sizeof buf) && strcmp(buf, "/") == 0, "getcwd at the root: \"%s\"", buf);
	CHECK(chdir("/..") == 0 && getcwd(buf, sizeof buf) && strcmp(buf, "/") == 0, "/.. is not /: \"%s\"", buf);
}

/* dup shares the offset; dup2 closes the target first; descriptors are inherited by fork. */
UT_CASE(t_dup)
{
	char buf[8];
	int fd, d, code;
	pid_t pid;

	CHECK(ut_mkfile("/tmp/ut/dup", "abcdef") == 0, "create: %s", strerror(errno));
	fd = open("/tmp/ut/dup", O_RDONLY);
	CHECK(fd >= 0, "open: %s", strerror(errno));
	d = dup(fd);
	CHECK(d > fd, "dup returned %d", d);
	CHECK(read(fd, buf, 2) == 2 && read(d, buf, 2) == 2 && memcmp(buf, "cd", 2) == 0, "offset not shared");
	CHECK(dup2(fd, d) == d, "dup2 onto an open descriptor: %s", strerror(errno));
	CHECK(dup2(fd, fd) == fd, "dup2 onto itself: %s", strerror(errno));
	CHECK(dup2(fd, 40) == 40, "dup2 to 40: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(read(40, buf, 1) == 1 && buf[0] == 'e' ? 0 : 1);
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "child did not read 'e' through the inherited descriptor");
	CHECK(read(fd, buf, 1) == 1 && buf[0] == 'f', "parent's offset did not move with the child's read");
	close(40);
	close(d);
	close(fd);
	fd = open("/tmp/ut/dup", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC, "O_CLOEXEC not recorded");
	close(fd);
}

UT_CASE(t_eisdir)
{
	char buf[8];
	int fd;

	EXPECT_ERR(open("/tmp", O_WRONLY), EISDIR);
	EXPECT_ERR(open("/tmp", O_RDWR), EISDIR);
	EXPECT_ERR(open("/tmp", O_WRONLY | O_CREAT, 0644), EISDIR);
	EXPECT_ERR(open("/tmp", O_RDONLY | O_CREAT, 0644), EISDIR);   /* later FreeBSD's answer */
	EXPECT_ERR(open("/tmp/.", O_RDONLY | O_CREAT, 0644), EISDIR);
	fd = open("/tmp", O_RDONLY);
	CHECK(fd >= 0, "open a directory read-only: %s", strerror(errno));
	EXPECT_ERR(read(fd, buf, sizeof buf), EISDIR);
	close(fd);
}

/* getdents gives whole records, "." and ".." first, and copes with tiny buffers. */
UT_CASE(t_getdents)
{
	char buf[512];
	struct dirent *de;
	int fd, n, dot = 0, dotdot = 0;

	CHECK(mkdir("/tmp/ut/gd", 0755) == 0, "mkdir: %s", strerror(errno));
	fd = open("/tmp/ut/gd", O_RDONLY);
	CHECK(fd >= 0, "open: %s", strerror(errno));
	EXPECT_ERR(getdents(fd, buf, 4), EINVAL);   /* smaller than one record */
	while ((n = getdents(fd, buf, sizeof buf)) > 0) {
		for (int off = 0; off < n; off += de->d_reclen) {
			de = (struct dirent *)(buf + off);
			CHECK(de->d_reclen > 0 && de->d_reclen % 4 == 0 && off + de->d_reclen <= n,
			      "bad d_reclen %d", de->d_reclen);
			dot += strcmp(de->d_name, ".") == 0;
			dotdot += strcmp(de->d_name, "..") == 0;
		}
	}
	CHECK(n == 0, "getdents: %s", strerror(errno));
	CHECK(dot == 1 && dotdot == 1, "empty directory lists . %d times and .. %d times", dot, dotdot);
	close(fd);
	fd = open("/etc/rc", O_RDONLY);
	CHECK(fd >= 0, "open /etc/rc: %s", strerror(errno));
	EXPECT_ERR(getdents(fd, buf, sizeof buf), EINVAL);   /* FreeBSD's getdirentries: not a VDIR */
	close(fd);
}
