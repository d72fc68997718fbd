/*
 * pattern: write or verify a deterministic test pattern on a device or file.
 *   pattern write DEV SIZE [SEED]    write SIZE bytes from offset 0 (a file is created if need be)
 *   pattern verify DEV SIZE [SEED]   read them back and compare; exit 1 on any difference
 * SIZE takes the suffixes k, m, g (powers of 1024) and must be a multiple of 512. SEED
 * defaults to 1. The pattern depends only on the byte offset and the seed, so the host can
 * check a device's contents from its disk images (tools/destripe implements the same
 * pattern). Each 512-byte block at byte offset o holds:
 *   bytes 0-7    o, little-endian
 *   bytes 8-15   SEED, little-endian
 *   bytes 16-511 row (o / 512) % 61 of a table of 61 x 496 bytes made by the generator
 *                x = x * 1103515245 + 12345 (mod 2^32), byte = (x >> 16) & 0xff, x0 = SEED.
 * Transfers are 1 MB, so a raw disk sees many requests at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <err.h>

#define BLK       512
#define ROWS      61
#define ROWLEN    (BLK - 16)
#define CHUNK     (1024 * 1024)

static unsigned char table[ROWS][ROWLEN];
static unsigned long long seed = 1;

static void usage(void)
{
	fprintf(stderr, "usage: pattern write|verify DEV SIZE [SEED]\n");
	exit(1);
}

static void make_table(void)
{
	uint32_t x = (uint32_t)seed;
	int r, i;

	for (r = 0; r < ROWS; r++)
		for (i = 0; i < ROWLEN; i++) {
			x = x * 1103515245u + 12345u;
			table[r][i] = (x >> 16) & 0xff;
		}
}

static void put_le64(unsigned char *p, unsigned long long v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

/* The pattern block at byte offset off. */
static void fill_block(unsigned char *p, unsigned long long off)
{
	put_le64(p, off);
	put_le64(p + 8, seed);
	memcpy(p + 16, table[(off / BLK) % ROWS], ROWLEN);
}

static int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end != 0 || v == 0 || v % BLK != 0)
		return -1;
	*out = v;
	return 0;
}

static int do_write(int fd, const char *dev, unsigned long long size, unsigned char *buf)
{
	unsigned long long off = 0, o;
	size_t n;
	ssize_t w;

	while (off < size) {
		n = size - off < CHUNK ? size - off : CHUNK;
		for (o = 0; o < n; o += BLK)
			fill_block(buf + o, off + o);
		w = write(fd, buf, n);
		if (w != (ssize_t)n) {
			if (w < 0)
				warn("%s: write at byte %llu", dev, off);
			else
				warnx("%s: short write at byte %llu (%d of %u bytes)", dev, off, (int)w, (unsigned)n);
			return 1;
		}
		off += n;
	}
	if (fsync(fd) < 0 && errno != EINVAL) {
		warn("%s: fsync", dev);
		return 1;
	}
	printf("pattern: wrote %llu bytes to %s (seed %llu)\n", size, dev, seed);
	return 0;
}

static int do_verify(int fd, const char *dev, unsigned long long size, unsigned char *buf)
{
	unsigned char want[BLK];
	unsigned long long off = 0, o, bad = 0, first = 0;
	size_t n;
	ssize_t r;

	while (off < size) {
		n = size - off < CHUNK ? size - off : CHUNK;
		r = read(fd, buf, n);
		if (r != (ssize_t)n) {
			if (r < 0)
				warn("%s: read at byte %llu", dev, off);
			else
				warnx("%s: short read at byte %llu (%d of %u bytes)", dev, off, (int)r, (unsigned)n);
			return 1;
		}
		for (o = 0; o < n; o += BLK) {
			fill_block(want, off + o);
			if (memcmp(buf + o, want, BLK) != 0 && bad++ == 0)
				first = off + o;
		}
		off += n;
	}
	if (bad) {
		printf("pattern: %s: %llu of %llu blocks differ, the first at byte %llu\n", dev, bad,
		       size / BLK, first);
		return 1;
	}
	printf("pattern: verified %llu bytes of %s (seed %llu)\n", size, dev, seed);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long size;
	unsigned char *buf;
	char *end;
	int writing, fd, status;

	if (argc < 4 || argc > 5)
		usage();
	if (strcmp(argv[1], "write") == 0)
		writing = 1;
	else if (strcmp(argv[1], "verify") == 0)
		writing = 0;
	else
		usage();
	if (parse_size(argv[3], &size) < 0)
		errx(1, "bad size '%s': a positive multiple of 512 (suffixes k, m, g)", argv[3]);
	if (argc == 5) {
		seed = strtoull(argv[4], &end, 0);
		if (*argv[4] == 0 || *end != 0)
			errx(1, "bad seed '%s'", argv[4]);
	}
	make_table();
	fd = open(argv[2], writing ? O_WRONLY | O_CREAT : O_RDONLY, 0644);
	if (fd < 0)
		err(1, "%s", argv[2]);
	buf = malloc(CHUNK);
	if (!buf)
		errx(1, "out of memory");
	status = writing ? do_write(fd, argv[2], size, buf) : do_verify(fd, argv[2], size, buf);
	close(fd);
	return status;
}
