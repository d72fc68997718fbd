/*
 * edit.c: the line editor of the interactive prompt.
 *
 *   edit_available()          is fd 0 the console (whose mode we can switch)?
 *   edit_line(prompt, text)   print the prompt, read one line with editing, append it (and
 *                             its newline) to text: EDIT_LINE; EDIT_EOF for ^D on an empty
 *                             line; EDIT_CANCEL for ^C (the line is dropped)
 *
 * The console's canonical mode (kernel/dev/console.c) already erases with backspace and ^U
 * and drops the line on ^C, but it cannot recall earlier lines. So while the shell waits at
 * its prompt it puts the console in raw mode (TIOCSETA without TTY_CANON and TTY_ECHO), reads
 * a byte at a time and echoes itself; before the command runs it puts canonical mode back,
 * so programs read lines as before.
 *
 * Keys: printable characters and tab; backspace/DEL; ^U (erase the line); ^W (erase a word);
 * ^C (drop the line, a new prompt); ^D (end of input, on an empty line: the console makes
 * it a read of 0 bytes in raw mode too); Enter (\r or \n);
 * up and down arrows (ESC [ A / ESC [ B, or ESC O A/B) walk the last HISTSIZE lines.
 * There is no cursor movement inside the line: edits happen at its end, and erasing goes
 * back with "\b \b", so a line longer than the terminal's width is not erased on screen
 * above its last row. Characters typed while a command ran were echoed by the console then,
 * and appear again when the prompt reads them (as with any line editor).
 *
 * ^P never reaches us: the console keeps it for its status dump.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "sh.h"

#define HISTSIZE 32

static char *hist[HISTSIZE];     /* oldest first */
static int   nhist;

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

static void erase(struct str *line, size_t n)
{
	while (n-- > 0 && line->len > 0) {
		line->s[--line->len] = 0;
		echo("\b \b", 3);
	}
}

/* Replace the line being edited with s (a history entry). */
static void replace(struct str *line, const char *s)
{
	erase(line, line->len);
	sputs(line, s);
	echo(s, strlen(s));
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

/* ^W: the blanks before the cursor, then the word. */
static void erase_word(struct str *line)
{
	while (line->len > 0 && (line->s[line->len - 1] == ' ' || line->s[line->len - 1] == '\t'))
		erase(line, 1);
	while (line->len > 0 && line->s[line->len - 1] != ' ' && line->s[line->len - 1] != '\t')
		erase(line, 1);
}

/* After ESC: an arrow key moves through the history (hpos: the entry shown; nhist: none). */
static void escape(struct str *line, int *hpos)
{
	char c;

	if (!readchar(&c) || (c != '[' && c != 'O') || !readchar(&c))
		return;
	if (c == 'A' && *hpos > 0)
		replace(line, hist[--*hpos]);
	else if (c == 'B' && *hpos < nhist)
		replace(line, ++*hpos < nhist ? hist[*hpos] : "");
}

int edit_line(const char *prompt, struct str *text)
{
	struct str line = { NULL, 0, 0 };
	int hpos = nhist, result;
	char c;

	sputn(&line, "", 0);
	echo(prompt, strlen(prompt));
	setmode(0);
	for (;;) {
		if (!readchar(&c)) {
			if (line.len > 0)
				continue;            /* the console's ^D ends a read: only on an empty line is it EOF */
			echo("\n", 1);
			result = EDIT_EOF;
			break;
		}
		if (c == '\r' || c == '\n') {
			echo("\n", 1);
			addhist(line.s);
			sputs(text, line.s);
			sputc(text, '\n');
			result = EDIT_LINE;
			break;
		}
		if (c == 0x03) {                     /* ^C */
			echo("^C\n", 3);
			result = EDIT_CANCEL;
			break;
		}
		if (c == 0x7f || c == '\b')
			erase(&line, 1);
		else if (c == 0x15)                  /* ^U */
			erase(&line, line.len);
		else if (c == 0x17)                  /* ^W */
			erase_word(&line);
		else if (c == 0x1b)
			escape(&line, &hpos);
		else if (c == '\t' || (unsigned char)c >= 0x20) {
			sputc(&line, c);
			echo(&c, 1);
		}
	}
	setmode(TTY_ECHO | TTY_CANON);
	free(line.s);
	return result;
}
