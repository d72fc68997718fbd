/*
 * camcontrol: the disks' tagged queueing, after FreeBSD's camcontrol(8). Only the `tags`
 * command exists here (wdrain has no CAM; the block layer's disk queue plays its part:
 * docs/storage.md "The disk queue").
 *
 *   camcontrol tags <disk> [-N tags] [-q] [-v]
 *     Show how many requests the disk queue hands the drive at once (the "device openings"),
 *     or with -N set it (1 .. the driver's limit; sysctl dev.<driver>.<unit>.openings).
 *     -q prints only the number; -v prints, as FreeBSD's does, dev_openings (openings not in
 *     use now), dev_active (requests at the drive) and devq_queued (requests waiting in the
 *     disk queue). <disk> is da1, ada0 or /dev/da1.
 * Exit status 0, 1 when the disk has no queue or the kernel refuses the value, 2 for usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <err.h>
#include <sys/sysctl.h>

static void usage(void)
{
	fprintf(stderr, "usage: camcontrol tags <disk> [-N tags] [-q] [-v]\n");
	exit(2);
}

/* dev.<driver>.<unit>.openings for "da1" (FreeBSD's dev.<driver>.<unit> tree). */
static void openings_name(const char *disk, char *name, size_t len)
{
	size_t n = strcspn(disk, "0123456789");

	if (n == 0 || disk[n] == 0 || strspn(disk + n, "0123456789") != strlen(disk + n))
		errx(2, "%s: not a disk name (like da1 or ada0)", disk);
	snprintf(name, len, "dev.%.*s.%s.openings", (int)n, disk, disk + n);
}

static int read_int(const char *name, long long *v)
{
	int64_t q = 0;
	int32_t i = 0;
	size_t len = sizeof(q);

	if (sysctl(name, &q, &len, NULL, 0) < 0)
		return -1;
	if (len == sizeof(i)) {
		memcpy(&i, &q, sizeof(i));
		*v = i;
	} else {
		*v = q;
	}
	return 0;
}

static long long devstat(const char *disk, const char *field)
{
	char name[SYSCTL_NAMELEN];
	long long v;

	snprintf(name, sizeof(name), "kern.devstat.%s.%s", disk, field);
	if (read_int(name, &v) < 0)
		err(1, "%s", name);
	return v;
}

int main(int argc, char **argv)
{
	char name[SYSCTL_NAMELEN];
	const char *disk;
	long long openings, ntags = -1;
	int c, quiet = 0, verbose = 0;
	char *end;

	if (argc < 3 || strcmp(argv[1], "tags") != 0) {
		if (argc >= 2 && strcmp(argv[1], "tags") != 0)
			fprintf(stderr, "camcontrol: unknown command '%s' (this camcontrol has only `tags`)\n",
			        argv[1]);
		usage();
	}
	disk = argv[2];
	if (strncmp(disk, "/dev/", 5) == 0)
		disk += 5;
	optind = 3;
	while ((c = getopt(argc, argv, "N:qv")) != -1) {
		switch (c) {
		case 'N':
			ntags = strtoll(optarg, &end, 10);
			if (*optarg == 0 || *end != 0 || ntags < 1)
				errx(2, "bad tag count '%s': a positive number", optarg);
			break;
		case 'q': quiet = 1; break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	openings_name(disk, name, sizeof(name));
	if (read_int(name, &openings) < 0) {
		if (errno == ENOENT)
			errx(1, "%s: no such disk, or it has no disk queue (ccd and md have none)", disk);
		err(1, "%s", name);
	}
	if (ntags > 0) {
		int32_t v = (int32_t)ntags;

		if (ntags > 0x7fffffff || sysctl(name, NULL, NULL, &v, sizeof(v)) < 0)
			errx(1, "%s: cannot set %lld tags: %s (1 .. the driver's limit)", disk, ntags,
			     strerror(errno == 0 ? EINVAL : errno));
		openings = ntags;
		if (!quiet)
			printf("(%s): tagged openings now %lld\n", disk, openings);
	}
	if (verbose) {
		long long active = devstat(disk, "active");

		printf("(%s): dev_openings  %lld\n", disk, openings > active ? openings - active : 0);
		printf("(%s): dev_active    %lld\n", disk, active);
		printf("(%s): devq_queued   %lld\n", disk, devstat(disk, "waiting"));
	} else if (quiet) {
		printf("%lld\n", openings);
	} else {
		printf("(%s): device openings: %lld\n", disk, openings);
	}
	return 0;
}
