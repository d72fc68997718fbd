/*
 * dd: copy and convert, after FreeBSD's dd(1).
 * Operands: if= of= bs= ibs= obs= count= skip= seek= conv=notrunc,sync,noerror,fsync
 * (conv=fsync: fsync(2) the output before exiting, as FreeBSD's dd since 11.0).
 * Numbers take the suffixes b (512), k, m, g, w (4) and products with x ("2x512k").
 * bs= alone copies block for block (each input read is written as one output record);
 * otherwise input blocks are regrouped into obs-sized output records.
 * On exit (also after a fatal error) the summary goes to stderr in FreeBSD 4's form:
 *   N+M records in / N+M records out / X bytes transferred in S.ssssss secs (R bytes/sec)
 * timed with gettimeofday from the first read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <err.h>

#define C_BS      0x01
#define C_IBS     0x02
#define C_OBS     0x04
#define C_NOTRUNC 0x08
#define C_SYNC    0x10
#define C_NOERROR 0x20
#define C_COUNT   0x40
#define C_FSYNC   0x80

static unsigned flags;
static size_t ibs = 512, obs = 512;
static unsigned long long count, skip, seek;
static const char *iname = "stdin", *oname = "stdout";
static int ifd = 0, ofd = 1;

static struct {
	unsigned long long in_full, in_part, out_full, out_part, bytes;
	struct timeval start;
} st;

static char *buf;        /* ibs + obs bytes: input is read at buf + dbcnt */
static size_t dbcnt;     /* bytes waiting to be written */

static void usage(void)
{
	fprintf(stderr, "usage: dd [if=file] [of=file] [ibs=n] [obs=n] [bs=n] [count=n] [skip=n] "
	                "[seek=n] [conv=notrunc,sync,noerror,fsync]\n");
	exit(1);
}

/* FreeBSD's get_num: a number, a multiplier suffix, and optionally 'x' and another number. */
static unsigned long long getnum(const char *op, const char *val)
{
	unsigned long long n, mult = 1, rest;
	char *end;

	errno = 0;
	n = strtoull(val, &end, 10);
	if (end == val || *val == '-' || errno)
		errx(1, "%s: illegal numeric value", op);
	switch (*end) {
	case 'b': mult = 512; end++; break;
	case 'k': mult = 1ULL << 10; end++; break;
	case 'm': mult = 1ULL << 20; end++; break;
	case 'g': mult = 1ULL << 30; end++; break;
	case 'w': mult = sizeof(int); end++; break;
	}
	if (n && mult > ~0ULL / n)
		errx(1, "%s: illegal numeric value", op);
	n *= mult;
	if (*end == 'x') {
		rest = getnum(op, end + 1);
		if (n && rest > ~0ULL / n)
			errx(1, "%s: illegal numeric value", op);
		return n * rest;
	}
	if (*end)
		errx(1, "%s: illegal numeric value", op);
	return n;
}

static size_t getsize(const char *op, const char *val)
{
	unsigned long long n = getnum(op, val);

	if (n == 0 || n > 64ULL << 20)
		errx(1, "%s: buffer size must be between 1 and 64m", op);
	return (size_t)n;
}

static void getconv(char *val)
{
	char *w;

	while ((w = strsep(&val, ","))) {
		if (strcmp(w, "notrunc") == 0)      flags |= C_NOTRUNC;
		else if (strcmp(w, "sync") == 0)    flags |= C_SYNC;
		else if (strcmp(w, "noerror") == 0) flags |= C_NOERROR;
		else if (strcmp(w, "fsync") == 0)   flags |= C_FSYNC;
		else errx(1, "unknown conversion %s", w);
	}
}

static void operands(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *op = argv[i], *val = strchr(op, '=');
		if (!val || !val[1]) {
			warnx("unknown operand %s", op);
			usage();
		}
		*val++ = 0;
		if (strcmp(op, "if") == 0)         iname = val;
		else if (strcmp(op, "of") == 0)    oname = val;
		else if (strcmp(op, "bs") == 0)    { ibs = obs = getsize(op, val); flags |= C_BS; }
		else if (strcmp(op, "ibs") == 0)   { ibs = getsize(op, val); flags |= C_IBS; }
		else if (strcmp(op, "obs") == 0)   { obs = getsize(op, val); flags |= C_OBS; }
		else if (strcmp(op, "count") == 0) { count = getnum(op, val); flags |= C_COUNT; }
		else if (strcmp(op, "skip") == 0)  skip = getnum(op, val);
		else if (strcmp(op, "seek") == 0)  seek = getnum(op, val);
		else if (strcmp(op, "conv") == 0)  getconv(val);
		else {
			warnx("unknown operand %s", op);
			usage();
		}
	}
	if ((flags & C_BS) && (flags & (C_IBS | C_OBS)))
		errx(1, "bs supersedes ibs and obs");
}

static void summary(void)
{
	struct timeval now;
	unsigned long long us;

	gettimeofday(&now, NULL);
	us = (now.tv_sec - st.start.tv_sec) * 1000000ULL + now.tv_usec - st.start.tv_usec;
	if (us == 0)
		us = 1;
	fprintf(stderr, "%llu+%llu records in\n%llu+%llu records out\n", st.in_full, st.in_part,
	        st.out_full, st.out_part);
	fprintf(stderr, "%llu bytes transferred in %llu.%06llu secs (%llu bytes/sec)\n", st.bytes,
	        us / 1000000, us % 1000000, (st.bytes * 1000000 + us / 2) / us);
}

/* Write out obs-sized records while at least one is held (all that is held if force). */
static void dd_out(int force)
{
	size_t off = 0;

	while (dbcnt - off >= obs || (force && dbcnt > off)) {
		size_t n = dbcnt - off < obs ? dbcnt - off : obs;
		ssize_t w = write(ofd, buf + off, n);
		if (w < 0)
			err(1, "%s", oname);
		if (w == 0)
			errx(1, "%s: end of device", oname);
		st.bytes += w;
		if ((size_t)w == obs)
			st.out_full++;
		else
			st.out_part++;
		off += w;
	}
	memmove(buf, buf + off, dbcnt - off);
	dbcnt -= off;
}

static void openfiles(void)
{
	struct stat sb;

	if (strcmp(iname, "stdin") != 0 && (ifd = open(iname, O_RDONLY)) < 0)
		err(1, "%s", iname);
	if (strcmp(oname, "stdout") != 0) {
		int tr = (seek || (flags & C_NOTRUNC)) ? 0 : O_TRUNC;
		if ((ofd = open(oname, O_RDWR | O_CREAT | tr, 0666)) < 0 &&
		    (ofd = open(oname, O_WRONLY | O_CREAT | tr, 0666)) < 0)
			err(1, "%s", oname);
	}
	if (skip && lseek(ifd, (off_t)(skip * ibs), SEEK_CUR) < 0) {
		/* not seekable: read and throw away */
		for (unsigned long long i = 0; i < skip; i++) {
			ssize_t n = read(ifd, buf, ibs);
			if (n < 0)
				err(1, "%s", iname);
			if (n == 0) {
				warnx("%s: skip reached end of input", iname);
				break;
			}
		}
	}
	if (seek) {
		if (lseek(ofd, (off_t)(seek * obs), SEEK_CUR) < 0)
			err(1, "%s", oname);
		if (!(flags & C_NOTRUNC) && fstat(ofd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    ftruncate(ofd, (off_t)(seek * obs)) < 0)
			err(1, "%s", oname);
	}
}

int main(int argc, char **argv)
{
	ssize_t n;

	operands(argc, argv);
	if (!(buf = malloc(ibs + obs)))
		errx(1, "input buffer: out of memory");
	openfiles();
	gettimeofday(&st.start, NULL);
	atexit(summary);
	while (!(flags & C_COUNT) || st.in_full + st.in_part < count) {
		char *dbp = buf + dbcnt;
		if (flags & C_SYNC)
			memset(dbp, 0, ibs);
		n = read(ifd, dbp, ibs);
		if (n == 0)
			break;
		if (n < 0) {
			if (!(flags & C_NOERROR))
				err(1, "%s", iname);
			warn("%s", iname);
			lseek(ifd, (off_t)ibs, SEEK_CUR);   /* step over the bad block if we can */
			if (!(flags & C_SYNC))
				continue;
			n = ibs;   /* a read error with sync counts as a full block of zeros */
		}
		if ((size_t)n == ibs) {
			st.in_full++;
		} else {
			st.in_part++;
			if (flags & C_SYNC)
				n = ibs;
		}
		dbcnt += n;
		dd_out(flags & C_BS);
	}
	dd_out(1);
	if ((flags & C_FSYNC) && fsync(ofd) < 0)
		err(1, "%s", oname);
	if (ofd != 1 && close(ofd) < 0)
		err(1, "%s", oname);
	return 0;
}
