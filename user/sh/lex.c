/*
 * lex.c: sh's tokens (POSIX 2.3, Token Recognition).
 *
 *   next_token(p)        scan the token at p->pos into p->tok (use peek/take in parse.c)
 *   skip_dollar(p, i)    the end of the $ construct at p->src[i]: $name, ${...}, $(...), $((...))
 *   skip_backquote(p, i) the end of the `...` at p->src[i]
 *
 * A word is kept as raw text, quotes and all: the expander (expand.c) walks it again when the
 * command runs, because what a quote means depends on the expansion. The lexer only has to
 * find where each word ends, which for $(...) means parsing the command inside (a ")" in a
 * case pattern must not end it: POSIX 2.6.3), so skip_dollar runs the parser on it.
 *
 * Reserved words (if, for, case, {, ...) are words here; the parser recognises them where a
 * command starts (POSIX 2.4).
 *
 * Here-documents (POSIX 2.7.4): the parser lists each << operator's delimiter in p->docs;
 * when the lexer passes the next newline it reads the bodies that follow it, line by line up
 * to the delimiter line, into the redirections.
 *
 * Errors go into the parser: p->err for a syntax error, p->eofwhat when the text ended inside
 * a construct (an interactive shell then reads another line and tries again).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "sh.h"

static int ismeta(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
	       c == '<' || c == '>' || c == '(' || c == ')' || c == 0;
}

/* The text ended inside a construct; the innermost one (found first) names the error. */
static size_t ended(struct parser *p, const char *what)
{
	if (!p->eofwhat && !p->err)
		p->eofwhat = what;
	return strlen(p->src);
}

static size_t skip_squote(struct parser *p, size_t i)
{
	const char *end = strchr(p->src + i + 1, '\'');

	if (!end)
		return ended(p, "unterminated quoted string");
	return end - p->src + 1;
}

/*
 * The index after what starts at s[i] in a word: a quoted string (if quotes: inside "..." a '
 * is an ordinary character), a $ or ` construct, a backslash and the character it quotes, or
 * one ordinary character.
 */
static size_t skip_item(struct parser *p, size_t i, int quotes)
{
	switch (p->src[i]) {
	case '\\':
		if (!p->src[i + 1])
			return ended(p, "unexpected end of file (after \"\\\")");
		return i + 2;
	case '\'':
		return quotes ? skip_squote(p, i) : i + 1;
	case '"':
		return quotes ? skip_dquote(p, i) : i + 1;
	case '`':
		return skip_backquote(p, i);
	case '$':
		return skip_dollar(p, i);
	default:
		return i + 1;
	}
}

/* i at '"': the index after the closing quote. $ and ` constructs inside are skipped whole. */
size_t skip_dquote(struct parser *p, size_t i)
{
	const char *s = p->src;

	for (i++; s[i] != '"'; i = skip_item(p, i, 0))
		if (!s[i])
			return ended(p, "unterminated quoted string");
	return i + 1;
}

size_t skip_backquote(struct parser *p, size_t i)
{
	const char *s = p->src;

	for (i++; s[i] != '`'; i++) {
		if (!s[i])
			return ended(p, "unexpected end of file (\"`\" without its closing \"`\")");
		if (s[i] == '\\' && s[i + 1])
			i++;
	}
	return i + 1;
}

/* ${...}: to the matching }, past quotes and nested constructs. */
static size_t skip_brace(struct parser *p, size_t i)
{
	const char *s = p->src;

	for (i += 2; s[i] != '}'; i = skip_item(p, i, 1))
		if (!s[i])
			return ended(p, "unexpected end of file (\"${\" without \"}\")");
	return i + 1;
}

/* $((...)): to the "))" that closes it, counting the parentheses in between. */
static size_t skip_arith(struct parser *p, size_t i)
{
	const char *s = p->src;
	int depth = 0;

	for (i += 3; ; ) {
		if (!s[i])
			return ended(p, "unexpected end of file (\"$((\" without \"))\")");
		if (s[i] == ')' && depth == 0) {
			if (s[i + 1] != ')') {
				if (!p->err)
					p->err = "\"$((\" closed by \")\" instead of \"))\"";
				return i + 1;
			}
			return i + 2;
		}
		if (s[i] == '$')
			i = skip_dollar(p, i);
		else {
			depth += (s[i] == '(') - (s[i] == ')');
			i++;
		}
	}
}

/* $(...): parse the command inside with a parser of its own; it must end at a ")". */
static size_t skip_subst(struct parser *p, size_t i)
{
	struct parser sub = { .src = p->src, .pos = i + 2 };
	struct node *n = NULL;

	next_token(&sub);
	sub.havetok = 1;
	if (sub.tok.type != T_RPAREN)
		n = parse_list(&sub, 0);
	if (!syntax_failed(&sub) && sub.tok.type != T_RPAREN) {
		if (sub.tok.type == T_EOF)
			sub.eofwhat = "unexpected end of file (\"$(\" without \")\")";
		else
			sub.err = "\"$(\" without \")\"";
	}
	if (!syntax_failed(&sub) && sub.docs)
		sub.err = "a here-document in \"$(...)\" must end before the \")\"";
	freenode(n);
	if (sub.tok.type == T_WORD)
		free(sub.tok.text);
	if (sub.err && !p->err && !p->eofwhat)
		p->err = sub.err;
	if (sub.eofwhat)
		return ended(p, sub.eofwhat);
	return sub.pos;
}

size_t skip_dollar(struct parser *p, size_t i)
{
	const char *s = p->src;

	if (s[i + 1] == '{')
		return skip_brace(p, i);
	if (s[i + 1] == '(' && s[i + 2] == '(')
		return skip_arith(p, i);
	if (s[i + 1] == '(')
		return skip_subst(p, i);
	return i + 1;   /* $name and $1: the expander reads the name; nothing to skip */
}

/* Scan a word's raw text, keeping quotes for the expander. NULL on an error. */
static char *scanword(struct parser *p)
{
	const char *s = p->src;
	size_t start = p->pos, i = p->pos;

	while (!ismeta(s[i])) {
		i = skip_item(p, i, 1);
		if (syntax_failed(p))
			return NULL;
	}
	p->pos = i;
	return xstrndup(s + start, i - start);
}

/*
 * A redirection operator at p->pos (after an optional descriptor number, fd >= 0):
 * < > >> << <<- <& >& <> >| (POSIX 2.7).
 */
static void scanredir(struct parser *p, int fd)
{
	const char *s = p->src + p->pos;
	struct token *t = &p->tok;

	t->type = T_REDIR;
	t->striptabs = 0;
	t->rfd = fd >= 0 ? fd : s[0] == '<' ? 0 : 1;
	if (s[0] == '<') {
		if (s[1] == '<') {
			t->rkind = R_HEREDOC;
			t->striptabs = s[2] == '-';
			p->pos += 2 + t->striptabs;
			return;
		}
		t->rkind = s[1] == '&' ? R_DUP : s[1] == '>' ? R_RDWR : R_IN;
	} else {
		t->rkind = s[1] == '>' ? R_APPEND : s[1] == '&' ? R_DUP : R_OUT;   /* >| is > */
	}
	p->pos += 1 + (s[1] == '&' || s[1] == '>' || (s[0] == '>' && s[1] == '|'));
}

/* Does line (len bytes, no newline) end the here-document? */
static int isdelim(const char *line, size_t len, const struct redir *d)
{
	return len == strlen(d->delim) && strncmp(line, d->delim, len) == 0;
}

/* Just after a newline: the bodies of the pending here-documents, in order (POSIX 2.7.4). */
static void read_heredocs(struct parser *p)
{
	static char msg[128];

	for (struct redir *d = p->docs; d; d = d->nextdoc) {
		struct str body = { NULL, 0, 0 };
		for (;;) {
			const char *line = p->src + p->pos, *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			if (d->striptabs)
				while (len > 0 && *line == '\t')
					line++, len--, p->pos++;
			if (isdelim(line, len, d)) {
				p->pos += len + (nl != NULL);
				break;
			}
			if (!nl) {
				free(body.s);
				snprintf(msg, sizeof msg, "unexpected end of file (here-document without its \"%.40s\" line)",
				         d->delim);
				ended(p, msg);
				p->pos = strlen(p->src);
				return;
			}
			sputn(&body, line, len + 1);
			p->pos += len + 1;
		}
		d->word = sfinish(&body);
		free(d->delim);
		d->delim = NULL;
	}
	p->docs = NULL;
}

void next_token(struct parser *p)
{
	const char *s = p->src;
	struct token *t = &p->tok;
	size_t i;

	while (s[p->pos] == ' ' || s[p->pos] == '\t' || (s[p->pos] == '\\' && s[p->pos + 1] == '\n'))
		p->pos += s[p->pos] == '\\' ? 2 : 1;
	if (s[p->pos] == '#')
		while (s[p->pos] && s[p->pos] != '\n')
			p->pos++;
	t->text = NULL;
	switch (s[p->pos]) {
	case 0:
		t->type = T_EOF;
		if (p->docs)
			ended(p, "unexpected end of file (a here-document's body must follow the line)");
		return;
	case '\n':
		t->type = T_NL;
		p->pos++;
		if (p->docs)
			read_heredocs(p);
		return;
	case ';':
		t->type = s[p->pos + 1] == ';' ? T_DSEMI : T_SEMI;
		p->pos += t->type == T_DSEMI ? 2 : 1;
		return;
	case '(':  t->type = T_LPAREN; p->pos++; return;
	case ')':  t->type = T_RPAREN; p->pos++; return;
	case '|':
		t->type = s[p->pos + 1] == '|' ? T_OR : T_PIPE;
		p->pos += t->type == T_OR ? 2 : 1;
		return;
	case '&':
		t->type = s[p->pos + 1] == '&' ? T_AND : T_AMP;
		p->pos += t->type == T_AND ? 2 : 1;
		return;
	case '<':
	case '>':
		scanredir(p, -1);
		return;
	}
	for (i = p->pos; isdigit((unsigned char)s[i]); i++)
		;
	if (i > p->pos && i - p->pos < 3 && (s[i] == '<' || s[i] == '>')) {
		int fd = atoi(s + p->pos);
		p->pos = i;
		scanredir(p, fd);
		return;
	}
	t->type = T_WORD;
	if (!(t->text = scanword(p)))
		t->type = T_EOF;   /* p->err or p->eofwhat says why */
}
