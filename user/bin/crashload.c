/*
 * crashload: a file-system workload to be killed at a random moment (power loss).
 *
 *   crashload [-s] [-m device] [-n ops] [-o log] dir seed
 *
 * With -m, mounts `device` (wdfs) on dir first. Then, until killed (or for `ops` operations),
 * under dir: churns small files in churn/ (create with 0-20 KB of data, rename, unlink, mkdir,
 * rmdir), writes files in keep/ that are fsync'd once complete and never touched again, and
 * appends 32 KB at a time to big, with an fsync after every fourth append and now and then a
 * sync(2), until big has 24 MB. After each fsync or sync returns it prints one line, with one
 * write(2), on stdout or on `log` (-o; the tests use the second serial port, /dev/ttyd1, so the
 * lines reach the host even while the console is busy):
 *
 *   FSYNC keep/k17 4711          keep/k17 holds exactly its 4711 bytes
 *   FSYNC big 1048576            big holds at least its first 1048576 bytes
 *   SYNC big 1081344             (after sync(2)) the same
 *
 * so whoever killed the machine knows what the kernel promised was on stable storage. Every
 * file's contents are a function of (seed, file, offset) (fill() below, file 0 being big and
 * N+1 keep/kN; the host computes the same in tests/guest/test_crash.py), so they can be checked byte for byte after the
 * crash, fsck and all. Prints `START` first and `DONE` if it ever finishes.
 *
 * -s (storm): only the churn of creates, renames, unlinks, mkdir and rmdir, nothing promised; the
 * metadata-heavy workload of tools/powercut's tests (docs/reliability.md "Power cuts").
 */
#include <err.h>
#include <libutil.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK     32768
#define MAXSMALL  20000
#define MAXKEEP   65536
#define NCHURN    64
#define BIGMAX    (24 << 20)

static unsigned int rng;

static uint32_t rnd(void)
{
	return (uint32_t)rand_r(&rng);
}

/*
 * The pattern: every 512-byte sector s of file `id` holds the 16 bytes (seed, id, s) - 32-bit,
 * 32-bit and 64-bit little-endian - 32 times, so a sector in the wrong place, a stale one or a
 * zeroed one is told apart from the right one. buf receives bytes [off, off + n) of the file;
 * off is a multiple of 16.
 */
static void fill(char *buf, size_t n, uint32_t seed, uint32_t id, uint64_t off)
{
	for (size_t j = 0; j < n; j += 16) {
		uint32_t unit[4] = { seed, id, (uint32_t)((off + j) / 512), (uint32_t)((off + j) / 512 >> 32) };
		memcpy(buf + j, unit, n - j < 16 ? n - j : 16);
	}
}

/* One line of the log, sent with one write(2) (libutil's line records). */
#define say(...) do { lr_begin(); lr_printf(__VA_ARGS__); lr_end(); } while (0)

static char buf[MAXKEEP > CHUNK ? MAXKEEP : CHUNK];

static int writeall(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A small file in churn/: made, renamed, removed; never promised. */
static void churn(const char *dir, uint32_t seed)
{
	char a[256], b[256];
	uint32_t n = rnd() % NCHURN, what = rnd() % 6;
	size_t len = rnd() % MAXSMALL;
	int fd;

	snprintf(a, sizeof a, "%s/churn/c%u", dir, n);
	snprintf(b, sizeof b, "%s/churn/r%u", dir, n);
	switch (what) {
	case 0:
	case 1:
		if ((fd = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0) {
			fill(buf, len, seed, 1000000 + n, 0);
			writeall(fd, buf, len);
			close(fd);
		}
		break;
	case 2:
		rename(a, b);
		break;
	case 3:
		unlink(rnd() % 2 ? a : b);
		break;
	case 4:
		snprintf(a, sizeof a, "%s/churn/d%u", dir, n % 8);
		mkdir(a, 0755);
		snprintf(b, sizeof b, "%s/churn/d%u/f", dir, n % 8);
		if ((fd = open(b, O_WRONLY | O_CREAT, 0644)) >= 0)
			close(fd);
		break;
	default:
		snprintf(a, sizeof a, "%s/churn/d%u/f", dir, n % 8);
		unlink(a);
		snprintf(a, sizeof a, "%s/churn/d%u", dir, n % 8);
		rmdir(a);
		break;
	}
}

/* A file in keep/: written whole, fsync'd, then left alone. */
static void keep(const char *dir, uint32_t seed, uint32_t id)
{
	char path[256];
	size_t len = 1 + rnd() % MAXKEEP;
	int fd;

	snprintf(path, sizeof path, "%s/keep/k%u", dir, id);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0) {
		warn("%s", path);
		return;
	}
	fill(buf, len, seed, id + 1, 0);
	if (writeall(fd, buf, len) == 0 && fsync(fd) == 0)
		say("FSYNC keep/k%u %u", id, (unsigned)len);
	else
		warn("%s", path);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *dir, *log = NULL;
	char path[256];
	long ops = -1;
	uint32_t seed, nkeep = 0;
	uint64_t bigsize = 0;
	int c, bigfd, appends = 0, storm = 0;

	while ((c = getopt(argc, argv, "m:n:o:s")) != -1) {
		switch (c) {
		case 's': storm = 1; break;
		case 'm': dev = optarg; break;
		case 'o': log = optarg; break;
		case 'n': ops = strtol(optarg, NULL, 10); break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	dir = argv[optind];
	seed = (uint32_t)strtoul(argv[optind + 1], NULL, 0);
	rng = seed;
	if (lr_open(log, NULL) < 0)
		err(1, "%s", log);
	if (dev && mount("wdfs", dir, 0, (void *)dev) < 0)
		err(1, "mount %s on %s", dev, dir);
	snprintf(path, sizeof path, "%s/churn", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/keep", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/big", dir);
	if ((bigfd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		err(1, "%s", path);
	say("START");
	for (long i = 0; ops < 0 || i < ops; i++) {
		uint32_t r = storm ? 0 : rnd() % 16;

		if (r < 9) {
			churn(dir, seed);
		} else if (r < 12) {
			keep(dir, seed, nkeep++);
		} else if (r < 15 && bigsize < BIGMAX) {
			fill(buf, CHUNK, seed, 0, bigsize);
			if (writeall(bigfd, buf, CHUNK) != 0)
				err(1, "append to %s", path);
			bigsize += CHUNK;
			if (++appends % 4 == 0 && fsync(bigfd) == 0)
				say("FSYNC big %llu", (unsigned long long)bigsize);
		} else if (r == 15) {
			sync();
			say("SYNC big %llu", (unsigned long long)bigsize);
		}
	}
	say("DONE");
	return 0;
usage:
	fprintf(stderr, "usage: crashload [-s] [-m device] [-n ops] [-o log] dir seed\n");
	return 2;
}
