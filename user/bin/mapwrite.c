/*
 * mapwrite: write a file through a shared mapping, then check it through read(2).
 *   mapwrite [-n] FILE MB     create FILE (MB megabytes), map it MAP_SHARED, write a pattern
 *                             into every page through the mapping, msync(MS_SYNC), unmap, and
 *                             read the file back, checking every byte. -n leaves out msync and
 *                             the check: the data reaches the file later, through sync(2), the
 *                             syncer or the pageout daemon.
 *   mapwrite -c FILE MB       only check FILE's contents through read(2).
 *   mapwrite -m FILE MB       only check FILE's contents through a read-only shared mapping, page
 *                             by page in address order (a cold file is paged in by the vnode
 *                             pager's clustered reads, docs/vm.md "Faults").
 *   mapwrite -e [-a] FILE MB  write the pattern into the first MB megabytes of an existing FILE
 *                             (not created, not truncated, so its blocks stay where they are)
 *                             through a shared mapping, msync(MS_SYNC) and check; -a makes it
 *                             msync(MS_ASYNC) and skips the check: the pages go out as async
 *                             writes, as the pageout daemon's (VOP_PUTPAGES without
 *                             VM_PAGER_PUT_SYNC), and a failure of them reaches the next fsync.
 * The pattern is the byte offset in every 32-bit word (offset of the word). Exit 0 if all is
 * well, 1 on an error or a wrong byte (naming the offset), 2 for a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <err.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define CHUNK (64 * 1024)

static int usage(void)
{
	fprintf(stderr, "usage: mapwrite [-n | -c | -m | -e [-a]] FILE MB\n");
	return 2;
}

/* Check n words at file offset off against the pattern; 0, or 1 after naming the first bad one. */
static int check_words(const unsigned *w, size_t n, size_t off, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		if (w[i] != (unsigned)(off + 4 * i)) {
			fprintf(stderr, "mapwrite: %s: word at offset %zu is %#x, expected %#zx\n", path,
			        off + 4 * i, w[i], off + 4 * i);
			return 1;
		}
	}
	return 0;
}

static int check_mapped(int fd, size_t size, const char *path)
{
	const unsigned *p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		err(1, "%s: mmap", path);
	int bad = check_words(p, size / 4, 0, path);
	if (munmap((void *)p, size) != 0)
		err(1, "%s: munmap", path);
	if (bad == 0)
		printf("mapwrite: %s: %zu bytes checked through a mapping\n", path, size);
	return bad;
}

static int check(int fd, size_t size, const char *path)
{
	static unsigned buf[CHUNK / 4];
	if (lseek(fd, 0, SEEK_SET) != 0)
		err(1, "%s: lseek", path);
	for (size_t off = 0; off < size; off += CHUNK) {
		ssize_t n = read(fd, buf, CHUNK);
		if (n != CHUNK) {
			fprintf(stderr, "mapwrite: %s: short read at %zu\n", path, off);
			return 1;
		}
		if (check_words(buf, CHUNK / 4, off, path) != 0)
			return 1;
	}
	printf("mapwrite: %s: %zu bytes checked\n", path, size);
	return 0;
}

int main(int argc, char **argv)
{
	int c, nosync = 0, checkonly = 0, mapcheck = 0, existing = 0, async = 0;
	char *end;

	while ((c = getopt(argc, argv, "ncmea")) != -1) {
		if (c == 'n')
			nosync = 1;
		else if (c == 'c')
			checkonly = 1;
		else if (c == 'm')
			mapcheck = 1;
		else if (c == 'e')
			existing = 1;
		else if (c == 'a')
			async = 1;
		else
			return usage();
	}
	if (optind != argc - 2 || nosync + checkonly + mapcheck + existing > 1 || (async && !existing))
		return usage();
	const char *path = argv[optind];
	long mb = strtol(argv[optind + 1], &end, 10);
	if (*end || mb < 1 || mb > 1024)
		return usage();
	size_t size = (size_t)mb << 20;
	int fd = open(path, checkonly || mapcheck ? O_RDONLY : existing ? O_RDWR : O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		err(1, "%s", path);
	if (checkonly)
		return check(fd, size, path);
	if (mapcheck)
		return check_mapped(fd, size, path);
	struct stat st;
	if (existing && (fstat(fd, &st) != 0 || st.st_size < (off_t)size))
		errx(1, "%s: smaller than %ld MB", path, mb);
	if (!existing && ftruncate(fd, (off_t)size) != 0)
		err(1, "%s: ftruncate", path);
	unsigned *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		err(1, "%s: mmap", path);
	for (size_t i = 0; i < size / 4; i++)
		p[i] = (unsigned)(4 * i);
	if (!nosync && msync(p, size, async ? MS_ASYNC : MS_SYNC) != 0)
		err(1, "%s: msync", path);
	if (munmap(p, size) != 0)
		err(1, "%s: munmap", path);
	printf("mapwrite: %s: %zu bytes written through a shared mapping%s\n", path, size,
	       nosync ? " (not synced)" : async ? " (async writes started)" : "");
	return nosync || async ? 0 : check(fd, size, path);
}
