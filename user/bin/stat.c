/*
 * stat: print what stat(2) says of files, in a format (FreeBSD's stat(1); its formats and
 * defaults from usr.bin/stat/stat.c, freebsd-src 01ac1ea9).
 *   stat [-FLnq] [-f format | -l | -r | -s | -x] [-t timefmt] [file ...]
 * Each file is lstat'ed (stat'ed with -L, falling back to lstat for a dangling link); with no
 * file, standard input is fstat'ed. The default format is FreeBSD's without the birth time and
 * flags, which wdrain's stat does not have:
 *     %d %i %Sp %l %Su %Sg %r %z "%Sa" "%Sm" "%Sc" %k %b %N
 * -l is ls -l's ("%Sp %l %Su %Sg %Z %Sm %N%SY"; -F adds the type character), -r raw numbers,
 * -s shell assignments (st_dev=... st_blocks=...), -x a verbose form, -f FORMAT one of your
 * own, -t the strftime(3) format of times (default "%b %e %T %Y", with -x "%c"). -n: no newline after each
 * file; -q: no message for a file that cannot be stat'ed. Status 1 if any file failed.
 *
 * A format is text with conversions %[#+-0 ][width][.prec][D|O|U|X|F|S][H|M|L]field:
 *   fields  d dev  i inode  p mode  l links  u uid  g gid  r rdev  a m c access, modify and
 *           change time  z size  b blocks  k blksize  N name  T type  Y link target
 *           Z rdev as "major,minor" for a device, else the size  R the real path
 *   output  D signed, O octal, U unsigned, X hex, F seconds with a fraction (times), S string
 *           (a name for u g, ls -l's letters for p, the formatted time, "Directory" etc. for HT)
 *   pieces  H M L: p's type bits, set-ID/sticky bits and permissions; d r's major and minor
 *           (FreeBSD 4's split of a dev_t); T: H the type's name, L ls -F's
 * and %n %t %% %@ (a newline, a tab, a percent sign, the file's number). B (birth time), f
 * (flags) and v (generation) exist in FreeBSD and not here: "bad format", as any unknown one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ctype.h>
#include <limits.h>
#include <time.h>
#include <errno.h>
#include <err.h>
#include <pwd.h>
#include <grp.h>

#define DEF_FORMAT   "%d %i %Sp %l %Su %Sg %r %z \"%Sa\" \"%Sm\" \"%Sc\" %k %b %N"
#define RAW_FORMAT   "%d %i %#p %l %u %g %r %z %a %m %c %k %b %N"
#define LS_FORMAT    "%Sp %l %Su %Sg %Z %Sm %N%SY"
#define LSF_FORMAT   "%Sp %l %Su %Sg %Z %Sm %N%T%SY"
#define SHELL_FORMAT "st_dev=%d st_ino=%i st_mode=%#p st_nlink=%l st_uid=%u st_gid=%g st_rdev=%r " \
                     "st_size=%z st_atime=%a st_mtime=%m st_ctime=%c st_blksize=%k st_blocks=%b"
#define LINUX_FORMAT "  File: \"%N\"%n  Size: %-11z  FileType: %HT%n" \
                     "  Mode: (%OMp%03OLp/%.10Sp)         Uid: (%5u/%8Su)  Gid: (%5g/%8Sg)%n" \
                     "Device: %Hd,%Ld   Inode: %i    Links: %l%nAccess: %Sa%nModify: %Sm%nChange: %Sc"

static const char *timefmt = "%b %e %T %Y";

/* One conversion, parsed. */
struct conv {
	char flags[6];          /* of "#+- 0", in the order given */
	int  width, prec;       /* -1: not given */
	char out;               /* D O U X F S, or 0 for the field's default */
	char piece;             /* H M L, or 0 */
	char field;
};

/* What a field yields: a number, a string, or both; which outputs it allows. */
struct datum {
	unsigned long long num;
	int                is_signed;
	const char        *str;
	const char        *outs;      /* the outputs allowed, the first the default */
};

static void bad_format(const char *start, const char *end)
{
	errx(1, "%.*s: bad format", (int)(end - start + 1), start);
}

static const char *type_char(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFIFO: return "|";
	case S_IFDIR: return "/";
	case S_IFLNK: return "@";
	case S_IFREG: return (m & (S_IXUSR | S_IXGRP | S_IXOTH)) ? "*" : "";
	default:      return (m & S_IFMT) == 0140000 ? "=" : "";
	}
}

static const char *type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFIFO: return "Fifo File";
	case S_IFCHR: return "Character Device";
	case S_IFDIR: return "Directory";
	case S_IFBLK: return "Block Device";
	case S_IFREG: return "Regular File";
	case S_IFLNK: return "Symbolic Link";
	case 0140000: return "Socket";
	default:      return "???";
	}
}

/* The mode's bits and letters, whole or one piece (H type, M set-ID/sticky, L permissions). */
static void mode_datum(struct datum *d, mode_t m, char piece, char *letters)
{
	strmode(m, letters);
	letters[10] = 0;
	d->num = m;
	d->str = letters;
	if (piece == 'H') {
		d->num = m >> 12;
		letters[4] = 0;
		d->str = letters + 1;
	} else if (piece == 'M') {
		d->num = (m >> 9) & 07;
		letters[7] = 0;
		d->str = letters + 4;
	} else if (piece == 'L') {
		d->num = m & 0777;
		d->str = letters + 7;
	}
	d->outs = "ODUXS";
}

/* The datum of one field (buf holds its strings); 0, or -1 for a field or piece there is not.
 * A link that cannot be read, or a path that does not resolve, gives "". */
static int field_datum(const struct conv *c, const struct stat *st, const char *file, struct datum *d,
                       char *buf, size_t n)
{
	static char id[16];
	struct passwd *pw;
	struct group *gr;
	time_t t;
	struct tm tm;

	memset(d, 0, sizeof *d);
	d->outs = "UDOX";
	switch (c->field) {
	case 'd': case 'r':
		d->num = c->field == 'd' ? st->st_dev : st->st_rdev;
		if (c->piece == 'H')
			d->num = (unsigned)major(d->num);
		else if (c->piece == 'L')
			d->num = (unsigned)minor(d->num);
		else if (c->piece)
			return -1;
		return 0;
	case 'i': d->num = st->st_ino; break;
	case 'l': d->num = st->st_nlink; break;
	case 'z': d->num = st->st_size; break;
	case 'b': d->num = st->st_blocks; break;
	case 'k': d->num = st->st_blksize; break;
	case 'p':
		mode_datum(d, st->st_mode, c->piece, buf);
		return 0;
	case 'u':
		d->num = st->st_uid;
		if ((pw = getpwuid(st->st_uid)) != NULL)
			d->str = pw->pw_name;
		else
			snprintf(id, sizeof id, "(%u)", (unsigned)st->st_uid), d->str = id;
		d->outs = "UDOXS";
		break;
	case 'g':
		d->num = st->st_gid;
		if ((gr = getgrgid(st->st_gid)) != NULL)
			d->str = gr->gr_name;
		else
			snprintf(id, sizeof id, "(%u)", (unsigned)st->st_gid), d->str = id;
		d->outs = "UDOXS";
		break;
	case 'a': case 'm': case 'c':
		t = c->field == 'a' ? st->st_atime : c->field == 'm' ? st->st_mtime : st->st_ctime;
		d->num = (unsigned long long)(long long)t;
		d->is_signed = 1;
		strftime(buf, n, timefmt, gmtime_r(&t, &tm));
		d->str = buf;
		d->outs = "DOUXFS";
		break;
	case 'N':
		d->str = file;
		d->outs = "S";
		break;
	case 'T':
		if (c->piece == 'M')
			return -1;
		d->str = c->piece == 'H' ? type_name(st->st_mode) : type_char(st->st_mode);
		d->outs = "S";
		return 0;
	case 'Y': {
		ssize_t len;
		d->str = "";
		d->outs = "S";
		if (!S_ISLNK(st->st_mode) || (len = readlink(file, buf + 4, n - 5)) < 0)
			break;
		memcpy(buf, " -> ", 4);
		buf[4 + len] = 0;
		d->str = c->out == 'S' ? buf : buf + 4;   /* the arrow only when S is asked for */
		break;
	}
	case 'R':
		d->outs = "S";
		memcpy(buf, " -> ", 4);
		if (realpath(file, buf + 4) == NULL)
			d->str = "";
		else
			d->str = c->out == 'S' ? buf : buf + 4;
		break;
	default:
		return -1;
	}
	return c->piece ? -1 : 0;
}

/* printf one datum as the conversion asks. */
static void put_datum(const struct conv *c, const struct datum *d)
{
	char fmt[32], *p = fmt;
	char out = c->out ? c->out : d->outs[0];

	*p++ = '%';
	p += snprintf(p, 8, "%s", c->flags);
	if (out == 'F') {
		/* wdrain keeps whole seconds: the fraction is zeros, as many as the precision asks
		 * (9 when none is given, FreeBSD's nanoseconds) */
		int prec = c->prec < 0 ? 9 : c->prec;
		int width = c->width - (prec ? prec + 1 : 0);
		if (width > 0)
			p += snprintf(p, 8, "%d", width);
		snprintf(p, 8, "lld");
		printf(fmt, (long long)d->num);
		if (prec)
			printf(".%0*d", prec, 0);
		return;
	}
	if (c->width >= 0)
		p += snprintf(p, 8, "%d", c->width);
	if (c->prec >= 0)
		p += snprintf(p, 8, ".%d", c->prec);
	switch (out) {
	case 'S': snprintf(p, 4, "s"); printf(fmt, d->str); return;
	case 'D': snprintf(p, 4, "lld"); printf(fmt, d->is_signed ? (long long)d->num : (long long)(unsigned)d->num); return;
	case 'O': snprintf(p, 4, "llo"); break;
	case 'U': snprintf(p, 4, "llu"); break;
	case 'X': snprintf(p, 4, "llx"); break;
	}
	printf(fmt, d->num);
}

/* Parse the conversion at *s (just past the %); *s is left after it. */
static void parse_conv(const char **s, const char *start, struct conv *c)
{
	const char *f = *s;
	int nflags = 0;

	memset(c, 0, sizeof *c);
	c->width = c->prec = -1;
	while (*f && strchr("#+- 0", *f) && nflags < 5)
		c->flags[nflags++] = *f++;
	if (isdigit((unsigned char)*f))
		for (c->width = 0; isdigit((unsigned char)*f) && c->width < 10000; f++)
			c->width = c->width * 10 + (*f - '0');
	if (*f == '.')
		for (c->prec = 0, f++; isdigit((unsigned char)*f) && c->prec < 10000; f++)
			c->prec = c->prec * 10 + (*f - '0');
	if (*f && strchr("DOUXFS", *f))
		c->out = *f++;
	if (*f && strchr("HML", *f))
		c->piece = *f++;
	if (!*f)
		bad_format(start, f - 1);
	c->field = *f;
	*s = f + 1;
}

/* The sizerdev field (Z): "major,minor" of a device's rdev, else the size. */
static void put_sizerdev(struct conv c, const struct stat *st, const char *file, char *buf, size_t n)
{
	struct datum d;

	if (!S_ISCHR(st->st_mode) && !S_ISBLK(st->st_mode)) {
		c.field = 'z';
		field_datum(&c, st, file, &d, buf, n);
		put_datum(&c, &d);
		return;
	}
	c.field = 'r';
	c.piece = 'H';
	field_datum(&c, st, file, &d, buf, n);
	put_datum(&c, &d);
	putchar(',');
	c.piece = 'L';
	field_datum(&c, st, file, &d, buf, n);
	put_datum(&c, &d);
}

/* Print one file's line. */
static void output(const char *fmt, const struct stat *st, const char *file, int number, int nonl)
{
	char buf[PATH_MAX + 8];
	int last = '\n';

	for (const char *s = fmt; *s; ) {
		const char *start = s;
		struct conv c;
		struct datum d;

		if (*s != '%') {
			putchar(last = *s++);
			continue;
		}
		s++;
		if (*s && strchr("nt%@", *s)) {
			if (*s == '@')
				printf("%d", number);
			else
				putchar(*s == 'n' ? '\n' : *s == 't' ? '\t' : '%');
			last = *s == 'n' ? '\n' : 0;
			s++;
			continue;
		}
		parse_conv(&s, start, &c);
		last = 0;
		if (c.field == 'Z') {
			put_sizerdev(c, st, file, buf, sizeof buf);
			continue;
		}
		if (field_datum(&c, st, file, &d, buf, sizeof buf) < 0 ||
		    (c.out && !strchr(d.outs, c.out)))
			bad_format(start, s - 1);
		put_datum(&c, &d);
	}
	if (last != '\n' && !nonl)
		putchar('\n');
}

/* stat one file as the options say, and print it; 0, or 1 if it could not be stat'ed. */
static int stat_one(const char *file, const char *fmt, int number, int Lflag, int nflag, int qflag)
{
	struct stat st;
	int rc;

	if (file == NULL) {
		file = "(stdin)";
		rc = fstat(0, &st);
	} else if (Lflag) {
		if ((rc = stat(file, &st)) < 0 && errno == ENOENT)
			rc = lstat(file, &st);     /* a dangling link is shown as the link */
	} else {
		rc = lstat(file, &st);
	}
	if (rc < 0) {
		if (!qflag)
			warn("%s: stat", file);
		return 1;
	}
	output(fmt, &st, file, number, nflag);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: stat [-FLnq] [-f format | -l | -r | -s | -x] [-t timefmt] [file ...]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *fmt = NULL;
	int c, form = 0, Fflag = 0, Lflag = 0, nflag = 0, qflag = 0, tflag = 0, status = 0;

	while ((c = getopt(argc, argv, "f:FlLnqrst:x")) != -1) {
		switch (c) {
		case 'F': Fflag = 1; break;
		case 'L': Lflag = 1; break;
		case 'n': nflag = 1; break;
		case 'q': qflag = 1; break;
		case 't': timefmt = optarg; tflag = 1; break;
		case 'f': case 'l': case 'r': case 's': case 'x':
			if (form)
				errx(1, "can't use format '%c' with '%c'", form, c);
			form = c;
			if (c == 'f')
				fmt = optarg;
			break;
		default:
			usage();
		}
	}
	if (Fflag && form && form != 'l')
		errx(1, "can't use format '%c' with -F", form);
	switch (form) {
	case 0:   fmt = Fflag ? LSF_FORMAT : DEF_FORMAT; break;
	case 'l': fmt = Fflag ? LSF_FORMAT : LS_FORMAT; break;
	case 'r': fmt = RAW_FORMAT; break;
	case 's': fmt = SHELL_FORMAT; break;
	case 'x': fmt = LINUX_FORMAT; break;
	}
	if (form == 'x' && !tflag)
		timefmt = "%c";
	if (optind == argc)
		return stat_one(NULL, fmt, 1, Lflag, nflag, qflag);
	for (int i = optind; i < argc; i++)
		status |= stat_one(argv[i], fmt, i - optind + 1, Lflag, nflag, qflag);
	return status;
}
