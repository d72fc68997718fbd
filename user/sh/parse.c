/*
 * parse.c: sh's grammar (POSIX 2.9 Shell Commands, 2.10 Shell Grammar), by recursive descent.
 *
 *   parse_line(p, &eof)  one complete command line (up to a newline) as a tree; NULL for an
 *                        empty line. Errors are left in the parser: syntax_failed(p).
 *   parse_list(p, 0)     a list inside a compound command (also the inside of $(...))
 *   freenode, copynode   a tree's memory (a function keeps a copy of its body)
 *
 *   line     := list (newline | end)
 *   list     := and_or ((";" | "&" | newline) and_or)*
 *   and_or   := pipeline (("&&" | "||") newline* pipeline)*
 *   pipeline := ["!"] command ("|" newline* command)*
 *   command  := compound redirection* | NAME "(" ")" newline* compound | simple
 *   compound := "{" list "}" | "(" list ")" | for | case | if | while | until
 *
 * Reserved words count only where a command starts (POSIX 2.4), so `echo done` is an echo.
 * A syntax error names the token, as FreeBSD's sh does: `"fi" unexpected (expecting "then")`.
 * When the text ends inside a construct, p->eofwhat says which; the caller may read more
 * and parse again from the start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sh.h"

static struct node *parse_command(struct parser *p);
static struct node *parse_pipeline(struct parser *p);

static struct token *peek(struct parser *p)
{
	if (!p->havetok) {
		next_token(p);
		p->havetok = 1;
	}
	return &p->tok;
}

/* Take the peeked token; the caller owns its text. */
static struct token *take(struct parser *p)
{
	peek(p);
	p->havetok = 0;
	return &p->tok;
}

int syntax_failed(const struct parser *p)
{
	return p->err || p->eofwhat;
}

/* Is the peeked token the reserved word kw? (Quoted, it is raw text with quotes: no match.) */
static int iskw(struct parser *p, const char *kw)
{
	struct token *t = peek(p);

	return t->type == T_WORD && strcmp(t->text, kw) == 0;
}

static void dropkw(struct parser *p)
{
	free(take(p)->text);
}

/* Words that end a list inside a compound command. */
static int atstop(struct parser *p)
{
	static const char *const stops[] = { "do", "done", "then", "else", "elif", "fi", "esac", "}", NULL };
	enum tok t = peek(p)->type;

	if (t == T_EOF || t == T_RPAREN || t == T_DSEMI)
		return 1;
	for (int i = 0; stops[i]; i++)
		if (iskw(p, stops[i]))
			return 1;
	return 0;
}

static void skipnl(struct parser *p)
{
	while (peek(p)->type == T_NL)
		take(p);
}

/* ---- nodes -------------------------------------------------------------------------------- */

static struct node *newnode(enum ntype type, struct node *l, struct node *r)
{
	struct node *n = xmalloc(sizeof *n);

	memset(n, 0, sizeof *n);
	n->type = type;
	n->l = l;
	n->r = r;
	return n;
}

static void freeredirs(struct redir *r)
{
	for (struct redir *next; r; r = next) {
		next = r->next;
		free(r->word);
		free(r->delim);
		free(r);
	}
}

void freenode(struct node *n)
{
	if (!n)
		return;
	freenode(n->l);
	freenode(n->r);
	freenode(n->x);
	freewords(&n->w);
	free(n->var);
	for (struct caseitem *c = n->items, *next; c; c = next) {
		next = c->next;
		freewords(&c->pats);
		freenode(c->body);
		free(c);
	}
	freeredirs(n->redir);
	free(n);
}

static void copywords(struct words *to, const struct words *from)
{
	for (int i = 0; i < from->n; i++)
		addword(to, xstrdup(from->v[i]));
}

/* A deep copy (a function definition keeps its body after the command line is freed). */
struct node *copynode(const struct node *n)
{
	struct node *c;
	struct redir **rp;
	struct caseitem **ip;

	if (!n)
		return NULL;
	c = newnode(n->type, copynode(n->l), copynode(n->r));
	c->x = copynode(n->x);
	copywords(&c->w, &n->w);
	c->var = n->var ? xstrdup(n->var) : NULL;
	c->forall = n->forall;
	rp = &c->redir;
	for (const struct redir *r = n->redir; r; r = r->next, rp = &(*rp)->next) {
		*rp = xmalloc(sizeof **rp);
		**rp = *r;
		(*rp)->word = r->word ? xstrdup(r->word) : NULL;
		(*rp)->delim = NULL;
		(*rp)->next = (*rp)->nextdoc = NULL;
	}
	ip = &c->items;
	for (const struct caseitem *i = n->items; i; i = i->next, ip = &(*ip)->next) {
		*ip = xmalloc(sizeof **ip);
		memset(*ip, 0, sizeof **ip);
		copywords(&(*ip)->pats, &i->pats);
		(*ip)->body = copynode(i->body);
	}
	return c;
}

/* ---- errors ------------------------------------------------------------------------------- */

/* Record a syntax error (only the first counts). */
static struct node *fail(struct parser *p, const char *msg)
{
	if (!syntax_failed(p))
		p->err = msg;
	return NULL;
}

static const char *tokname(struct token *t)
{
	static const char *const names[] = {
		[T_PIPE] = "|", [T_OR] = "||", [T_AND] = "&&", [T_AMP] = "&", [T_SEMI] = ";",
		[T_DSEMI] = ";;", [T_NL] = "newline", [T_LPAREN] = "(", [T_RPAREN] = ")",
		[T_REDIR] = "redirection", [T_EOF] = "end of file",
	};

	return t->type == T_WORD ? t->text : names[t->type];
}

/*
 * The current token is wrong here: "done" unexpected, optionally (expecting "then").
 * At the end of the text that is an unfinished construct instead.
 */
static struct node *unexpected(struct parser *p, const char *expecting)
{
	static char msg[120];

	if (syntax_failed(p))
		return NULL;
	if (peek(p)->type == T_EOF) {
		if (!syntax_failed(p)) {
			snprintf(msg, sizeof msg, "unexpected end of file%s%s%s", expecting ? " (expecting \"" : "",
			         expecting ? expecting : "", expecting ? "\")" : "");
			p->eofwhat = msg;
		}
		return NULL;
	}
	snprintf(msg, sizeof msg, "\"%.40s\" unexpected%s%s%s", tokname(peek(p)),
	         expecting ? " (expecting \"" : "", expecting ? expecting : "", expecting ? "\")" : "");
	return fail(p, msg);
}

/* Need the reserved word kw next (after newlines). */
static int expectkw(struct parser *p, const char *kw)
{
	skipnl(p);
	if (iskw(p, kw)) {
		dropkw(p);
		return 0;
	}
	unexpected(p, kw);
	return -1;
}

/* ---- simple commands and redirections ------------------------------------------------------ */

/* A here-document's delimiter: quote removal, and whether anything was quoted (POSIX 2.7.4). */
static char *heredoc_delim(const char *raw, int *quoted)
{
	struct str d = { NULL, 0, 0 };

	*quoted = 0;
	for (const char *s = raw; *s; s++) {
		if (*s == '\'' || *s == '"') {
			*quoted = 1;
			continue;
		}
		if (*s == '\\' && s[1]) {
			*quoted = 1;
			s++;
		}
		sputc(&d, *s);
	}
	return sfinish(&d);
}

static int parse_redir(struct parser *p, struct node *n)
{
	struct token t = *take(p);
	struct redir *r, **pp;

	if (peek(p)->type != T_WORD) {
		unexpected(p, NULL);
		return -1;
	}
	r = xmalloc(sizeof *r);
	memset(r, 0, sizeof *r);
	r->fd = t.rfd;
	r->kind = t.rkind;
	r->word = take(p)->text;
	if (r->kind == R_HEREDOC) {
		r->striptabs = t.striptabs;
		r->delim = heredoc_delim(r->word, &r->quoted);
		free(r->word);
		r->word = NULL;
		for (pp = &p->docs; *pp; pp = &(*pp)->nextdoc)
			;
		*pp = r;
	}
	for (pp = &n->redir; *pp; pp = &(*pp)->next)
		;
	*pp = r;
	return 0;
}

/* Words and redirections; `first` is a word the caller already took (or NULL). */
static struct node *parse_simple(struct parser *p, char *first)
{
	struct node *n = newnode(N_CMD, NULL, NULL);

	if (first)
		addword(&n->w, first);
	for (;;) {
		struct token *t = peek(p);
		if (t->type == T_WORD)
			addword(&n->w, take(p)->text);
		else if (t->type == T_REDIR) {
			if (parse_redir(p, n) < 0)
				break;
		} else
			break;
	}
	if (syntax_failed(p) || (n->w.n == 0 && !n->redir)) {
		freenode(n);
		return unexpected(p, NULL);
	}
	return n;
}

/* ---- compound commands (POSIX 2.9.4) -------------------------------------------------------- */

/* The list of a compound command: it may not be empty ("if then" is an error). */
static struct node *parse_body(struct parser *p, const char *expecting)
{
	struct node *n = parse_list(p, 0);

	if (!n && !syntax_failed(p))
		unexpected(p, peek(p)->type == T_EOF ? expecting : NULL);
	return n;
}

/* for NAME [in word ...] ; do list done */
static struct node *parse_for(struct parser *p)
{
	struct node *n = newnode(N_FOR, NULL, NULL);

	dropkw(p);
	if (peek(p)->type != T_WORD || !isname(peek(p)->text, strlen(peek(p)->text))) {
		freenode(n);
		if (peek(p)->type == T_WORD)
			return fail(p, "bad for loop variable");
		return unexpected(p, "a variable name");
	}
	n->var = take(p)->text;
	skipnl(p);
	if (iskw(p, "in")) {
		dropkw(p);
		while (peek(p)->type == T_WORD)
			addword(&n->w, take(p)->text);
		if (peek(p)->type != T_SEMI && peek(p)->type != T_NL) {
			freenode(n);
			return unexpected(p, "do");
		}
	} else {
		n->forall = 1;
	}
	if (peek(p)->type == T_SEMI)
		take(p);
	if (expectkw(p, "do") < 0 || !(n->r = parse_body(p, "done")) || expectkw(p, "done") < 0) {
		freenode(n);
		return NULL;
	}
	return n;
}

/* if list then list [elif list then list]... [else list] fi */
static struct node *parse_if(struct parser *p)
{
	struct node *n = newnode(N_IF, NULL, NULL);

	dropkw(p);   /* "if" or "elif" */
	if (!(n->l = parse_body(p, "then")) || expectkw(p, "then") < 0 || !(n->r = parse_body(p, "fi")))
		goto bad;
	if (iskw(p, "elif")) {
		if (!(n->x = parse_if(p)))
			goto bad;
		return n;   /* the inner if took the "fi" */
	}
	if (iskw(p, "else")) {
		dropkw(p);
		if (!(n->x = parse_body(p, "fi")))
			goto bad;
	}
	if (expectkw(p, "fi") < 0)
		goto bad;
	return n;
bad:
	freenode(n);
	return NULL;
}

/* while list do list done; until list do list done */
static struct node *parse_while(struct parser *p, enum ntype type)
{
	struct node *n = newnode(type, NULL, NULL);

	dropkw(p);
	if (!(n->l = parse_body(p, "do")) || expectkw(p, "do") < 0 || !(n->r = parse_body(p, "done")) ||
	    expectkw(p, "done") < 0) {
		freenode(n);
		return NULL;
	}
	return n;
}

/* One case item: [(] pattern [| pattern]... ) [list] [;;] */
static struct caseitem *parse_caseitem(struct parser *p)
{
	struct caseitem *c = xmalloc(sizeof *c);

	memset(c, 0, sizeof *c);
	if (peek(p)->type == T_LPAREN)
		take(p);
	for (;;) {
		if (peek(p)->type != T_WORD) {
			unexpected(p, "a pattern");
			goto bad;
		}
		addword(&c->pats, take(p)->text);
		if (peek(p)->type != T_PIPE)
			break;
		take(p);
	}
	if (peek(p)->type != T_RPAREN) {
		unexpected(p, ")");
		goto bad;
	}
	take(p);
	c->body = parse_list(p, 0);   /* may be empty: `a) ;;` */
	if (syntax_failed(p))
		goto bad;
	if (peek(p)->type == T_DSEMI)
		take(p);
	else if (!iskw(p, "esac")) {
		unexpected(p, ";;");
		goto bad;
	}
	skipnl(p);
	return c;
bad:
	freewords(&c->pats);
	freenode(c->body);
	free(c);
	return NULL;
}

/* case word in [item]... esac */
static struct node *parse_case(struct parser *p)
{
	struct node *n = newnode(N_CASE, NULL, NULL);
	struct caseitem **ip = &n->items;

	dropkw(p);
	if (peek(p)->type != T_WORD) {
		freenode(n);
		return unexpected(p, "a word");
	}
	addword(&n->w, take(p)->text);
	if (expectkw(p, "in") < 0) {
		freenode(n);
		return NULL;
	}
	skipnl(p);
	while (!iskw(p, "esac")) {
		if (peek(p)->type == T_EOF || !(*ip = parse_caseitem(p))) {
			unexpected(p, "esac");
			freenode(n);
			return NULL;
		}
		ip = &(*ip)->next;
	}
	dropkw(p);
	return n;
}

/* { list } and ( list ) */
static struct node *parse_group(struct parser *p, enum ntype type)
{
	struct node *n = newnode(type, NULL, NULL);

	if (type == N_BRACE)
		dropkw(p);
	else
		take(p);
	if (!(n->l = parse_body(p, type == N_BRACE ? "}" : ")")))
		goto bad;
	if (type == N_BRACE) {
		if (expectkw(p, "}") < 0)
			goto bad;
	} else if (peek(p)->type != T_RPAREN) {
		unexpected(p, ")");
		goto bad;
	} else {
		take(p);
	}
	return n;
bad:
	freenode(n);
	return NULL;
}

/* A compound command, or NULL if none starts here (nothing taken then). */
static struct node *parse_compound(struct parser *p, int *found)
{
	struct node *n;

	*found = 1;
	if (iskw(p, "for"))
		n = parse_for(p);
	else if (iskw(p, "if"))
		n = parse_if(p);
	else if (iskw(p, "while"))
		n = parse_while(p, N_WHILE);
	else if (iskw(p, "until"))
		n = parse_while(p, N_UNTIL);
	else if (iskw(p, "case"))
		n = parse_case(p);
	else if (iskw(p, "{"))
		n = parse_group(p, N_BRACE);
	else if (peek(p)->type == T_LPAREN)
		n = parse_group(p, N_SUB);
	else {
		*found = 0;
		return NULL;
	}
	/* redirections after it apply to all of it: `for ...; done > file` */
	while (n && peek(p)->type == T_REDIR)
		if (parse_redir(p, n) < 0) {
			freenode(n);
			return NULL;
		}
	return n;
}

/* NAME ( ) compound-command (POSIX 2.9.5); the name and "(" are taken. */
static struct node *parse_function(struct parser *p, char *name)
{
	struct node *n = newnode(N_FUNC, NULL, NULL);
	int found;

	n->var = name;
	take(p);
	if (peek(p)->type != T_RPAREN) {
		freenode(n);
		return unexpected(p, ")");
	}
	take(p);
	skipnl(p);
	n->l = parse_compound(p, &found);
	if (!found) {
		freenode(n);
		return unexpected(p, "{");
	}
	if (!n->l) {
		freenode(n);
		return NULL;
	}
	return n;
}

static struct node *parse_command(struct parser *p)
{
	struct node *n;
	char *word;
	int found;

	n = parse_compound(p, &found);
	if (found)
		return n;
	if (atstop(p) || iskw(p, "!"))
		return unexpected(p, NULL);
	if (peek(p)->type != T_WORD || !isname(peek(p)->text, strlen(peek(p)->text)))
		return parse_simple(p, NULL);
	word = take(p)->text;
	if (peek(p)->type == T_LPAREN)
		return parse_function(p, word);
	return parse_simple(p, word);
}

/* After | && ||: newlines may follow the operator. */
static struct node *parse_operand(struct parser *p, struct node *left, struct node *(*parse)(struct parser *))
{
	struct node *r;

	skipnl(p);
	if (!(r = parse(p)))
		freenode(left);
	return r;
}

static struct node *parse_pipeline(struct parser *p)
{
	struct node *n, *r;
	int negate = 0;

	if (iskw(p, "!")) {
		dropkw(p);
		negate = 1;
	}
	n = parse_command(p);
	while (n && peek(p)->type == T_PIPE) {
		take(p);
		if (!(r = parse_operand(p, n, parse_command)))
			return NULL;
		n = newnode(N_PIPE, n, r);
	}
	return n && negate ? newnode(N_NOT, n, NULL) : n;
}

static struct node *parse_andor(struct parser *p)
{
	struct node *n = parse_pipeline(p), *r;

	while (n && (peek(p)->type == T_AND || peek(p)->type == T_OR)) {
		enum ntype type = take(p)->type == T_AND ? N_AND : N_OR;
		if (!(r = parse_operand(p, n, parse_pipeline)))
			return NULL;
		n = newnode(type, n, r);
	}
	return n;
}

/*
 * A list of and-or lists separated by ; & or newlines. At top level a newline ends it (one
 * command line at a time); inside a compound command it runs to a closing word, ")" or ";;".
 * NULL for an empty list (the caller decides whether that is allowed).
 */
struct node *parse_list(struct parser *p, int toplevel)
{
	struct node *list = NULL, *n;

	for (;;) {
		if (!toplevel)
			skipnl(p);
		if (atstop(p) || (toplevel && peek(p)->type == T_NL))
			break;
		if (!(n = parse_andor(p))) {
			freenode(list);
			return NULL;
		}
		if (peek(p)->type == T_AMP) {
			take(p);
			n = newnode(N_BG, n, NULL);
		} else if (peek(p)->type == T_SEMI) {
			take(p);
		} else if (peek(p)->type != T_NL && !atstop(p)) {
			freenode(n);
			freenode(list);
			return unexpected(p, NULL);
		}
		list = list ? newnode(N_SEQ, list, n) : n;
	}
	return list;
}

/* One command line: a list ended by a newline (taken) or the end of the text (*eof = 1). */
struct node *parse_line(struct parser *p, int *eof)
{
	struct node *n = parse_list(p, 1);

	*eof = 0;
	if (syntax_failed(p)) {
		freenode(n);
		return NULL;
	}
	if (peek(p)->type == T_NL) {
		take(p);
	} else if (peek(p)->type == T_EOF) {
		*eof = 1;
	} else {
		freenode(n);
		return unexpected(p, NULL);
	}
	return n;
}
