/*
 * ccdconfig: configure concatenated/striped disks, after FreeBSD's ccdconfig(8).
 *   ccdconfig [-cv] ccdN ileave [flags] dev ...   configure ccdN (-c is the default)
 *   ccdconfig -C [-v] [-f config]                 configure every ccd in the file (/etc/ccd.conf)
 *                                                 whose components all exist (below)
 *   ccdconfig -u [-v] ccdN ...                    unconfigure
 *   ccdconfig -U [-v]                             unconfigure every configured ccd
 *   ccdconfig -g [ccdN ...]                       print the configuration as ccd.conf lines:
 *                                                 "ccd0 128 none /dev/da1 /dev/da2"
 * ileave is in 512-byte sectors (0 = concatenate). flags: none, CCDF_UNIFORM (uniform), a
 * number (0x02), or names joined by commas; CCDF_MIRROR and CCDF_PARITY are not supported.
 * ccd.conf: one configuration line per ccd, '#' starts a comment. -C passes over a line naming a
 * component that does not exist (/dev has no such disk) without a word and without failing, and
 * says so with -v: one /etc/ccd.conf then serves every machine tools/run makes - the seed's stripe
 * over da1 da2 (--bus scsi) and over ada1 ada2 (--bus ahci), and none without data disks. This
 * is wdrain's: FreeBSD's do_all hands every line to do_single, whose checkdev() stat()s each
 * component and fails the line ("da1: No such file or directory", exit 1; [@fbsd-ccdconfig] in
 * docs/sources.md). A component that exists but cannot be used still fails the line.
 * The kernel is asked through the control device /dev/ccd (sys/ccdvar.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <err.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/ccdvar.h>

#define CCD_CTL      "/dev/ccd"
#define CCD_CONF     "/etc/ccd.conf"
#define MAXLINEARGS  (3 + CCD_MAXDISKS + 1)

static int vflag;

static void usage(void)
{
	fprintf(stderr,
	        "usage: ccdconfig [-cv] ccd ileave [flags] dev ...\n"
	        "       ccdconfig -C [-v] [-f config_file]\n"
	        "       ccdconfig -u [-v] ccd ...\n"
	        "       ccdconfig -U [-v]\n"
	        "       ccdconfig -g [ccd ...]\n");
	exit(1);
}

/* "ccd0" or "/dev/ccd0" -> 0; -1 with a message if it is not a ccd unit. */
static int ccd_unit(const char *name)
{
	char *end;
	long u;

	if (strncmp(name, "/dev/", 5) == 0)
		name += 5;
	if (strncmp(name, "ccd", 3) != 0 || name[3] < '0' || name[3] > '9')
		goto bad;
	u = strtol(name + 3, &end, 10);
	if (*end != 0 || u < 0 || u >= CCD_MAXUNITS)
		goto bad;
	return (int)u;
bad:
	warnx("%s: not a ccd device (ccd0 to ccd%d)", name, CCD_MAXUNITS - 1);
	return -1;
}

/* The kernel's table of units; -1 with a message on failure. */
static int read_table(struct ccd_ioctl tab[CCD_MAXUNITS])
{
	int fd = open(CCD_CTL, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		warn("%s", CCD_CTL);
		return -1;
	}
	n = read(fd, tab, CCD_MAXUNITS * sizeof(tab[0]));
	close(fd);
	if (n != (ssize_t)(CCD_MAXUNITS * sizeof(tab[0]))) {
		if (n < 0)
			warn("%s: read", CCD_CTL);
		else
			warnx("%s: short read (%d bytes)", CCD_CTL, (int)n);
		return -1;
	}
	return 0;
}

/* Send one request to the kernel; errno on failure. */
static int send_request(const struct ccd_ioctl *ccio)
{
	int fd = open(CCD_CTL, O_WRONLY), e;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, ccio, sizeof(*ccio));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)sizeof(*ccio) ? 0 : -1;
}

/* Flag names (FreeBSD's flagvaltab), each also accepted in lower case without "CCDF_". */
static const struct {
	const char *name;
	int         value;
} flagtab[] = {
	{ "CCDF_UNIFORM", CCDF_UNIFORM },
	{ "CCDF_MIRROR",  CCDF_MIRROR },
	{ "CCDF_PARITY",  CCDF_PARITY },
};

/* Parse a flags word into *flagsp; 0 if it is one, -1 if it is not (so it may be a device). */
static int parse_flags(const char *s, int *flagsp)
{
	char buf[64], *p, *w, *end;
	size_t i;
	long v;
	int flags = 0;

	if (strcmp(s, "none") == 0) {
		*flagsp = 0;
		return 0;
	}
	if (s[0] >= '0' && s[0] <= '9') {
		v = strtol(s, &end, 0);
		if (*end != 0 || v < 0)
			return -1;
		*flagsp = (int)v;
		return 0;
	}
	if (strlcpy(buf, s, sizeof buf) >= sizeof buf)
		return -1;
	for (p = buf; (w = strsep(&p, ",")) != NULL;) {
		for (i = 0; i < sizeof flagtab / sizeof flagtab[0]; i++)
			if (strcasecmp(w, flagtab[i].name) == 0 || strcasecmp(w, flagtab[i].name + 5) == 0)
				break;
		if (i == sizeof flagtab / sizeof flagtab[0])
			return -1;
		flags |= flagtab[i].value;
	}
	*flagsp = flags;
	return 0;
}

static const char *flags_name(int flags)
{
	static char buf[16];

	if (flags == 0)
		return "none";
	if (flags == CCDF_UNIFORM)
		return "CCDF_UNIFORM";
	snprintf(buf, sizeof buf, "0x%x", flags);
	return buf;
}

#define SECSIZE_BUSY ((unsigned)-1)

/*
 * Check one component disk and return its sector size; 0 with a message if unusable. A disk
 * that is in use (another ccd holds it) cannot be opened: SECSIZE_BUSY, and the kernel's EBUSY
 * for the configuration itself says why (set_failed).
 */
static unsigned comp_sectorsize(const char *ccd, const char *name)
{
	char path[8 + CCD_NAMELEN];
	unsigned secsize = 0;
	int fd;

	snprintf(path, sizeof path, "/dev/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0 && errno == EBUSY)
		return SECSIZE_BUSY;
	if (fd < 0) {
		warn("%s: component %s", ccd, path);
		return 0;
	}
	if (ioctl(fd, DIOCGSECTORSIZE, &secsize) < 0) {
		warnx("%s: component %s is not a disk", ccd, path);
		secsize = 0;
	}
	close(fd);
	return secsize;
}

/* Fill ccio's components from argv (a "/dev/" prefix is dropped); -1 with a message. */
static int set_components(struct ccd_ioctl *ccio, const char *ccd, int argc, char **argv)
{
	unsigned secsize, first = 0;
	const char *name;
	char self[8];
	int i, j;

	if (argc < 1) {
		warnx("%s: no component devices given", ccd);
		return -1;
	}
	if (argc > CCD_MAXDISKS) {
		warnx("%s: %d components given; at most %d are supported", ccd, argc, CCD_MAXDISKS);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		name = strncmp(argv[i], "/dev/", 5) == 0 ? argv[i] + 5 : argv[i];
		if (name[0] == 0 || strlen(name) >= CCD_NAMELEN || strchr(name, '/')) {
			warnx("%s: %s: not a device name", ccd, argv[i]);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (strcmp(ccio->ccio_disks[j], name) == 0) {
				warnx("%s: component %s is given twice", ccd, argv[i]);
				return -1;
			}
		snprintf(self, sizeof self, "ccd%d", (int)ccio->ccio_unit);
		if (strcmp(name, self) == 0) {
			warnx("%s: a ccd cannot be its own component", ccd);
			return -1;
		}
		if ((secsize = comp_sectorsize(ccd, name)) == 0)
			return -1;
		if (first == 0 || first == SECSIZE_BUSY)
			first = secsize;
		else if (secsize != first && secsize != SECSIZE_BUSY) {
			warnx("%s: components have different sector sizes (%s: %u, %s: %u bytes)",
			      ccd, ccio->ccio_disks[0], first, name, secsize);
			return -1;
		}
		strlcpy(ccio->ccio_disks[i], name, CCD_NAMELEN);
	}
	ccio->ccio_ndisks = argc;
	if (first != SECSIZE_BUSY && ((unsigned long long)ccio->ccio_ileave * 512) % first != 0) {
		warnx("%s: interleave %d (x 512 bytes) is not a multiple of the %u-byte sector size",
		      ccd, ccio->ccio_ileave, first);
		return -1;
	}
	return 0;
}

/* Explain a CCDIOCSET failure. */
static void set_failed(const char *ccd, const struct ccd_ioctl *ccio, int e)
{
	struct ccd_ioctl tab[CCD_MAXUNITS];

	if (e == EBUSY && read_table(tab) == 0 && tab[ccio->ccio_unit].ccio_ndisks > 0)
		warnx("%s: already configured (unconfigure it first: ccdconfig -u %s)", ccd, ccd);
	else if (e == EBUSY)
		warnx("%s: a component is in use (mounted, open or part of another ccd)", ccd);
	else if (e == ENODEV)
		warnx("%s: mirroring and parity are not supported", ccd);
	else if (e == EINVAL)
		warnx("%s: invalid configuration (interleave %d, flags %s): a component is too small, "
		      "or the geometry is not allowed", ccd, ccio->ccio_ileave, flags_name(ccio->ccio_flags));
	else
		warnx("%s: %s", ccd, strerror(e));
}

/* Configure from words: ccd ileave [flags] dev ...; 0 or -1 (message printed). */
static int do_single(int argc, char **argv)
{
	struct ccd_ioctl ccio;
	const char *ccd;
	char *end;
	long ileave;
	int unit, i;

	if (argc < 3) {
		if (argc > 0)
			warnx("%s: need an interleave and at least one component", argv[0]);
		else
			warnx("missing ccd name");
		return -1;
	}
	ccd = argv[0];
	if ((unit = ccd_unit(ccd)) < 0)
		return -1;
	memset(&ccio, 0, sizeof ccio);
	ccio.ccio_cmd = CCDIOCSET;
	ccio.ccio_unit = unit;
	ileave = strtol(argv[1], &end, 10);
	if (argv[1][0] == 0 || *end != 0 || ileave < 0 || ileave > 1048576) {
		warnx("%s: invalid interleave '%s' (512-byte sectors, 0 to 1048576)", ccd, argv[1]);
		return -1;
	}
	ccio.ccio_ileave = (int)ileave;
	i = 2;
	if (parse_flags(argv[2], &ccio.ccio_flags) == 0)
		i = 3;
	if (ccio.ccio_flags & (CCDF_MIRROR | CCDF_PARITY)) {
		warnx("%s: %s: mirroring and parity are not supported", ccd, argv[2]);
		return -1;
	}
	if (ccio.ccio_flags & ~CCDF_UNIFORM) {
		warnx("%s: unknown flags %s", ccd, argv[2]);
		return -1;
	}
	if (set_components(&ccio, ccd, argc - i, argv + i) < 0)
		return -1;
	if (send_request(&ccio) < 0) {
		set_failed(ccd, &ccio, errno);
		return -1;
	}
	if (vflag)
		printf("ccd%d: %d components, interleave %d, flags %s\n", unit, ccio.ccio_ndisks,
		       ccio.ccio_ileave, flags_name(ccio.ccio_flags));
	return 0;
}

/* Split a config-file line into words; the number of words (0 for blank or comment). */
static int split_line(char *line, char **words, int max)
{
	char *hash = strchr(line, '#'), *w;
	int n = 0;

	if (hash)
		*hash = 0;
	while ((w = strsep(&line, " \t\r\n")) != NULL) {
		if (*w == 0)
			continue;
		if (n == max)
			return max + 1;
		words[n++] = w;
	}
	return n;
}

/*
 * The first component of a configuration line (words: ccd ileave [flags] dev ...) that does not
 * exist, or NULL. Only a missing device counts: any other problem is do_single's to report.
 */
static const char *missing_component(int n, char **words)
{
	struct stat st;
	char path[8 + CCD_NAMELEN];
	int flags, i = 2;

	if (n < 3)
		return NULL;
	if (parse_flags(words[2], &flags) == 0)
		i = 3;
	for (; i < n; i++) {
		snprintf(path, sizeof path, "/dev/%s", strncmp(words[i], "/dev/", 5) == 0 ? words[i] + 5 : words[i]);
		if (stat(path, &st) < 0 && errno == ENOENT)
			return words[i];
	}
	return NULL;
}

/* -C: configure every line of the file whose components exist; 0 if all of those worked. */
static int do_all(const char *file)
{
	char line[512], *words[MAXLINEARGS];
	const char *absent;
	FILE *f = fopen(file, "r");
	int n, lineno = 0, status = 0;

	if (!f) {
		warn("%s", file);
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		lineno++;
		n = split_line(line, words, MAXLINEARGS);
		if (n == 0)
			continue;
		if (n > MAXLINEARGS) {
			warnx("%s:%d: too many words", file, lineno);
			status = -1;
			continue;
		}
		if ((absent = missing_component(n, words)) != NULL) {
			if (vflag)
				printf("%s: skipped (%s:%d): component %s does not exist\n", words[0], file,
				       lineno, absent);
			continue;
		}
		if (do_single(n, words) < 0) {
			warnx("%s:%d: not configured", file, lineno);
			status = -1;
		}
	}
	fclose(f);
	return status;
}

/* Unconfigure one unit; 0 or -1 (message printed). */
static int do_clear(int unit, const char *ccd)
{
	struct ccd_ioctl ccio;

	memset(&ccio, 0, sizeof ccio);
	ccio.ccio_cmd = CCDIOCCLR;
	ccio.ccio_unit = unit;
	if (send_request(&ccio) < 0) {
		if (errno == ENXIO)
			warnx("%s: not configured", ccd);
		else if (errno == EBUSY)
			warnx("%s: busy (mounted, open or in use by another ccd)", ccd);
		else
			warn("%s", ccd);
		return -1;
	}
	if (vflag)
		printf("%s unconfigured\n", ccd);
	return 0;
}

/* -U: every configured unit. */
static int clear_all(void)
{
	struct ccd_ioctl tab[CCD_MAXUNITS];
	char name[8];
	int u, status = 0;

	if (read_table(tab) < 0)
		return -1;
	for (u = 0; u < CCD_MAXUNITS; u++) {
		if (tab[u].ccio_ndisks == 0)
			continue;
		snprintf(name, sizeof name, "ccd%d", u);
		if (do_clear(u, name) < 0)
			status = -1;
	}
	return status;
}

static void print_line(const struct ccd_ioctl *c)
{
	int i;

	printf("ccd%d %d %s", (int)c->ccio_unit, (int)c->ccio_ileave, flags_name(c->ccio_flags));
	for (i = 0; i < c->ccio_ndisks; i++)
		printf(" /dev/%s", c->ccio_disks[i]);
	putchar('\n');
}

/* -g: the listed units (all configured ones if none listed). */
static int dump(int argc, char **argv)
{
	struct ccd_ioctl tab[CCD_MAXUNITS];
	int i, u, status = 0;

	if (read_table(tab) < 0)
		return -1;
	if (argc == 0) {
		for (u = 0; u < CCD_MAXUNITS; u++)
			if (tab[u].ccio_ndisks > 0)
				print_line(&tab[u]);
		return 0;
	}
	for (i = 0; i < argc; i++) {
		if ((u = ccd_unit(argv[i])) < 0)
			status = -1;
		else if (tab[u].ccio_ndisks == 0) {
			warnx("%s: not configured", argv[i]);
			status = -1;
		} else
			print_line(&tab[u]);
	}
	return status;
}

int main(int argc, char **argv)
{
	const char *file = CCD_CONF;
	int ch, action = 'c', i, u, status = 0;

	while ((ch = getopt(argc, argv, "CUcf:guv")) != -1) {
		switch (ch) {
		case 'C': case 'U': case 'c': case 'g': case 'u':
			if (action != 'c' && action != ch)
				usage();
			action = ch;
			break;
		case 'f':
			file = optarg;
			break;
		case 'v':
			vflag = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	switch (action) {
	case 'c':
		if (argc < 3)
			usage();
		status = do_single(argc, argv);
		break;
	case 'C':
		if (argc != 0)
			usage();
		status = do_all(file);
		break;
	case 'U':
		if (argc != 0)
			usage();
		status = clear_all();
		break;
	case 'u':
		if (argc == 0)
			usage();
		for (i = 0; i < argc; i++)
			if ((u = ccd_unit(argv[i])) < 0 || do_clear(u, argv[i]) < 0)
				status = -1;
		break;
	case 'g':
		status = dump(argc, argv);
		break;
	}
	return status < 0 ? 1 : 0;
}
