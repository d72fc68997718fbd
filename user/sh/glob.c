/*
 * glob.c: pattern matching (POSIX 2.13) and pathname expansion (POSIX 2.6.6, 2.13.3).
 *
 *   pmatch(pattern, s)       does the pattern match all of s? `*` any string, `?` any
 *                            character, `[abc]` `[a-z]` `[!a]` `[[:digit:]]` one of a set,
 *                            `\c` the character c itself (the expander escapes quoted ones)
 *   haspattern(pattern)      does it contain an unescaped * ? or a complete [...]?
 *   glob_pathnames(pat, out) the existing path names the pattern matches, sorted; nothing
 *                            if none (the caller then keeps the word as it was)
 *
 * Pathname expansion goes one component at a time: a component without pattern characters
 * is taken as it is, one with them is matched against the names in its directory. A `/` is
 * never matched by a pattern, and a name starting with `.` only by a pattern that starts with
 * a literal `.` (POSIX 2.13.3); `.` and `..` themselves are never produced.
 *
 * Used by: expand.c (pathname expansion, ${x#pattern}), exec.c (case).
 */
#include <stdlib.h>
#include <string.h>
#include <wctype.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include "sh.h"

/* [:name:] character classes (POSIX 2.13.1 via XBD 9.3.5): 1 or 0, or -1 if not a class name. */
static int inclass(const char *name, size_t len, int c)
{
	char buf[16];
	wctype_t class;

	if (len >= sizeof buf)
		return -1;
	memcpy(buf, name, len);
	buf[len] = 0;
	if (!(class = wctype(buf)))
		return -1;
	return iswctype(c, class) != 0;
}

/*
 * The bracket expression at *pp ('['): 1 if c is in it, 0 if not, -1 if it is not a complete
 * bracket expression (then '[' is an ordinary character). *pp moves past the ']'.
 */
static int bracket(const char **pp, int c)
{
	const char *p = *pp + 1;
	int negate = 0, matched = 0, first = 1;

	if (*p == '!' || *p == '^') {
		negate = 1;
		p++;
	}
	for (;; first = 0) {
		int lo, hi;
		if (!*p)
			return -1;
		if (*p == ']' && !first)
			break;
		if (p[0] == '[' && p[1] == ':') {
			const char *end = strstr(p + 2, ":]");
			int in = end ? inclass(p + 2, end - p - 2, c) : -1;
			if (in >= 0) {
				matched |= in;
				p = end + 2;
				continue;
			}
		}
		if (*p == '\\' && p[1])
			p++;
		lo = (unsigned char)*p++;
		hi = lo;
		if (p[0] == '-' && p[1] && p[1] != ']') {
			p++;
			if (*p == '\\' && p[1])
				p++;
			hi = (unsigned char)*p++;
		}
		if (lo <= c && c <= hi)
			matched = 1;
	}
	*pp = p + 1;
	return matched ^ negate;
}

/* Match one character c against the pattern element at *pp; advance *pp past it. */
static int matchone(const char **pp, int c)
{
	const char *p = *pp;
	int r;

	if (*p == '?') {
		*pp = p + 1;
		return 1;
	}
	if (*p == '[' && (r = bracket(pp, c)) >= 0)
		return r;
	if (*p == '\\' && p[1])
		p++;
	*pp = p + 1;
	return (unsigned char)*p == c;
}

int pmatch(const char *p, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;

	while (*s) {
		const char *q = p;
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (*p && matchone(&q, (unsigned char)*s)) {
			p = q;
			s++;
			continue;
		}
		if (!star_p)
			return 0;
		p = star_p;          /* let the last * take one more character */
		s = ++star_s;
	}
	while (*p == '*')
		p++;
	return *p == 0;
}

int haspattern(const char *p)
{
	for (; *p; p++) {
		const char *q = p;
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '*' || *p == '?' || (*p == '[' && bracket(&q, 0) >= 0))
			return 1;
	}
	return 0;
}

/* The component without its escapes. */
static void sputunescaped(struct str *b, const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\\' && i + 1 < len)
			i++;
		sputc(b, p[i]);
	}
}

static int isdir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void glob_dir(struct str *path, const char *pat, struct words *out);

/* path now names a match for one component; go on with the rest of the pattern (or end). */
static void glob_next(struct str *path, const char *rest, struct words *out)
{
	struct stat st;

	if (!rest) {
		if (stat(path->s, &st) == 0)
			addword(out, xstrdup(path->s));
		return;
	}
	if (!isdir(path->s))
		return;
	sputc(path, '/');
	if (*rest)
		glob_dir(path, rest, out);
	else
		addword(out, xstrdup(path->s));   /* a pattern ending in / matches directories */
}

static void glob_dir(struct str *path, const char *pat, struct words *out)
{
	const char *slash = strchr(pat, '/'), *rest = NULL;
	size_t len = slash ? (size_t)(slash - pat) : strlen(pat), keep = path->len;
	char *comp = xstrndup(pat, len);
	struct dirent *e;
	DIR *d;

	if (slash)
		for (rest = slash + 1; *rest == '/'; rest++)
			;
	if (!haspattern(comp)) {
		sputunescaped(path, comp, len);
		glob_next(path, rest, out);
	} else if ((d = opendir(path->len ? path->s : "."))) {
		while ((e = readdir(d))) {
			const char *name = e->d_name;
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
				continue;
			if (name[0] == '.' && comp[0] != '.' && !(comp[0] == '\\' && comp[1] == '.'))
				continue;
			if (!pmatch(comp, name))
				continue;
			sputs(path, name);
			glob_next(path, rest, out);
			path->len = keep;
			path->s[keep] = 0;
		}
		closedir(d);
	}
	path->len = keep;
	if (path->s)
		path->s[keep] = 0;
	free(comp);
}

static int bystring(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void glob_pathnames(const char *pattern, struct words *out)
{
	struct words found = { NULL, 0 };
	struct str path = { NULL, 0, 0 };

	sputs(&path, "");
	if (*pattern == '/') {
		sputc(&path, '/');
		while (*pattern == '/')
			pattern++;
	}
	glob_dir(&path, pattern, &found);
	free(path.s);
	if (found.n > 1)
		qsort(found.v, found.n, sizeof *found.v, bystring);
	for (int i = 0; i < found.n; i++)
		addword(out, found.v[i]);
	free(found.v);
}
