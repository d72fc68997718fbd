/*
 * swapon: add swap devices, after FreeBSD's swapon(8).
 *   swapon special ...   add each disk (a /dev node, e.g. /dev/da3) as swap space
 *   swapon -a            add every device of /etc/fstab whose type is "swap" (options must
 *                        not include "noauto"), e.g. the line  /dev/da3 none swap sw 0 0
 * Prints "swapon: adding /dev/da3 as swap device" for each one added (as FreeBSD does at boot).
 * Exit 0 if all were added, 1 if one failed (with the reason on stderr), 2 for a usage error.
 * /etc/rc runs `swapon -a` at boot; a missing /etc/fstab is no error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <err.h>
#include <fstab.h>

static int add(const char *path)
{
	if (swapon(path) != 0) {
		warn("%s", path);
		return 1;
	}
	printf("swapon: adding %s as swap device\n", path);
	return 0;
}

/* The swap lines of /etc/fstab (getfsent(3): type "sw"), except noauto ones. */
static int add_fstab(void)
{
	struct fstab *fs;
	int status = 0;

	if (!setfsent())
		return errno == ENOENT ? 0 : (warn("%s", _PATH_FSTAB), 1);
	while ((fs = getfsent()) != NULL)
		if (strcmp(fs->fs_type, FSTAB_SW) == 0 && strstr(fs->fs_mntops, "noauto") == NULL)
			status |= add(fs->fs_spec);
	endfsent();
	return status;
}

int main(int argc, char **argv)
{
	int c, all = 0, status = 0;
	while ((c = getopt(argc, argv, "a")) != -1) {
		if (c != 'a')
			goto usage;
		all = 1;
	}
	if (all == (optind < argc))
		goto usage;
	if (all)
		return add_fstab();
	for (int i = optind; i < argc; i++)
		status |= add(argv[i]);
	return status;
usage:
	fprintf(stderr, "usage: swapon -a\n       swapon special ...\n");
	return 2;
}
