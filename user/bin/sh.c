/*
 * sh: the wdrain shell, a small Bourne shell.
 *
 *   sh                 interactive on a tty (prompt "# "), else commands from stdin
 *   sh file [arg ...]  run a script ($0 = file, $1... = args); also how #! scripts run
 *   sh -c 'cmds' [arg0 [arg ...]]
 *
 * Language: simple commands with NAME=value prefixes; pipelines a | b; lists with ; & && ||
 * and newlines; ( list ) subshells; for NAME [in words]; do list; done; if/elif/else/fi;
 * while list; do list; done; redirections < > >> n< n> n>> n>&m n>&- (2> etc.); quoting
 * '...', "..." and \; expansions $NAME ${NAME} $? $$ $! $# $0-$9 $@ $*; # comments.
 * Unquoted expansions are split into fields at blanks. No globbing, no command substitution.
 * Builtins: cd, pwd, exit, export, unset, shift, wait, exec, ".", ":", test and [ (test.c).
 *
 * Structure: read input (read_line) -> parse one complete command at a time into a tree
 * (lexer: next_token; parser: parse_*) -> run it (run_node) -> free it. Interactive input that
 * ends inside a construct (an open quote, "for ... do" without "done", a trailing |) is
 * completed with more lines under the prompt "> ".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <err.h>
#include "test.h"

/* ---- variables ---------------------------------------------------------------------------- */

struct var {
	char       *name, *value;
	int         exported;
	struct var *next;
};

static struct var *vars;
static int   laststatus;        /* $? */
static pid_t lastbg;            /* $! */
static char *arg0 = "sh";       /* $0 */
static char **posv;             /* $1..: positional parameters */
static int   posc;
static int   interactive;

static struct var *findvar(const char *name, size_t len)
{
	for (struct var *v = vars; v; v = v->next)
		if (strlen(v->name) == len && strncmp(v->name, name, len) == 0)
			return v;
	return NULL;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		errx(2, "out of memory");
	return p;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		errx(2, "out of memory");
	return p;
}

static void setvar(const char *name, const char *value, int export)
{
	struct var *v = findvar(name, strlen(name));

	if (!v) {
		v = xmalloc(sizeof *v);
		v->name = xstrdup(name);
		v->value = NULL;
		v->exported = 0;
		v->next = vars;
		vars = v;
	}
	if (value) {
		free(v->value);
		v->value = xstrdup(value);
	}
	if (export)
		v->exported = 1;
}

static void unsetvar(const char *name)
{
	for (struct var **pp = &vars; *pp; pp = &(*pp)->next) {
		if (strcmp((*pp)->name, name) == 0) {
			struct var *v = *pp;
			*pp = v->next;
			free(v->name);
			free(v->value);
			free(v);
			return;
		}
	}
}

static int isname(const char *s, size_t len)
{
	if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

/* The environment for exec: exported variables, then `extra` ("NAME=value") overriding. */
static char **makeenv(char **extra, int nextra)
{
	int n = nextra;
	char **env;

	for (struct var *v = vars; v; v = v->next)
		n += v->exported && v->value;
	env = xmalloc((n + 1) * sizeof *env);
	n = 0;
	for (int i = 0; i < nextra; i++)
		env[n++] = extra[i];
	for (struct var *v = vars; v; v = v->next) {
		int overridden = 0;
		if (!v->exported || !v->value)
			continue;
		for (int i = 0; i < nextra; i++)
			if (strncmp(extra[i], v->name, strlen(v->name)) == 0 && extra[i][strlen(v->name)] == '=')
				overridden = 1;
		if (!overridden) {
			env[n] = xmalloc(strlen(v->name) + strlen(v->value) + 2);
			sprintf(env[n++], "%s=%s", v->name, v->value);
		}
	}
	env[n] = NULL;
	return env;
}

/* ---- growable strings and word lists ------------------------------------------------------ */

struct str {
	char  *s;
	size_t len, cap;
};

static void sputc(struct str *b, char c)
{
	if (b->len + 2 > b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		if (!(b->s = realloc(b->s, b->cap)))
			errx(2, "out of memory");
	}
	b->s[b->len++] = c;
	b->s[b->len] = 0;
}

static void sputs(struct str *b, const char *s)
{
	while (*s)
		sputc(b, *s++);
}

struct words {
	char **v;
	int    n;
};

static void addword(struct words *w, char *s)
{
	if (!(w->v = realloc(w->v, (w->n + 2) * sizeof *w->v)))
		errx(2, "out of memory");
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
}

static void freewords(struct words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->n = 0;
}

/* ---- lexer -------------------------------------------------------------------------------- */

enum tok { T_WORD, T_PIPE, T_OR, T_AND, T_AMP, T_SEMI, T_NL, T_LPAREN, T_RPAREN, T_REDIR, T_EOF };
enum rkind { R_IN, R_OUT, R_APPEND, R_DUP };

struct token {
	enum tok   type;
	char      *text;     /* T_WORD: the raw word, quotes included (expanded when run) */
	int        rfd;      /* T_REDIR: the descriptor redirected */
	enum rkind rkind;
};

static const char *src;       /* the text being parsed */
static size_t      srcpos;
static struct token tok;      /* the current (peeked) token */
static int         havetok;
static int         incomplete;   /* the text ended inside a construct */
static const char *synerr;       /* syntax error message, or NULL */

static int ismeta(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
	       c == '<' || c == '>' || c == '(' || c == ')' || c == 0;
}

/* Scan a word's raw text, keeping quotes for the expander. */
static char *scanword(void)
{
	size_t start = srcpos;
	const char *s = src;

	while (!ismeta(s[srcpos])) {
		char c = s[srcpos++];
		if (c == '\\') {
			if (!s[srcpos]) {
				incomplete = 1;
				return NULL;
			}
			srcpos++;
		} else if (c == '\'') {
			while (s[srcpos] && s[srcpos] != '\'')
				srcpos++;
			if (!s[srcpos]) {
				incomplete = 1;
				return NULL;
			}
			srcpos++;
		} else if (c == '"') {
			while (s[srcpos] && s[srcpos] != '"')
				srcpos += s[srcpos] == '\\' && s[srcpos + 1] ? 2 : 1;
			if (!s[srcpos]) {
				incomplete = 1;
				return NULL;
			}
			srcpos++;
		} else if (c == '$' && s[srcpos] == '{') {
			while (s[srcpos] && s[srcpos] != '}')
				srcpos++;
			if (!s[srcpos]) {
				synerr = "missing '}'";
				return NULL;
			}
			srcpos++;
		}
	}
	return strndup(s + start, srcpos - start);
}

/* A redirection operator at srcpos (after an optional descriptor number). */
static int scanredir(int fd)
{
	const char *s = src + srcpos;

	tok.type = T_REDIR;
	if (s[0] == '<') {
		tok.rfd = fd < 0 ? 0 : fd;
		tok.rkind = s[1] == '&' ? R_DUP : R_IN;
		srcpos += s[1] == '&' ? 2 : 1;
	} else if (s[1] == '>') {
		tok.rfd = fd < 0 ? 1 : fd;
		tok.rkind = R_APPEND;
		srcpos += 2;
	} else {
		tok.rfd = fd < 0 ? 1 : fd;
		tok.rkind = s[1] == '&' ? R_DUP : R_OUT;
		srcpos += s[1] == '&' ? 2 : 1;
	}
	return 0;
}

static void next_token(void)
{
	const char *s = src;
	size_t p;

	while (s[srcpos] == ' ' || s[srcpos] == '\t' || (s[srcpos] == '\\' && s[srcpos + 1] == '\n'))
		srcpos += s[srcpos] == '\\' ? 2 : 1;
	if (s[srcpos] == '#')
		while (s[srcpos] && s[srcpos] != '\n')
			srcpos++;
	tok.text = NULL;
	switch (s[srcpos]) {
	case 0:    tok.type = T_EOF; return;
	case '\n': tok.type = T_NL; srcpos++; return;
	case ';':  tok.type = T_SEMI; srcpos++; return;
	case '(':  tok.type = T_LPAREN; srcpos++; return;
	case ')':  tok.type = T_RPAREN; srcpos++; return;
	case '|':  tok.type = s[srcpos + 1] == '|' ? T_OR : T_PIPE; srcpos += tok.type == T_OR ? 2 : 1; return;
	case '&':  tok.type = s[srcpos + 1] == '&' ? T_AND : T_AMP; srcpos += tok.type == T_AND ? 2 : 1; return;
	case '<':
	case '>':  scanredir(-1); return;
	}
	for (p = srcpos; isdigit((unsigned char)s[p]); p++)
		;
	if (p > srcpos && p - srcpos < 3 && (s[p] == '<' || s[p] == '>')) {
		int fd = atoi(s + srcpos);
		srcpos = p;
		scanredir(fd);
		return;
	}
	tok.type = T_WORD;
	if (!(tok.text = scanword()))
		tok.type = T_EOF;   /* incomplete or synerr is set */
}

static struct token *peek(void)
{
	if (!havetok) {
		next_token();
		havetok = 1;
	}
	return &tok;
}

/* Take the peeked token; the caller owns tok.text. */
static struct token *take(void)
{
	peek();
	havetok = 0;
	return &tok;
}

static int iskw(const char *kw)
{
	struct token *t = peek();

	return t->type == T_WORD && strcmp(t->text, kw) == 0;
}

static int isstopword(void)
{
	static const char *const stops[] = { "do", "done", "then", "else", "elif", "fi", NULL };

	for (int i = 0; stops[i]; i++)
		if (iskw(stops[i]))
			return 1;
	return 0;
}

static void skipnl(void)
{
	while (peek()->type == T_NL)
		take();
}

/* ---- parser ------------------------------------------------------------------------------- */

enum ntype { N_CMD, N_PIPE, N_AND, N_OR, N_SEQ, N_BG, N_SUB, N_FOR, N_IF, N_WHILE };

struct redir {
	int           fd;
	enum rkind    kind;
	char         *word;
	struct redir *next;
};

struct node {
	enum ntype    type;
	struct node  *l, *r, *x;   /* operands; N_IF: cond, then, else; N_WHILE/N_FOR: r = body */
	struct words  w;           /* N_CMD: raw words; N_FOR: the list (after "in") */
	char         *var;         /* N_FOR */
	int           forall;      /* N_FOR without "in": iterate over "$@" */
	struct redir *redir;       /* N_CMD, N_SUB, N_FOR, N_IF, N_WHILE */
};

static struct node *parse_list(int toplevel);

static struct node *newnode(enum ntype type, struct node *l, struct node *r)
{
	struct node *n = xmalloc(sizeof *n);

	memset(n, 0, sizeof *n);
	n->type = type;
	n->l = l;
	n->r = r;
	return n;
}

static void freenode(struct node *n)
{
	if (!n)
		return;
	freenode(n->l);
	freenode(n->r);
	freenode(n->x);
	freewords(&n->w);
	free(n->var);
	for (struct redir *r = n->redir, *next; r; r = next) {
		next = r->next;
		free(r->word);
		free(r);
	}
	free(n);
}

/* Record a syntax error at the current token (only the first one counts). */
static struct node *fail(const char *msg)
{
	if (!synerr && !incomplete)
		synerr = msg;
	return NULL;
}

static int failed(void) { return synerr || incomplete; }

/* A syntax error naming the current token, as FreeBSD's sh does: "done" unexpected. */
static struct node *fail_unexpected(void)
{
	static const char *const names[] = {
		[T_PIPE] = "|", [T_OR] = "||", [T_AND] = "&&", [T_AMP] = "&", [T_SEMI] = ";",
		[T_NL] = "newline", [T_LPAREN] = "(", [T_RPAREN] = ")", [T_REDIR] = "redirection",
		[T_EOF] = "end of file",
	};
	static char msg[80];
	struct token *t = peek();

	snprintf(msg, sizeof msg, "\"%.40s\" unexpected", t->type == T_WORD ? t->text : names[t->type]);
	return fail(msg);
}

/* Need the keyword kw next; else an error (or incomplete if the text ended). */
static int expectkw(const char *kw)
{
	static char msg[64];

	skipnl();
	if (iskw(kw)) {
		free(take()->text);
		return 0;
	}
	if (peek()->type == T_EOF)
		incomplete = incomplete || !synerr;
	snprintf(msg, sizeof msg, "expected \"%s\"", kw);
	fail(msg);
	return -1;
}

static int parse_redir(struct node *n)
{
	struct redir *r = xmalloc(sizeof *r), **pp;
	struct token t = *take();

	if (peek()->type != T_WORD) {
		free(r);
		if (peek()->type == T_EOF && !synerr)
			fail("redirection without a file name");
		return -1;
	}
	r->fd = t.rfd;
	r->kind = t.rkind;
	r->word = take()->text;
	r->next = NULL;
	for (pp = &n->redir; *pp; pp = &(*pp)->next)
		;
	*pp = r;
	return 0;
}

static struct node *parse_simple(void)
{
	struct node *n = newnode(N_CMD, NULL, NULL);

	for (;;) {
		struct token *t = peek();
		if (t->type == T_WORD)
			addword(&n->w, take()->text);
		else if (t->type == T_REDIR) {
			if (parse_redir(n) < 0)
				break;
		} else
			break;
	}
	if (failed() || (n->w.n == 0 && !n->redir)) {
		freenode(n);
		return fail_unexpected();
	}
	return n;
}

/* for NAME [in word ...] ; do list done */
static struct node *parse_for(void)
{
	struct node *n = newnode(N_FOR, NULL, NULL);

	free(take()->text);   /* "for" */
	if (peek()->type != T_WORD || !isname(peek()->text, strlen(peek()->text))) {
		freenode(n);
		if (peek()->type == T_EOF)
			incomplete = incomplete || !synerr;
		return fail("bad for loop variable");
	}
	n->var = take()->text;
	skipnl();
	if (iskw("in")) {
		free(take()->text);
		while (peek()->type == T_WORD)
			addword(&n->w, take()->text);
	} else {
		n->forall = 1;
	}
	if (peek()->type == T_SEMI || peek()->type == T_NL)
		take();
	if (expectkw("do") < 0 || !(n->r = parse_list(0)) || expectkw("done") < 0) {
		freenode(n);
		return fail("bad for loop");
	}
	return n;
}

/* if list then list [elif list then list]... [else list] fi */
static struct node *parse_if(void)
{
	struct node *n = newnode(N_IF, NULL, NULL);

	free(take()->text);   /* "if" or "elif" */
	if (!(n->l = parse_list(0)) || expectkw("then") < 0 || !(n->r = parse_list(0)))
		goto bad;
	skipnl();
	if (iskw("elif")) {
		if (!(n->x = parse_if()))
			goto bad;
		return n;   /* the inner if consumed the "fi" */
	}
	if (iskw("else")) {
		free(take()->text);
		if (!(n->x = parse_list(0)))
			goto bad;
	}
	if (expectkw("fi") < 0)
		goto bad;
	return n;
bad:
	freenode(n);
	return fail("bad if");
}

static struct node *parse_while(void)
{
	struct node *n = newnode(N_WHILE, NULL, NULL);

	free(take()->text);
	if (!(n->l = parse_list(0)) || expectkw("do") < 0 || !(n->r = parse_list(0)) ||
	    expectkw("done") < 0) {
		freenode(n);
		return fail("bad while loop");
	}
	return n;
}

/* Redirections after a compound command: `for ...; done > file`, `( ... ) 2>&1`. */
static struct node *parse_trailing_redirs(struct node *n)
{
	while (n && peek()->type == T_REDIR)
		if (parse_redir(n) < 0) {
			freenode(n);
			return fail("bad redirection");
		}
	return n;
}

static struct node *parse_command(void)
{
	struct node *n;

	if (iskw("for"))
		return parse_trailing_redirs(parse_for());
	if (iskw("if"))
		return parse_trailing_redirs(parse_if());
	if (iskw("while"))
		return parse_trailing_redirs(parse_while());
	if (peek()->type == T_LPAREN) {
		take();
		n = newnode(N_SUB, parse_list(0), NULL);
		if (!n->l || peek()->type != T_RPAREN) {
			if (peek()->type == T_EOF)
				incomplete = incomplete || !synerr;
			freenode(n);
			return fail("missing ')'");
		}
		take();
		return parse_trailing_redirs(n);
	}
	if (isstopword())
		return fail_unexpected();
	return parse_simple();
}

/* After | && ||: a newline may follow; the text ending here means "more to come". */
static struct node *parse_operand(struct node *left, struct node *(*parse)(void))
{
	struct node *r;

	skipnl();
	if (peek()->type == T_EOF && !synerr) {
		incomplete = 1;
		freenode(left);
		return NULL;
	}
	if (!(r = parse())) {
		freenode(left);
		return NULL;
	}
	return r;
}

static struct node *parse_pipeline(void)
{
	struct node *n = parse_command(), *r;

	while (n && peek()->type == T_PIPE) {
		take();
		if (!(r = parse_operand(n, parse_command)))
			return NULL;
		n = newnode(N_PIPE, n, r);
	}
	return n;
}

static struct node *parse_andor(void)
{
	struct node *n = parse_pipeline(), *r;

	while (n && (peek()->type == T_AND || peek()->type == T_OR)) {
		enum ntype type = take()->type == T_AND ? N_AND : N_OR;
		if (!(r = parse_operand(n, parse_pipeline)))
			return NULL;
		n = newnode(type, n, r);
	}
	return n;
}

/*
 * A list of and-or lists separated by ; & or newlines. At top level a newline ends it (one
 * command line at a time); inside a compound command it runs to a closing keyword or ')'.
 */
static struct node *parse_list(int toplevel)
{
	struct node *list = NULL, *n;

	for (;;) {
		if (!toplevel)
			skipnl();
		if (peek()->type == T_EOF || peek()->type == T_RPAREN || isstopword())
			break;
		if (toplevel && peek()->type == T_NL)
			break;
		if (!(n = parse_andor())) {
			freenode(list);
			return NULL;
		}
		if (peek()->type == T_AMP) {
			take();
			n = newnode(N_BG, n, NULL);
		} else if (peek()->type == T_SEMI) {
			take();
		} else if (peek()->type != T_NL && peek()->type != T_EOF && peek()->type != T_RPAREN &&
		           !isstopword()) {
			freenode(n);
			freenode(list);
			return fail_unexpected();
		}
		list = list ? newnode(N_SEQ, list, n) : n;
	}
	if (!list && !toplevel) {
		if (peek()->type == T_EOF)
			incomplete = incomplete || !synerr;
		return fail_unexpected();   /* "if then": the keyword is unexpected */
	}
	return list;
}

/* ---- expansion ---------------------------------------------------------------------------- */

struct fieldbuf {
	struct words *out;
	struct str    cur;
	int           have;    /* the current field exists (even if empty: "" makes a field) */
};

static void endfield(struct fieldbuf *f)
{
	if (f->have)
		addword(f->out, f->cur.s ? f->cur.s : xstrdup(""));
	else
		free(f->cur.s);
	f->cur.s = NULL;
	f->cur.len = f->cur.cap = 0;
	f->have = 0;
}

/* Append expanded text; unquoted text is split into fields at blanks. */
static void addtext(struct fieldbuf *f, const char *s, int quoted)
{
	for (; *s; s++) {
		if (!quoted && (*s == ' ' || *s == '\t' || *s == '\n')) {
			endfield(f);
			continue;
		}
		sputc(&f->cur, *s);
		f->have = 1;
	}
}

/* The value of $name for a one-character special or positional parameter (NULL if unset). */
static const char *special(char c, char *tmp, size_t size)
{
	switch (c) {
	case '?': snprintf(tmp, size, "%d", laststatus); return tmp;
	case '$': snprintf(tmp, size, "%d", getpid()); return tmp;
	case '!': snprintf(tmp, size, "%d", lastbg); return tmp;
	case '#': snprintf(tmp, size, "%d", posc); return tmp;
	case '0': return arg0;
	}
	if (c >= '1' && c <= '9')
		return c - '0' <= posc ? posv[c - '1'] : NULL;
	return NULL;
}

/* Expand the parameter at *pp (just after '$'); advances *pp. */
static void expandvar(struct fieldbuf *f, const char **pp, int quoted)
{
	static const char specials[] = "?$!#0123456789";
	const char *p = *pp, *name, *val;
	char tmp[24];
	size_t len;
	struct var *v;

	if (*p == '@' || *p == '*') {
		for (int i = 0; i < posc; i++) {
			if (i > 0 && quoted && *p == '@')
				endfield(f);   /* "$@": one field per parameter */
			else if (i > 0)
				addtext(f, " ", quoted);
			f->have |= quoted;
			addtext(f, posv[i], quoted);
		}
		*pp = p + 1;
		return;
	}
	if (*p == '{') {
		name = p + 1;
		len = strcspn(name, "}");
		*pp = name + len + (name[len] == '}');
	} else if (*p && strchr(specials, *p)) {
		name = p;
		len = 1;
		*pp = p + 1;
	} else {
		name = p;
		for (len = 0; isalnum((unsigned char)name[len]) || name[len] == '_'; len++)
			;
		if (len == 0) {
			addtext(f, "$", 1);   /* a lone $ is literal */
			return;
		}
		*pp = name + len;
	}
	if (len == 1 && strchr(specials, *name)) {
		if ((val = special(*name, tmp, sizeof tmp)))
			addtext(f, val, quoted);
	} else if ((v = findvar(name, len)) && v->value) {
		addtext(f, v->value, quoted);
	}
}

/* Expand one raw word into fields appended to out. */
static void expand(const char *raw, struct words *out)
{
	struct fieldbuf f = { out, { NULL, 0, 0 }, 0 };
	const char *p = raw;

	while (*p) {
		char c = *p++;
		if (c == '\'') {
			f.have = 1;
			while (*p && *p != '\'') {
				sputc(&f.cur, *p++);
			}
			p += *p == '\'';
		} else if (c == '"') {
			if (strncmp(p, "$@\"", 3) == 0 && posc == 0) {
				p += 3;   /* "$@" with no parameters is no field at all */
				continue;
			}
			f.have = 1;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1])) {
					if (p[1] != '\n')
						sputc(&f.cur, p[1]);
					p += 2;
				} else if (*p == '$') {
					p++;
					expandvar(&f, &p, 1);
				} else {
					sputc(&f.cur, *p++);
				}
			}
			p += *p == '"';
		} else if (c == '\\') {
			if (*p && *p != '\n') {
				sputc(&f.cur, *p);
				f.have = 1;
			}
			p += *p != 0;
		} else if (c == '$') {
			expandvar(&f, &p, 0);
		} else {
			sputc(&f.cur, c);
			f.have = 1;
		}
	}
	endfield(&f);
}

static void expandall(char **raw, int n, struct words *out)
{
	for (int i = 0; i < n; i++)
		expand(raw[i], out);
}

/* A redirection target: all its fields joined (no splitting surprises in file names). */
static char *expandone(const char *raw)
{
	struct words w = { NULL, 0 };
	struct str s = { NULL, 0, 0 };

	expand(raw, &w);
	for (int i = 0; i < w.n; i++) {
		if (i)
			sputc(&s, ' ');
		sputs(&s, w.v[i]);
	}
	freewords(&w);
	return s.s ? s.s : xstrdup("");
}

/* ---- running ------------------------------------------------------------------------------ */

static int run_node(struct node *n);

/* Wait status to $? (128 + signal for a killed process), reporting crashes. */
static int exitcode(int status, int report)
{
	int sig;

	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	sig = WTERMSIG(status);
	if (report && sig != SIGINT && sig != SIGPIPE) {      /* "Bus error", as FreeBSD's sh says it */
		if (sig < NSIG && sys_siglist[sig])
			fprintf(stderr, "%s\n", sys_siglist[sig]);
		else
			fprintf(stderr, "Signal %d\n", sig);
	}
	return 128 + sig;
}

static pid_t xfork(void)
{
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) < 0)
		warn("fork");
	return pid;
}

static int waitfor(pid_t pid, int report)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			warn("wait");
			return 127;
		}
	return exitcode(status, report);
}

/*
 * Apply redirections in this process. If save is given, the original descriptors are kept
 * there (above 9) so restore_redirs can put them back (for builtins). -1 on failure.
 */
struct saved { int fd, copy; };
#define NSAVE 16        /* redirections one builtin or compound command may have */

static int apply_redirs(struct redir *r, struct saved *save, int *nsave)
{
	for (; r; r = r->next) {
		char *name;
		int fd = -1;

		if (save) {
			if (*nsave == NSAVE) {
				warnx("more than %d redirections", NSAVE);
				return -1;
			}
			/* the copy must not leak into the commands run meanwhile */
			save[*nsave].fd = r->fd;
			save[*nsave].copy = fcntl(r->fd, F_DUPFD, 10);
			if (save[*nsave].copy >= 0)
				fcntl(save[*nsave].copy, F_SETFD, FD_CLOEXEC);
			(*nsave)++;
		}
		name = expandone(r->word);
		switch (r->kind) {
		case R_IN:     fd = open(name, O_RDONLY); break;
		case R_OUT:    fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0666); break;
		case R_APPEND: fd = open(name, O_WRONLY | O_CREAT | O_APPEND, 0666); break;
		case R_DUP:
			if (strcmp(name, "-") == 0) {
				close(r->fd);
				free(name);
				continue;
			}
			if (!isdigit((unsigned char)name[0])) {
				warnx("%s: bad file descriptor in redirection", name);
				free(name);
				return -1;
			}
			if (dup2(atoi(name), r->fd) < 0) {
				warn("%s", name);
				free(name);
				return -1;
			}
			free(name);
			continue;
		}
		if (fd < 0) {
			warn("%s", name);
			free(name);
			return -1;
		}
		free(name);
		if (fd != r->fd) {
			dup2(fd, r->fd);
			close(fd);
		}
	}
	return 0;
}

static void restore_redirs(struct saved *save, int nsave)
{
	fflush(NULL);
	while (nsave-- > 0) {
		if (save[nsave].copy >= 0) {
			dup2(save[nsave].copy, save[nsave].fd);
			close(save[nsave].copy);
		} else {
			close(save[nsave].fd);
		}
	}
}

/* execve, falling back for scripts: "#!interp [arg]" lines, else /bin/sh runs the file. */
static void try_exec(const char *path, char **argv, char **env)
{
	char line[128], *interp, *iarg, **nargv;
	int fd, n, argc;

	execve(path, argv, env);
	if (errno != ENOEXEC)
		return;
	interp = "/bin/sh";
	iarg = NULL;
	if ((fd = open(path, O_RDONLY)) >= 0) {
		n = read(fd, line, sizeof line - 1);
		close(fd);
		if (n > 2 && line[0] == '#' && line[1] == '!') {
			line[n] = 0;
			line[strcspn(line, "\n")] = 0;
			interp = line + 2 + strspn(line + 2, " \t");
			iarg = interp + strcspn(interp, " \t");
			if (*iarg) {
				*iarg++ = 0;
				iarg += strspn(iarg, " \t");
				iarg[strcspn(iarg, " \t")] = 0;
			}
			if (!*iarg)
				iarg = NULL;
		}
	}
	for (argc = 0; argv[argc]; argc++)
		;
	nargv = xmalloc((argc + 3) * sizeof *nargv);
	n = 0;
	nargv[n++] = interp;
	if (iarg)
		nargv[n++] = iarg;
	nargv[n++] = (char *)path;
	for (int i = 1; i <= argc; i++)
		nargv[n++] = argv[i];
	execve(interp, nargv, env);
	errno = errno == ENOENT ? ENOEXEC : errno;
}

/* In a child: find argv[0] and exec it; on failure report and exit 127/126. */
static void exec_command(char **argv, char **env)
{
	const char *path;
	char full[PATH_MAX];
	struct var *v;
	int err = ENOENT;

	if (strchr(argv[0], '/')) {
		try_exec(argv[0], argv, env);
		err = errno;
	} else {
		path = (v = findvar("PATH", 4)) && v->value ? v->value : "/bin:/sbin";
		while (*path) {
			size_t len = strcspn(path, ":");
			if (snprintf(full, sizeof full, "%.*s%s%s", (int)len, path, len ? "/" : "",
			             argv[0]) < (int)sizeof full) {
				try_exec(full, argv, env);
				if (errno != ENOENT)
					err = errno;
			}
			path += len + (path[len] == ':');
		}
	}
	if (err == ENOENT)
		fprintf(stderr, "sh: %s: not found\n", argv[0]);
	else
		fprintf(stderr, "sh: %s: %s\n", argv[0], strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

static int run_source(const char *text, int eof, size_t *used);

/* Builtins. Each returns its exit status; `exit` and `exec` may not return. */
static int bi_cd(int argc, char **argv)
{
	struct var *home = findvar("HOME", 4);
	const char *dir = argc > 1 ? argv[1] : home && home->value ? home->value : "/";
	char cwd[PATH_MAX];

	if (chdir(dir) < 0) {
		warn("cd: %s", dir);
		return 1;
	}
	if (getcwd(cwd, sizeof cwd))
		setvar("PWD", cwd, 0);
	return 0;
}

static int bi_pwd(int argc, char **argv)
{
	char cwd[PATH_MAX];

	if (!getcwd(cwd, sizeof cwd)) {
		warn("pwd");
		return 1;
	}
	printf("%s\n", cwd);
	return 0;
}

static int bi_exit(int argc, char **argv)
{
	fflush(NULL);
	exit(argc > 1 ? atoi(argv[1]) & 0xff : laststatus);
}

static int bi_export(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (eq)
			*eq = 0;
		if (!isname(argv[i], strlen(argv[i]))) {
			warnx("export: %s: bad variable name", argv[i]);
			return 1;
		}
		setvar(argv[i], eq ? eq + 1 : NULL, 1);
	}
	if (argc == 1)
		for (struct var *v = vars; v; v = v->next)
			if (v->exported && v->value)
				printf("export %s=%s\n", v->name, v->value);
	return 0;
}

static int bi_unset(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		unsetvar(argv[i]);
	return 0;
}

static int bi_shift(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	if (n < 0 || n > posc) {
		warnx("shift: can't shift that many");
		return 1;
	}
	posv += n;
	posc -= n;
	return 0;
}

/* wait [pid ...]: with no operand wait for every child, else for each given one. */
static int bi_wait(int argc, char **argv)
{
	int status, st = 0;

	if (argc == 1) {
		while (wait(&status) > 0)
			;
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		pid_t pid = atoi(argv[i]);
		if (waitpid(pid, &status, 0) < 0)
			st = 127;
		else
			st = exitcode(status, 0);
	}
	return st;
}

static int bi_colon(int argc, char **argv) { return 0; }

/* . file: run a file's commands in this shell. */
static int bi_dot(int argc, char **argv)
{
	struct str text = { NULL, 0, 0 };
	char buf[4096];
	size_t used;
	int fd, n;

	if (argc < 2) {
		warnx(".: usage: . file");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0) {
		warn("%s", argv[1]);
		return 1;
	}
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (int i = 0; i < n; i++)
			sputc(&text, buf[i]);
	close(fd);
	run_source(text.s ? text.s : "", 1, &used);
	free(text.s);
	return laststatus;
}

static const struct builtin {
	const char *name;
	int (*fn)(int argc, char **argv);
} builtins[] = {
	{ "cd", bi_cd }, { "pwd", bi_pwd }, { "exit", bi_exit }, { "export", bi_export },
	{ "unset", bi_unset }, { "shift", bi_shift }, { "wait", bi_wait }, { ":", bi_colon },
	{ ".", bi_dot }, { "test", test_main }, { "[", test_main }, { NULL, NULL },
};

static const struct builtin *findbuiltin(const char *name)
{
	for (const struct builtin *b = builtins; b->name; b++)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}

/* Leading NAME=value words of a simple command. */
static int nassign(struct node *n)
{
	int i = 0;

	while (i < n->w.n) {
		const char *eq = strchr(n->w.v[i], '=');
		if (!eq || !isname(n->w.v[i], eq - n->w.v[i]))
			break;
		i++;
	}
	return i;
}

/*
 * A simple command. inchild: we are already a forked child (pipeline stage, background job)
 * and may exec directly.
 */
static int run_simple(struct node *n, int inchild)
{
	struct words args = { NULL, 0 }, assigns = { NULL, 0 };
	int na = nassign(n), status = 0, nsave = 0;
	const struct builtin *b;
	struct saved save[NSAVE];
	pid_t pid;

	for (int i = 0; i < na; i++) {
		char *eq = strchr(n->w.v[i], '=');
		char *val = expandone(eq + 1), *a = xmalloc(eq - n->w.v[i] + strlen(val) + 2);
		sprintf(a, "%.*s=%s", (int)(eq - n->w.v[i]), n->w.v[i], val);
		free(val);
		addword(&assigns, a);
	}
	expandall(n->w.v + na, n->w.n - na, &args);
	if (args.n == 0) {
		/* only assignments (and maybe redirections, e.g. "> file") */
		for (int i = 0; i < assigns.n; i++) {
			char *eq = strchr(assigns.v[i], '=');
			*eq = 0;
			setvar(assigns.v[i], eq + 1, 0);
		}
		if (n->redir) {
			if (apply_redirs(n->redir, save, &nsave) < 0)
				status = 1;
			restore_redirs(save, nsave);
		}
		goto out;
	}
	if (strcmp(args.v[0], "exec") == 0) {
		if (apply_redirs(n->redir, NULL, NULL) < 0) {
			status = 1;
			goto out;
		}
		if (args.n > 1)
			exec_command(args.v + 1, makeenv(assigns.v, assigns.n));
		goto out;
	}
	if ((b = findbuiltin(args.v[0]))) {
		int bad = n->redir && apply_redirs(n->redir, save, &nsave) < 0;
		status = bad ? 1 : b->fn(args.n, args.v);
		fflush(NULL);
		restore_redirs(save, nsave);
		goto out;
	}
	if (inchild) {
		if (apply_redirs(n->redir, NULL, NULL) < 0)
			_exit(1);
		exec_command(args.v, makeenv(assigns.v, assigns.n));
	}
	if ((pid = xfork()) < 0) {
		status = 2;
		goto out;
	}
	if (pid == 0) {
		if (apply_redirs(n->redir, NULL, NULL) < 0)
			_exit(1);
		exec_command(args.v, makeenv(assigns.v, assigns.n));
	}
	status = waitfor(pid, 1);
out:
	freewords(&args);
	freewords(&assigns);
	return status;
}

/* In a forked child: run n and exit with its status (exec directly if simple). */
static void run_in_child(struct node *n)
{
	interactive = 0;
	if (n->type == N_CMD)
		exit(run_simple(n, 1));
	exit(run_node(n));
}

static int run_pipeline(struct node *n)
{
	struct node *stages[64];
	pid_t pids[64];
	int ns = 0, in = -1, fds[2], status = 0;

	/* the tree is left-deep: ((a | b) | c) */
	for (struct node *p = n; ns < 64; p = p->l) {
		if (p->type != N_PIPE) {
			stages[ns++] = p;
			break;
		}
		stages[ns++] = p->r;
	}
	if (ns == 64 && stages[63]->type == N_PIPE) {
		warnx("pipeline too long");
		return 2;
	}
	for (int i = 0; i < ns / 2; i++) {
		struct node *t = stages[i];
		stages[i] = stages[ns - 1 - i];
		stages[ns - 1 - i] = t;
	}
	for (int i = 0; i < ns; i++) {
		fds[0] = fds[1] = -1;
		if (i + 1 < ns && pipe(fds) < 0) {
			warn("pipe");
			ns = i;
			break;
		}
		if ((pids[i] = xfork()) == 0) {
			if (in >= 0) {
				dup2(in, 0);
				close(in);
			}
			if (fds[1] >= 0) {
				dup2(fds[1], 1);
				close(fds[1]);
				close(fds[0]);
			}
			run_in_child(stages[i]);
		}
		if (in >= 0)
			close(in);
		if (fds[1] >= 0)
			close(fds[1]);
		in = fds[0];
		if (pids[i] < 0) {
			ns = i;
			break;
		}
	}
	if (in >= 0)
		close(in);
	for (int i = 0; i < ns; i++)
		status = waitfor(pids[i], i == ns - 1);
	return status;
}

static int run_for(struct node *n)
{
	struct words list = { NULL, 0 };
	int status = 0;

	if (n->forall)
		for (int i = 0; i < posc; i++)
			addword(&list, xstrdup(posv[i]));
	else
		expandall(n->w.v, n->w.n, &list);
	for (int i = 0; i < list.n; i++) {
		setvar(n->var, list.v[i], 0);
		status = run_node(n->r);
	}
	freewords(&list);
	return status;
}

/* for, if, while: in this shell, with their redirections in force around them. */
static int run_compound(struct node *n)
{
	int status = 0;

	switch (n->type) {
	case N_FOR:
		status = run_for(n);
		break;
	case N_IF:
		if (run_node(n->l) == 0)
			status = run_node(n->r);
		else if (n->x)
			status = run_node(n->x);
		break;
	default:
		while (run_node(n->l) == 0)
			status = run_node(n->r);
		break;
	}
	return status;
}

static int run_redirected(struct node *n)
{
	struct saved save[NSAVE];
	int nsave = 0, status = 1;

	if (apply_redirs(n->redir, save, &nsave) == 0)
		status = run_compound(n);
	restore_redirs(save, nsave);
	return status;
}

static int run_node(struct node *n)
{
	int status = 0;
	pid_t pid;

	switch (n->type) {
	case N_CMD:
		status = run_simple(n, 0);
		break;
	case N_PIPE:
		status = run_pipeline(n);
		break;
	case N_AND:
		if ((status = run_node(n->l)) == 0)
			status = run_node(n->r);
		break;
	case N_OR:
		if ((status = run_node(n->l)) != 0)
			status = run_node(n->r);
		break;
	case N_SEQ:
		run_node(n->l);
		status = run_node(n->r);
		break;
	case N_BG:
		if ((pid = xfork()) == 0) {
			/* without job control, an asynchronous list reads /dev/null (POSIX) */
			int fd = open("/dev/null", O_RDONLY);
			if (fd > 0) {
				dup2(fd, 0);
				close(fd);
			}
			run_in_child(n->l);
		}
		if (pid > 0)
			lastbg = pid;
		status = pid < 0 ? 2 : 0;
		break;
	case N_SUB:
		if ((pid = xfork()) == 0) {
			if (apply_redirs(n->redir, NULL, NULL) < 0)
				_exit(1);
			run_in_child(n->l);
		}
		status = pid < 0 ? 2 : waitfor(pid, 1);
		break;
	case N_FOR:
	case N_IF:
	case N_WHILE:
		status = run_redirected(n);
		break;
	}
	laststatus = status;
	return status;
}

/* ---- input -------------------------------------------------------------------------------- */

/*
 * Parse and run the complete commands in text, one command line at a time. If the text ends
 * inside a command and more may come (!eof), stop there; *used says how far we got.
 * Returns -1 after a syntax error, else 0.
 */
static int run_source(const char *text, int eof, size_t *used)
{
	struct node *n;
	size_t start, end;
	enum tok t;

	src = text;
	srcpos = 0;
	for (;;) {
		havetok = incomplete = 0;
		synerr = NULL;
		start = srcpos;
		n = parse_list(1);
		if (incomplete && !eof) {
			freenode(n);
			*used = start;
			return 0;
		}
		t = failed() ? T_EOF : peek()->type;
		if (!failed() && t != T_NL && t != T_EOF)
			fail_unexpected();
		if (failed()) {
			freenode(n);
			fprintf(stderr, "sh: syntax error: %s\n", incomplete ? "unexpected end of file" : synerr);
			laststatus = 2;
			*used = strlen(text);
			return -1;
		}
		if (t == T_NL)
			take();
		end = srcpos;
		if (n) {
			run_node(n);
			freenode(n);
			src = text;   /* "." may have parsed other text meanwhile */
		}
		srcpos = *used = end;
		if (t == T_EOF)
			return 0;
	}
}

/* Read one line (with its newline) from fd 0 into b; 0 at end of input. */
static int read_line(struct str *b)
{
	char c;
	int got = 0;

	for (;;) {
		int n = read(0, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return got;
		sputc(b, c);
		got = 1;
		if (c == '\n')
			return 1;
	}
}

/* Commands from stdin: prompt (when interactive), read, run, until end of input. */
static void run_stdin(void)
{
	struct str text = { NULL, 0, 0 };
	size_t used;

	for (;;) {
		struct var *ps = findvar(text.len ? "PS2" : "PS1", 3);
		if (interactive) {
			while (waitpid(-1, NULL, WNOHANG) > 0)
				;   /* reap finished background jobs */
			fputs(ps && ps->value ? ps->value : text.len ? "> " : "# ", stderr);
		}
		if (!read_line(&text)) {
			if (text.len)
				run_source(text.s, 1, &used);
			return;
		}
		if (run_source(text.s, 0, &used) < 0 && !interactive)
			exit(2);
		memmove(text.s, text.s + used, text.len - used + 1);
		text.len -= used;
	}
}

static int run_file(const char *path)
{
	struct str text = { NULL, 0, 0 };
	char buf[4096];
	size_t used;
	int fd = open(path, O_RDONLY), n;

	if (fd < 0) {
		warn("%s", path);
		return 127;
	}
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (int i = 0; i < n; i++)
			sputc(&text, buf[i]);
	close(fd);
	if (run_source(text.s ? text.s : "", 1, &used) < 0)
		return 2;
	return laststatus;
}

int main(int argc, char **argv)
{
	char *cmd = NULL, *script = NULL;
	int i = 1;

	for (char **e = environ; e && *e; e++) {
		char *eq = strchr(*e, '=');
		if (eq) {
			*eq = 0;
			setvar(*e, eq + 1, 1);
			*eq = '=';
		}
	}
	if (!findvar("PATH", 4))
		setvar("PATH", "/bin:/sbin", 1);
	if (i < argc && strcmp(argv[i], "-c") == 0) {
		if (++i == argc) {
			fprintf(stderr, "usage: sh [-c command [arg0 [arg ...]]] [file [arg ...]]\n");
			return 2;
		}
		cmd = argv[i++];
		if (i < argc)
			arg0 = argv[i++];
	} else if (i < argc && strcmp(argv[i], "-i") == 0) {
		interactive = 1;
		i++;
	} else if (i < argc && argv[i][0] == '-' && argv[i][1]) {
		fprintf(stderr, "sh: illegal option %s\n"
		                "usage: sh [-c command [arg0 [arg ...]]] [file [arg ...]]\n", argv[i]);
		return 2;
	}
	if (!cmd && i < argc)
		script = arg0 = argv[i++];
	posv = argv + i;
	posc = argc - i;
	if (cmd) {
		size_t used;
		run_source(cmd, 1, &used);
		return laststatus;
	}
	if (script)
		return run_file(script);
	interactive = interactive || (isatty(0) && isatty(2));
	run_stdin();
	return laststatus;
}
