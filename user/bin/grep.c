/*
 * grep: print the lines that match a pattern.
 *   grep [-EFHLchilnqsvx] [-e pattern] ... [-f file] ... [pattern] [file ...]
 * POSIX's grep (XCU grep) with FreeBSD's -H, -h and -L. Each pattern is a POSIX basic regular
 * expression, an extended one with -E (the libc's regcomp, user/lib/regex.c: bracket
 * expressions with ranges, negation and [:class:]es, anchors, repetitions, groups,
 * back-references in BREs, | + ? in EREs), or a fixed string with -F. The patterns come from
 * every -e and every line of every -f file, or else from the first operand; a pattern holding
 * newlines is one pattern per line, and a line is selected if any pattern matches it. An empty
 * pattern matches every line; a -f file with no lines, none. A pattern that is not a valid
 * expression is refused with regcomp's message ("grep: brackets ([ ]) not balanced", status 2),
 * never taken for one that matches nothing.
 *   -c  print only the count of selected lines (per file)
 *   -i  ignore case          -n  number the lines      -v  select the lines that do not match
 *   -x  the pattern must match the whole line
 *   -l  print only the names of files with a selected line; -L those without one
 *   -q  print nothing; exit 0 at the first selected line, even if a file could not be read
 *   -s  no messages about files that cannot be opened or read (the status still says so)
 *   -H  prefix each line with its file's name (the default with several files); -h never
 * Exit status 0 if a line was selected, 1 if none, 2 on an error (with -q, 0 wins), as POSIX
 * says.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <ctype.h>
#include <regex.h>
#include <err.h>
#include <unistd.h>

#define MAXPAT 64

static int Fflag, cflag, iflag, lflag, Lflag, nflag, qflag, sflag, vflag, xflag;
static int showname = -1;           /* -H 1, -h 0, unset: with several files */

static char *patterns[MAXPAT];
static int npat;
static regex_t res[MAXPAT];

static void add_pattern(const char *p, size_t len)
{
	if (npat == MAXPAT)
		errx(2, "too many patterns (at most %d)", MAXPAT);
	if (!(patterns[npat] = malloc(len + 1)))
		errx(2, "out of memory");
	memcpy(patterns[npat], p, len);
	patterns[npat++][len] = 0;
}

/* A pattern list: one pattern per newline-separated piece (XCU grep, "pattern_list"). */
static void add_list(const char *list)
{
	const char *nl;

	while ((nl = strchr(list, '\n')) != NULL) {
		add_pattern(list, nl - list);
		list = nl + 1;
	}
	add_pattern(list, strlen(list));
}

/* -f file: one pattern per line; a file of no lines adds none. */
static void add_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f)
		err(2, "%s", path);
	while (fgets(line, sizeof line, f)) {
		size_t len = strlen(line);
		if (len > 0 && line[len - 1] == '\n')
			len--;
		else if (!feof(f))
			errx(2, "%s: pattern line longer than %d bytes", path, (int)sizeof line - 2);
		add_pattern(line, len);
	}
	if (ferror(f))
		err(2, "%s", path);
	fclose(f);
}

/* The text of an expression that matches only whole lines (-x). The libc's matcher reports the
 * first match it finds at the leftmost start, not always the longest, so the anchors are put
 * into the expression rather than checked on the match. A BRE has no alternation, so ^p$ is
 * whole-line as it is (with no anchor added where p has one already, since a second ^ or $
 * would be a literal); an ERE is grouped, ^(p)$ (EREs here have no back-references to
 * renumber). */
static char *whole_line(const char *p, int extended)
{
	size_t len = strlen(p), bs = 0;
	char *s = malloc(len + 5);
	int head, tail;

	if (!s)
		errx(2, "out of memory");
	if (extended) {
		snprintf(s, len + 5, "^(%s)$", p);
		return s;
	}
	while (bs < len - (len > 0) && p[len - 2 - bs] == '\\')
		bs++;
	head = p[0] != '^';
	tail = !(len > 0 && p[len - 1] == '$' && bs % 2 == 0);
	snprintf(s, len + 5, "%s%s%s", head ? "^" : "", p, tail ? "$" : "");
	return s;
}

static void compile(int cflags)
{
	char msg[80];
	int e;

	for (int i = 0; i < npat; i++) {
		char *p = xflag ? whole_line(patterns[i], cflags & REG_EXTENDED) : patterns[i];
		if ((e = regcomp(&res[i], p, cflags)) != 0) {
			regerror(e, &res[i], msg, sizeof msg);
			errx(2, "%s", msg);
		}
		if (p != patterns[i])
			free(p);
	}
}

/* -F: does the fixed string s occur in line (the whole line with -x)? */
static int fixed_match(const char *line, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (xflag)
		return n == len && (iflag ? strncasecmp(line, s, n) == 0 : memcmp(line, s, n) == 0);
	for (size_t at = 0; at + n <= len; at++)
		if (iflag ? strncasecmp(line + at, s, n) == 0 : memcmp(line + at, s, n) == 0)
			return 1;
	return 0;
}

static int matches(const char *line, size_t len)
{
	for (int i = 0; i < npat; i++)
		if (Fflag ? fixed_match(line, len, patterns[i]) : regexec(&res[i], line, 0, NULL, 0) == 0)
			return 1;
	return 0;
}

/* Search one stream; the number of selected lines (with -l, -L or -q it stops at the first),
 * or -1 on a read error. */
static long search(FILE *f, const char *name, int named)
{
	char *line = NULL;
	size_t cap = 0, len;
	long selected = 0, lineno = 0;
	int c, stop_at_first = lflag || Lflag || qflag;

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
		if (matches(line, len) == vflag)
			continue;
		selected++;
		if (stop_at_first)
			break;
		if (cflag)
			continue;
		if (named)
			printf("%s:", name);
		if (nflag)
			printf("%ld:", lineno);
		printf("%s\n", line);
	}
	free(line);
	if (ferror(f)) {
		if (!sflag)
			warn("%s", name);
		return -1;
	}
	if (qflag)
		return selected;
	if (lflag || Lflag) {
		if ((selected > 0) == lflag)
			printf("%s\n", name);
	} else if (cflag) {
		if (named)
			printf("%s:", name);
		printf("%ld\n", selected);
	}
	return selected;
}

static void usage(void)
{
	fprintf(stderr, "usage: grep [-EFHLchilnqsvx] [-e pattern] [-f file] [pattern] [file ...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int c, nfiles, error = 0, cflags = REG_NOSUB, listed = 0;
	long total = 0;

	while ((c = getopt(argc, argv, "EFHLce:f:hilnqsvx")) != -1) {
		switch (c) {
		case 'E': cflags |= REG_EXTENDED; break;
		case 'F': Fflag = 1; break;
		case 'H': showname = 1; break;
		case 'L': Lflag = 1; lflag = 0; break;
		case 'c': cflag = 1; break;
		case 'e': add_list(optarg); listed = 1; break;
		case 'f': add_file(optarg); listed = 1; break;
		case 'h': showname = 0; break;
		case 'i': cflags |= REG_ICASE; iflag = 1; break;
		case 'l': lflag = 1; Lflag = 0; break;
		case 'n': nflag = 1; break;
		case 'q': qflag = 1; break;
		case 's': sflag = 1; break;
		case 'v': vflag = 1; break;
		case 'x': xflag = 1; break;
		default:  usage();
		}
	}
	if (!listed) {
		if (optind == argc)
			usage();
		add_list(argv[optind++]);
	}
	if (!Fflag)
		compile(cflags);
	nfiles = argc - optind;
	if (showname < 0)
		showname = nfiles > 1;
	if (nfiles == 0) {
		long n = search(stdin, "(standard input)", showname);
		return n < 0 ? 2 : n > 0 ? 0 : 1;
	}
	for (int i = optind; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		long n;
		if (!f) {
			if (!sflag)
				warn("%s", argv[i]);
			error = 1;
			continue;
		}
		n = search(f, argv[i], showname);
		fclose(f);
		if (n < 0) {
			error = 1;
			continue;
		}
		total += n;
		if (qflag && n > 0)
			return 0;
	}
	return error ? 2 : total > 0 ? 0 : 1;
}
