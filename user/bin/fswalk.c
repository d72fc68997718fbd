/*
 * fswalk: walk a file system the way a user would, to see what a damaged one does.
 *
 *   fswalk [-m device [-k]] dir
 *
 * With -m, first mounts `device` (wdfs) on `dir` and unmounts it at the end (-k: leaves it
 * mounted). Then, under dir:
 * lists every directory (what `ls -R` reads: getdents and a stat of every entry), reads every
 * regular file to its end (what `cat` does; at most 16 MB each), and changes the tree: writes a
 * new file, fsyncs it, reads it back and compares, appends to the first file it read, makes
 * and removes a directory, renames the first directory into each of the first 16 directories
 * it entered and back (into its own subtree the rename must fail with EINVAL), and unlinks the
 * new file. Every failed call is printed as `fswalk: path: error` and the walk
 * goes on; a directory is entered once (by device and inode) and at most 32 levels deep, so a
 * loop in the tree cannot make the walk endless. The last line is always
 *
 *   fswalk: D directories, F files, B bytes read, E errors
 *
 * Exit status: 0 if nothing failed, 1 if any call failed, 2 for usage errors. The reliability
 * tests run it on deliberately damaged images (docs/reliability.md): the kernel must answer
 * every call with a result or an error, never a panic or a hang.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXDEPTH   32
#define MAXSEEN    4096
#define READ_LIMIT (16 << 20)
#define NEWSIZE    20000
#define NTARGETS   16

static struct { dev_t dev; ino_t ino; } seen[MAXSEEN];
static int nseen;
static long ndirs, nfiles, nerrors;
static long long nbytes;
static char firstfile[PATH_MAX], firstdir[PATH_MAX];
static char targets[NTARGETS][PATH_MAX];   /* the first directories entered: rename targets */
static int ntargets;

static void fail(const char *path)
{
	warn("%s", path);
	nerrors++;
}

/* Has this directory been entered already? Marks it if not. */
static int entered(const struct stat *st)
{
	for (int i = 0; i < nseen; i++)
		if (seen[i].dev == st->st_dev && seen[i].ino == st->st_ino)
			return 1;
	if (nseen < MAXSEEN) {
		seen[nseen].dev = st->st_dev;
		seen[nseen].ino = st->st_ino;
		nseen++;
	}
	return 0;
}

static void readfile(const char *path)
{
	static char buf[16384];
	long long total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		fail(path);
		return;
	}
	while (total < READ_LIMIT && (n = read(fd, buf, sizeof buf)) > 0)
		total += n;
	if (total < READ_LIMIT && n < 0)
		fail(path);
	close(fd);
	nbytes += total;
	nfiles++;
	if (!firstfile[0])
		strlcpy(firstfile, path, sizeof firstfile);
}

static void walk(const char *dir, int level)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (level > 0 && ntargets < NTARGETS)
		strlcpy(targets[ntargets++], dir, sizeof targets[0]);
	ndirs++;
	if (!(d = opendir(dir))) {
		fail(dir);
		return;
	}
	for (;;) {
		errno = 0;
		if (!(de = readdir(d))) {
			if (errno)
				fail(dir);
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (lstat(path, &st) < 0) {    /* as ls -R: symbolic links are not followed */
			fail(path);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (level == 0 && !firstdir[0])
				strlcpy(firstdir, path, sizeof firstdir);
			if (level < MAXDEPTH && !entered(&st))
				walk(path, level + 1);
		} else if (S_ISREG(st.st_mode)) {
			readfile(path);
		}
	}
	closedir(d);
}

/* Write a new file, fsync it, read it back and compare. */
static void newfile(const char *path)
{
	static char out[NEWSIZE], in[NEWSIZE];
	int fd;

	for (int i = 0; i < NEWSIZE; i++)
		out[i] = (char)(i * 7 + 3);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
		fail(path);
		return;
	}
	if (write(fd, out, NEWSIZE) != NEWSIZE || fsync(fd) < 0)
		fail(path);
	close(fd);
	if ((fd = open(path, O_RDONLY)) < 0) {
		fail(path);
		return;
	}
	if (read(fd, in, NEWSIZE) != NEWSIZE) {
		fail(path);
	} else if (memcmp(in, out, NEWSIZE) != 0) {
		warnx("%s: read back differs from what was written", path);
		nerrors++;
	}
	close(fd);
}

static void append(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd < 0 || write(fd, "fswalk\n", 7) != 7)
		fail(path);
	if (fd >= 0)
		close(fd);
}

/*
 * Rename dir into target and back. Into its own subtree it must fail with EINVAL (the kernel
 * walks target's '..' chain to find out, which is where a damaged tree shows).
 */
static void move_and_back(const char *dir, const char *target)
{
	char moved[PATH_MAX];
	size_t n = strlen(dir);
	int inside = strncmp(target, dir, n) == 0 && (target[n] == '/' || target[n] == '\0');

	snprintf(moved, sizeof moved, "%s/fswalk.moved", target);
	if (rename(dir, moved) < 0) {
		if (!inside || errno != EINVAL)
			fail(dir);
	} else if (inside) {
		warnx("%s: moved into its own subdirectory %s", dir, target);
		nerrors++;
	} else if (rename(moved, dir) < 0) {
		fail(moved);
	}
}

/* The changes a user makes: create, append, mkdir/rmdir, renames there and back, unlink. */
static void change(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/fswalk.new", dir);
	newfile(path);
	if (firstfile[0])
		append(firstfile);
	snprintf(path, sizeof path, "%s/fswalk.dir", dir);
	if (mkdir(path, 0755) < 0 || rmdir(path) < 0)
		fail(path);
	for (int i = 0; firstdir[0] && i < ntargets; i++)
		move_and_back(firstdir, targets[i]);
	snprintf(path, sizeof path, "%s/fswalk.new", dir);
	if (unlink(path) < 0)
		fail(path);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *dir;
	int c, keep = 0;

	while ((c = getopt(argc, argv, "km:")) != -1) {
		switch (c) {
		case 'k': keep = 1; break;
		case 'm': dev = optarg; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	dir = argv[optind];
	if (dev && mount("wdfs", dir, 0, (void *)dev) < 0) {
		warn("mount %s on %s", dev, dir);
		printf("fswalk: 0 directories, 0 files, 0 bytes read, 1 errors\n");
		return 1;
	}
	walk(dir, 0);
	change(dir);
	if (dev && !keep && unmount(dir, 0) < 0)
		fail(dir);
	printf("fswalk: %ld directories, %ld files, %lld bytes read, %ld errors\n", ndirs, nfiles, nbytes, nerrors);
	return nerrors ? 1 : 0;
usage:
	fprintf(stderr, "usage: fswalk [-m device [-k]] dir\n");
	return 2;
}
