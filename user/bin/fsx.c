/*
 * fsx: a file-system exerciser in the style of fsx (NeXT's, later FreeBSD's and Apple's): random
 * operations on one file, checked against a copy kept in memory.
 *
 *   fsx [-MU] [-N ops] [-S seed] [-l maxlen] [-o maxoplen] [-m device] file
 *
 * Operations, chosen at random: read (at any offset, also past the end: the count must be what
 * is left), write (anywhere below maxlen, so often past the end: the gap must read as zeros),
 * truncate (shorter or longer), fsync, close and reopen (the next reads come from the cache or
 * the disk, not from anything fsx's descriptor holds), a full read of the file compared with
 * the copy, and through mmap(2) (MAP_SHARED, as FreeBSD's fsx does): a read of a mapped range,
 * and a write into one (the file first extended with ftruncate if the range passes its end),
 * msync'd (as FreeBSD's fsx does; -U: only half the time) and unmapped; read(2) must then see
 * what was stored through the mapping; and a store past EOF (random bytes stored through a
 * mapping into the last page beyond the end, msync'd half the time), followed at once by a
 * truncate up or an extending write: the grown area must read as zeros, as POSIX's mmap and
 * ftruncate ask (FreeBSD's fsx never stores past EOF). -M leaves the mmap operations out. With
 * -m, some reopens are remounts (close, unmount, mount, open: the next reads come from the
 * disk, so bytes past EOF that reached it would show). After every operation that changes the
 * size, fstat must agree. The first
 * difference stops the run: fsx prints the offset, the bytes expected and found, and the last 64
 * operations (`#1234 write 0x1f000 len 0x2345 (size 0x30000 -> 0x31345)`), and exits 1.
 * Defaults: 10,000 operations, seed 1, maxlen 1 MB (the file then reaches the single indirect
 * block of 8 KB-block wdfs), maxoplen 64 KB. With -m, mounts `device` (wdfs) on the file's
 * directory first and unmounts it at the end. Exit 0 when every read matched.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#define LOGSIZE 64

enum op {
	OP_READ, OP_WRITE, OP_MAPREAD, OP_MAPWRITE, OP_MAPEOF, OP_TRUNCATE, OP_FSYNC, OP_REOPEN, OP_REMOUNT,
	OP_VERIFY, NOPS
};
static const char *const opnames[NOPS] = { "read", "write", "mapread", "mapwrite", "mapeof", "truncate", "fsync",
                                           "reopen", "remount", "verify" };
/* Percent; -M moves mmap's to read/write, -m takes half of reopen's for remount. */
static int weights[NOPS] = { 28, 28, 10, 10, 4, 8, 4, 4, 0, 4 };
#define PAGE_MASK 4095u

struct logent {
	long     n;
	int      op;
	uint32_t off, len;
	uint32_t before, after;      /* file size */
	bool     msynced;            /* mapwrite: msync'd before munmap */
};

static struct logent oplog[LOGSIZE];
static long nops_done;
static unsigned int rng;
static uint32_t maxlen = 1 << 20, maxoplen = 64 << 10, size;
static char *good, *temp;
static const char *fname, *dev;
static char dir[256];
static int fd;
static long counts[NOPS];
static bool last_msync, nomsync_ok;

static uint32_t rnd(void)
{
	return (uint32_t)rand_r(&rng);
}

static void log_op(int op, uint32_t off, uint32_t len, uint32_t before)
{
	struct logent *e = &oplog[nops_done % LOGSIZE];

	e->n = nops_done;
	e->op = op;
	e->off = off;
	e->len = len;
	e->before = before;
	e->after = size;
	e->msynced = (op == OP_MAPWRITE || op == OP_MAPEOF) && last_msync;
}

static void __attribute__((noreturn)) report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void __attribute__((noreturn)) report(const char *fmt, ...)
{
	va_list ap;
	long first = nops_done >= LOGSIZE ? nops_done - LOGSIZE + 1 : 0;

	printf("fsx: %s: operation #%ld: ", fname, nops_done);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\nfsx: the last %ld operations:\n", nops_done - first + 1);
	for (long i = first; i <= nops_done; i++) {
		struct logent *e = &oplog[i % LOGSIZE];
		printf("  #%ld %s%s 0x%x len 0x%x (size 0x%x -> 0x%x)\n", e->n, opnames[e->op],
		       e->msynced ? "+msync" : "", e->off, e->len, e->before, e->after);
	}
	exit(1);
}

/* Compare n bytes read at off with the copy; report the first difference. */
static void compare(const char *got, uint32_t off, uint32_t n, const char *what)
{
	for (uint32_t i = 0; i < n; i++) {
		if (got[i] != good[off + i]) {
			uint32_t j = i, k;
			printf("fsx: %s mismatch at offset 0x%x:\n  expected:", what, off + i);
			for (k = j; k < n && k < j + 16; k++)
				printf(" %02x", (unsigned char)good[off + k]);
			printf("\n  got:     ");
			for (k = j; k < n && k < j + 16; k++)
				printf(" %02x", (unsigned char)got[k]);
			printf("\n");
			report("%s of 0x%x bytes at 0x%x returned other data", what, n, off);
		}
	}
}

static void check_size(const char *after)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		report("fstat after %s: %s", after, strerror(errno));
	if ((uint64_t)st.st_size != size)
		report("after %s the file is 0x%llx bytes, expected 0x%x", after, (unsigned long long)st.st_size, size);
}

static void do_read(uint32_t off, uint32_t len)
{
	uint32_t want = off >= size ? 0 : (len < size - off ? len : size - off);
	ssize_t n;

	if (lseek(fd, off, SEEK_SET) < 0)
		report("lseek to 0x%x: %s", off, strerror(errno));
	n = read(fd, temp, len);
	if (n < 0)
		report("read 0x%x at 0x%x: %s", len, off, strerror(errno));
	if ((uint32_t)n != want)
		report("read of 0x%x at 0x%x returned 0x%x bytes, expected 0x%x (size 0x%x)", len, off, (unsigned)n,
		       want, size);
	compare(temp, off, want, "read");
}

static void do_write(uint32_t off, uint32_t len)
{
	ssize_t n;

	for (uint32_t i = 0; i < len; i++)
		temp[i] = (char)(rnd() >> 16);
	if (off > size)
		memset(good + size, 0, off - size);     /* the hole */
	memcpy(good + off, temp, len);
	if (lseek(fd, off, SEEK_SET) < 0)
		report("lseek to 0x%x: %s", off, strerror(errno));
	n = write(fd, temp, len);
	if (n != (ssize_t)len)
		report("write of 0x%x at 0x%x returned %ld: %s", len, off, (long)n, n < 0 ? strerror(errno) : "short");
	if (off + len > size)
		size = off + len;
	check_size("write");
}

/* The mapping of [off, off + len): from the page holding off. */
static char *map(uint32_t off, uint32_t len, int prot, uint32_t *pgoff)
{
	char *p;

	*pgoff = off & PAGE_MASK;
	p = mmap(NULL, *pgoff + len, prot, MAP_SHARED, fd, (off_t)(off - *pgoff));
	if (p == MAP_FAILED)
		report("mmap of 0x%x bytes at 0x%x: %s", *pgoff + len, off - *pgoff, strerror(errno));
	return p;
}

static void do_mapread(uint32_t off, uint32_t len)
{
	uint32_t pgoff;
	char *p;

	if (off >= size)
		return;
	if (len > size - off)
		len = size - off;
	p = map(off, len, PROT_READ, &pgoff);
	compare(p + pgoff, off, len, "mapped read");
	if (munmap(p, pgoff + len) < 0)
		report("munmap: %s", strerror(errno));
}

static void do_mapwrite(uint32_t off, uint32_t len)
{
	uint32_t pgoff;
	char *p;

	if (off + len > size) {                      /* a mapping cannot reach past the end */
		memset(good + size, 0, off + len - size);
		if (ftruncate(fd, off + len) < 0)
			report("ftruncate to 0x%x before mapwrite: %s", off + len, strerror(errno));
		size = off + len;
	}
	for (uint32_t i = 0; i < len; i++)
		temp[i] = (char)(rnd() >> 16);
	memcpy(good + off, temp, len);
	p = map(off, len, PROT_READ | PROT_WRITE, &pgoff);
	memcpy(p + pgoff, temp, len);
	last_msync = !nomsync_ok || rnd() % 2;
	if (last_msync && msync(p, pgoff + len, MS_SYNC) < 0)
		report("msync: %s", strerror(errno));
	if (munmap(p, pgoff + len) < 0)
		report("munmap: %s", strerror(errno));
	check_size("mapwrite");
}

static void do_truncate(uint32_t newsize)
{
	if (newsize > size)
		memset(good + size, 0, newsize - size);
	if (ftruncate(fd, newsize) < 0)
		report("ftruncate to 0x%x: %s", newsize, strerror(errno));
	size = newsize;
	check_size("truncate");
}

/*
 * Random bytes stored through a mapping past EOF in the last page (the file's copy unchanged:
 * they are not the file's), then the file grown by a truncate up or by a write at or past the
 * old end; the grown area must read back as the copy says (zeros, and the write's data).
 */
static void do_mapeof(uint32_t grow, bool by_write)
{
	uint32_t old = size, pgoff, room = (PAGE_MASK + 1 - (size & PAGE_MASK)) & PAGE_MASK;
	char *p;

	if (room && size > 0) {
		p = map(size - 1, 1, PROT_READ | PROT_WRITE, &pgoff);
		for (uint32_t i = 1; i <= room; i++)
			p[pgoff + i] = (char)(rnd() >> 16 | 1);
		last_msync = rnd() % 2;
		if (last_msync && msync(p, pgoff + 1, MS_SYNC) < 0)
			report("msync: %s", strerror(errno));
		if (munmap(p, pgoff + 1) < 0)
			report("munmap: %s", strerror(errno));
	}
	if (by_write)
		do_write(size + grow / 2, grow - grow / 2);
	else
		do_truncate(size + grow);
	do_read(old, size - old);
}


/* Close and open the file again; remount: with the file system unmounted and mounted between. */
static void do_reopen(bool remount)
{
	if (close(fd) < 0)
		report("close: %s", strerror(errno));
	if (remount && unmount(dir, 0) < 0)
		report("unmount %s: %s", dir, strerror(errno));
	if (remount && mount("wdfs", dir, 0, (void *)dev) < 0)
		report("mount %s on %s: %s", dev, dir, strerror(errno));
	if ((fd = open(fname, O_RDWR)) < 0)
		report("reopen: %s", strerror(errno));
	check_size(remount ? "remount" : "reopen");
}

static void do_verify(void)
{
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		report("lseek to 0: %s", strerror(errno));
	n = read(fd, temp, maxlen);
	if (n != (ssize_t)size)
		report("reading the whole file returned %ld bytes, expected 0x%x", (long)n, size);
	compare(temp, 0, size, "whole-file read");
}

static void one_op(void)
{
	uint32_t r = rnd() % 100, off, len, before = size;
	int op = 0;

	while (r >= (uint32_t)weights[op]) {
		r -= (uint32_t)weights[op];
		op++;
	}
	len = 1 + rnd() % maxoplen;
	off = rnd() % (maxlen - len + 1);
	switch (op) {
	case OP_READ:
		if (rnd() % 4 != 0 && size > 0)   /* mostly inside the file, sometimes past its end */
			off = rnd() % size;
		do_read(off, len);
		break;
	case OP_WRITE:
		do_write(off, len);
		break;
	case OP_MAPREAD:
		if (size > 0)
			off = rnd() % size;
		do_mapread(off, len);
		break;
	case OP_MAPWRITE:
		do_mapwrite(off, len);
		break;
	case OP_MAPEOF:
		off = size;
		len = size + len > maxlen ? maxlen - size : len;
		do_mapeof(len, rnd() % 2);
		break;
	case OP_TRUNCATE:
		off = rnd() % (maxlen + 1);
		len = 0;
		do_truncate(off);
		break;
	case OP_FSYNC:
		off = len = 0;
		if (fsync(fd) < 0)
			report("fsync: %s", strerror(errno));
		break;
	case OP_REOPEN:
	case OP_REMOUNT:
		off = len = 0;
		do_reopen(op == OP_REMOUNT);
		break;
	default:
		off = 0;
		len = size;
		do_verify();
		break;
	}
	counts[op]++;
	log_op(op, off, len, before);
}

static uint32_t number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*s == '\0' || *end != '\0')
		errx(2, "bad number '%s'", s);
	return (uint32_t)v;
}

int main(int argc, char **argv)
{
	char *slash;
	long nops = 10000;
	uint32_t seed = 1;
	int c;

	while ((c = getopt(argc, argv, "MUN:S:l:o:m:")) != -1) {
		switch (c) {
		case 'U': nomsync_ok = true; break;
		case 'M':
			weights[OP_READ] += weights[OP_MAPREAD];
			weights[OP_WRITE] += weights[OP_MAPWRITE] + weights[OP_MAPEOF];
			weights[OP_MAPREAD] = weights[OP_MAPWRITE] = weights[OP_MAPEOF] = 0;
			break;
		case 'N': nops = (long)number(optarg); break;
		case 'S': seed = number(optarg); break;
		case 'l': maxlen = number(optarg); break;
		case 'o': maxoplen = number(optarg); break;
		case 'm': dev = optarg; break;
		default: goto usage;
		}
	}
	if (argc - optind != 1 || maxlen == 0 || maxoplen == 0 || maxoplen > maxlen)
		goto usage;
	if (dev) {
		weights[OP_REMOUNT] = weights[OP_REOPEN] / 2;
		weights[OP_REOPEN] -= weights[OP_REMOUNT];
	}
	fname = argv[optind];
	rng = seed;
	strlcpy(dir, fname, sizeof dir);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		strlcpy(dir, slash ? "/" : ".", sizeof dir);
	else
		*slash = '\0';
	if (dev && mount("wdfs", dir, 0, (void *)dev) < 0)
		err(1, "mount %s on %s", dev, dir);
	if (!(good = calloc(maxlen, 1)) || !(temp = malloc(maxlen)))
		errx(1, "out of memory for two copies of %u bytes", maxlen);
	if ((fd = open(fname, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
		err(1, "%s", fname);
	for (nops_done = 0; nops_done < nops; nops_done++)
		one_op();
	do_verify();
	close(fd);
	unlink(fname);
	if (dev && unmount(dir, 0) < 0)
		warn("unmount %s", dir);
	printf("fsx: %s: seed %u, %ld operations, all reads matched (", fname, seed, nops);
	for (int i = 0; i < NOPS; i++)
		printf("%s%s %ld", i ? ", " : "", opnames[i], counts[i]);
	printf(")\n");
	return 0;
usage:
	fprintf(stderr, "usage: fsx [-MU] [-N ops] [-S seed] [-l maxlen] [-o maxoplen] [-m device] file\n");
	return 2;
}
