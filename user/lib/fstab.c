/*
 * fstab.c: reading /etc/fstab (interface and format: <fstab.h>). The parser keeps one line of
 * the file and points the static struct fstab's fields into it.
 */
#include <fstab.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FSTAB_LINE 1024

static FILE *fsfile;
static const char *fspath;
static int fsline;                  /* number of the line last read */
static char linebuf[FSTAB_LINE];
static struct fstab entry;

void endfsent(void)
{
	if (fsfile != NULL)
		fclose(fsfile);
	fsfile = NULL;
}

int setfsent(void)
{
	endfsent();
	fspath = getenv("PATH_FSTAB");
	if (fspath == NULL || *fspath == '\0')
		fspath = _PATH_FSTAB;
	fsfile = fopen(fspath, "r");
	fsline = 0;
	return fsfile != NULL;
}

static void bad_line(const char *why)
{
	fprintf(stderr, "fstab: %s:%d: %s; line ignored\n", fspath, fsline, why);
}

/* A dump or pass field: a decimal number, or 0 if absent. -1 if it is not one. */
static int number_field(const char *s)
{
	char *end;
	long v;

	if (s == NULL)
		return 0;
	v = strtol(s, &end, 10);
	return (*end != '\0' || end == s || v < 0 || v > 1000000) ? -1 : (int)v;
}

/* fs_type from the options: the first of rw, rq, ro, sw, xx; "??" if none. */
static char *type_from_options(char *opts)
{
	static const char *types[] = { FSTAB_RW, FSTAB_RQ, FSTAB_RO, FSTAB_SW, FSTAB_XX };
	const char *p = opts;
	size_t n, i;

	while (*p != '\0') {
		n = strcspn(p, ",");
		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (n == 2 && strncmp(p, types[i], 2) == 0)
				return (char *)types[i];
		p += n;
		if (*p == ',')
			p++;
	}
	return "??";
}

/* Split linebuf into the entry. 1 if it is one, 0 for a blank/comment line, -1 if malformed. */
static int parse_line(void)
{
	char *f[7], *p = linebuf, *hash = strchr(linebuf, '#');
	int n = 0;

	if (hash != NULL)
		*hash = '\0';
	while (n < 7 && (f[n] = strsep(&p, " \t\n")) != NULL)
		if (*f[n] != '\0')
			n++;
	if (n == 0)
		return 0;
	if (n < 3 || n > 6) {
		bad_line(n < 3 ? "give at least the device, the mount point and the type"
		               : "more than six fields");
		return -1;
	}
	entry.fs_spec = f[0];
	entry.fs_file = f[1];
	entry.fs_vfstype = f[2];
	entry.fs_mntops = n > 3 ? f[3] : "rw";
	entry.fs_freq = number_field(n > 4 ? f[4] : NULL);
	entry.fs_passno = number_field(n > 5 ? f[5] : NULL);
	if (entry.fs_freq < 0 || entry.fs_passno < 0) {
		bad_line("the dump and pass fields must be numbers");
		return -1;
	}
	entry.fs_type = strcmp(entry.fs_vfstype, "swap") == 0 ? FSTAB_SW
	                                                        : type_from_options(entry.fs_mntops);
	return 1;
}

struct fstab *getfsent(void)
{
	size_t len;

	if (fsfile == NULL && !setfsent())
		return NULL;
	while (fgets(linebuf, sizeof(linebuf), fsfile) != NULL) {
		fsline++;
		len = strlen(linebuf);
		if (len == sizeof(linebuf) - 1 && linebuf[len - 1] != '\n') {
			bad_line("line too long");
			while (fgets(linebuf, sizeof(linebuf), fsfile) != NULL &&
			       linebuf[strlen(linebuf) - 1] != '\n')
				continue;
			continue;
		}
		if (parse_line() == 1 && strcmp(entry.fs_type, FSTAB_XX) != 0)
			return &entry;
	}
	return NULL;
}

/* The first entry whose field (spec or file) equals `want`. */
static struct fstab *getfs_by(const char *want, int by_file)
{
	struct fstab *fs;

	if (!setfsent())
		return NULL;
	while ((fs = getfsent()) != NULL)
		if (strcmp(by_file ? fs->fs_file : fs->fs_spec, want) == 0)
			return fs;
	return NULL;
}

struct fstab *getfsspec(const char *spec) { return getfs_by(spec, 0); }
struct fstab *getfsfile(const char *file) { return getfs_by(file, 1); }
