/*
 * expand.c: word expansion (POSIX 2.6), done when a command runs.
 *
 *   expand_fields(raw, n, out)  a command's words: every step below; one word may give many
 *                               fields ("$@", field splitting, pathname expansion) or none
 *   expand_word(raw)            one string: no field splitting, no pathname expansion
 *                               (assignments, redirection targets, the word of case)
 *   expand_pattern(raw)         one string as a pattern: quoted characters escaped with \,
 *                               so that case "$x" in "*") matches only a star
 *   expand_heredoc(body)        a here-document's body: only $, ` and \ are special
 *
 * The steps (POSIX 2.6): tilde expansion (~ and ~/ at the start of a word: $HOME),
 * parameter expansion ($x ${x} ${x:-w} ${x:=w} ${x:?w} ${x:+w}, the same without the colon,
 * ${#x}, ${x#p} ${x##p} ${x%p} ${x%%p}; special parameters $@ $* $# $? $- $$ $! $0 $1...),
 * command substitution ($(...) and `...`, run in a child whose output replaces it, trailing
 * newlines removed), arithmetic expansion ($((...)), arith.c), field splitting of the results
 * of unquoted expansions at the characters of $IFS (default space, tab, newline), pathname
 * expansion of fields with unquoted * ? [ (glob.c; a pattern that matches nothing stays as it
 * is), and quote removal.
 *
 * A field is built in two forms at once: its value, and its value as a pattern with every
 * quoted character escaped. Only an unquoted * ? or [ makes the field a pattern.
 *
 * Errors (division by zero, ${x:?}, an unset variable with set -u) go through sh_error() and
 * set experr; the expansion stops there, so no later command substitution runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <unistd.h>
#include "sh.h"

int experr;
int substatus;

enum mode {
	M_UNQ,    /* unquoted text */
	M_DQ,     /* inside "...": only $ ` \ are special, no splitting, no patterns */
	M_DOC,    /* a here-document's body or $((...)): as M_DQ, but " is an ordinary character */
};

struct exp {
	struct words *out;    /* the fields; NULL: build a single string in val */
	struct str    val;    /* the current field's value */
	struct str    pat;    /* the same with quoted pattern characters escaped */
	int           have;   /* the current field exists (a quoted "" makes an empty one) */
	int           glob;   /* it has an unquoted * ? or [ */
	int           split;  /* split unquoted expansions at $IFS */
	int           dq_at;      /* in "...": saw "$@" */
	int           dq_other;   /* in "...": saw anything else */
};

static void exp_text(struct exp *e, const char *s, size_t i, size_t end, enum mode mode);

static void addchar(struct exp *e, char c, int quoted)
{
	sputc(&e->val, c);
	if (quoted && strchr("*?[]\\", c))
		sputc(&e->pat, '\\');
	sputc(&e->pat, c);
	if (!quoted && strchr("*?[", c))
		e->glob = 1;
	e->have = 1;
	e->dq_other = 1;
}

static void resetfield(struct exp *e)
{
	free(e->val.s);
	free(e->pat.s);
	memset(&e->val, 0, sizeof e->val);
	memset(&e->pat, 0, sizeof e->pat);
	e->have = e->glob = 0;
}

/* The current field is complete: pathname expansion, then out it goes. */
static void endfield(struct exp *e)
{
	int before;

	if (!e->out) {
		addchar(e, ' ', 1);   /* a single string: fields are joined by spaces */
		return;
	}
	if (!e->have)
		return;
	before = e->out->n;
	if (e->glob && !opt.noglob && haspattern(e->pat.s))
		glob_pathnames(e->pat.s, e->out);
	if (e->out->n == before) {
		addword(e->out, sfinish(&e->val));
	}
	resetfield(e);
}

static const char *ifs(void)
{
	const char *v = getvar("IFS");

	return v ? v : " \t\n";
}

/* The result of an expansion: quoted, or subject to field splitting (POSIX 2.6.5). */
static void addresult(struct exp *e, const char *s, int quoted)
{
	const char *sep = ifs();

	e->dq_other = 1;
	if (quoted || !e->split || !*sep) {
		for (; *s; s++)
			addchar(e, *s, quoted);
		return;
	}
	while (*s) {
		int nonws = 0;
		if (!strchr(sep, *s)) {
			addchar(e, *s++, 0);
			continue;
		}
		/* a delimiter: IFS white space around at most one other IFS character */
		for (; *s && strchr(sep, *s); s++) {
			if (!isspace((unsigned char)*s)) {
				if (nonws)
					break;
				nonws = 1;
			}
		}
		if (nonws)
			e->have = 1;       /* "a,,b" with IFS=, has an empty field in the middle */
		endfield(e);
	}
}

/* ---- command substitution (POSIX 2.6.3) ----------------------------------------------------- */

/* Run text in a child; its standard output, without trailing newlines. */
static char *cmdsubst(const char *text)
{
	struct str out = { NULL, 0, 0 };
	char buf[512];
	int fds[2], n;
	pid_t pid;

	if (pipe(fds) < 0) {
		sh_error("command substitution: cannot make a pipe");
		return xstrdup("");
	}
	if ((pid = fork_job()) == 0) {
		close(fds[0]);
		if (fds[1] != 1) {
			dup2(fds[1], 1);
			close(fds[1]);
		}
		opt.interactive = 0;
		run_string(text);
		sh_exit(laststatus);
	}
	close(fds[1]);
	while (pid > 0 && (n = read(fds[0], buf, sizeof buf)) > 0)
		sputn(&out, buf, n);
	close(fds[0]);
	substatus = pid < 0 ? 2 : wait_job(pid, 1);
	job_end();
	while (out.len > 0 && out.s[out.len - 1] == '\n')
		out.s[--out.len] = 0;
	return sfinish(&out);
}

/* `...`: \$ \` \\ (and \" inside "...") lose their backslash, then it is $(...). */
static size_t exp_backquote(struct exp *e, const char *s, size_t i, enum mode mode)
{
	struct parser p = { .src = s };
	size_t end = skip_backquote(&p, i);
	struct str text = { NULL, 0, 0 };
	char *out;

	for (size_t j = i + 1; j < end - 1; j++) {
		if (s[j] == '\\' && (strchr("$`\\", s[j + 1]) || (mode == M_DQ && s[j + 1] == '"')))
			j++;
		sputc(&text, s[j]);
	}
	out = cmdsubst(text.s ? text.s : "");
	addresult(e, out, mode != M_UNQ);
	free(out);
	free(text.s);
	return end;
}

/* ---- parameter expansion (POSIX 2.6.2) ------------------------------------------------------ */

/* The value of a special parameter (one of @*#?-$!0) or a positional one; NULL if unset. */
static const char *special(const char *name, size_t len, char *tmp, size_t size)
{
	if (isdigit((unsigned char)name[0])) {
		long n = 0;
		for (size_t i = 0; i < len && n <= posparams.n; i++)   /* $10 is ${1}0: only len digits */
			n = n * 10 + name[i] - '0';
		if (len == 1 && n == 0)
			return arg0;
		return n >= 1 && n <= posparams.n ? posparams.v[n - 1] : NULL;
	}
	switch (name[0]) {
	case '?': snprintf(tmp, size, "%d", laststatus); return tmp;
	case '$': snprintf(tmp, size, "%d", rootpid); return tmp;     /* the shell's, also in a subshell */
	case '!': if (!lastbg) return NULL; snprintf(tmp, size, "%d", lastbg); return tmp;
	case '#': snprintf(tmp, size, "%d", posparams.n); return tmp;
	case '-':
		snprintf(tmp, size, "%s%s%s%s%s", opt.errexit ? "e" : "", opt.noglob ? "f" : "",
		         opt.interactive ? "i" : "", opt.nounset ? "u" : "", opt.xtrace ? "x" : "");
		return tmp;
	}
	return NULL;
}

/* "$@" and $*: every positional parameter (POSIX 2.5.2). */
static void exp_params(struct exp *e, char which, enum mode mode)
{
	char sep[2] = { ifs()[0], 0 };      /* "$*" joins with IFS's first character */

	if (mode != M_UNQ && posparams.n == 0) {
		e->dq_at |= which == '@';
		e->dq_other |= which == '*';
		return;
	}
	for (int i = 0; i < posparams.n; i++) {
		if (i > 0) {
			if (mode == M_UNQ || which == '@')
				endfield(e);       /* one field each */
			else
				addresult(e, sep, 1);
		}
		if (mode != M_UNQ)
			e->have = 1;           /* set -- a "" b: "$@" is three fields */
		addresult(e, posparams.v[i], mode != M_UNQ);
	}
}

/* The value of the named parameter (name[0..len)), NULL if unset. */
static const char *paramvalue(const char *name, size_t len, char *tmp, size_t size)
{
	if (isname(name, len))
		return getvarn(name, len);
	return special(name, len, tmp, size);
}

/* The length of a parameter name at s: a variable name, digits, or one special character. */
static size_t namelen(const char *s, int braced)
{
	size_t n = 0;

	if (isalpha((unsigned char)s[0]) || s[0] == '_') {
		while (isalnum((unsigned char)s[n]) || s[n] == '_')
			n++;
		return n;
	}
	if (isdigit((unsigned char)s[0])) {
		if (!braced)
			return 1;      /* $10 is ${1}0 */
		while (isdigit((unsigned char)s[n]))
			n++;
		return n;
	}
	return s[0] && strchr("@*#?-$!", s[0]) ? 1 : 0;
}

/* s[i..end) expanded on its own into one string (a pattern if want_pattern). */
static char *span_string(const char *s, size_t i, size_t end, enum mode mode, int want_pattern)
{
	struct exp sub = { 0 };

	exp_text(&sub, s, i, end, mode);
	free(want_pattern ? sub.val.s : sub.pat.s);
	return sfinish(want_pattern ? &sub.pat : &sub.val);
}

/* ${x#p} ${x##p} ${x%p} ${x%%p}: the value without the shortest/longest matching prefix/suffix. */
static void exp_trim(struct exp *e, const char *val, const char *pat, const char *op, enum mode mode)
{
	size_t len = strlen(val), keep_from = 0, keep_to = len;
	int longest = op[1] == op[0], suffix = op[0] == '%';
	char *t = xstrdup(val);

	for (size_t k = 0; k <= len; k++) {
		size_t n = longest ? len - k : k;          /* how much the pattern would take */
		int ok;
		if (suffix) {
			ok = pmatch(pat, val + len - n);
		} else {
			char c = t[n];
			t[n] = 0;
			ok = pmatch(pat, t);
			t[n] = c;
		}
		if (ok) {
			if (suffix)
				keep_to = len - n;
			else
				keep_from = n;
			break;
		}
	}
	t[keep_to] = 0;
	addresult(e, t + keep_from, mode != M_UNQ);
	free(t);
}

/* ${...}: s[i..end) is what is between the braces. */
static void exp_brace(struct exp *e, const char *s, size_t i, size_t end, enum mode mode)
{
	static const char *const ops[] = { ":-", ":=", ":?", ":+", "##", "%%", "-", "=", "?", "+", "#", "%", NULL };
	const char *name = s + i, *val, *op = NULL;
	char tmp[64], *namez, *w;
	int length = 0, unset, null;
	size_t len;

	if (name[0] == '#' && i + 1 < end && namelen(name + 1, 1) == end - i - 1) {
		length = 1;        /* ${#x}, not ${#} or ${#-w} */
		name++;
	}
	len = namelen(name, 1);
	if (len == 0) {
		sh_error("${%.*s}: bad substitution", (int)(end - i), s + i);
		return;
	}
	i = name - s + len;
	for (int k = 0; i < end && ops[k]; k++)
		if (strncmp(s + i, ops[k], strlen(ops[k])) == 0) {
			op = ops[k];
			break;
		}
	if (i < end && (!op || length)) {
		sh_error("${%.*s}: bad substitution", (int)(end - (name - s) + length), name - length);
		return;
	}
	if (op)
		i += strlen(op);
	namez = xstrndup(name, len);
	if ((name[0] == '@' || name[0] == '*') && !length && !op) {
		exp_params(e, name[0], mode);
		free(namez);
		return;
	}
	val = (name[0] == '@' || name[0] == '*') ? (posparams.n ? "" : NULL) : paramvalue(name, len, tmp, sizeof tmp);
	unset = val == NULL;
	null = unset || !*val;
	if (length) {
		snprintf(tmp, sizeof tmp, "%d", name[0] == '@' || name[0] == '*' ? posparams.n : val ? (int)strlen(val) : 0);
		if (unset && opt.nounset && !(name[0] == '@' || name[0] == '*'))
			sh_error("%s: parameter not set", namez);
		else
			addresult(e, tmp, mode != M_UNQ);
	} else if (!op) {
		if (unset && opt.nounset)
			sh_error("%s: parameter not set", namez);
		else if (val)
			addresult(e, val, mode != M_UNQ);
	} else if (op[0] == '#' || op[0] == '%') {
		/* POSIX 2.6.2: double quotes around the whole expansion do not quote the pattern;
		 * quotes inside the braces do. So the pattern is expanded as unquoted text. */
		w = span_string(s, i, end, M_UNQ, 1);
		if (unset && opt.nounset)
			sh_error("%s: parameter not set", namez);
		else
			exp_trim(e, val ? val : "", w, op, mode);
		free(w);
	} else {
		int use_word = op[0] == ':' ? null : unset;    /* the colon forms also count "" as unset */
		char kind = op[strlen(op) - 1];
		if (kind == '+')
			use_word = !use_word;
		if (!use_word) {
			if (val && kind != '+')
				addresult(e, val, mode != M_UNQ);
		} else if (kind == '-' || kind == '+') {
			exp_text(e, s, i, end, mode);
		} else if (kind == '=') {
			if (!isname(name, len)) {
				sh_error("${%s%s...}: cannot assign to a special or positional parameter", namez, op);
			} else {
				w = span_string(s, i, end, mode == M_UNQ ? M_UNQ : M_DQ, 0);
				setvar(namez, w, 0);
				addresult(e, w, mode != M_UNQ);
				free(w);
			}
		} else {   /* ? */
			w = span_string(s, i, end, M_DQ, 0);
			sh_error("%s: %s", namez, *w ? w : unset ? "parameter not set" : "parameter null or not set");
			free(w);
		}
	}
	free(namez);
}

/* $((...)): s[i..end) is the expression. */
static void exp_arith(struct exp *e, const char *s, size_t i, size_t end, enum mode mode)
{
	char *expr = span_string(s, i, end, M_DOC, 0), num[24];
	intmax_t v;

	if (!experr && arith_eval(expr, &v) < 0)
		sh_abort();      /* arith_eval said what was wrong */
	else if (!experr) {
		snprintf(num, sizeof num, "%jd", v);
		addresult(e, num, mode != M_UNQ);
	}
	free(expr);
}

/* A $ at s[i]: the whole expansion; returns the index after it. */
static size_t exp_dollar(struct exp *e, const char *s, size_t i, enum mode mode)
{
	struct parser p = { .src = s };
	size_t end = skip_dollar(&p, i), n;
	char tmp[64], *text;
	const char *val;

	if (syntax_failed(&p)) {
		sh_error("syntax error in an expansion: %s", p.err ? p.err : p.eofwhat);
		return strlen(s);
	}
	if (s[i + 1] == '{') {
		exp_brace(e, s, i + 2, end - 1, mode);
	} else if (s[i + 1] == '(' && s[i + 2] == '(') {
		exp_arith(e, s, i + 3, end - 2, mode);
	} else if (s[i + 1] == '(') {
		char *cmd = xstrndup(s + i + 2, end - i - 3);
		text = cmdsubst(cmd);
		addresult(e, text, mode != M_UNQ);
		free(text);
		free(cmd);
	} else if ((n = namelen(s + i + 1, 0)) == 0) {
		addchar(e, '$', 1);     /* a lone $ is itself */
	} else {
		end = i + 1 + n;
		if (s[i + 1] == '@' || s[i + 1] == '*') {
			exp_params(e, s[i + 1], mode);
		} else if ((val = paramvalue(s + i + 1, n, tmp, sizeof tmp))) {
			addresult(e, val, mode != M_UNQ);
		} else if (opt.nounset) {
			sh_error("%.*s: parameter not set", (int)n, s + i + 1);
		} else {
			e->dq_other = 1;
		}
	}
	return end;
}

/* ---- the word walker ------------------------------------------------------------------------ */

/* "...": its inside is quoted; "$@" with no parameters makes no field at all (POSIX 2.5.2). */
static size_t exp_dquote(struct exp *e, const char *s, size_t i)
{
	struct parser p = { .src = s };
	size_t end = skip_dquote(&p, i);
	int at = e->dq_at, other = e->dq_other;

	e->dq_at = e->dq_other = 0;
	exp_text(e, s, i + 1, end - 1, M_DQ);
	if (!e->dq_at || e->dq_other || posparams.n > 0)
		e->have = 1;
	e->dq_at = at;
	e->dq_other = other;
	return end;
}

/* A backslash at s[i] (POSIX 2.2.1, 2.2.3); returns the index after what it quotes. */
static size_t exp_backslash(struct exp *e, const char *s, size_t i, size_t end, enum mode mode)
{
	char c = i + 1 < end ? s[i + 1] : 0;

	if (c == '\n')
		return i + 2;              /* line continuation */
	if (mode == M_UNQ && c) {
		addchar(e, c, 1);
		return i + 2;
	}
	if (c && (strchr("$`\\", c) || (mode == M_DQ && c == '"'))) {
		addchar(e, c, 1);
		return i + 2;
	}
	addchar(e, '\\', 1);
	return i + 1;
}

static void exp_text(struct exp *e, const char *s, size_t i, size_t end, enum mode mode)
{
	const char *home;

	if (mode == M_UNQ && s[i] == '~' && (i + 1 == end || s[i + 1] == '/') && (home = getvar("HOME"))) {
		addresult(e, home, 1);    /* tilde expansion (POSIX 2.6.1), for ~ and ~/ only */
		i++;
	}
	while (i < end && !experr) {
		char c = s[i];
		if (c == '\'' && mode == M_UNQ) {
			const char *q = strchr(s + i + 1, '\'');
			size_t close = q ? (size_t)(q - s) : end;
			e->have = 1;
			for (i++; i < close; i++)
				addchar(e, s[i], 1);
			i = close + 1;
		} else if (c == '"' && mode == M_UNQ) {
			i = exp_dquote(e, s, i);
		} else if (c == '"' && mode == M_DQ) {
			i++;                   /* a quote inside "${x:-"w"}": removed */
		} else if (c == '\\') {
			i = exp_backslash(e, s, i, end, mode);
		} else if (c == '$') {
			i = exp_dollar(e, s, i, mode);
		} else if (c == '`') {
			i = exp_backquote(e, s, i, mode);
		} else {
			addchar(e, c, mode != M_UNQ);
			i++;
		}
	}
}

/* ---- entry points ---------------------------------------------------------------------------- */

void expand_fields(char **raw, int n, struct words *out)
{
	for (int k = 0; k < n && !experr; k++) {
		struct exp e = { .out = out, .split = 1 };
		exp_text(&e, raw[k], 0, strlen(raw[k]), M_UNQ);
		endfield(&e);
		resetfield(&e);
	}
}

static char *expand_string(const char *raw, enum mode mode, int want_pattern)
{
	return span_string(raw, 0, strlen(raw), mode, want_pattern);
}

char *expand_word(const char *raw)
{
	return expand_string(raw, M_UNQ, 0);
}

char *expand_pattern(const char *raw)
{
	return expand_string(raw, M_UNQ, 1);
}

char *expand_heredoc(const char *body)
{
	return expand_string(body, M_DOC, 0);
}
