/*
 * grep: print the lines that match a regular expression.
 *   grep [-Ecinv] pattern [file ...]
 * The pattern is a POSIX basic regular expression, or an extended one with -E (the libc's
 * regcomp, user/lib/regex.c: bracket expressions with ranges, negation and [:class:]es,
 * anchors, repetitions, groups, back-references in BREs, | + ? in EREs). A pattern that is not
 * a valid expression is refused with regcomp's message ("grep: brackets ([ ]) not balanced",
 * status 2), never taken for one that matches nothing. -c counts the selected lines, -i ignores
 * case, -n numbers them, -v selects the lines that do not match. With several files each line
 * is prefixed with its file's name. Exit status 0 if a line was selected, 1 if none, 2 on an
 * error, as POSIX says.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <regex.h>
#include <err.h>
#include <unistd.h>

static int cflag, nflag, vflag;

/* Search one stream; the number of selected lines, or -1 on a read error. */
static long search(const regex_t *re, FILE *f, const char *name, int showname)
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
		if ((regexec(re, line, 0, NULL, 0) == 0) == vflag)
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
	int c, nfiles, error = 0, cflags = REG_NOSUB;
	long total = 0;
	regex_t re;
	char msg[80];

	while ((c = getopt(argc, argv, "Ecinv")) != -1) {
		switch (c) {
		case 'E': cflags |= REG_EXTENDED; break;
		case 'c': cflag = 1; break;
		case 'i': cflags |= REG_ICASE; break;
		case 'n': nflag = 1; break;
		case 'v': vflag = 1; break;
		default:  goto usage;
		}
	}
	if (optind == argc)
		goto usage;
	if ((c = regcomp(&re, argv[optind++], cflags)) != 0) {
		regerror(c, &re, msg, sizeof msg);
		errx(2, "%s", msg);
	}
	nfiles = argc - optind;
	if (nfiles == 0) {
		long n = search(&re, stdin, "(standard input)", 0);
		return n < 0 ? 2 : n > 0 ? 0 : 1;
	}
	for (int i = optind; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		long n;
		if (!f) {
			warn("%s", argv[i]);
			error = 1;
			continue;
		}
		n = search(&re, f, argv[i], nfiles > 1);
		if (n < 0)
			error = 1;
		else
			total += n;
		fclose(f);
	}
	return error ? 2 : total > 0 ? 0 : 1;
usage:
	fprintf(stderr, "usage: grep [-Ecinv] pattern [file ...]\n");
	return 2;
}
