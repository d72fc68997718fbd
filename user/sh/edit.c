/*
 * edit.c: the line editor of the interactive prompt.
 *
 *   edit_available()          is fd 0 the console (whose mode we can switch)?
 *   edit_line(prompt, text)   print the prompt, read one line with editing, append it (and
 *                             its newline) to text: EDIT_LINE; EDIT_EOF for ^D on an empty
 *                             line; EDIT_CANCEL for ^C (the line is dropped)
 *
 * The console's canonical mode (kernel/dev/console.c) already erases with backspace and ^U
 * and drops the line on ^C, but it cannot recall earlier lines or move in the line. So while
 * the shell waits at its prompt it puts the console in raw mode (TIOCSETA without TTY_CANON and
 * TTY_ECHO), reads a byte at a time and echoes itself; before the command runs it puts
 * canonical mode back, so programs read lines as before.
 *
 * Keys (emacs-style, as FreeBSD's sh with -E and most shells): printable characters are
 * inserted at the cursor; backspace/DEL erase before it; left and right arrows (ESC [ D / C,
 * or ESC O D / C), ^B and ^F move it; ^A and Home go to the start, ^E and End to the end;
 * ^U erases from the start to the cursor, ^W the word before it; Tab completes the word
 * before the cursor (below); up and down arrows walk the last HISTSIZE lines; ^C drops the
 * line (a new prompt); ^D on an empty line is the end of input (the console makes it a read
 * of 0 bytes in raw mode too); Enter (\r or \n) takes the line wherever the cursor is.
 *
 * The screen follows with backspaces (the cursor left), reprinting (right, and the rest of
 * the line after an insertion or erasure) and spaces over what went: the terminal needs no
 * escape sequences. A line wider than the terminal is redrawn wrongly above its last row.
 * Characters typed while a command ran were echoed by the console then, and appear again when
 * the prompt reads them (as with any line editor). ^P never reaches us: the console keeps it
 * for its status dump.
 *
 * Completion: the word before the cursor (after the last blank or one of ; | & ( < >) is a
 * command name if it starts a command and has no '/': built-ins and the programs of $PATH's
 * directories; otherwise it is a path: the names in its directory. One match is completed
 * (with a space after it, or '/' after a directory); several are completed as far as they
 * agree, and a Tab that adds nothing lists them under the line, which is then printed again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include "sh.h"

#define HISTSIZE 32

static char *hist[HISTSIZE];     /* oldest first */
static int   nhist;

struct editor {
	struct str  line;
	size_t      pos;             /* the cursor: an index into line.s */
	const char *prompt;
};

int edit_available(void)
{
	int mode;

	return ioctl(0, TIOCGETA, &mode) == 0;
}

static void setmode(int mode)
{
	ioctl(0, TIOCSETA, &mode);
}

static void echo(const char *s, size_t n)
{
	write(2, s, n);
}

static void backspaces(size_t n)
{
	while (n-- > 0)
		echo("\b", 1);
}

static void move_to(struct editor *ed, size_t pos)
{
	if (pos < ed->pos)
		backspaces(ed->pos - pos);
	else
		echo(ed->line.s + ed->pos, pos - ed->pos);
	ed->pos = pos;
}

/* The screen after the cursor changed from `was` characters to the line's rest: redraw it. */
static void redraw_tail(struct editor *ed, size_t was)
{
	size_t now = ed->line.len - ed->pos;

	echo(ed->line.s + ed->pos, now);
	for (size_t i = now; i < was; i++)
		echo(" ", 1);
	backspaces(now > was ? now : was);
}

static void insert(struct editor *ed, const char *s, size_t n)
{
	size_t tail = ed->line.len - ed->pos;

	sputn(&ed->line, s, n);                       /* room, then make the gap */
	memmove(ed->line.s + ed->pos + n, ed->line.s + ed->pos, tail);
	memcpy(ed->line.s + ed->pos, s, n);
	echo(s, n);
	ed->pos += n;
	redraw_tail(ed, tail);
}

/* Erase the n characters before the cursor. */
static void erase(struct editor *ed, size_t n)
{
	size_t tail = ed->line.len - ed->pos;

	if (n > ed->pos)
		n = ed->pos;
	memmove(ed->line.s + ed->pos - n, ed->line.s + ed->pos, tail + 1);
	ed->line.len -= n;
	backspaces(n);
	ed->pos -= n;
	redraw_tail(ed, tail + n);
}

/* Replace the whole line with s (a history entry); the cursor at its end. */
static void replace(struct editor *ed, const char *s)
{
	move_to(ed, ed->line.len);
	erase(ed, ed->line.len);
	insert(ed, s, strlen(s));
}

static void addhist(const char *s)
{
	if (!*s || (nhist > 0 && strcmp(hist[nhist - 1], s) == 0))
		return;
	if (nhist == HISTSIZE) {
		free(hist[0]);
		memmove(hist, hist + 1, (HISTSIZE - 1) * sizeof *hist);
		nhist--;
	}
	hist[nhist++] = xstrdup(s);
}

static int isblank_(char c)
{
	return c == ' ' || c == '\t';
}

/* ^W: the blanks before the cursor, then the word. */
static void erase_word(struct editor *ed)
{
	size_t p = ed->pos;

	while (p > 0 && isblank_(ed->line.s[p - 1]))
		p--;
	while (p > 0 && !isblank_(ed->line.s[p - 1]))
		p--;
	erase(ed, ed->pos - p);
}

/* ---- completion ---------------------------------------------------------------------------- */

struct matches {
	struct words names;          /* the candidates' full words */
	int          dirs;           /* the one match is a directory (only meaningful for n == 1) */
};

static void addmatch(struct matches *m, const char *prefix, const char *name, int isdir)
{
	char *w = xmalloc(strlen(prefix) + strlen(name) + 1);

	sprintf(w, "%s%s", prefix, name);
	for (int i = 0; i < m->names.n; i++)
		if (strcmp(m->names.v[i], w) == 0) {
			free(w);
			return;
		}
	addword(&m->names, w);
	m->dirs = isdir;
}

/* The names in dir starting with base; each as prefix + name. execs: only executable files. */
static void match_dir(struct matches *m, const char *dir, const char *prefix, const char *base, int execs)
{
	size_t blen = strlen(base);
	DIR *d = opendir(*dir ? dir : ".");
	struct dirent *e;
	char path[PATH_MAX];
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, base, blen) != 0 || strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 || (e->d_name[0] == '.' && base[0] != '.'))
			continue;
		snprintf(path, sizeof path, "%s%s%s", *dir ? dir : ".", "/", e->d_name);
		if (stat(path, &st) < 0 || (execs && !(S_ISREG(st.st_mode) && (st.st_mode & 0111))))
			continue;
		addmatch(m, prefix, e->d_name, S_ISDIR(st.st_mode));
	}
	closedir(d);
}

static void match_commands(struct matches *m, const char *word)
{
	const char *path = getvar("PATH") ? getvar("PATH") : DEFPATH;
	char dir[PATH_MAX];

	struct words builtins = { NULL, 0 };

	builtin_names(word, &builtins);
	for (int i = 0; i < builtins.n; i++)
		addmatch(m, "", builtins.v[i], 0);
	freewords(&builtins);
	while (*path) {
		size_t len = strcspn(path, ":");
		snprintf(dir, sizeof dir, "%.*s", (int)len, path);
		match_dir(m, dir, "", word, 1);
		path += len + (path[len] == ':');
	}
	m->dirs = 0;
}

static void match_paths(struct matches *m, const char *word)
{
	const char *slash = strrchr(word, '/');
	char *dir = slash ? xstrndup(word, slash - word + 1) : xstrdup("");

	match_dir(m, *dir ? dir : "", dir, slash ? slash + 1 : word, 0);
	free(dir);
}

/* Does the word at `start` begin a command (nothing before it but blanks and ; | & ( )? */
static int command_position(const char *s, size_t start)
{
	while (start > 0 && isblank_(s[start - 1]))
		start--;
	return start == 0 || strchr(";|&(", s[start - 1]);
}

/* The matches on a new line, then the prompt and the line again. */
static void list_matches(struct editor *ed, struct matches *m)
{
	size_t pos = ed->pos;

	echo("\n", 1);
	for (int i = 0; i < m->names.n; i++) {
		const char *w = m->names.v[i], *slash = strrchr(w, '/');
		const char *shown = slash && slash[1] ? slash + 1 : w;
		echo(shown, strlen(shown));
		echo(i + 1 < m->names.n ? "  " : "\n", i + 1 < m->names.n ? 2 : 1);
	}
	echo(ed->prompt, strlen(ed->prompt));
	echo(ed->line.s, ed->line.len);
	ed->pos = ed->line.len;
	move_to(ed, pos);
}

static void complete(struct editor *ed)
{
	struct matches m = { { NULL, 0 }, 0 };
	size_t start = ed->pos, common;
	char *word;

	while (start > 0 && !isblank_(ed->line.s[start - 1]) && !strchr(";|&(<>", ed->line.s[start - 1]))
		start--;
	word = xstrndup(ed->line.s + start, ed->pos - start);
	if (!strchr(word, '/') && command_position(ed->line.s, start))
		match_commands(&m, word);
	else
		match_paths(&m, word);
	if (m.names.n > 0) {
		common = strlen(m.names.v[0]);
		for (int i = 1; i < m.names.n; i++) {
			size_t k = 0;
			while (k < common && m.names.v[i][k] == m.names.v[0][k])
				k++;
			common = k;
		}
		if (common > strlen(word))
			insert(ed, m.names.v[0] + strlen(word), common - strlen(word));
		if (m.names.n == 1)
			insert(ed, m.dirs ? "/" : " ", 1);
		else if (common == strlen(word))
			list_matches(ed, &m);
	}
	free(word);
	freewords(&m.names);
}

/* ---- keys ----------------------------------------------------------------------------------- */

/*
 * After ESC: arrows (history, the cursor), Home, End and Delete (ESC [ H / F, or the VT220
 * forms ESC [ 1 ~, 4 ~, 3 ~; others are read to their end and ignored). hpos: the history
 * entry shown (nhist: none).
 */
static void escape(struct editor *ed, int *hpos)
{
	char c, end;
	int num = 0;

	if (readchar(&c) <= 0 || (c != '[' && c != 'O') || readchar(&c) <= 0)
		return;
	if (c >= '0' && c <= '9') {
		end = c;
		while (end >= '0' && end <= '9') {
			num = num * 10 + end - '0';
			if (readchar(&end) <= 0)
				return;
		}
		c = end != '~' ? 0 : num == 1 || num == 7 ? 'H' : num == 4 || num == 8 ? 'F' : num == 3 ? 'X' : 0;
	}
	if (c == 'X' && ed->pos < ed->line.len) {      /* Delete: the character under the cursor */
		move_to(ed, ed->pos + 1);
		erase(ed, 1);
	} else if (c == 'A' && *hpos > 0)
		replace(ed, hist[--*hpos]);
	else if (c == 'B' && *hpos < nhist)
		replace(ed, ++*hpos < nhist ? hist[*hpos] : "");
	else if (c == 'D' && ed->pos > 0)
		move_to(ed, ed->pos - 1);
	else if (c == 'C' && ed->pos < ed->line.len)
		move_to(ed, ed->pos + 1);
	else if (c == 'H')
		move_to(ed, 0);
	else if (c == 'F')
		move_to(ed, ed->line.len);
}

int edit_line(const char *prompt, struct str *text)
{
	struct editor ed = { { NULL, 0, 0 }, 0, prompt };
	int hpos = nhist, result, r;
	char c;

	sputn(&ed.line, "", 0);
	echo(prompt, strlen(prompt));
	setmode(0);
	for (;;) {
		if ((r = readchar(&c)) < 0) {
			echo("\n", 1);                   /* a trapped signal: its trap runs at the next prompt */
			result = EDIT_CANCEL;
			break;
		}
		if (r == 0) {
			if (ed.line.len > 0)
				continue;            /* the console's ^D ends a read: only on an empty line is it EOF */
			echo("\n", 1);
			result = EDIT_EOF;
			break;
		}
		if (c == '\r' || c == '\n') {
			move_to(&ed, ed.line.len);
			echo("\n", 1);
			addhist(ed.line.s);
			sputs(text, ed.line.s);
			sputc(text, '\n');
			result = EDIT_LINE;
			break;
		}
		if (c == 0x03) {                     /* ^C */
			move_to(&ed, ed.line.len);
			echo("^C\n", 3);
			result = EDIT_CANCEL;
			break;
		}
		if (c == 0x7f || c == '\b')
			erase(&ed, 1);
		else if (c == 0x15)                  /* ^U */
			erase(&ed, ed.pos);
		else if (c == 0x17)                  /* ^W */
			erase_word(&ed);
		else if (c == 0x01)                  /* ^A */
			move_to(&ed, 0);
		else if (c == 0x05)                  /* ^E */
			move_to(&ed, ed.line.len);
		else if (c == 0x02 && ed.pos > 0)    /* ^B */
			move_to(&ed, ed.pos - 1);
		else if (c == 0x06 && ed.pos < ed.line.len)   /* ^F */
			move_to(&ed, ed.pos + 1);
		else if (c == '\t')
			complete(&ed);
		else if (c == 0x1b)
			escape(&ed, &hpos);
		else if ((unsigned char)c >= 0x20)
			insert(&ed, &c, 1);
	}
	setmode(TTY_ECHO | TTY_CANON);
	free(ed.line.s);
	return result;
}
