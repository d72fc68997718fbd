/*
 * Host test of the mkfs and fsck front ends, the same sources the guest runs as newfs and fsck
 * (docs/fs.md): mkfs -N, -i bytes-per-inode, the size taken from an existing image, a remade
 * image losing every old inode, an inode table that grows past its first allocation, and the bad
 * arguments; fsck -p skipping a clean image and repairing an unclean one, several images at
 * once, the format versions it reads (1 and 2; 3 is refused), and its usage errors. Runs tools/mkfs/mkfs and tools/fsck/fsck from the repository root
 * (tests/run's working directory).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fs/wdfs/wdfs_layout.c"
#include "unit.h"

static char tmpdir[64], img[128], img2[128];
static char output[65536];

static void check(const char *name, bool ok, const char *expected)
{
	if (ok)
		pass(name);
	else
		fail(name, expected, output);
}

/* Run a shell command; its exit status, its stdout+stderr in output[]. */
#define run(...) unit_sh(output, sizeof(output), __VA_ARGS__)

/* Set a superblock field (s_clean, what a crash leaves; s_version) and reseal the superblock. */
static void set_super(const char *path, size_t field, uint32_t value)
{
	struct wdfs_super sb;
	FILE *f = fopen(path, "r+b");

	if (!f || fread(&sb, sizeof(sb), 1, f) != 1) {
		fail("set_super: read the superblock", "it", path);
		return;
	}
	memcpy((char *)&sb + field, &value, 4);
	wdfs_super_seal(&sb);
	rewind(f);
	fwrite(&sb, sizeof(sb), 1, f);
	fclose(f);
}

static void test_mkfs(void)
{
	char tree[160], path[200];
	struct stat st;
	int s;

	s = run("tools/mkfs/mkfs -N -s 64m %s", img);
	check("mkfs -N prints the layout and makes no file",
	      s == 0 && strstr(output, "8192 blocks of 8192 bytes") && strstr(output, "4096 inodes") &&
	      strstr(output, "nothing written (-N)") && stat(img, &st) != 0, "status 0, the layout, no file");
	s = run("tools/mkfs/mkfs -i 4096 -s 64m %s", img);
	check("mkfs -i 4096: one inode per 4 KB (16384 for 64 MB)", s == 0 && strstr(output, "16384 inodes"),
	      "16384 inodes");
	s = run("tools/mkfs/mkfs %s", img);
	check("mkfs without -s takes the existing image's size", s == 0 && strstr(output, "8192 blocks of 8192"),
	      "8192 blocks");

	/* More files than the first in-memory inode table holds (64), then a remake on top. */
	snprintf(tree, sizeof(tree), "%s/tree", tmpdir);
	mkdir(tree, 0755);
	for (int i = 0; i < 150; i++) {
		snprintf(path, sizeof(path), "%s/f%03d", tree, i);
		FILE *f = fopen(path, "w");
		fprintf(f, "file %d\n", i);
		fclose(f);
	}
	s = run("tools/mkfs/mkfs -d %s %s && tools/fsck/fsck %s", tree, img, img);
	check("mkfs -d with 150 files (the inode table grows) is clean: 152 files",
	      s == 0 && strstr(output, "clean: 152 files"), "clean: 152 files");
	s = run("tools/mkfs/mkfs %s && tools/fsck/fsck %s", img, img);
	check("mkfs over an old file system leaves none of its inodes (2 files, clean)",
	      s == 0 && strstr(output, "clean: 2 files"), "clean: 2 files");

	s = run("tools/mkfs/mkfs -i 0 %s", img);
	check("mkfs -i 0 is refused", s == 1 && strstr(output, "-i '0': expected a positive number"), "-i '0'");
	s = run("tools/mkfs/mkfs -i 100000000 %s", img);
	check("mkfs -i too large for the size is refused", s == 1 && strstr(output, "wdfs takes 16 to"), "16 to");
	s = run("tools/mkfs/mkfs -b 8k %s", img);
	check("mkfs -b 8k (not a number) is refused", s == 1 && strstr(output, "-b '8k'"), "-b '8k'");
	s = run("tools/mkfs/mkfs -s 0 %s", img);
	check("mkfs -s 0 is refused", s == 1 && strstr(output, "needs a size"), "needs a size");
	s = run("tools/mkfs/mkfs %s/none.img", tmpdir);
	check("mkfs of a missing image without -s says -s makes one",
	      s == 1 && strstr(output, "No such file or directory (-s makes an image file)"), "the hint");
	s = run("tools/mkfs/mkfs -x %s", img);
	check("mkfs: a bad option is a usage error (2)", s == 2 && strstr(output, "usage: mkfs [-N]"), "usage");
}

static void test_fsck(void)
{
	int s;

	run("tools/mkfs/mkfs -s 16m %s && tools/mkfs/mkfs -s 16m %s", img, img2);
	s = run("tools/fsck/fsck -p %s", img);
	check("fsck -p skips a clean image", s == 0 && strstr(output, "clean, skipping checks"), "skipping");
	set_super(img, offsetof(struct wdfs_super, s_clean), WDFS_SB_DIRTY);
	s = run("tools/fsck/fsck -n %s", img);
	check("fsck -n reports the clean flag and leaves it (4)", s == 4 && strstr(output, "clean flag not set"),
	      "status 4");
	s = run("tools/fsck/fsck -p %s", img);
	check("fsck -p checks an unclean image and repairs it (1)",
	      s == 1 && strstr(output, "clean flag not set") && strstr(output, " - fixed"), "status 1, fixed");
	s = run("tools/fsck/fsck -p %s", img);
	check("then fsck -p skips it again", s == 0 && strstr(output, "clean, skipping checks"), "skipping");
	set_super(img2, offsetof(struct wdfs_super, s_clean), WDFS_SB_DIRTY);
	s = run("tools/fsck/fsck %s %s", img, img2);
	check("fsck of two images: the status is the worse one (4)", s == 4 && strstr(output, "clean: 2 files") &&
	      strstr(output, "1 problem found, 0 fixed"), "status 4");
	s = run("tools/fsck/fsck %s %s/none.img", img, tmpdir);
	check("fsck of a missing image: 8, naming it", s == 8 && strstr(output, "none.img: No such file"), "8");
	run("tools/mkfs/mkfs -s 16m %s", img2);
	set_super(img2, offsetof(struct wdfs_super, s_version), 1);
	s = run("tools/fsck/fsck %s", img2);
	check("fsck reads a version 1 image (before symbolic links) and finds it clean",
	      s == 0 && strstr(output, "clean: 2 files"), "status 0, clean");
	set_super(img2, offsetof(struct wdfs_super, s_version), 2);
	s = run("tools/fsck/fsck %s", img2);
	check("fsck reads a version 2 image (before device nodes) and finds it clean",
	      s == 0 && strstr(output, "clean: 2 files"), "status 0, clean");
	set_super(img2, offsetof(struct wdfs_super, s_version), 4);
	s = run("tools/fsck/fsck %s", img2);
	check("fsck refuses a version 4 image (8) with a message naming the versions it reads",
	      s == 8 && strstr(output, "unsupported version 4 (this code reads versions 1 to 3)"), "status 8");
	s = run("tools/fsck/fsck -n -y %s", img);
	check("fsck -n -y is a usage error (2)", s == 2 && strstr(output, "exclude each other"), "status 2");
	s = run("tools/fsck/fsck -z %s", img);
	check("fsck: a bad option is a usage error (2)", s == 2 && strstr(output, "usage: fsck"), "status 2");
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_fstools.%d", (int)getpid());
	mkdir(tmpdir, 0755);
	snprintf(img, sizeof(img), "%s/a.img", tmpdir);
	snprintf(img2, sizeof(img2), "%s/b.img", tmpdir);
	test_mkfs();
	test_fsck();
	run("rm -rf %s", tmpdir);
	return unit_exit();
}
