/*
 * ut_vm.c: usertests cases for the virtual memory calls (docs/vm.md): mmap, munmap, mprotect,
 * msync with good and bad arguments, mappings that overlap, copy-on-write fork, shared and
 * private file mappings, the fault counts of getrusage and its bad arguments, and swapon's
 * errors (the guest has no spare disk: adding swap itself is tests/guest/test_vm_swap.py's).
 */
#include "usertests.h"
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define PG 4096

/* Run fn(arg) in a child; its exit code, or 128 + the signal that killed it. */
static int in_child(void (*fn)(void *), void *arg)
{
	int code;
	pid_t pid = fork();
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	if (pid < 0)
		return -1;
	ut_waitexit(pid, &code);
	return code;
}

static void poke(void *p)
{
	*(volatile char *)p = 1;
}

static void peek(void *p)
{
	(void)*(volatile char *)p;
}

/* Read n bytes at offset off (the libc has no pread). */
static int read_at(int fd, void *buf, size_t n, off_t off)
{
	if (lseek(fd, off, SEEK_SET) != off)
		return -1;
	return (int)read(fd, buf, n);
}

/* A scratch file of n bytes of pattern `seed`; its descriptor (O_RDWR) or -1. */
static int make_file(const char *path, size_t n, unsigned seed)
{
	static unsigned char buf[4 * PG];
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (size_t off = 0; off < n; off += sizeof buf) {
		size_t k = n - off < sizeof buf ? n - off : sizeof buf;
		ut_fill(buf, k, off, seed);
		if (ut_writeall(fd, buf, k) != 0)
			return -1;
	}
	return fd;
}

UT_CASE(t_mmap_anon)
{
	const size_t n = 1 << 20;
	unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_ANON | MAP_PRIVATE, -1, 0);
	CHECK(p != MAP_FAILED, "mmap anon: %s", strerror(errno));
	CHECK(((unsigned long)p & (PG - 1)) == 0, "mmap returned unaligned %p", p);
	for (size_t i = 0; i < n; i += PG)
		CHECK(p[i] == 0 && p[i + PG - 1] == 0, "anonymous page at +%zu not zero", i);
	ut_fill(p, n, 0, 7);
	CHECK((ut_verify(p, n, 0, 7) == -1), "anonymous memory lost its contents");
	unsigned char *q = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_ANON | MAP_PRIVATE, -1, 0);
	CHECK(q != MAP_FAILED && (q + PG <= p || q >= p + n), "a second mapping overlaps the first");
	CHECK(munmap(p, n) == 0, "munmap: %s", strerror(errno));
	CHECK(in_child(peek, p) == 128 + SIGSEGV, "reading an unmapped page did not give SIGSEGV");
	CHECK(munmap(q, PG) == 0, "munmap: %s", strerror(errno));
}

UT_CASE(t_mmap_badargs)
{
	int fd = make_file("/tmp/ut/mm_bad", PG, 1);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	int rd = open("/tmp/ut/mm_bad", O_RDONLY), wr = open("/tmp/ut/mm_bad", O_WRONLY);
	int pfd[2];
	CHECK(rd >= 0 && wr >= 0 && pipe(pfd) == 0, "open/pipe: %s", strerror(errno));
	int dfd = open("/tmp", O_RDONLY);
	const int RW = PROT_READ | PROT_WRITE;
	EXPECT_ERR(mmap(NULL, 0, RW, MAP_ANON | MAP_PRIVATE, -1, 0), EINVAL);
	EXPECT_ERR(mmap(NULL, PG, RW, MAP_ANON, -1, 0), EINVAL);                 /* neither kind */
	EXPECT_ERR(mmap(NULL, PG, RW, MAP_ANON | MAP_SHARED | MAP_PRIVATE, -1, 0), EINVAL);
	EXPECT_ERR(mmap(NULL, PG, 0x80, MAP_ANON | MAP_PRIVATE, -1, 0), EINVAL);  /* bad prot */
	EXPECT_ERR(mmap(NULL, PG, RW, MAP_ANON | MAP_PRIVATE | 0x40000, -1, 0), EINVAL);
	EXPECT_ERR(mmap(NULL, PG, RW, MAP_ANON | MAP_PRIVATE, 3, 0), EINVAL);     /* anon with an fd */
	EXPECT_ERR(mmap(NULL, PG, RW, MAP_SHARED, fd, 100), EINVAL);              /* unaligned offset */
	EXPECT_ERR(mmap(NULL, PG, RW, MAP_SHARED, fd, -PG), EINVAL);
	EXPECT_ERR(mmap((void *)0x50000100, PG, RW, MAP_ANON | MAP_PRIVATE | MAP_FIXED, -1, 0), EINVAL);
	EXPECT_ERR(mmap((void *)0x7fffe000, 4 * PG, RW, MAP_ANON | MAP_PRIVATE | MAP_FIXED, -1, 0), EINVAL);
	EXPECT_ERR(mmap((void *)0x80000000, PG, RW, MAP_ANON | MAP_PRIVATE | MAP_FIXED, -1, 0), EINVAL);
	EXPECT_ERR(mmap((void *)0, PG, RW, MAP_ANON | MAP_PRIVATE | MAP_FIXED, -1, 0), EINVAL);
	EXPECT_ERR(mmap(NULL, 0x78000000, RW, MAP_ANON | MAP_PRIVATE, -1, 0), ENOMEM); /* no room */
	EXPECT_ERR(mmap(NULL, PG, RW, MAP_SHARED, 99, 0), EBADF);
	EXPECT_ERR(mmap(NULL, PG, RW, MAP_SHARED, pfd[0], 0), ENODEV);
	EXPECT_ERR(mmap(NULL, PG, PROT_READ, MAP_SHARED, dfd, 0), ENODEV);
	EXPECT_ERR(mmap(NULL, PG, RW, MAP_SHARED, rd, 0), EACCES);                /* read-only fd */
	EXPECT_ERR(mmap(NULL, PG, PROT_READ, MAP_SHARED, wr, 0), EACCES);         /* write-only fd */
	void *p = mmap(NULL, PG, RW, MAP_PRIVATE, rd, 0);                         /* private: fine */
	CHECK(p != MAP_FAILED, "MAP_PRIVATE|PROT_WRITE of a read-only fd: %s", strerror(errno));
	munmap(p, PG);
	p = mmap(NULL, PG, PROT_READ, MAP_SHARED, rd, 0);
	CHECK(p != MAP_FAILED, "read-only shared mapping: %s", strerror(errno));
	EXPECT_ERR(mprotect(p, PG, RW), EACCES);                                  /* above maxprot */
	munmap(p, PG);
	close(fd), close(rd), close(wr), close(dfd), close(pfd[0]), close(pfd[1]);
	unlink("/tmp/ut/mm_bad");
}

UT_CASE(t_munmap_badargs)
{
	EXPECT_ERR(munmap((void *)0x50000001, PG), EINVAL);
	EXPECT_ERR(munmap((void *)0x50000000, 0), EINVAL);
	EXPECT_ERR(munmap((void *)0x7fffe000, 4 * PG), EINVAL);
	EXPECT_ERR(munmap((void *)0x80000000, PG), EINVAL);
	CHECK(munmap((void *)0x50000000, 16 * PG) == 0, "munmap of nothing: %s", strerror(errno));
	/* Unmapping the middle of a mapping leaves both ends. */
	char *p = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_ANON | MAP_PRIVATE, -1, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	p[0] = 1, p[PG] = 2, p[2 * PG] = 3;
	CHECK(munmap(p + PG, PG) == 0, "munmap middle: %s", strerror(errno));
	CHECK(p[0] == 1 && p[2 * PG] == 3, "the ends of a split mapping lost their contents");
	CHECK(in_child(peek, p + PG) == 128 + SIGSEGV, "the unmapped middle is still readable");
	munmap(p, 3 * PG);
}

/*
 * MAP_FIXED over part of a mapping replaces that part (FreeBSD unmaps what was there first);
 * munmap of a range spanning two mappings, and the hole between them, unmaps both parts.
 */
UT_CASE(t_mmap_overlap)
{
	const int RW = PROT_READ | PROT_WRITE;
	int fd = make_file("/tmp/ut/mm_over", PG, 6);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	unsigned char *p = mmap(NULL, 5 * PG, RW, MAP_ANON | MAP_PRIVATE, -1, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(p, 0xaa, 5 * PG);
	/* The file over page 3 of the five, then fresh zero memory over page 1. */
	CHECK(mmap(p + 3 * PG, PG, RW, MAP_SHARED | MAP_FIXED, fd, 0) == p + 3 * PG,
	      "MAP_FIXED file over anonymous memory: %s", strerror(errno));
	CHECK(ut_verify(p + 3 * PG, PG, 0, 6) == -1, "MAP_FIXED file mapping does not show the file");
	CHECK(mmap(p + PG, PG, RW, MAP_ANON | MAP_PRIVATE | MAP_FIXED, -1, 0) == p + PG,
	      "MAP_FIXED anonymous over anonymous: %s", strerror(errno));
	CHECK(p[PG] == 0 && p[2 * PG - 1] == 0, "MAP_FIXED anonymous page kept the old contents");
	CHECK(p[0] == 0xaa && p[2 * PG] == 0xaa && p[4 * PG] == 0xaa && p[5 * PG - 1] == 0xaa,
	      "the pages beside the MAP_FIXED ones lost their contents");
	/* Page 2 becomes a hole; then one munmap over page 1, the hole and page 3 (the file). */
	CHECK(munmap(p + 2 * PG, PG) == 0, "munmap page 2: %s", strerror(errno));
	CHECK(munmap(p + PG, 3 * PG) == 0, "munmap over two mappings and a hole: %s", strerror(errno));
	CHECK(in_child(peek, p + PG) == 128 + SIGSEGV, "page 1 still mapped after the spanning munmap");
	CHECK(in_child(peek, p + 3 * PG) == 128 + SIGSEGV, "page 3 (the file) still mapped after the spanning munmap");
	CHECK(p[0] == 0xaa && p[4 * PG] == 0xaa, "the pages outside the spanning munmap lost their contents");
	unsigned char buf[PG];
	CHECK(read_at(fd, buf, PG, 0) == PG && ut_verify(buf, PG, 0, 6) == -1,
	      "the file changed under its unmapped MAP_FIXED mapping");
	munmap(p, 5 * PG);
	close(fd);
	unlink("/tmp/ut/mm_over");
}

UT_CASE(t_mprotect)
{
	char *p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_ANON | MAP_PRIVATE, -1, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	p[0] = 'a', p[PG] = 'b';
	CHECK(mprotect(p, PG, PROT_READ) == 0, "mprotect read-only: %s", strerror(errno));
	CHECK(p[0] == 'a', "a read-only page lost its contents");
	CHECK(in_child(poke, p) == 128 + SIGSEGV, "writing a read-only page did not give SIGSEGV");
	CHECK(in_child(poke, p + PG) == 0, "the page after the protected one is not writable");
	CHECK(mprotect(p, PG, PROT_NONE) == 0, "mprotect none: %s", strerror(errno));
	CHECK(in_child(peek, p) == 128 + SIGSEGV, "reading a PROT_NONE page did not give SIGSEGV");
	CHECK(mprotect(p, 2 * PG, PROT_READ | PROT_WRITE) == 0, "mprotect back: %s", strerror(errno));
	p[0] = 'c';
	CHECK(p[0] == 'c' && p[PG] == 'b', "contents after mprotect back");
	EXPECT_ERR(mprotect(p + 1, PG, PROT_READ), EINVAL);
	EXPECT_ERR(mprotect(p, PG, 0x40), EINVAL);
	EXPECT_ERR(mprotect(p, 3 * PG, PROT_READ), ENOMEM);       /* runs past the mapping */
	EXPECT_ERR(mprotect((void *)0x7fffe000, 4 * PG, PROT_READ), EINVAL);
	munmap(p, 2 * PG);
	EXPECT_ERR(mprotect(p, PG, PROT_READ), ENOMEM);           /* not mapped at all */
}

UT_CASE(t_msync_badargs)
{
	char *p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_ANON | MAP_PRIVATE, -1, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	EXPECT_ERR(msync(p, PG, MS_ASYNC | MS_INVALIDATE), EINVAL);
	EXPECT_ERR(msync(p, PG, 0x100), EINVAL);
	EXPECT_ERR(msync(p + 8, PG, MS_SYNC), EINVAL);
	EXPECT_ERR(msync(p, 2 * PG, MS_SYNC), ENOMEM);
	CHECK(msync(p, PG, MS_SYNC) == 0, "msync of anonymous memory: %s", strerror(errno));
	munmap(p, PG);
}

/* A shared mapping writes the file; a private one never does. */
UT_CASE(t_mmap_file)
{
	const size_t n = 3 * PG + 100;
	static unsigned char buf[4 * PG];
	int fd = make_file("/tmp/ut/mm_file", n, 3);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	unsigned char *s = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(s != MAP_FAILED, "mmap shared: %s", strerror(errno));
	CHECK((ut_verify(s, n, 0, 3) == -1), "the shared mapping does not show the file");
	ut_fill(s, n, 0, 4);
	CHECK(msync(s, n, MS_SYNC) == 0, "msync: %s", strerror(errno));
	CHECK(read_at(fd, buf, n, 0) == (ssize_t)n && (ut_verify(buf, n, 0, 4) == -1),
	      "read() after msync does not see the shared mapping's writes");
	CHECK(s[n] == 0, "the tail of the last page past EOF is not zero");
	unsigned char *pv = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(pv != MAP_FAILED, "mmap private: %s", strerror(errno));
	CHECK((ut_verify(pv, n, 0, 4) == -1), "the private mapping does not show the file");
	ut_fill(pv, n, 0, 5);
	CHECK((ut_verify(pv, n, 0, 5) == -1), "the private mapping lost its own writes");
	CHECK((ut_verify(s, n, 0, 4) == -1), "a private mapping's writes showed in the shared one");
	CHECK(msync(pv, n, MS_SYNC) == 0, "msync private: %s", strerror(errno));
	CHECK(read_at(fd, buf, n, 0) == (ssize_t)n && (ut_verify(buf, n, 0, 4) == -1),
	      "a private mapping's writes reached the file");
	munmap(pv, n);
	/* Past the end of the file, inside the mapping: the access fails. */
	unsigned char *big = mmap(NULL, 8 * PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(big != MAP_FAILED, "mmap past EOF: %s", strerror(errno));
	int code = in_child(peek, big + 6 * PG);
	CHECK(code == 128 + SIGBUS, "reading a page past EOF gave %d, expected %d (SIGBUS)", code, 128 + SIGBUS);
	munmap(big, 8 * PG);
	munmap(s, n);
	close(fd);
	unlink("/tmp/ut/mm_file");
}

#define EOF_FILE "/tmp/ut/mm_eof"
#define EOF_SIZE (PG + 100)             /* after the truncation: page 1 is the partial last page */

/* Another process shrinks the file to EOF_SIZE (exit 0), as the exerciser did. */
static void shrink(void *arg)
{
	int fd = open(EOF_FILE, O_RDWR);
	_exit(fd >= 0 && ftruncate(fd, EOF_SIZE) == 0 ? 0 : 1);
}

/*
 * POSIX.1-2017 mmap(): a reference to a whole page past the end of the mapped file is SIGBUS,
 * shared mapping or private; the partial last page works, zero past EOF, and what is stored
 * there never reaches the file.
 */
UT_CASE(t_mmap_eof)
{
	static unsigned char buf[4 * PG];
	int fd = make_file(EOF_FILE, 3 * PG + 100, 11);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	unsigned char *s = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(s != MAP_FAILED, "mmap shared: %s", strerror(errno));
	CHECK(ut_verify(s, 3 * PG + 100, 0, 11) == -1, "the mapping does not show the file");
	CHECK(in_child(shrink, NULL) == 0, "ftruncate to %d bytes in another process failed", EOF_SIZE);
	int code = in_child(poke, s + 2 * PG);
	CHECK(code == 128 + SIGBUS, "a store to a page wholly past EOF gave %d, expected %d (SIGBUS)", code,
	      128 + SIGBUS);
	code = in_child(peek, s + 3 * PG + 50);
	CHECK(code == 128 + SIGBUS, "a load from a page wholly past EOF gave %d, expected %d (SIGBUS)", code,
	      128 + SIGBUS);
	CHECK(ut_verify(s, EOF_SIZE, 0, 11) == -1, "the data before the new EOF changed");
	for (int i = EOF_SIZE; i < 2 * PG; i++)
		CHECK(s[i] == 0, "byte %d of the partial last page (EOF %d) is %#x, not zero", i, EOF_SIZE, s[i]);
	s[EOF_SIZE + 10] = 0x55;                       /* past EOF in the last page: allowed, kept out */
	CHECK(msync(s, 2 * PG, MS_SYNC) == 0, "msync: %s", strerror(errno));
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && st.st_size == EOF_SIZE, "the file is %lld bytes after a store past EOF, "
	      "expected %d", (long long)st.st_size, EOF_SIZE);
	CHECK(read_at(fd, buf, sizeof buf, 0) == EOF_SIZE && ut_verify(buf, EOF_SIZE, 0, 11) == -1,
	      "read() after the store past EOF does not give the %d bytes of the file", EOF_SIZE);
	unsigned char *pv = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(pv != MAP_FAILED, "mmap private: %s", strerror(errno));
	pv[0] = 1;                                     /* its own copy of page 0 (a shadow object) */
	code = in_child(peek, pv + 2 * PG);
	CHECK(code == 128 + SIGBUS, "a private mapping's page past EOF gave %d, expected %d (SIGBUS)", code,
	      128 + SIGBUS);
	munmap(pv, 4 * PG);
	munmap(s, 4 * PG);
	close(fd);
	unlink(EOF_FILE);
}

#define GROW_FILE "/tmp/ut/mm_grow"
#define GROW_SIZE 5000                  /* page 1 holds EOF: bytes 5000-8191 lie past it */

/*
 * Check that bytes [GROW_SIZE, 2 * PG) of fd read as zeros, except byte 2 * PG - 1 when
 * `last` >= 0 (an extending write put it there); "" if so, else what was found, for FAILF.
 */
static const char *grown_zeros(int fd, int last)
{
	static unsigned char buf[2 * PG];
	static char msg[120];

	if (read_at(fd, buf, sizeof buf, 0) != 2 * PG)
		return "read() did not return the 8192 bytes of the grown file";
	if (ut_verify(buf, GROW_SIZE, 0, 12) != -1)
		return "the file's first 5000 bytes changed";
	for (int i = GROW_SIZE; i < 2 * PG; i++) {
		int want = i == 2 * PG - 1 && last >= 0 ? last : 0;
		if (buf[i] != want) {
			snprintf(msg, sizeof msg, "byte %d of the grown area is %#x, expected %#x", i, buf[i], want);
			return msg;
		}
	}
	return "";
}

/*
 * POSIX.1-2017 mmap() and ftruncate(): bytes stored through a MAP_SHARED mapping past EOF in the
 * file's last page are not the file's; when the file grows (ftruncate up, or a write at offset
 * 8191) the area reads as zeros, through read(), after msync, after close and reopen and after
 * sync. Four ways: each growth, with the store still only in memory or first written out
 * (msync and fsync: the page must reach the disk without its bytes past EOF).
 */
UT_CASE(t_mmap_eof_grow)
{
	for (int way = 0; way < 4; way++) {
		int by_write = way & 1, written_out = way & 2, last = by_write ? 0x77 : -1;
		const char *how = by_write ? "a write at 8191" : "ftruncate to 8192";
		const char *why;
		int fd = make_file(GROW_FILE, GROW_SIZE, 12);
		CHECK(fd >= 0, "create: %s", strerror(errno));
		unsigned char *s = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		CHECK(s != MAP_FAILED, "mmap shared: %s", strerror(errno));
		memset(s + GROW_SIZE, 0xaa, 2 * PG - GROW_SIZE);   /* past EOF, inside the last page */
		if (written_out)
			CHECK(msync(s, 2 * PG, MS_SYNC) == 0 && fsync(fd) == 0, "msync and fsync: %s", strerror(errno));
		unsigned char byte = (unsigned char)last;
		if (by_write)
			CHECK(pwrite(fd, &byte, 1, 2 * PG - 1) == 1, "pwrite at 8191: %s", strerror(errno));
		else
			CHECK(ftruncate(fd, 2 * PG) == 0, "ftruncate to 8192: %s", strerror(errno));
		why = grown_zeros(fd, last);
		CHECK(!*why, "after %s%s: %s", how, written_out ? " (the page written out first)" : "", why);
		CHECK(msync(s, 2 * PG, MS_SYNC) == 0, "msync: %s", strerror(errno));
		why = grown_zeros(fd, last);
		CHECK(!*why, "after %s and msync: %s", how, why);
		munmap(s, 2 * PG);
		close(fd);
		fd = open(GROW_FILE, O_RDWR);
		CHECK(fd >= 0, "reopen: %s", strerror(errno));
		why = grown_zeros(fd, last);
		CHECK(!*why, "after %s, close and reopen: %s", how, why);
		sync();
		why = grown_zeros(fd, last);
		CHECK(!*why, "after %s and sync: %s", how, why);
		close(fd);
		unlink(GROW_FILE);
	}
}

static unsigned char *cow_region;

static void cow_child(void *arg)
{
	size_t n = (size_t)arg;
	if (!(ut_verify(cow_region, n, 0, 8) == -1))
		_exit(2);
	ut_fill(cow_region, n, 0, 9);
	_exit((ut_verify(cow_region, n, 0, 9) == -1) ? 0 : 3);
}

/* fork shares memory copy-on-write: neither side sees the other's writes. */
UT_CASE(t_cow_fork)
{
	const size_t n = 2 << 20;
	cow_region = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_ANON | MAP_PRIVATE, -1, 0);
	CHECK(cow_region != MAP_FAILED, "mmap: %s", strerror(errno));
	ut_fill(cow_region, n, 0, 8);
	int code = in_child(cow_child, (void *)n);
	CHECK(code == 0, "child: %s", code == 2 ? "did not see the parent's data" : "lost its own writes");
	CHECK((ut_verify(cow_region, n, 0, 8) == -1), "the child's writes showed in the parent");
	/* Then the parent writes after the child is gone: its own copy still. */
	ut_fill(cow_region, n, 0, 10);
	CHECK((ut_verify(cow_region, n, 0, 10) == -1), "parent's writes after fork lost");
	munmap(cow_region, n);
}

static volatile unsigned *shared_word;

static void shared_child(void *arg)
{
	*shared_word = 0x5eed;
}

/* MAP_SHARED|MAP_ANON memory is shared with children; MAP_PRIVATE is not. */
UT_CASE(t_mmap_anon_shared)
{
	shared_word = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_ANON | MAP_SHARED, -1, 0);
	CHECK(shared_word != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(in_child(shared_child, NULL) == 0, "child failed");
	CHECK(*shared_word == 0x5eed, "the child's write to shared memory is not seen (%#x)", *shared_word);
	munmap((void *)shared_word, PG);
	shared_word = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_ANON | MAP_PRIVATE, -1, 0);
	*shared_word = 1;
	CHECK(in_child(shared_child, NULL) == 0, "child failed");
	CHECK(*shared_word == 1, "a child's write to private memory showed in the parent");
	munmap((void *)shared_word, PG);
}

/* Touching new pages counts minor faults; text cannot be written. */
UT_CASE(t_faults)
{
	struct rusage a, b;
	const int pages = 64;
	char *p = mmap(NULL, pages * PG, PROT_READ | PROT_WRITE, MAP_ANON | MAP_PRIVATE, -1, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(getrusage(RUSAGE_SELF, &a) == 0, "getrusage: %s", strerror(errno));
	for (int i = 0; i < pages; i++)
		p[i * PG] = 1;
	CHECK(getrusage(RUSAGE_SELF, &b) == 0, "getrusage: %s", strerror(errno));
	CHECK(b.ru_minflt - a.ru_minflt >= pages, "%d new pages touched, ru_minflt grew by %d", pages,
	      b.ru_minflt - a.ru_minflt);
	munmap(p, pages * PG);
	CHECK(in_child(poke, (void *)t_faults) == 128 + SIGSEGV, "writing the program's text did not give SIGSEGV");
}

/* getrusage(2): who is RUSAGE_SELF or RUSAGE_CHILDREN (EINVAL otherwise), the buffer EFAULT. */
UT_CASE(t_getrusage_badargs)
{
	struct rusage ru;
	EXPECT_ERR(getrusage(1, &ru), EINVAL);            /* FreeBSD 8's RUSAGE_THREAD: not here */
	EXPECT_ERR(getrusage(-2, &ru), EINVAL);
	EXPECT_ERR(getrusage(12345, &ru), EINVAL);
	EXPECT_ERR(getrusage(RUSAGE_SELF, NULL), EFAULT);
	EXPECT_ERR(getrusage(RUSAGE_CHILDREN, (struct rusage *)0xc0000000), EFAULT);
	CHECK(getrusage(RUSAGE_CHILDREN, &ru) == 0, "getrusage children: %s", strerror(errno));
}

/*
 * swapon(2)'s errors, FreeBSD's: EFAULT for the path, ENOENT, ENOTBLK for a non-disk, EBUSY for
 * the disk the root is mounted from. (No users: there is no EPERM.)
 */
UT_CASE(t_swapon_errors)
{
	struct statfs root;
	CHECK(statfs("/", &root) == 0, "statfs /: %s", strerror(errno));
	int fd = make_file("/tmp/ut/sw_file", PG, 1);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	close(fd);
	EXPECT_ERR(swapon(NULL), EFAULT);
	EXPECT_ERR(swapon((const char *)0xc0000000), EFAULT);
	EXPECT_ERR(swapon("/dev/nonexistent"), ENOENT);
	EXPECT_ERR(swapon("/tmp/ut/nonexistent/da9"), ENOENT);
	EXPECT_ERR(swapon("/dev/null"), ENOTBLK);
	EXPECT_ERR(swapon("/tmp/ut/sw_file"), ENOTBLK);
	EXPECT_ERR(swapon("/tmp"), ENOTBLK);
	EXPECT_ERR(swapon(root.f_mntfromname), EBUSY);
	unlink("/tmp/ut/sw_file");
}
