/*
 * mount: mount file systems, or list them (after FreeBSD's mount(8)).
 *
 *   mount                                       list every mount, oldest first:
 *                                               "/dev/ccd0 on /data1 (wdfs, local)"
 *   mount [-frv] [-t type] [-o opts] special node
 *   mount [-frv] [-t type] [-o opts] special|node   the rest comes from /etc/fstab
 *   mount -a [-frv] [-t type]                   every /etc/fstab line except swap and noauto
 *                                               ones, skipping those already mounted
 *   mount -u [-frvw] [-o opts] special|node     change a mounted file system: -r makes it
 *                                               read-only (refused while a file in it is open
 *                                               for writing), -w read-write again (refused if
 *                                               it is not clean, unless -f); its other options
 *                                               stay as they are unless -o changes them
 *                                               (FreeBSD's mount -u, mount.c 1.39.2.3)
 *
 *   -r  read-only (the same as -o ro)     -w  read-write (-o rw)
 *   -f  mount an unclean file system read-write
 *   -t  the type (wdfs, the default; devfs); with -a only lines of that type
 *   -o  options, comma-separated: ro, rw, force (= -f), noauto (only -a heeds it),
 *       noclusterr, noclusterw (no clustered reads / writes: docs/bufcache.md)
 *   -v  print each file system as it is mounted, in the listing's form
 *
 * A special without a '/' is a disk name ("ccd0" is /dev/ccd0). Errors name the file system
 * and say what the error usually means here. Exit status 0, or 1 if any mount failed
 * (2 for a usage error).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <err.h>
#include <fstab.h>
#include <sys/mount.h>

static int vflag;

static void usage(void)
{
	fprintf(stderr,
	        "usage: mount [-frv] [-t type] [-o options] special node\n"
	        "       mount [-frv] [-t type] [-o options] special | node\n"
	        "       mount -a [-frv] [-t type]\n"
	        "       mount -u [-frvw] [-o options] special | node\n"
	        "       mount\n");
	exit(2);
}

/* The listing line of one mount. */
static void print_mount(const struct statfs *sf)
{
	printf("%s on %s (%s%s%s%s%s)\n", sf->f_mntfromname, sf->f_mntonname, sf->f_fstypename,
	       (sf->f_flags & MNT_LOCAL) ? ", local" : "",
	       (sf->f_flags & MNT_RDONLY) ? ", read-only" : "",
	       (sf->f_flags & MNT_NOCLUSTERR) ? ", noclusterr" : "",
	       (sf->f_flags & MNT_NOCLUSTERW) ? ", noclusterw" : "");
}

static int list_mounts(void)
{
	struct statfs *mnt;
	int n = getmntinfo(&mnt, MNT_NOWAIT);

	if (n == 0)
		err(1, "getfsstat");
	for (int i = 0; i < n; i++)
		print_mount(&mnt[i]);
	return 0;
}

/*
 * Add the options in `opts` to *flagsp; *noautop is set for noauto. 0, or -1 after naming
 * the bad option.
 */
static int parse_options(const char *opts, int *flagsp, int *noautop)
{
	char buf[256], *p = buf, *o;

	if (strlen(opts) >= sizeof(buf)) {
		warnx("-o %s: too long", opts);
		return -1;
	}
	strcpy(buf, opts);
	while ((o = strsep(&p, ",")) != NULL) {
		if (strcmp(o, "ro") == 0)
			*flagsp |= MNT_RDONLY;
		else if (strcmp(o, "rw") == 0 || strcmp(o, "rq") == 0)
			*flagsp &= ~MNT_RDONLY;
		else if (strcmp(o, "force") == 0)
			*flagsp |= MNT_FORCE;
		else if (strcmp(o, "noauto") == 0)
			*noautop = 1;
		else if (strcmp(o, "noclusterr") == 0)
			*flagsp |= MNT_NOCLUSTERR;
		else if (strcmp(o, "noclusterw") == 0)
			*flagsp |= (int)MNT_NOCLUSTERW;
		else if (*o != '\0') {
			warnx("option '%s' is not known: wdfs takes ro, rw, force, noauto, noclusterr and "
			      "noclusterw", o);
			return -1;
		}
	}
	return 0;
}

/* What an errno from mount(2) usually means, after the name of the file system. */
static const char *mount_hint(int e)
{
	switch (e) {
	case ENODEV:  return " (no such file-system type; wdrain has wdfs and devfs)";
	case ENOTBLK: return " (the special is not a disk)";
	case ENXIO:   return " (the disk has no medium: an unconfigured ccd?)";
	case EBUSY:   return " (the disk is mounted or in use - a ccd component, an open device - "
	                     "or something is mounted on the node)";
	case EFTYPE:  return " (no wdfs file system on it: newfs makes one)";
	case EINVAL:  return " (bad superblock: the console says why; try fsck)";
	case EPERM:   return " (not unmounted cleanly: run fsck -y on it, or mount -f to risk it)";
	case ENOTDIR: return " (the mount point must be a directory)";
	default:      return "";
	}
}

/* What an errno from mount -u usually means. */
static const char *update_hint(int e)
{
	switch (e) {
	case EBUSY:      return " (a file in it is open for writing, or it is being unmounted)";
	case EPERM:      return " (not clean: run fsck first, or mount -u -f -w to risk it)";
	case EOPNOTSUPP: return " (this file-system type cannot be changed)";
	default:         return "";
	}
}

/*
 * mount -u: the mount named by its mount point or its special, with its options changed as
 * the command line says: `opts` from -o, then -r (rdonly 1) or -w (rdonly 0); -f in flags.
 */
static int update_mount(const char *name, const char *opts, int flags, int rdonly)
{
	const int keep = MNT_RDONLY | MNT_NOCLUSTERR | (int)MNT_NOCLUSTERW;
	char dev[MNAMELEN];
	struct statfs *mnt, sf;
	int n = getmntinfo(&mnt, MNT_NOWAIT), f, noauto = 0, i;

	snprintf(dev, sizeof(dev), "/dev/%s", name);
	for (i = n - 1; i >= 0; i--)
		if (strcmp(mnt[i].f_mntonname, name) == 0 || strcmp(mnt[i].f_mntfromname, name) == 0 ||
		    strcmp(mnt[i].f_mntfromname, dev) == 0)
			break;
	if (i < 0)
		errx(1, "%s: not a mounted file system", name);
	f = (int)mnt[i].f_flags & keep;
	if (opts != NULL && parse_options(opts, &f, &noauto) != 0)
		return 1;
	if (rdonly == 1)
		f |= MNT_RDONLY;
	else if (rdonly == 0)
		f &= ~MNT_RDONLY;
	if (mount(mnt[i].f_fstypename, mnt[i].f_mntonname, (f & keep) | (flags & MNT_FORCE) |
	          MNT_UPDATE, NULL) != 0) {
		int e = errno;
		warnx("%s: %s%s", mnt[i].f_mntonname, strerror(e), update_hint(e));
		return 1;
	}
	if (vflag && statfs(mnt[i].f_mntonname, &sf) == 0)
		print_mount(&sf);
	return 0;
}

/* Mount special on node; the listing line with -v. 0 or 1. */
static int do_mount(const char *type, const char *special, const char *node, int flags)
{
	char dev[MNAMELEN];
	struct statfs sf;

	if (strchr(special, '/') == NULL && strcmp(type, "devfs") != 0) {
		snprintf(dev, sizeof(dev), "/dev/%s", special);
		special = dev;
	}
	if (mount(type, node, flags, strcmp(type, "devfs") == 0 ? NULL : (void *)special) != 0) {
		int e = errno;
		warnx("%s on %s: %s%s", special, node, strerror(e), mount_hint(e));
		return 1;
	}
	if (vflag && statfs(node, &sf) == 0)
		print_mount(&sf);
	return 0;
}

/* Is `node` already a mount point (of anything)? */
static int is_mounted_on(const char *node)
{
	struct statfs *mnt;
	int n = getmntinfo(&mnt, MNT_NOWAIT);

	for (int i = 0; i < n; i++)
		if (strcmp(mnt[i].f_mntonname, node) == 0)
			return 1;
	return 0;
}

/* mount -a: every fstab line that is not swap, xx or noauto, of type `type` if given. */
static int mount_all(const char *type, int flags)
{
	struct fstab *fs;
	int status = 0, f, noauto;

	if (!setfsent())
		err(1, "%s", getenv("PATH_FSTAB") ? getenv("PATH_FSTAB") : _PATH_FSTAB);
	while ((fs = getfsent()) != NULL) {
		if (strcmp(fs->fs_type, FSTAB_SW) == 0)
			continue;
		if (type != NULL && strcmp(fs->fs_vfstype, type) != 0)
			continue;
		f = flags;
		noauto = 0;
		if (parse_options(fs->fs_mntops, &f, &noauto) != 0) {
			warnx("%s on %s: not mounted", fs->fs_spec, fs->fs_file);
			status = 1;
			continue;
		}
		if (noauto || is_mounted_on(fs->fs_file))
			continue;
		if (strcmp(fs->fs_type, FSTAB_RO) == 0)
			f |= MNT_RDONLY;
		status |= do_mount(fs->fs_vfstype, fs->fs_spec, fs->fs_file, f);
	}
	endfsent();
	return status;
}

/*
 * mount special|node: the other half from fstab. The line's options apply first, then the
 * command line's (`opts` from -o, then -r/-f in `flags`).
 */
static int mount_from_fstab(const char *name, const char *type, const char *opts, int flags)
{
	char dev[MNAMELEN];
	struct fstab *fs;
	int f = 0, noauto = 0;

	fs = getfsfile(name);
	if (fs == NULL)
		fs = getfsspec(name);
	if (fs == NULL && strchr(name, '/') == NULL) {
		snprintf(dev, sizeof(dev), "/dev/%s", name);
		fs = getfsspec(dev);
	}
	if (fs == NULL)
		errx(1, "%s: unknown special file or file system (not in %s)", name,
		     getenv("PATH_FSTAB") ? getenv("PATH_FSTAB") : _PATH_FSTAB);
	if (strcmp(fs->fs_type, FSTAB_RO) == 0)
		f |= MNT_RDONLY;
	if (parse_options(fs->fs_mntops, &f, &noauto) != 0 ||
	    (opts != NULL && parse_options(opts, &f, &noauto) != 0))
		return 1;
	return do_mount(type != NULL ? type : fs->fs_vfstype, fs->fs_spec, fs->fs_file, f | flags);
}

int main(int argc, char **argv)
{
	const char *type = NULL, *opts = NULL;
	int c, aflag = 0, uflag = 0, rdonly = -1, flags = 0, noauto = 0;

	while ((c = getopt(argc, argv, "afruvwt:o:")) != -1) {
		switch (c) {
		case 'a': aflag = 1; break;
		case 'f': flags |= MNT_FORCE; break;
		case 'r': rdonly = 1; break;
		case 'u': uflag = 1; break;
		case 'v': vflag = 1; break;
		case 'w': rdonly = 0; break;
		case 't': type = optarg; break;
		case 'o': opts = optarg; break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (uflag) {
		if (argc != 1 || aflag || type != NULL)
			usage();
		return update_mount(argv[0], opts, flags, rdonly);
	}
	if (rdonly == 1)
		flags |= MNT_RDONLY;
	if (aflag) {
		if (argc != 0 || opts != NULL)
			usage();
		return mount_all(type, flags);
	}
	switch (argc) {
	case 0:
		if (type != NULL || flags != 0 || opts != NULL)
			usage();
		return list_mounts();
	case 1:
		return mount_from_fstab(argv[0], type, opts, flags);
	case 2:
		if (opts != NULL && parse_options(opts, &flags, &noauto) != 0)
			return 2;
		return do_mount(type != NULL ? type : "wdfs", argv[0], argv[1], flags);
	default:
		usage();
	}
	return 2;
}
