/*
 * grep: print lines matching a pattern. usage: grep [-cinv] pattern [file ...]
 * The pattern is a simple regular expression: c (literal), . (any), c* (zero or more),
 * ^ (start), $ (end), \c (literal c). Exit status 0 if a line was selected, 1 if none, 2 on
 * error, as POSIX. The matcher is the classic recursive one (Kernighan and Pike).
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <ctype.h>
#include <err.h>

static int cflag, iflag, nflag, vflag;

static int same(int pc, int c)
{
	return iflag ? tolower(pc) == tolower(c) : pc == c;
}

/* Length of the pattern atom at re: 2 for "\c", else 1. */
static int atomlen(const char *re)
{
	return re[0] == '\\' && re[1] ? 2 : 1;
}

static int atommatch(const char *re, int c)
{
	if (re[0] == '\\' && re[1])
		return same(re[1], c);
	return re[0] == '.' || same(re[0], c);
}

static int matchhere(const char *re, const char *s);

/* Match atom* then the rest, longest first. */
static int matchstar(const char *atom, const char *rest, const char *s)
{
	const char *t = s;

	while (*t && atommatch(atom, *t))
		t++;
	for (;; t--) {
		if (matchhere(rest, t))
			return 1;
		if (t == s)
			return 0;
	}
}

static int matchhere(const char *re, const char *s)
{
	int n;

	if (!re[0])
		return 1;
	n = atomlen(re);
	if (re[n] == '*')
		return matchstar(re, re + n + 1, s);
	if (re[0] == '$' && !re[1])
		return !*s;
	if (*s && atommatch(re, *s))
		return matchhere(re + n, s + 1);
	return 0;
}

static int match(const char *re, const char *s)
{
	if (re[0] == '^')
		return matchhere(re + 1, s);
	do {
		if (matchhere(re, s))
			return 1;
	} while (*s++);
	return 0;
}

/* Search one stream; the number of selected lines, or -1 on a read error. */
static long search(const char *re, FILE *f, const char *name, int showname)
{
	char *line = NULL;
	size_t cap = 0, len;
	long selected = 0, lineno = 0;
	int c;

	for (;;) {
		len = 0;
		while ((c = fgetc(f)) != EOF && c != '\n') {
			if (len + 2 > cap && !(line = realloc(line, cap = cap ? cap * 2 : 256)))
				errx(2, "out of memory");
			line[len++] = c;
		}
		if (c == EOF && len == 0)
			break;
		if (!line && !(line = malloc(cap = 256)))
			errx(2, "out of memory");
		line[len] = 0;
		lineno++;
		if (match(re, line) == vflag)
			continue;
		selected++;
		if (cflag)
			continue;
		if (showname)
			printf("%s:", name);
		if (nflag)
			printf("%ld:", lineno);
		printf("%s\n", line);
	}
	free(line);
	if (ferror(f)) {
		warn("%s", name);
		return -1;
	}
	if (cflag) {
		if (showname)
			printf("%s:", name);
		printf("%ld\n", selected);
	}
	return selected;
}

int main(int argc, char **argv)
{
	int c, nfiles, error = 0;
	long total = 0;

	while ((c = getopt(argc, argv, "cinv")) != -1) {
		switch (c) {
		case 'c': cflag = 1; break;
		case 'i': iflag = 1; break;
		case 'n': nflag = 1; break;
		case 'v': vflag = 1; break;
		default:  goto usage;
		}
	}
	if (optind == argc)
		goto usage;
	const char *re = argv[optind++];
	nfiles = argc - optind;
	if (nfiles == 0)
		return search(re, stdin, "(standard input)", 0) > 0 ? 0 : 1;
	for (int i = optind; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		long n;
		if (!f) {
			warn("%s", argv[i]);
			error = 1;
			continue;
		}
		n = search(re, f, argv[i], nfiles > 1);
		if (n < 0)
			error = 1;
		else
			total += n;
		fclose(f);
	}
	return error ? 2 : total > 0 ? 0 : 1;
usage:
	fprintf(stderr, "usage: grep [-cinv] pattern [file ...]\n");
	return 2;
}
