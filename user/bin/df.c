/*
 * df: free space of mounted file systems (after FreeBSD's df(1), its columns and rounding).
 *
 *   df [-h | -k] [-i] [-t type] [file | special ...]
 *
 * One line per file system: every mount (getfsstat), or those holding each file, or the mount
 * of each special ("/dev/ccd0"). Sizes are in 512-byte blocks (FreeBSD's default), 1024-byte
 * blocks with -k, or with -h in units of 1024 with a suffix (B, K, M, G, T: one decimal below
 * 10, "1.5G"). -i adds the inodes used and free. Capacity is used / (used + available),
 * rounded to the nearest percent.
 *
 *   Filesystem 1K-blocks  Used   Avail Capacity  Mounted on
 *   /dev/ccd0    4189552    16 4189536     0%    /data1
 *
 * Exit status 0, or 1 if a named file could not be looked up or a special is not mounted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <err.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define MAXROWS 64

enum { C_FROM, C_TOTAL, C_USED, C_AVAIL, C_CAP, C_IUSED, C_IFREE, C_IPCT, C_ON, NCOLS };

static char cells[MAXROWS + 1][NCOLS][MNAMELEN];
static int nrows, hflag, iflag;
static uint64_t blocksize = 512;

static void usage(void)
{
	fprintf(stderr, "usage: df [-h | -k] [-i] [-t type] [file | special ...]\n");
	exit(2);
}

/* n * 100 / d rounded to the nearest whole number; 100 for d == 0 (FreeBSD prints 100%). */
static unsigned percent(uint64_t n, uint64_t d)
{
	return d == 0 ? 100 : (unsigned)((n * 100 + d / 2) / d);
}

/* bytes as -h prints it: "512B", "9.5M", "124M". */
static void human(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "BKMGTP";
	uint64_t tenths = bytes * 10;
	int u = 0;

	while (tenths >= 10240 && u < 5) {
		tenths = (tenths + 512) / 1024;
		u++;
	}
	if (u > 0 && tenths < 100)
		snprintf(buf, len, "%u.%u%c", (unsigned)(tenths / 10), (unsigned)(tenths % 10), units[u]);
	else
		snprintf(buf, len, "%u%c", (unsigned)((tenths + 5) / 10), units[u]);
}

/* A size column: f_bsize-blocks as the chosen unit. */
static void size_cell(char *buf, uint64_t blocks, uint32_t bsize)
{
	if (hflag)
		human(buf, MNAMELEN, blocks * bsize);
	else
		snprintf(buf, MNAMELEN, "%llu", (unsigned long long)(blocks * bsize / blocksize));
}

static void add_row(const struct statfs *sf)
{
	char (*c)[MNAMELEN];
	uint64_t used = sf->f_blocks - sf->f_bfree, iused = sf->f_files - sf->f_ffree;

	if (nrows == MAXROWS)
		return;
	c = cells[++nrows];
	strlcpy(c[C_FROM], sf->f_mntfromname, MNAMELEN);
	size_cell(c[C_TOTAL], sf->f_blocks, sf->f_bsize);
	size_cell(c[C_USED], used, sf->f_bsize);
	size_cell(c[C_AVAIL], sf->f_bavail, sf->f_bsize);
	snprintf(c[C_CAP], MNAMELEN, "%u%%", percent(used, used + sf->f_bavail));
	snprintf(c[C_IUSED], MNAMELEN, "%llu", (unsigned long long)iused);
	snprintf(c[C_IFREE], MNAMELEN, "%llu", (unsigned long long)sf->f_ffree);
	snprintf(c[C_IPCT], MNAMELEN, "%u%%", percent(iused, sf->f_files));
	strlcpy(c[C_ON], sf->f_mntonname, MNAMELEN);
}

/* Print the table: the first column left-aligned, the numbers right-aligned to their widths. */
static void print_table(void)
{
	int width[NCOLS] = { 0 }, col, r, last = C_ON;

	strcpy(cells[0][C_FROM], "Filesystem");
	if (hflag)
		strcpy(cells[0][C_TOTAL], "Size");
	else
		strcpy(cells[0][C_TOTAL], blocksize == 1024 ? "1K-blocks" : "512-blocks");
	strcpy(cells[0][C_USED], "Used");
	strcpy(cells[0][C_AVAIL], "Avail");
	strcpy(cells[0][C_CAP], "Capacity");
	strcpy(cells[0][C_IUSED], "iused");
	strcpy(cells[0][C_IFREE], "ifree");
	strcpy(cells[0][C_IPCT], "%iused");
	strcpy(cells[0][C_ON], "Mounted on");
	for (r = 0; r <= nrows; r++)
		for (col = 0; col < NCOLS; col++)
			if ((int)strlen(cells[r][col]) > width[col])
				width[col] = (int)strlen(cells[r][col]);
	for (r = 0; r <= nrows; r++) {
		printf("%-*s", width[C_FROM], cells[r][C_FROM]);
		for (col = C_TOTAL; col < last; col++) {
			if (!iflag && col >= C_IUSED)
				break;
			printf(" %*s", width[col], cells[r][col]);
		}
		printf("  %s\n", cells[r][C_ON]);
	}
}

/* The mount whose device is `special` ("/dev/ccd0"), into *sf; -1 if it is not mounted. */
static int mount_of_special(const char *special, struct statfs *sf)
{
	struct statfs *mnt;
	int n = getmntinfo(&mnt, MNT_NOWAIT);

	for (int i = 0; i < n; i++) {
		if (strcmp(mnt[i].f_mntfromname, special) == 0)
			return statfs(mnt[i].f_mntonname, sf);
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *type = NULL;
	struct statfs *mnt, sf;
	struct stat st;
	int c, n, status = 0;

	while ((c = getopt(argc, argv, "hkit:")) != -1) {
		switch (c) {
		case 'h': hflag = 1; break;
		case 'k': blocksize = 1024; hflag = 0; break;
		case 'i': iflag = 1; break;
		case 't': type = optarg; break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		n = getmntinfo(&mnt, MNT_WAIT);
		if (n == 0)
			err(1, "getfsstat");
		for (int i = 0; i < n; i++)
			if (type == NULL || strcmp(mnt[i].f_fstypename, type) == 0)
				add_row(&mnt[i]);
	}
	for (int i = 0; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISCHR(st.st_mode) &&
		    strncmp(argv[i], "/dev/", 5) == 0 && strchr(argv[i] + 5, '/') == NULL) {
			if (mount_of_special(argv[i], &sf) != 0) {
				warnx("%s: not mounted", argv[i]);
				status = 1;
				continue;
			}
		} else if (statfs(argv[i], &sf) != 0) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		if (type == NULL || strcmp(sf.f_fstypename, type) == 0)
			add_row(&sf);
	}
	if (nrows > 0)
		print_table();
	return status;
}
