/*
 * regex.c: POSIX regular expressions (XBD 9), for grep (user/libc).
 *
 *   regcomp(re, pattern, cflags)   compile a basic (BRE) or, with REG_EXTENDED, an extended
 *                                  expression (ERE); REG_ICASE ignores case; 0 or REG_*
 *   regexec(re, s, n, m, eflags)   0 if it matches somewhere in s, else REG_NOMATCH; m[0] the
 *                                  match, m[1..] the groups (rm_so -1 if a group took no part)
 *   regerror, regfree              FreeBSD's messages ("brackets ([ ]) not balanced")
 *
 * Both syntaxes have characters, `.`, bracket expressions (`[a-z0-9_]`, `[^...]`, a `]` first
 * is literal, classes `[:alpha:]` and the others of XBD 9.3.5, `[=c=]` and `[.c.]` for single
 * characters), the anchors `^` and `$`, `*`, intervals and groups. BRE: `\(` `\)`, `\{m,n\}`,
 * back-references `\1`..`\9`; `^` is an anchor only at the start of the expression or of a group,
 * `$` only at the end, `*` first is literal. ERE: `( )`, `|`, `+`, `?`, `{m,n}`; `^` and `$`
 * anchor anywhere; `\1`..`\9` are back-references too (an extension). A backslash before any
 * other character makes it literal.
 *
 * Not supported, and refused with an error rather than matched wrongly: collating elements of
 * more than one character (`[.space.]`: REG_ECOLLATE) and a repetition with nothing to repeat
 * in an ERE (REG_BADRPT). There are no locales: characters are bytes, ranges are by byte value.
 *
 * The matcher backtracks over a tree of pieces (an atom and its repetition count), trying
 * each start position in turn and, at each, the longest repetitions first. It finds whether
 * and where a match starts (leftmost), but among the matches at that start it reports the
 * first one found, not always POSIX's longest: grep, its user, only needs whether a line
 * matches. A group repeated with an empty iteration stops repeating, so `(a*)*` ends.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <wctype.h>

#define DUP_MAX  255             /* RE_DUP_MAX: the largest interval count */
#define MAXGROUP 32              /* groups whose matches are kept (more are counted, not kept) */

enum { P_CHAR, P_ANY, P_SET, P_BOL, P_EOL, P_GROUP, P_BACKREF };

struct group;

struct piece {
	int            kind;
	int            ch;          /* P_CHAR: the byte; P_BACKREF: the group's number */
	unsigned char  set[32];     /* P_SET: a bit per byte value */
	struct group  *group;       /* P_GROUP */
	int            min, max;    /* how many times; max -1: no limit */
};

struct seq {                    /* pieces matched one after the other */
	struct piece *p;
	int           n;
};

struct group {                  /* alternatives; num: its capture number, 0 for none */
	struct seq *alts;
	int         nalts, num;
};

struct prog {
	struct group top;
	int          icase;
};

/* ---- compiling ------------------------------------------------------------------------------- */

struct parse {
	const char *p;
	int         ere, icase, err;
	int         ngroups;        /* groups opened so far */
	unsigned    closed;         /* bit n: group n is closed (a back-reference may name it) */
};

static void *zalloc(struct parse *ps, size_t n)
{
	void *v = calloc(1, n);

	if (!v)
		ps->err = REG_ESPACE;
	return v;
}

static struct piece *newpiece(struct parse *ps, struct seq *sq, int kind)
{
	struct piece *np = realloc(sq->p, (sq->n + 1) * sizeof *np);

	if (!np) {
		ps->err = REG_ESPACE;
		return NULL;
	}
	sq->p = np;
	np = &sq->p[sq->n++];
	memset(np, 0, sizeof *np);
	np->kind = kind;
	np->min = np->max = 1;
	return np;
}

static void setbit(struct piece *pc, int c, int icase)
{
	pc->set[(unsigned char)c >> 3] |= 1u << (c & 7);
	if (icase && isalpha(c)) {
		int o = islower(c) ? toupper(c) : tolower(c);
		pc->set[(unsigned char)o >> 3] |= 1u << (o & 7);
	}
}

/* The class named [:name:] at name (len bytes), 0 if there is none. */
static wctype_t classnamed(const char *name, size_t len)
{
	char buf[16];

	if (len >= sizeof buf)
		return 0;
	memcpy(buf, name, len);
	buf[len] = 0;
	return wctype(buf);
}

/* [= =] or [. .] at p ("[=" or "[."): its one character, p past it; -1 and an error otherwise. */
static int single_element(struct parse *ps, const char **pp)
{
	const char *p = *pp, *end = strchr(p + 2, p[1]);

	if (!end || end[1] != ']') {
		ps->err = REG_EBRACK;
		return -1;
	}
	if (end - (p + 2) != 1) {
		ps->err = REG_ECOLLATE;
		return -1;
	}
	*pp = end + 2;
	return (unsigned char)p[2];
}

/* A bracket expression; ps->p at the '['. */
static void bracket(struct parse *ps, struct piece *pc)
{
	const char *p = ps->p + 1;
	int negate = 0, first = 1, lo, hi;

	pc->kind = P_SET;
	if (*p == '^') {
		negate = 1;
		p++;
	}
	for (;; first = 0) {
		if (!*p) {
			ps->err = REG_EBRACK;
			return;
		}
		if (*p == ']' && !first)
			break;
		if (p[0] == '[' && p[1] == ':') {
			const char *end = strstr(p + 2, ":]");
			if (!end) {
				ps->err = REG_EBRACK;
				return;
			}
			wctype_t class = classnamed(p + 2, end - p - 2);
			if (!class) {
				ps->err = REG_ECTYPE;
				return;
			}
			for (int c = 1; c < 256; c++)
				if (iswctype(c, class))
					setbit(pc, c, ps->icase);
			p = end + 2;
			continue;
		}
		if (p[0] == '[' && (p[1] == '=' || p[1] == '.')) {
			if ((lo = single_element(ps, &p)) < 0)
				return;
		} else {
			lo = (unsigned char)*p++;
		}
		hi = lo;
		if (p[0] == '-' && p[1] && p[1] != ']') {
			p++;
			if (p[0] == '[' && p[1] == '.') {
				if ((hi = single_element(ps, &p)) < 0)
					return;
			} else {
				hi = (unsigned char)*p++;
			}
			if (hi < lo) {
				ps->err = REG_ERANGE;
				return;
			}
		}
		for (int c = lo; c <= hi; c++)
			setbit(pc, c, ps->icase);
	}
	if (negate)
		for (int i = 0; i < 32; i++)
			pc->set[i] = ~pc->set[i];
	pc->set[0] &= ~1u;                        /* never the string's end */
	ps->p = p + 1;
}

/* {m,n} (ERE) or \{m,n\} (BRE); ps->p just past the '{'. */
static void interval(struct parse *ps, int *min, int *max)
{
	char *end;
	long m, n;

	if (!isdigit((unsigned char)*ps->p)) {
		ps->err = REG_BADBR;
		return;
	}
	m = n = strtol(ps->p, &end, 10);
	if (*end == ',') {
		end++;
		n = isdigit((unsigned char)*end) ? strtol(end, &end, 10) : -1;
	}
	if (ps->ere ? *end != '}' : (end[0] != '\\' || end[1] != '}')) {
		ps->err = strchr(end, '}') ? REG_BADBR : REG_EBRACE;
		return;
	}
	if (m > DUP_MAX || n > DUP_MAX || (n >= 0 && n < m)) {
		ps->err = REG_BADBR;
		return;
	}
	ps->p = end + (ps->ere ? 1 : 2);
	*min = (int)m;
	*max = (int)n;
}

static void parse_group(struct parse *ps, struct group *g);

/* Apply a repetition to the last piece; a piece repeated already becomes a group first. */
static void repeat(struct parse *ps, struct seq *sq, int min, int max)
{
	struct piece *pc = &sq->p[sq->n - 1];

	if (pc->min != 1 || pc->max != 1) {
		struct group *g = zalloc(ps, sizeof *g);
		struct seq *alt = g ? zalloc(ps, sizeof *alt) : NULL;
		if (!alt) {
			free(g);
			return;
		}
		alt->p = zalloc(ps, sizeof *alt->p);
		if (!alt->p) {
			free(alt);
			free(g);
			return;
		}
		alt->p[0] = *pc;
		alt->n = 1;
		g->alts = alt;
		g->nalts = 1;
		memset(pc, 0, sizeof *pc);
		pc->kind = P_GROUP;
		pc->group = g;
	}
	pc->min = min;
	pc->max = max;
}

/* Is ps->p at the end of a sequence: the pattern's end, | or ) in an ERE, \) in a BRE? */
static int at_seq_end(struct parse *ps, const char *p)
{
	if (!*p)
		return 1;
	if (ps->ere)
		return *p == '|' || *p == ')';
	return p[0] == '\\' && p[1] == ')';
}

static void parse_seq(struct parse *ps, struct seq *sq)
{
	while (!ps->err && !at_seq_end(ps, ps->p)) {
		const char *p = ps->p;
		int first = sq->n == 0 || (!ps->ere && sq->n == 1 && sq->p[0].kind == P_BOL);
		int min, max;
		struct piece *pc;

		if (*p == '*' || (ps->ere && (*p == '+' || *p == '?' || *p == '{')) ||
		    (!ps->ere && p[0] == '\\' && p[1] == '{')) {
			if (first && !ps->ere && *p == '*') {
				if ((pc = newpiece(ps, sq, P_CHAR)))
					pc->ch = '*';          /* a BRE's leading * is itself */
				ps->p++;
				continue;
			}
			if (first || sq->p[sq->n - 1].kind == P_BOL || sq->p[sq->n - 1].kind == P_EOL) {
				ps->err = REG_BADRPT;
				return;
			}
			min = *p == '+' ? 1 : 0;
			max = *p == '?' ? 1 : -1;
			ps->p += p[0] == '\\' ? 2 : 1;
			if (*p == '{' || p[0] == '\\')
				interval(ps, &min, &max);
			if (!ps->err)
				repeat(ps, sq, min, max);
			continue;
		}
		if (!(pc = newpiece(ps, sq, P_CHAR)))
			return;
		ps->p++;
		if (*p == '.') {
			pc->kind = P_ANY;
		} else if (*p == '[') {
			ps->p = p;
			bracket(ps, pc);
		} else if (*p == '^' && (ps->ere || sq->n == 1)) {
			pc->kind = P_BOL;
		} else if (*p == '$' && (ps->ere || at_seq_end(ps, p + 1))) {
			pc->kind = P_EOL;
		} else if ((ps->ere && *p == '(') || (!ps->ere && p[0] == '\\' && p[1] == '(')) {
			ps->p = p + (ps->ere ? 1 : 2);
			pc->kind = P_GROUP;
			if (!(pc->group = zalloc(ps, sizeof *pc->group)))
				return;
			pc->group->num = ++ps->ngroups;
			parse_group(ps, pc->group);
			if (ps->err)
				return;
			if (ps->ere ? *ps->p != ')' : (ps->p[0] != '\\' || ps->p[1] != ')')) {
				ps->err = REG_EPAREN;
				return;
			}
			ps->p += ps->ere ? 1 : 2;
			if (pc->group->num < 32)
				ps->closed |= 1u << pc->group->num;
		} else if (*p == '\\') {
			if (!p[1]) {
				ps->err = REG_EESCAPE;
				return;
			}
			ps->p = p + 2;
			if (p[1] >= '1' && p[1] <= '9') {
				pc->kind = P_BACKREF;
				pc->ch = p[1] - '0';
				if (!(ps->closed & (1u << pc->ch)))
					ps->err = REG_ESUBREG;
			} else {
				pc->ch = (unsigned char)p[1];
			}
		} else {
			pc->ch = (unsigned char)*p;
		}
	}
}

/* Alternatives (ERE |) up to the end of the pattern or the group's closing parenthesis. */
static void parse_group(struct parse *ps, struct group *g)
{
	for (;;) {
		struct seq *na = realloc(g->alts, (g->nalts + 1) * sizeof *na);
		if (!na) {
			ps->err = REG_ESPACE;
			return;
		}
		g->alts = na;
		memset(&g->alts[g->nalts], 0, sizeof *na);
		parse_seq(ps, &g->alts[g->nalts++]);
		if (ps->err || !ps->ere || *ps->p != '|')
			return;
		ps->p++;
	}
}

static void freegroup(struct group *g)
{
	for (int a = 0; a < g->nalts; a++) {
		for (int i = 0; i < g->alts[a].n; i++)
			if (g->alts[a].p[i].kind == P_GROUP) {
				freegroup(g->alts[a].p[i].group);
				free(g->alts[a].p[i].group);
			}
		free(g->alts[a].p);
	}
	free(g->alts);
}

int regcomp(regex_t *preg, const char *pattern, int cflags)
{
	struct parse ps = { pattern, (cflags & REG_EXTENDED) != 0, (cflags & REG_ICASE) != 0, 0, 0, 0 };
	struct prog *pr = calloc(1, sizeof *pr);

	if (!pr)
		return REG_ESPACE;
	pr->icase = ps.icase;
	parse_group(&ps, &pr->top);
	if (!ps.err && *ps.p)
		ps.err = REG_EPAREN;                  /* a ) or \) with no group open */
	if (ps.err) {
		freegroup(&pr->top);
		free(pr);
		return ps.err;
	}
	preg->re_nsub = ps.ngroups;
	preg->re_prog = pr;
	preg->re_cflags = cflags;
	return 0;
}

void regfree(regex_t *preg)
{
	struct prog *pr = preg->re_prog;

	if (pr) {
		freegroup(&pr->top);
		free(pr);
		preg->re_prog = NULL;
	}
}

/* ---- matching -------------------------------------------------------------------------------- */

struct mctx {
	const char *start, *end;          /* the string; where the match ended */
	int         icase, notbol, noteol;
	const char *so[MAXGROUP], *eo[MAXGROUP];
};

/* After a group's alternative: go on with the group's piece (piece i of seq) at count. */
struct cont {
	const struct seq  *seq;
	int                i, count;
	const char        *from;          /* where this iteration of the group began */
	const struct cont *next;
};

static int match_piece(struct mctx *m, const struct seq *sq, int i, int count, const char *s,
                       const struct cont *k);

static int match_seq(struct mctx *m, const struct seq *sq, int i, const char *s, const struct cont *k);

/* An iteration of a group ended at s: note its capture, then more iterations or the rest. */
static int group_done(struct mctx *m, const struct cont *k, const char *s)
{
	int num = k->seq->p[k->i].group->num, r;
	const char *oso = NULL, *oeo = NULL;

	if (num && num < MAXGROUP) {
		oso = m->so[num];
		oeo = m->eo[num];
		m->so[num] = k->from;
		m->eo[num] = s;
	}
	if (s == k->from)          /* empty: more iterations would be empty too; count it enough */
		r = match_seq(m, k->seq, k->i + 1, s, k->next);
	else
		r = match_piece(m, k->seq, k->i, k->count, s, k->next);
	if (!r && num && num < MAXGROUP) {
		m->so[num] = oso;
		m->eo[num] = oeo;
	}
	return r;
}

static int match_seq(struct mctx *m, const struct seq *sq, int i, const char *s, const struct cont *k)
{
	if (i < sq->n)
		return match_piece(m, sq, i, 0, s, k);
	if (k)
		return group_done(m, k, s);
	m->end = s;
	return 1;
}

static int same(const struct mctx *m, int a, int b)
{
	return m->icase ? tolower(a) == tolower(b) : a == b;
}

/* Do the len bytes at s repeat those at so (a back-reference)? */
static int repeats(const struct mctx *m, const char *so, const char *s, size_t len)
{
	for (size_t j = 0; j < len; j++)
		if (!s[j] || !same(m, so[j], s[j]))
			return 0;
	return 1;
}

/* Does the one-character piece pc match c (not the string's end)? */
static int single(const struct mctx *m, const struct piece *pc, int c)
{
	switch (pc->kind) {
	case P_ANY:  return 1;
	case P_CHAR: return same(m, pc->ch, c);
	default:     return (pc->set[c >> 3] >> (c & 7)) & 1;
	}
}

/* Piece i of sq at s, having matched `count` times already (a group's iterations), then k. */
static int match_piece(struct mctx *m, const struct seq *sq, int i, int count, const char *s,
                       const struct cont *k)
{
	const struct piece *pc = &sq->p[i];
	int n = 0;

	switch (pc->kind) {
	case P_BOL:
		return s == m->start && !m->notbol && match_seq(m, sq, i + 1, s, k);
	case P_EOL:
		return !*s && !m->noteol && match_seq(m, sq, i + 1, s, k);
	case P_GROUP:
		if (pc->max < 0 || count < pc->max) {
			struct cont c = { sq, i, count + 1, s, k };
			for (int a = 0; a < pc->group->nalts; a++)
				if (match_seq(m, &pc->group->alts[a], 0, s, &c))
					return 1;
		}
		return count >= pc->min && match_seq(m, sq, i + 1, s, k);
	case P_BACKREF: {
		const char *so = pc->ch < MAXGROUP ? m->so[pc->ch] : NULL;
		size_t len = so ? (size_t)(m->eo[pc->ch] - so) : 0;
		if (!so)
			return 0;                          /* its group took no part: nothing to repeat */
		if (len == 0)                          /* empty: any number of times is still empty */
			return match_seq(m, sq, i + 1, s, k);
		while ((pc->max < 0 || n < pc->max) && repeats(m, so, s + n * len, len))
			n++;
		for (; n >= pc->min; n--)
			if (match_seq(m, sq, i + 1, s + n * len, k))
				return 1;
		return 0;
	}
	default:
		while ((pc->max < 0 || n < pc->max) && s[n] && single(m, pc, (unsigned char)s[n]))
			n++;
		for (; n >= pc->min; n--)
			if (match_seq(m, sq, i + 1, s + n, k))
				return 1;
		return 0;
	}
}

int regexec(const regex_t *preg, const char *string, size_t nmatch, regmatch_t pmatch[], int eflags)
{
	const struct prog *pr = preg->re_prog;
	struct mctx m = { string, NULL, pr->icase, (eflags & REG_NOTBOL) != 0, (eflags & REG_NOTEOL) != 0,
	                  { 0 }, { 0 } };
	const char *s = string;

	for (;; s++) {
		memset(m.so, 0, sizeof m.so);
		memset(m.eo, 0, sizeof m.eo);
		for (int a = 0; a < pr->top.nalts; a++)
			if (match_seq(&m, &pr->top.alts[a], 0, s, NULL))
				goto found;
		if (!*s)
			return REG_NOMATCH;
	}
found:
	if (preg->re_cflags & REG_NOSUB)
		return 0;
	for (size_t g = 0; g < nmatch; g++) {
		const char *so = g == 0 ? s : g < MAXGROUP ? m.so[g] : NULL;
		const char *eo = g == 0 ? m.end : g < MAXGROUP ? m.eo[g] : NULL;
		pmatch[g].rm_so = so ? (regoff_t)(so - string) : -1;
		pmatch[g].rm_eo = so ? (regoff_t)(eo - string) : -1;
	}
	return 0;
}

size_t regerror(int errcode, const regex_t *preg, char *buf, size_t size)
{
	static const char *const msgs[] = {
		[REG_NOMATCH] = "regexec() failed to match", [REG_BADPAT] = "invalid regular expression",
		[REG_ECOLLATE] = "invalid collating element", [REG_ECTYPE] = "invalid character class",
		[REG_EESCAPE] = "trailing backslash (\\)", [REG_ESUBREG] = "invalid backreference number",
		[REG_EBRACK] = "brackets ([ ]) not balanced", [REG_EPAREN] = "parentheses not balanced",
		[REG_EBRACE] = "braces not balanced", [REG_BADBR] = "invalid repetition count(s)",
		[REG_ERANGE] = "invalid character range", [REG_ESPACE] = "out of memory",
		[REG_BADRPT] = "repetition-operator operand invalid",
	};
	const char *msg = errcode > 0 && errcode <= REG_BADRPT ? msgs[errcode] : "unknown regexp error";

	if (size > 0)
		strlcpy(buf, msg, size);
	return strlen(msg) + 1;
}
