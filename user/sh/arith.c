/*
 * arith.c: arithmetic expansion, $((expression)) (POSIX 2.6.4).
 *
 *   arith_eval(expr, &result)   0 and the value, or -1 after printing the error
 *
 * The expression has already been through parameter expansion and command substitution
 * (expand.c). Integers are intmax_t, 64 bits, as FreeBSD's sh computes (bin/sh/shell.h:
 * "typedef intmax_t arith_t"; POSIX asks only for a signed long, 32 bits on i386, but a
 * script's byte counts pass 2 GB); constants are decimal, octal (0777) or hexadecimal (0x1f). The C
 * operators POSIX requires, by precedence:
 *
 *   ( )   unary + - ! ~   * / %   + -   << >>   < <= > >=   == !=   &   ^   |   &&   ||
 *   ?:    = *= /= %= += -= <<= >>= &= ^= |=
 *
 * (no ++/--, which POSIX leaves out). A name stands for its variable's value (unset or empty
 * is 0; anything that is not a number is an error); an assignment sets the variable. && || and
 * ?: do not evaluate the side they skip, so $((0 && 1/0)) is 0. Division by zero, the one
 * overflow that traps (INTMAX_MIN / -1) and a malformed expression are errors; other overflows
 * wrap, as the hardware does.
 *
 * A recursive-descent parser that evaluates as it goes: one function per precedence level.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include "sh.h"

struct arith {
	const char *expr;    /* the whole expression, for messages */
	const char *p;       /* the next character */
	int         noeval;  /* > 0: in a skipped operand: no assignments, no errors for / 0 */
	int         failed;
};

static intmax_t a_assign(struct arith *a);

static void a_error(struct arith *a, const char *what)
{
	if (!a->failed)
		fprintf(stderr, "sh: arithmetic expression: %s: \"%s\"\n", what, a->expr);
	a->failed = 1;
}

static void skipblank(struct arith *a)
{
	while (isspace((unsigned char)*a->p))
		a->p++;
}

/* The operator at the current position, longest first (so << is not read as <). */
static const char *opat(struct arith *a)
{
	static const char *const ops[] = {
		"<<=", ">>=", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=", "/=", "%=", "+=",
		"-=", "&=", "^=", "|=", "<", ">", "=", "+", "-", "*", "/", "%", "&", "^", "|", "!", "~",
		"?", ":", "(", ")", NULL,
	};

	for (int i = 0; ops[i]; i++)
		if (strncmp(a->p, ops[i], strlen(ops[i])) == 0)
			return ops[i];
	return NULL;
}

/* Is the operator op next? Then take it. */
static int accept(struct arith *a, const char *op)
{
	const char *at;

	skipblank(a);
	if (!(at = opat(a)) || strcmp(at, op) != 0)
		return 0;
	a->p += strlen(op);
	return 1;
}

/* A variable's value as a number. */
static intmax_t varvalue(struct arith *a, const char *name, size_t len)
{
	const char *v = getvarn(name, len);
	char *end, msg[80];
	intmax_t n;

	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 0);
	while (isspace((unsigned char)*end))
		end++;
	if (*end || errno) {
		snprintf(msg, sizeof msg, "%.*s: \"%.30s\" is not a number", (int)len, name, v);
		a_error(a, msg);
		return 0;
	}
	return n;
}

static intmax_t a_primary(struct arith *a)
{
	char *end;
	intmax_t n;

	skipblank(a);
	if (accept(a, "(")) {
		n = a_assign(a);
		if (!accept(a, ")"))
			a_error(a, "missing \")\"");
		return n;
	}
	if (isdigit((unsigned char)*a->p)) {
		errno = 0;
		n = strtoll(a->p, &end, 0);
		if (errno || isalnum((unsigned char)*end) || *end == '_')
			a_error(a, "bad number");
		a->p = end;
		return n;
	}
	if (isalpha((unsigned char)*a->p) || *a->p == '_') {
		const char *name = a->p;
		while (isalnum((unsigned char)*a->p) || *a->p == '_')
			a->p++;
		return varvalue(a, name, a->p - name);
	}
	a_error(a, *a->p ? "syntax error" : "missing operand");
	return 0;
}

static intmax_t a_unary(struct arith *a)
{
	if (accept(a, "+"))
		return a_unary(a);
	if (accept(a, "-"))
		return -(uintmax_t)a_unary(a);   /* wraps like the hardware, no C overflow */
	if (accept(a, "!"))
		return !a_unary(a);
	if (accept(a, "~"))
		return ~a_unary(a);
	return a_primary(a);
}

/* l op r for the binary operators; division errors are checked here. */
static intmax_t binop(struct arith *a, const char *op, intmax_t l, intmax_t r)
{
	if ((op[0] == '/' || op[0] == '%') && !a->noeval) {
		if (r == 0) {
			a_error(a, "division by zero");
			return 0;
		}
		if (l == INTMAX_MIN && r == -1) {
			a_error(a, "overflow");
			return 0;
		}
	}
	switch (op[0]) {
	case '*': return (uintmax_t)l * r;
	case '/': return r ? l / r : 0;
	case '%': return r && !(l == INTMAX_MIN && r == -1) ? l % r : 0;
	case '+': return (uintmax_t)l + r;
	case '-': return (uintmax_t)l - r;
	case '<': return op[1] == '<' ? (intmax_t)((uintmax_t)l << (r & 63)) : op[1] == '=' ? l <= r : l < r;
	case '>': return op[1] == '>' ? l >> (r & 63) : op[1] == '=' ? l >= r : l > r;
	case '=': return l == r;
	case '!': return l != r;
	case '&': return l & r;
	case '^': return l ^ r;
	case '|': return l | r;
	}
	return 0;
}

/* The binary operators by level, tightest first; each level is left-associative. */
static const char *const levels[][5] = {
	{ "*", "/", "%" }, { "+", "-" }, { "<<", ">>" }, { "<=", ">=", "<", ">" }, { "==", "!=" },
	{ "&" }, { "^" }, { "|" },
};
#define NLEVELS (int)(sizeof levels / sizeof levels[0])

static intmax_t a_binary(struct arith *a, int level)
{
	intmax_t l;

	if (level < 0)
		return a_unary(a);
	l = a_binary(a, level - 1);
	for (;;) {
		const char *op = NULL;
		for (int i = 0; i < 5 && levels[level][i]; i++)
			if (accept(a, levels[level][i])) {
				op = levels[level][i];
				break;
			}
		if (!op || a->failed)
			return l;
		l = binop(a, op, l, a_binary(a, level - 1));
	}
}

/* && and ||: the right side is parsed but not evaluated when the left decides. */
static intmax_t a_logical(struct arith *a, int isor)
{
	intmax_t l = isor ? a_logical(a, 0) : a_binary(a, NLEVELS - 1);

	while (!a->failed && accept(a, isor ? "||" : "&&")) {
		int skip = isor ? l != 0 : l == 0;
		intmax_t r;
		a->noeval += skip;
		r = isor ? a_logical(a, 0) : a_binary(a, NLEVELS - 1);
		a->noeval -= skip;
		l = isor ? (l || r) : (l && r);
	}
	return l;
}

static intmax_t a_cond(struct arith *a)
{
	intmax_t c = a_logical(a, 1), t, f;

	if (a->failed || !accept(a, "?"))
		return c;
	a->noeval += !c;
	t = a_assign(a);
	a->noeval -= !c;
	if (!accept(a, ":")) {
		a_error(a, "missing \":\"");
		return 0;
	}
	a->noeval += !!c;
	f = a_cond(a);
	a->noeval -= !!c;
	return c ? t : f;
}

/* NAME = expr and NAME op= expr (right-associative); anything else is a conditional. */
static intmax_t a_assign(struct arith *a)
{
	static const char *const ops[] = { "=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|=", NULL };
	const char *start, *name;
	size_t len;
	char buf[24];
	intmax_t v;

	skipblank(a);
	start = name = a->p;
	while (isalnum((unsigned char)*a->p) || *a->p == '_')
		a->p++;
	len = a->p - name;
	if (len && isname(name, len)) {
		for (int i = 0; ops[i]; i++) {
			if (!accept(a, ops[i]))
				continue;
			v = a_assign(a);
			if (ops[i][0] != '=') {
				char op[3] = { ops[i][0], ops[i][1] == '=' ? 0 : ops[i][1], 0 };
				v = binop(a, op, varvalue(a, name, len), v);
			}
			if (!a->noeval && !a->failed) {
				char *var = xstrndup(name, len);
				snprintf(buf, sizeof buf, "%jd", v);
				setvar(var, buf, 0);
				free(var);
			}
			return v;
		}
	}
	a->p = start;
	return a_cond(a);
}

int arith_eval(const char *expr, intmax_t *result)
{
	struct arith a = { expr, expr, 0, 0 };

	*result = a_assign(&a);
	skipblank(&a);
	if (!a.failed && *a.p)
		a_error(&a, "syntax error");
	return a.failed ? -1 : 0;
}
