/*
 * sh: the wdrain shell, a small POSIX shell (see sh.h for its parts).
 *
 *   sh [-efux] [-i]                   commands from stdin; with a prompt ("# ", "> " for
 *                                     continuation lines, $PS1 $PS2) when it is a terminal
 *   sh [-efux] file [arg ...]         a script: $0 = file, $1... = args; also how #! scripts run
 *   sh [-efux] -c 'cmds' [arg0 [arg ...]]
 *
 * The text is read, then parsed and run one command line at a time (run_text), so a syntax
 * error on a script's fifth line comes after its first four ran, and a function defined on
 * one line can be called on the next. A command line that is not complete yet (an open quote,
 * "if" without "fi", a here-document's body) waits for more lines.
 *
 * Errors (POSIX 2.8.1): a syntax error is "sh: syntax error: ..." and status 2; a
 * non-interactive shell then stops, the interactive one prompts again. sh_error() is for
 * errors found while running (in expansions): a non-interactive shell exits 2, the interactive
 * one abandons the command line.
 *
 * Also here: the small helpers every part uses (strings, word lists, allocation).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <stdarg.h>
#include "sh.h"

struct shopts opt;
int   laststatus;
pid_t lastbg;
pid_t rootpid;
char *arg0 = "sh";
int   evalskip, skipcount;

static const char usage[] = "usage: sh [-efux] [-i | -c command [arg0 [arg ...]] | file [arg ...]]\n";

/* ---- helpers ------------------------------------------------------------------------------- */

static void nomem(void)
{
	write(2, "sh: out of memory\n", 18);
	_exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		nomem();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n ? n : 1)))
		nomem();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* Append n bytes (n may be 0: the string then exists, empty). */
void sputn(struct str *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 64;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sputc(struct str *b, char c)
{
	sputn(b, &c, 1);
}

void sputs(struct str *b, const char *s)
{
	sputn(b, s, strlen(s));
}

char *sfinish(struct str *b)
{
	char *s = b->s ? b->s : xstrdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void addword(struct words *w, char *s)
{
	w->v = xrealloc(w->v, (w->n + 2) * sizeof *w->v);
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
}

void freewords(struct words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->n = 0;
}

char *readfile(const char *path)
{
	struct str text = { NULL, 0, 0 };
	char buf[4096];
	int fd = open(path, O_RDONLY), n;

	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		sputn(&text, buf, n);
	close(fd);
	return sfinish(&text);
}

/* ---- errors and exit ----------------------------------------------------------------------- */

void sh_exit(int status)
{
	exittrap(status);
	fflush(NULL);
	exit(status);
}

void sh_abort(void)
{
	laststatus = 2;
	experr = 1;
	if (!opt.interactive)
		sh_exit(2);
	evalskip = SKIP_ABORT;
}

void sh_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("sh: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	sh_abort();
}

/* ---- running text -------------------------------------------------------------------------- */

/*
 * Parse and run the complete command lines in text, one at a time. Unless eof, a command
 * left unfinished at the end is not an error: *used says where it starts (the caller reads
 * more and calls again). -1 after a syntax error (reported; $? is 2), else 0.
 */
static int run_text(const char *text, int eof, size_t *used)
{
	size_t pos = 0;

	for (;;) {
		struct parser p = { .src = text, .pos = pos };
		int at_eof;
		struct node *n = parse_line(&p, &at_eof);

		if (p.eofwhat && !eof) {
			*used = pos;
			return 0;
		}
		if (syntax_failed(&p)) {
			fflush(stdout);
			fprintf(stderr, "sh: syntax error: %s\n", p.err ? p.err : p.eofwhat);
			laststatus = 2;
			*used = strlen(text);
			return -1;
		}
		pos = p.pos;
		if (n) {
			run_node(n);
			freenode(n);
		}
		if (at_eof || evalskip) {          /* return, or an aborted command: the rest is dropped */
			*used = evalskip ? strlen(text) : pos;
			return 0;
		}
	}
}

int run_string(const char *text)
{
	size_t used;

	if (run_text(text, 1, &used) < 0 && !opt.interactive)
		sh_exit(2);
	return laststatus;
}

int readchar(char *c)
{
	int n;

	while ((n = read(0, c, 1)) < 0 && errno == EINTR)
		if (trapped_signal())
			return -1;
	return n == 1;
}

/* One line (with its newline) from fd 0, a byte at a time: EDIT_LINE, EDIT_EOF at the end of
 * the input, EDIT_CANCEL when a signal stopped the reading. */
static int read_line(struct str *b)
{
	int got = 0, r;
	char c;

	for (;;) {
		if ((r = readchar(&c)) < 0 && !opt.interactive) {
			dotrap();                  /* a script's traps run, and the reading goes on */
			continue;
		}
		if (r <= 0)
			break;
		sputc(b, c);
		got = 1;
		if (c == '\n')
			return EDIT_LINE;
	}
	return r < 0 ? EDIT_CANCEL : got ? EDIT_LINE : EDIT_EOF;
}

/* One line of input into text: EDIT_LINE, EDIT_EOF or EDIT_CANCEL (^C at the prompt). */
static int get_line(struct str *text, int editing)
{
	const char *prompt;

	if (pendingsigs)
		dotrap();                  /* a trapped signal that came after the last command */
	if (!opt.interactive)
		return read_line(text);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;   /* reap finished background jobs */
	prompt = getvar(text->len ? "PS2" : "PS1");
	if (!prompt)
		prompt = text->len ? "> " : "# ";
	if (editing)
		return edit_line(prompt, text);
	fputs(prompt, stderr);
	return read_line(text);
}

/* Commands from stdin until its end (^D at the prompt). */
static void run_stdin(void)
{
	struct str text = { NULL, 0, 0 };
	int editing = opt.interactive && edit_available();
	size_t used;

	sputn(&text, "", 0);
	for (;;) {
		int got = get_line(&text, editing);
		if (evalskip == SKIP_ABORT) {          /* a trap's exit, or ^C, while reading */
			evalskip = SKIP_NONE;
			experr = 0;
		}
		if (got == EDIT_CANCEL) {
			text.len = 0;            /* ^C drops the unfinished command too */
			text.s[0] = 0;
			continue;
		}
		if (got == EDIT_EOF) {
			if (text.len)
				run_text(text.s, 1, &used);   /* unfinished: the syntax error says so */
			if (!text.len || !editing)
				break;
			text.len = 0;                      /* at a "> " prompt ^D only drops the command */
			text.s[0] = 0;
			continue;
		}
		if (run_text(text.s, 0, &used) < 0 && !opt.interactive)
			sh_exit(2);
		if (evalskip == SKIP_ABORT) {
			evalskip = SKIP_NONE;
			experr = 0;
		}
		memmove(text.s, text.s + used, text.len - used + 1);
		text.len -= used;
	}
	free(text.s);
}

static int run_file(const char *path)
{
	char *text = readfile(path);
	size_t used;

	if (!text) {
		fprintf(stderr, "sh: %s: %s\n", path, strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}
	if (run_text(text, 1, &used) < 0)
		return 2;
	free(text);
	return laststatus;
}

int main(int argc, char **argv)
{
	char *cmd = NULL, *script = NULL;
	int i = 1, cflag = 0, iflag = 0;

	rootpid = getpid();
	import_environ(environ);
	if (!getvar("PATH"))
		setvar("PATH", DEFPATH, V_EXPORT);
	for (; i < argc && (argv[i][0] == '-' || argv[i][0] == '+') && argv[i][1]; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		for (const char *o = argv[i] + 1; *o; o++) {
			if (*o == 'c' && argv[i][0] == '-')
				cflag = 1;
			else if (*o == 'i' && argv[i][0] == '-')
				iflag = 1;
			else if (setoption(*o, argv[i][0] == '-') < 0) {
				fprintf(stderr, "sh: illegal option %c%c\n%s", argv[i][0], *o, usage);
				return 2;
			}
		}
	}
	if (cflag) {
		if (i == argc) {
			fputs(usage, stderr);
			return 2;
		}
		cmd = argv[i++];
		if (i < argc)
			arg0 = argv[i++];
	} else if (i < argc) {
		script = arg0 = argv[i++];
	}
	setparams(argv + i, argc - i);
	opt.interactive = iflag || (!cmd && !script && isatty(0) && isatty(2));
	signals_init();
	if (opt.interactive && edit_available())
		console_foreground();
	if (cmd)
		run_string(cmd);
	else if (script)
		laststatus = run_file(script);
	else
		run_stdin();
	sh_exit(laststatus);
}
