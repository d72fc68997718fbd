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

static int add(const char *path)
{
	if (swapon(path) != 0) {
		warn("%s", path);
		return 1;
	}
	printf("swapon: adding %s as swap device\n", path);
	return 0;
}

/* The swap lines of /etc/fstab: fields device mountpoint type options ... */
static int add_fstab(void)
{
	FILE *f = fopen("/etc/fstab", "r");
	char line[256];
	int status = 0;
	if (f == NULL)
		return errno == ENOENT ? 0 : (warn("/etc/fstab"), 1);
	while (fgets(line, sizeof line, f)) {
		char *p = line, *field[4];
		int n = 0;
		if (*p == '#')
			continue;
		while (n < 4 && (field[n] = strsep(&p, " \t\n")) != NULL)
			if (*field[n])
				n++;
		if (n >= 3 && strcmp(field[2], "swap") == 0 && !(n == 4 && strstr(field[3], "noauto")))
			status |= add(field[0]);
	}
	fclose(f);
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
