/*
 * test, [: evaluate a conditional expression (FreeBSD's test(1), POSIX's rules).
 *
 *   test expression        [ expression ]
 *
 * Exit status 0 if the expression is true, 1 if false, 2 on an error (bad syntax, a bad
 * number). The same code is sh's `test` and `[` builtins: sh links this file compiled with
 * -DSH_BUILTIN (no main) and calls test_main (test.h), which reports errors by its return
 * value, never by exiting.
 *
 * Primaries: -n s, -z s, s (non-empty); s1 = s2, s1 != s2, s1 < s2, s1 > s2; n1 -eq -ne -gt
 * -ge -lt -le n2; -e -f -d -b -c -p -h -L -r -w -x -s file; -t fd; f1 -nt -ot -ef f2; combined
 * with ! expr, expr -a expr, expr -o expr (-a binds tighter) and ( expr ). With up to four
 * arguments POSIX's rules decide by the number of arguments (so `test -n` and `test !` are
 * plain strings); longer expressions are parsed by precedence as FreeBSD does.
 * For root -r and -w are true for any existing file, -x for a directory or a file with any
 * execute bit, as FreeBSD's eaccess gives the superuser; for anyone else access(2) decides.
 * -h and -L look at the name itself (lstat), the others follow a symbolic link.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include "test.h"

struct texpr {
	char      **av;      /* the operands (without argv[0] and the closing "]") */
	int         ac;
	int         pos;     /* next operand to take */
	const char *name;    /* "test" or "[", for messages */
	int         err;     /* an error was reported */
};

/* Report the first error ("test: closing paren expected"); returns 0 (false). */
static int terror(struct texpr *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int terror(struct texpr *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->err) {
		fprintf(stderr, "%s: ", t->name);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n");
	}
	t->err = 1;
	return 0;
}

static const char *const unary_ops[] = {
	"-n", "-z", "-e", "-f", "-d", "-b", "-c", "-p", "-h", "-L", "-r", "-w", "-x", "-s", "-t", NULL,
};
static const char *const binary_ops[] = {
	"=", "!=", "<", ">", "-eq", "-ne", "-gt", "-ge", "-lt", "-le", "-nt", "-ot", "-ef", NULL,
};

static int inlist(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}

/* An integer operand: optional blanks, sign, digits, optional blanks (FreeBSD's getn). */
static long long getnum(struct texpr *t, const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == s || *end) {
		terror(t, "%s: bad number", s);
		return 0;
	}
	if (errno == ERANGE) {
		terror(t, "%s: out of range", s);
		return 0;
	}
	return v;
}

static int filetest(const char *op, const char *path)
{
	struct stat st;

	if (op[1] == 'h' || op[1] == 'L')
		return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
	if (stat(path, &st) < 0)
		return 0;
	if (geteuid() != 0 && (op[1] == 'r' || op[1] == 'w' || op[1] == 'x'))
		return access(path, op[1] == 'r' ? R_OK : op[1] == 'w' ? W_OK : X_OK) == 0;
	switch (op[1]) {
	case 'e': case 'r': case 'w': return 1;
	case 'f': return S_ISREG(st.st_mode);
	case 'd': return S_ISDIR(st.st_mode);
	case 'b': return S_ISBLK(st.st_mode);
	case 'c': return S_ISCHR(st.st_mode);
	case 'p': return S_ISFIFO(st.st_mode);
	case 'x': return S_ISDIR(st.st_mode) || (st.st_mode & 0111) != 0;
	case 's': return st.st_size > 0;
	}
	return 0;
}

static int unary(struct texpr *t, const char *op, const char *arg)
{
	if (strcmp(op, "-n") == 0)
		return arg[0] != 0;
	if (strcmp(op, "-z") == 0)
		return arg[0] == 0;
	if (strcmp(op, "-t") == 0) {
		long long fd = getnum(t, arg);
		return !t->err && fd >= 0 && fd <= 0x7fffffff && isatty((int)fd);
	}
	return filetest(op, arg);
}

/* -nt: a exists and is newer than b, or b does not exist; -ot the other way; -ef same file. */
static int filecmp(const char *op, const char *a, const char *b)
{
	struct stat sa, sb;
	int ha = stat(a, &sa) == 0, hb = stat(b, &sb) == 0;

	if (strcmp(op, "-nt") == 0)
		return ha && (!hb || sa.st_mtime > sb.st_mtime);
	if (strcmp(op, "-ot") == 0)
		return hb && (!ha || sa.st_mtime < sb.st_mtime);
	return ha && hb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The integer comparisons: the result when a < b, a == b, a > b. */
static const struct intop {
	const char *op;
	char        lt, eq, gt;
} intops[] = {
	{ "-eq", 0, 1, 0 }, { "-ne", 1, 0, 1 }, { "-gt", 0, 0, 1 },
	{ "-ge", 0, 1, 1 }, { "-lt", 1, 0, 0 }, { "-le", 1, 1, 0 }, { NULL, 0, 0, 0 },
};

static int binary(struct texpr *t, const char *a, const char *op, const char *b)
{
	const struct intop *i;
	long long x, y;

	if (strcmp(op, "=") == 0)
		return strcmp(a, b) == 0;
	if (strcmp(op, "!=") == 0)
		return strcmp(a, b) != 0;
	if (strcmp(op, "<") == 0)
		return strcmp(a, b) < 0;
	if (strcmp(op, ">") == 0)
		return strcmp(a, b) > 0;
	if (strcmp(op, "-nt") == 0 || strcmp(op, "-ot") == 0 || strcmp(op, "-ef") == 0)
		return filecmp(op, a, b);
	for (i = intops; strcmp(i->op, op) != 0; i++)
		;
	x = getnum(t, a);
	y = getnum(t, b);
	if (t->err)
		return 0;
	return x < y ? i->lt : x == y ? i->eq : i->gt;
}

/* ---- the general parser: oexpr := aexpr [-o oexpr]; aexpr := nexpr [-a aexpr] ---------- */

static int oexpr(struct texpr *t);

static const char *peekarg(struct texpr *t, int k)
{
	return t->pos + k < t->ac ? t->av[t->pos + k] : NULL;
}

static int primary(struct texpr *t)
{
	const char *a = peekarg(t, 0), *b = peekarg(t, 1), *c = peekarg(t, 2);
	int v;

	if (!a)
		return terror(t, "argument expected");
	if (strcmp(a, "(") == 0 && !(b && c && inlist(binary_ops, b))) {
		t->pos++;
		v = oexpr(t);
		if (!peekarg(t, 0) || strcmp(peekarg(t, 0), ")") != 0)
			return terror(t, "closing paren expected");
		t->pos++;
		return v;
	}
	if (b && c && inlist(binary_ops, b)) {
		t->pos += 3;
		return binary(t, a, b, c);
	}
	if (b && inlist(unary_ops, a)) {
		t->pos += 2;
		return unary(t, a, b);
	}
	t->pos++;
	return a[0] != 0;
}

static int nexpr(struct texpr *t)
{
	if (peekarg(t, 0) && peekarg(t, 1) && strcmp(peekarg(t, 0), "!") == 0) {
		t->pos++;
		return !nexpr(t);
	}
	return primary(t);
}

static int aexpr(struct texpr *t)
{
	int v = nexpr(t);

	while (!t->err && peekarg(t, 0) && strcmp(peekarg(t, 0), "-a") == 0) {
		t->pos++;
		v = nexpr(t) && v;
	}
	return v;
}

static int oexpr(struct texpr *t)
{
	int v = aexpr(t);

	while (!t->err && peekarg(t, 0) && strcmp(peekarg(t, 0), "-o") == 0) {
		t->pos++;
		v = aexpr(t) || v;
	}
	return v;
}

/* The whole expression by precedence; every operand must be used. */
static int general(struct texpr *t, char **a, int n)
{
	int v;

	t->av = a;
	t->ac = n;
	t->pos = 0;
	v = oexpr(t);
	if (!t->err && t->pos < t->ac)
		terror(t, "%s: unexpected operator", t->av[t->pos]);
	return v;
}

/* ---- POSIX's rules for 0..4 arguments ------------------------------------------------------ */

static int evaln(struct texpr *t, char **a, int n)
{
	switch (n) {
	case 0:
		return 0;
	case 1:
		return a[0][0] != 0;
	case 2:
		if (strcmp(a[0], "!") == 0)
			return !evaln(t, a + 1, 1);
		if (inlist(unary_ops, a[0]))
			return unary(t, a[0], a[1]);
		break;
	case 3:
		if (inlist(binary_ops, a[1]))
			return binary(t, a[0], a[1], a[2]);
		if (strcmp(a[0], "!") == 0)
			return !evaln(t, a + 1, 2);
		if (strcmp(a[0], "(") == 0 && strcmp(a[2], ")") == 0)
			return evaln(t, a + 1, 1);
		break;
	case 4:
		if (strcmp(a[0], "!") == 0)
			return !evaln(t, a + 1, 3);
		if (strcmp(a[0], "(") == 0 && strcmp(a[3], ")") == 0)
			return evaln(t, a + 1, 2);
		break;
	}
	return general(t, a, n);
}

int test_main(int argc, char **argv)
{
	struct texpr t = { NULL, 0, 0, "test", 0 };
	const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
	int v;

	if (argc > 0 && strcmp(slash ? slash + 1 : argv[0], "[") == 0) {
		t.name = "[";
		if (argc < 2 || strcmp(argv[argc - 1], "]") != 0) {
			terror(&t, "missing ]");
			return 2;
		}
		argc--;
	}
	v = evaln(&t, argv + 1, argc > 0 ? argc - 1 : 0);
	return t.err ? 2 : !v;
}

#ifndef SH_BUILTIN
int main(int argc, char **argv)
{
	return test_main(argc, argv);
}
#endif
