/*
 * trap.c: signals and traps (POSIX 2.11 Signals and Error Handling, 2.14 trap), after FreeBSD's
 * bin/sh/trap.c (setsignal, onsig, dotrap, clear_traps, exitshell).
 *
 *   trap [action condition ...]   bi_trap: action is a command, "" (ignore) or - (default);
 *                                 a condition is EXIT (0) or a signal's name or number
 *   signals_init()                at start: what was ignored on entry to a script stays so;
 *                                 the interactive shell catches INT, TERM and QUIT
 *   signals_forked(background)    in every forked child: traps with a command are cleared and
 *                                 the interactive shell's own catching undone (POSIX 2.11: a
 *                                 subshell's traps are the defaults, except ignored ones); an
 *                                 asynchronous list also ignores INT and QUIT (POSIX 2.11, no
 *                                 job control)
 *   dotrap()                      run the traps of the signals that came (run_node calls it
 *                                 between commands, so a loop of built-ins is interrupted too)
 *   exittrap()                    the EXIT trap, from sh_exit
 *
 * A caught signal's handler only notes it (gotsig); the shell acts between commands. So a
 * trap on a signal that comes while a foreground program runs runs after the program ends
 * (POSIX 2.11), and `wait` returns 128 + the signal at once (bi_wait). ^C at the interactive
 * prompt's commands: the console sends SIGINT to the shell's own group while it runs built-ins
 * (main.c, exec.c job_end), and with no INT trap the shell abandons the command line, $? 130.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <signal.h>
#include "sh.h"

enum { S_DFL = 1, S_CATCH, S_IGN, S_HARD_IGN };   /* what a signal's action is now */

static char *traps[NSIG];              /* [0] EXIT; NULL: default, "": ignore, else the command */
static char  sigmode[NSIG];            /* S_*; 0 before signals_init looked */
static volatile sig_atomic_t gotsig[NSIG];
volatile sig_atomic_t pendingsigs;
static int   rootshell = 1;            /* not a forked child: the interactive catching applies */

static void onsig(int sig)
{
	gotsig[sig] = 1;
	pendingsigs = 1;
}

/* Give sig the action its trap (and, for the interactive shell, its own needs) call for. */
static void setsignal(int sig)
{
	int action = !traps[sig] ? S_DFL : *traps[sig] ? S_CATCH : S_IGN;
	struct sigaction sa = { SIG_DFL, 0, 0 };

	/* The interactive shell: ^C stops the commands and gives the prompt back; TERM and QUIT
	 * do nothing, so a stray kill does not end the console's shell (FreeBSD's sh ignores them;
	 * caught rather than ignored, they are SIG_DFL again in the programs it runs, by exec). */
	if (action == S_DFL && rootshell && opt.interactive && (sig == SIGINT || sig == SIGTERM || sig == SIGQUIT))
		action = S_CATCH;
	if (sigmode[sig] == S_HARD_IGN || sigmode[sig] == action)
		return;
	sa.sa_handler = action == S_CATCH ? onsig : action == S_IGN ? SIG_IGN : SIG_DFL;
	if (sigaction(sig, &sa, NULL) == 0)
		sigmode[sig] = action;
}

void signals_init(void)
{
	struct sigaction sa;

	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sigaction(sig, NULL, &sa) < 0)
			continue;
		/* POSIX 2.11: ignored on entry to a non-interactive shell, it cannot be trapped */
		sigmode[sig] = sa.sa_handler != SIG_IGN ? S_DFL : opt.interactive ? S_IGN : S_HARD_IGN;
	}
	setsignal(SIGINT);
	setsignal(SIGTERM);
	setsignal(SIGQUIT);
}

void signals_forked(int background)
{
	rootshell = 0;
	for (int sig = 0; sig < NSIG; sig++) {
		if (traps[sig] && *traps[sig]) {
			free(traps[sig]);
			traps[sig] = NULL;
		}
		gotsig[sig] = 0;
		if (sig > 0 && sigmode[sig])
			setsignal(sig);
	}
	pendingsigs = 0;
	if (background) {
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		sigmode[SIGINT] = sigmode[SIGQUIT] = S_HARD_IGN;
	}
}

/* A signal that came and has a trap, or the interactive ^C: what stops `wait` and `read`; 0 if none. */
int trapped_signal(void)
{
	for (int sig = 1; sig < NSIG && pendingsigs; sig++)
		if (gotsig[sig] && ((traps[sig] && *traps[sig]) || sig == SIGINT))
			return sig;
	return 0;
}

void dotrap(void)
{
	pendingsigs = 0;
	for (int sig = 1; sig < NSIG; sig++) {
		if (!gotsig[sig])
			continue;
		gotsig[sig] = 0;
		if (traps[sig] && *traps[sig]) {
			int saved = laststatus;
			char *action = xstrdup(traps[sig]);    /* the trap may replace itself */
			run_string(action);
			free(action);
			if (evalskip != SKIP_ABORT)
				laststatus = saved;            /* POSIX 2.14 trap: $? is kept around it */
		} else if (sig == SIGINT && rootshell && opt.interactive) {
			laststatus = 128 + SIGINT;
			experr = 1;
			evalskip = SKIP_ABORT;
		}
	}
}

void exittrap(int status)
{
	char *action = traps[0];

	if (!action || !*action)
		return;
	traps[0] = NULL;                           /* an `exit` in it does not run it again */
	laststatus = status;
	evalskip = SKIP_NONE;
	experr = 0;
	run_string(action);
	free(action);
}

/* EXIT, 0, a signal's name (with or without SIG, any case) or number; -1 if none. */
static int condition(const char *s)
{
	if (strcmp(s, "EXIT") == 0 || strcmp(s, "0") == 0)
		return 0;
	int sig = signame_to_num(s);
	return sig > 0 ? sig : -1;
}

/* `trap` with no operands: each trap as a command that sets it again (POSIX's form). */
static void listtraps(void)
{
	for (int sig = 0; sig < NSIG; sig++) {
		if (!traps[sig])
			continue;
		fputs("trap -- '", stdout);
		for (const char *p = traps[sig]; *p; p++)
			*p == '\'' ? fputs("'\\''", stdout) : putchar(*p);
		fputs("' ", stdout);
		if (sig == 0)
			fputs("EXIT", stdout);
		else
			for (const char *p = sys_signame[sig]; *p; p++)
				putchar(toupper((unsigned char)*p));
		putchar('\n');
	}
}

/*
 * trap [--] [action condition ...] (POSIX 2.14 trap; FreeBSD's trapcmd). A first operand that
 * is a number makes every operand a condition to reset. A bad condition: "sh: trap: bad
 * signal FOO" and status 1, the others are still set. SIGKILL cannot be trapped.
 */
int bi_trap(int argc, char **argv)
{
	int i = 1, status = 0;
	const char *action;

	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	if (i == argc) {
		listtraps();
		return 0;
	}
	action = argv[i];
	if (isdigit((unsigned char)action[0]) && strspn(action, "0123456789") == strlen(action))
		action = NULL;
	else if (strcmp(argv[i++], "-") == 0)
		action = NULL;
	if (i == argc) {
		fprintf(stderr, "sh: trap: usage: trap [action condition ...]\n");
		return 2;
	}
	for (; i < argc; i++) {
		int sig = condition(argv[i]);
		if (sig < 0 || sig == SIGKILL) {
			fprintf(stderr, "sh: trap: %s %s\n", sig < 0 ? "bad signal" : "cannot trap", argv[i]);
			status = 1;
			continue;
		}
		if (sig > 0 && sigmode[sig] == S_HARD_IGN)
			continue;                          /* ignored on entry: stays so, silently (POSIX) */
		free(traps[sig]);
		traps[sig] = action ? xstrdup(action) : NULL;
		if (sig > 0)
			setsignal(sig);
	}
	return status;
}
