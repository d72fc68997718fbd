/*
 * umount: unmount file systems (after FreeBSD's umount(8)).
 *
 *   umount [-fv] node | special ...     the file system mounted on node, or from special
 *                                       ("/dev/ccd0" or "ccd0")
 *   umount -a [-fv] [-t type]           every mounted file system listed in /etc/fstab,
 *                                       newest first
 *
 *   -f  go on even if the last writes fail (the blocks that cannot be written are lost, each
 *       reported on the console). It does not take a file system away from processes using
 *       it: wdrain cannot revoke open files (FreeBSD's -f can), so a busy file system stays
 *       mounted either way (docs/vfs.md, "Unmounting").
 *   -v  name each file system as it is unmounted
 *
 * Exit status 0, or 1 if any unmount failed (2 for a usage error).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <err.h>
#include <fstab.h>
#include <sys/mount.h>

static int fflag, vflag;

static void usage(void)
{
	fprintf(stderr, "usage: umount [-fv] special | node ...\n"
	                "       umount -a [-fv] [-t type]\n");
	exit(2);
}

/* What an errno from unmount(2) usually means. */
static const char *unmount_hint(int e)
{
	switch (e) {
	case EBUSY:  return " (a file in it is open, it is a process's current directory, "
	                    "something is mounted inside it, or it is the root)";
	case EINVAL: return " (not a mount point)";
	case EIO:    return " (its last writes failed; umount -f drops what cannot be written)";
	default:     return "";
	}
}

/* Unmount the mount whose statfs is sf. 0 or 1. */
static int unmount_one(const struct statfs *sf)
{
	if (unmount(sf->f_mntonname, fflag ? MNT_FORCE : 0) != 0) {
		int e = errno;
		warnx("unmount of %s failed: %s%s", sf->f_mntonname, strerror(e), unmount_hint(e));
		return 1;
	}
	if (vflag)
		printf("%s: unmount from %s\n", sf->f_mntfromname, sf->f_mntonname);
	return 0;
}

/* umount name: a mount point, a special ("/dev/da1" or "da1"), or any path unmount(2) takes. */
static int umount_name(const char *name)
{
	struct statfs *mnt, sf;
	char dev[MNAMELEN];
	int n = getmntinfo(&mnt, MNT_NOWAIT), i;

	if (strchr(name, '/') == NULL)
		snprintf(dev, sizeof(dev), "/dev/%s", name);
	else
		strlcpy(dev, name, sizeof(dev));
	for (i = n - 1; i >= 0; i--)
		if (strcmp(mnt[i].f_mntonname, name) == 0 || strcmp(mnt[i].f_mntfromname, dev) == 0)
			return unmount_one(&mnt[i]);
	memset(&sf, 0, sizeof(sf));           /* not listed as it is written: let the kernel judge */
	strlcpy(sf.f_mntonname, name, sizeof(sf.f_mntonname));
	strlcpy(sf.f_mntfromname, name, sizeof(sf.f_mntfromname));
	return unmount_one(&sf);
}

/* umount -a: the mounts whose mount point is in fstab, newest first; / and /dev stay. */
static int umount_all(const char *type)
{
	struct statfs *mnt;
	struct fstab *fs;
	int n = getmntinfo(&mnt, MNT_NOWAIT), i, status = 0;

	if (!setfsent())
		err(1, "%s", getenv("PATH_FSTAB") ? getenv("PATH_FSTAB") : _PATH_FSTAB);
	for (i = n - 1; i >= 0; i--) {
		if (strcmp(mnt[i].f_mntonname, "/") == 0 || strcmp(mnt[i].f_mntonname, "/dev") == 0)
			continue;
		if (type != NULL && strcmp(mnt[i].f_fstypename, type) != 0)
			continue;
		fs = getfsfile(mnt[i].f_mntonname);
		if (fs == NULL || strcmp(fs->fs_type, FSTAB_SW) == 0)
			continue;
		status |= unmount_one(&mnt[i]);
	}
	endfsent();
	return status;
}

int main(int argc, char **argv)
{
	const char *type = NULL;
	int c, aflag = 0, status = 0;

	while ((c = getopt(argc, argv, "afvt:")) != -1) {
		switch (c) {
		case 'a': aflag = 1; break;
		case 'f': fflag = 1; break;
		case 'v': vflag = 1; break;
		case 't': type = optarg; break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (aflag)
		return argc == 0 ? umount_all(type) : (usage(), 2);
	if (argc == 0 || type != NULL)
		usage();
	for (int i = 0; i < argc; i++)
		status |= umount_name(argv[i]);
	return status;
}
