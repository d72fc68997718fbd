/*
 * builtins.c: the utilities the shell runs itself (POSIX 2.14 Special Built-In Utilities,
 * and the regular ones that must change the shell: cd, read, wait).
 *
 *   find_builtin(name, &special)   the function for a built-in, or NULL; special says
 *                                  whether it is one of POSIX's special built-ins, which
 *                                  are found before functions and keep NAME=value prefixes
 *
 * Special: break continue return : . source eval exit export readonly set shift trap unset
 * (exec is in exec.c: it needs the command's redirections; trap is trap.c's). Regular: cd pwd
 * read wait getopts command (exec.c) test [ umask.
 * Each returns its exit status; exit does not return. A usage error is status 2. An error of a
 * special built-in (shift past the end) also ends a script, as POSIX 2.8.1 says, unless it ran
 * through `command` (special_error).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <libutil.h>
#include "sh.h"
#include "../bin/test.h"

/* A non-negative decimal operand (break 2, exit 3, shift 1); -1 after a message if bad. */
static long number(const char *cmd, const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (!*s || *end || n < 0 || errno) {
		fprintf(stderr, "sh: %s: %s: bad number\n", cmd, s);
		return -1;
	}
	return n;
}

/* An error in a special built-in: a script ends (status 2); through `command` it is only a status. */
static int special_error(void)
{
	if (inspecial)
		sh_abort();
	return 2;
}

/* ---- control: break continue return exit ----------------------------------------------------- */

/* break [n], continue [n] (POSIX 2.14): leave (or go on with) the n-th enclosing loop. */
static int bi_loopctl(int argc, char **argv)
{
	long n = argc > 1 ? number(argv[0], argv[1]) : 1;

	if (n < 0)
		return 2;
	if (n == 0) {
		fprintf(stderr, "sh: %s: 0: bad number\n", argv[0]);
		return 2;
	}
	if (loopdepth == 0) {
		fprintf(stderr, "sh: %s: not in a loop\n", argv[0]);
		return 1;
	}
	evalskip = argv[0][0] == 'b' ? SKIP_BREAK : SKIP_CONT;
	skipcount = n > loopdepth ? loopdepth : n;
	return 0;
}

/* return [n]: end the function (or the . script) with status n, or $? */
static int bi_return(int argc, char **argv)
{
	long n = argc > 1 ? number("return", argv[1]) : laststatus;

	if (funcdepth == 0 && dotdepth == 0) {
		fprintf(stderr, "sh: return: not in a function or a . script\n");
		return 1;
	}
	if (n < 0)
		return 2;
	laststatus = n & 0xff;
	evalskip = SKIP_FUNC;
	return laststatus;
}

static int bi_exit(int argc, char **argv)
{
	long n = argc > 1 ? number("exit", argv[1]) : laststatus;

	sh_exit(n < 0 ? 2 : n & 0xff);
}

static int bi_colon(int argc, char **argv)
{
	return 0;
}

/* ---- variables: export set shift unset ------------------------------------------------------- */

/* export and readonly [-p] [name[=value] ...]: set the flag (and the value); none: list them. */
static int setflags(int argc, char **argv, int flag)
{
	int i = 1, status = 0;

	if (i < argc && strcmp(argv[i], "-p") == 0)
		i++;
	if (i == argc)
		listvars(flag);
	for (; i < argc && !experr; i++) {
		char *eq = strchr(argv[i], '=');
		size_t len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		char *name = xstrndup(argv[i], len);
		if (!isname(name, len)) {
			fprintf(stderr, "sh: %s: %s: bad variable name\n", argv[0], name);
			status = 1;
		} else if (setvar(name, eq ? eq + 1 : NULL, flag) < 0) {
			status = 2;
		}
		free(name);
	}
	return status;
}

static int bi_export(int argc, char **argv)
{
	return setflags(argc, argv, V_EXPORT);
}

/* readonly (POSIX 2.14): the value cannot change and the variable cannot be unset. */
static int bi_readonly(int argc, char **argv)
{
	return setflags(argc, argv, V_READONLY);
}

/* One option letter of set (and of sh's command line): 0, or -1 if unknown. */
int setoption(char c, int on)
{
	switch (c) {
	case 'e': opt.errexit = on; return 0;
	case 'f': opt.noglob = on; return 0;
	case 'u': opt.nounset = on; return 0;
	case 'x': opt.xtrace = on; return 0;
	}
	return -1;
}

/* set [-efux] [+efux] [--] [arg ...]: options, and $1... when args are given. */
static int bi_set(int argc, char **argv)
{
	int i = 1;

	if (argc == 1) {
		listvars(0);
		return 0;
	}
	for (; i < argc && (argv[i][0] == '-' || argv[i][0] == '+') && argv[i][1]; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		for (const char *o = argv[i] + 1; *o; o++)
			if (setoption(*o, argv[i][0] == '-') < 0) {
				fprintf(stderr, "sh: set: %c%c: unknown option (known: -e -f -u -x)\n", argv[i][0], *o);
				return 2;
			}
	}
	if (i < argc || (i > 1 && strcmp(argv[i - 1], "--") == 0))
		setparams(argv + i, argc - i);
	return 0;
}

/* shift [n] (POSIX 2.14): past the end is an error that ends a script, as in FreeBSD's sh and dash. */
static int bi_shift(int argc, char **argv)
{
	long n = argc > 1 ? number("shift", argv[1]) : 1;
	struct words rest = { NULL, 0 };

	if (n < 0)
		return special_error();
	if (n > posparams.n) {
		fprintf(stderr, "sh: shift: can't shift that many\n");
		return special_error();
	}
	for (int i = n; i < posparams.n; i++)
		addword(&rest, xstrdup(posparams.v[i]));
	restoreparams(&rest);
	return 0;
}

/* unset [-f | -v] name ...: variables, or functions with -f. */
static int bi_unset(int argc, char **argv)
{
	int i = 1, functions = 0;

	if (i < argc && (strcmp(argv[i], "-f") == 0 || strcmp(argv[i], "-v") == 0))
		functions = argv[i++][1] == 'f';
	for (; i < argc; i++) {
		if (functions) {
			unset_function(argv[i]);
		} else if (unsetvar(argv[i]) < 0) {
			fprintf(stderr, "sh: unset: %s: is read only\n", argv[i]);
			return special_error();
		}
	}
	return 0;
}

/* ---- running text: eval . source --------------------------------------------------------------- */

static int bi_eval(int argc, char **argv)
{
	struct str text = { NULL, 0, 0 };

	for (int i = 1; i < argc; i++) {
		if (i > 1)
			sputc(&text, ' ');
		sputs(&text, argv[i]);
	}
	run_string(text.s ? text.s : "");
	free(text.s);
	return laststatus;
}

/* . file [arg ...]: a name without a slash is looked for on $PATH, then as it is. */
static char *dotfile(const char *name)
{
	const char *path = getvar("PATH");
	char full[PATH_MAX], *text;
	struct stat st;

	if (!strchr(name, '/') && path) {
		while (*path) {
			size_t len = strcspn(path, ":");
			snprintf(full, sizeof full, "%.*s%s%s", (int)len, path, len ? "/" : "", name);
			if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && (text = readfile(full)))
				return text;
			path += len + (path[len] == ':');
		}
	}
	return readfile(name);
}

static int bi_dot(int argc, char **argv)
{
	struct words saved;
	char *text;

	if (argc < 2) {
		fprintf(stderr, "sh: %s: usage: %s file [arg ...]\n", argv[0], argv[0]);
		return 2;
	}
	if (!(text = dotfile(argv[1]))) {
		fprintf(stderr, "sh: %s: %s: %s\n", argv[0], argv[1], strerror(errno));
		return 1;
	}
	if (argc > 2) {
		saved = saveparams();
		setparams(argv + 2, argc - 2);
	}
	dotdepth++;
	laststatus = 0;
	run_string(text);
	dotdepth--;
	if (evalskip == SKIP_FUNC)
		evalskip = SKIP_NONE;
	if (argc > 2)
		restoreparams(&saved);
	free(text);
	return laststatus;
}

/* ---- cd pwd wait ------------------------------------------------------------------------------- */

/* cd [dir | -]: no operand is $HOME; - is $OLDPWD (and prints it). */
static int bi_cd(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getvar("HOME") ? getvar("HOME") : "/";
	char cwd[PATH_MAX], old[PATH_MAX];

	if (strcmp(dir, "-") == 0 && !(dir = getvar("OLDPWD"))) {
		fprintf(stderr, "sh: cd: OLDPWD not set\n");
		return 1;
	}
	if (!getcwd(old, sizeof old))
		old[0] = 0;
	if (chdir(dir) < 0) {
		fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (old[0])
		setvar("OLDPWD", old, 0);
	if (getcwd(cwd, sizeof cwd)) {
		setvar("PWD", cwd, 0);
		if (argc > 1 && strcmp(argv[1], "-") == 0)
			printf("%s\n", cwd);
	}
	return 0;
}

static int bi_pwd(int argc, char **argv)
{
	char cwd[PATH_MAX];

	if (!getcwd(cwd, sizeof cwd)) {
		fprintf(stderr, "sh: pwd: %s\n", strerror(errno));
		return 1;
	}
	printf("%s\n", cwd);
	return 0;
}

/*
 * wait [pid ...]: with no operand wait for every child, else for each given one. A signal with
 * a trap ends the wait at once with 128 + the signal; its trap runs next (POSIX 2.11).
 */
static int bi_wait(int argc, char **argv)
{
	int status, st = 0, sig;

	if (argc == 1) {
		while (wait(&status) > 0 || errno == EINTR)
			if ((sig = trapped_signal()))
				return 128 + sig;
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		long pid = number("wait", argv[i]);
		if (pid <= 0)
			return 2;
		while ((st = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			if ((sig = trapped_signal()))
				return 128 + sig;
		st = st < 0 ? 127 : exitcode(status, 0);
	}
	return st;
}

/* ---- getopts (POSIX XCU getopts) ----------------------------------------------------------------- */

/*
 * Where getopts is: the next word is number OPTIND (from 1), and within the word before it the
 * next letter is at optsub (0: that word is done). optind_set is the OPTIND getopts left; a
 * script that sets OPTIND itself (OPTIND=1 to parse again) starts a new parse at that word.
 */
static long optind_set = -1;
static size_t optsub;

/* getopts' result: name gets c, OPTIND the next word, OPTARG arg (NULL: unset). */
static int getopts_result(const char *name, char c, long ind, const char *arg)
{
	char buf[24] = { c, 0 };

	setvar(name, buf, 0);
	snprintf(buf, sizeof buf, "%ld", ind);
	setvar("OPTIND", buf, 0);
	optind_set = ind;
	if (arg)
		setvar("OPTARG", arg, 0);
	else
		unsetvar("OPTARG");
	return experr ? 2 : 0;
}

/*
 * getopts optstring name [arg ...]: the next option of the arguments ($1... without any), as
 * FreeBSD's sh does it (bin/sh/options.c, getopts): a letter of optstring, with its argument
 * in OPTARG if it is followed by ':' there; '?' and "Illegal option -x" for another letter, '?'
 * and "No arg for -x option" for a missing argument, or, with a leading ':' in optstring, no
 * message: '?' and OPTARG x, or ':' and OPTARG x. Status 1 (and name '?') after the last
 * option: at "--", a word not starting with '-', or "-" alone. OPTIND is the next word's number.
 */
static int bi_getopts(int argc, char **argv)
{
	char **args = argc > 3 ? argv + 3 : posparams.v;
	long nargs = argc > 3 ? argc - 3 : posparams.n, ind;
	const char *optstr, *opt, *w, *ov = getvar("OPTIND");
	int silent;
	char c, letter[2] = { 0, 0 };

	if (argc < 3) {
		fprintf(stderr, "sh: getopts: usage: getopts optstring name [arg ...]\n");
		return 2;
	}
	if (!isname(argv[2], strlen(argv[2]))) {
		fprintf(stderr, "sh: getopts: %s: bad variable name\n", argv[2]);
		return 2;
	}
	optstr = argv[1];
	silent = optstr[0] == ':';
	ind = ov && *ov ? strtol(ov, NULL, 10) : 1;
	if (ind < 1)
		ind = 1;
	if (ind != optind_set || ind < 2 || ind - 2 >= nargs)
		optsub = 0;                    /* OPTIND set by the script, or other arguments: start there */
	if (optsub == 0) {
		if (ind > nargs || args[ind - 1][0] != '-' || !args[ind - 1][1])
			return getopts_result(argv[2], '?', ind, NULL) ? 2 : 1;
		if (strcmp(args[ind - 1], "--") == 0)
			return getopts_result(argv[2], '?', ind + 1, NULL) ? 2 : 1;
		optsub = 1;
		ind++;
	}
	w = args[ind - 2];
	c = w[optsub++];
	letter[0] = c;
	if (!w[optsub])
		optsub = 0;
	opt = c == ':' ? NULL : strchr(optstr + silent, c);
	if (!opt) {
		if (!silent)
			fprintf(stderr, "Illegal option -%c\n", c);
		return getopts_result(argv[2], '?', ind, silent ? letter : NULL);
	}
	if (opt[1] != ':')
		return getopts_result(argv[2], c, ind, NULL);
	if (optsub) {
		const char *arg = w + optsub;
		optsub = 0;
		return getopts_result(argv[2], c, ind, arg);
	}
	if (ind <= nargs)
		return getopts_result(argv[2], c, ind + 1, args[ind - 1]);
	if (!silent)
		fprintf(stderr, "No arg for -%c option\n", c);
	return getopts_result(argv[2], silent ? ':' : '?', ind, silent ? letter : NULL);
}

/* ---- read (POSIX XCU read) ----------------------------------------------------------------------- */

/*
 * One line from fd 0, a byte at a time so that what follows stays for the next reader. Without
 * -r a backslash quotes the next character (quoted[i] = 1) and backslash-newline continues
 * the line. 0 at the end of the input with nothing read, -1 if a signal stopped it.
 */
static int readline0(int raw, struct str *line, struct str *quoted)
{
	int got = 0, escape = 0, r;
	char c;

	while ((r = readchar(&c)) > 0) {
		got = 1;
		if (escape) {
			escape = 0;
			if (c == '\n')
				continue;
			sputc(line, c);
			sputc(quoted, 1);
		} else if (c == '\\' && !raw) {
			escape = 1;
		} else if (c == '\n') {
			return 1;
		} else {
			sputc(line, c);
			sputc(quoted, 0);
		}
	}
	return r < 0 ? -1 : got;
}

static int isifs(const char *sep, const char *q, size_t i, const char *s)
{
	return !q[i] && strchr(sep, s[i]) != NULL;
}

/* read [-r] name ...: split the line at $IFS; the last name gets the rest (POSIX XCU read). */
static int bi_read(int argc, char **argv)
{
	struct str line = { NULL, 0, 0 }, quoted = { NULL, 0, 0 };
	const char *sep = getvar("IFS") ? getvar("IFS") : " \t\n";
	int i = 1, raw = 0, status;
	size_t pos = 0, len;

	if (i < argc && strcmp(argv[i], "-r") == 0) {
		raw = 1;
		i++;
	}
	if (i == argc) {
		fprintf(stderr, "sh: read: usage: read [-r] name ...\n");
		return 2;
	}
	for (int k = i; k < argc; k++) {
		if (!isname(argv[k], strlen(argv[k]))) {
			fprintf(stderr, "sh: read: %s: bad variable name\n", argv[k]);
			return 2;
		}
		if (isreadonly(argv[k])) {
			fprintf(stderr, "sh: read: %s: is read only\n", argv[k]);
			return 2;
		}
	}
	if ((status = readline0(raw, &line, &quoted)) < 0) {
		free(line.s);
		free(quoted.s);
		return 128 + trapped_signal();
	}
	status = status ? 0 : 1;
	sputn(&line, "", 0);
	sputn(&quoted, "", 0);
	len = line.len;
	for (; i < argc; i++) {
		size_t start, end;
		while (pos < len && isifs(sep, quoted.s, pos, line.s) && isspace((unsigned char)line.s[pos]))
			pos++;
		start = pos;
		if (i == argc - 1) {
			end = len;
			while (end > start && isifs(sep, quoted.s, end - 1, line.s) && isspace((unsigned char)line.s[end - 1]))
				end--;
			pos = len;
		} else {
			while (pos < len && !isifs(sep, quoted.s, pos, line.s))
				pos++;
			end = pos;
			while (pos < len && isifs(sep, quoted.s, pos, line.s) && isspace((unsigned char)line.s[pos]))
				pos++;
			if (pos < len && isifs(sep, quoted.s, pos, line.s))
				pos++;     /* one non-white-space delimiter */
		}
		char *val = xstrndup(line.s + start, end - start);
		setvar(argv[i], val, 0);
		free(val);
	}
	free(line.s);
	free(quoted.s);
	return status;
}

/*
 * umask [-S] [mask]: print the file-creation mask (0022; -S as u=rwx,g=rx,o=rx) or set it,
 * octal or symbolic: a symbolic mask says the permissions to allow, as FreeBSD's sh takes it.
 */
static int bi_umask(int argc, char **argv)
{
	int i = 1, symbolic = 0;
	mode_t mask = umask(0);
	void *set;

	umask(mask);
	if (i < argc && strcmp(argv[i], "-S") == 0) {
		symbolic = 1;
		i++;
	}
	if (i == argc && symbolic) {
		mode_t allow = ~mask & 0777;
		const char *who = "ugo";
		for (int k = 0; k < 3; k++, allow <<= 3)
			printf("%s%c=%s%s%s", k ? "," : "", who[k], (allow & 0400) ? "r" : "",
			       (allow & 0200) ? "w" : "", (allow & 0100) ? "x" : "");
		printf("\n");
		return 0;
	}
	if (i == argc) {
		printf("%04o\n", (unsigned)mask);
		return 0;
	}
	if (i + 1 != argc || (set = setmode(argv[i])) == NULL) {
		fprintf(stderr, "sh: umask: %s\n", i + 1 != argc ? "usage: umask [-S] [mask]" : "bad mask");
		return 2;
	}
	mask = argv[i][0] >= '0' && argv[i][0] <= '7' ? getmode(set, 0) & 0777 :
	       ~getmode(set, ~mask & 0777) & 0777;
	free(set);
	umask(mask);
	return 0;
}

/* ---- the table ----------------------------------------------------------------------------------- */

static const struct builtin {
	const char *name;
	builtin_fn *fn;
	int         special;
} builtins[] = {
	{ "break", bi_loopctl, 1 },  { "continue", bi_loopctl, 1 }, { "return", bi_return, 1 },
	{ ":", bi_colon, 1 },        { ".", bi_dot, 1 },            { "source", bi_dot, 1 },
	{ "eval", bi_eval, 1 },      { "exit", bi_exit, 1 },        { "export", bi_export, 1 },
	{ "readonly", bi_readonly, 1 }, { "set", bi_set, 1 },       { "shift", bi_shift, 1 },
	{ "trap", bi_trap, 1 },      { "unset", bi_unset, 1 },
	{ "cd", bi_cd, 0 },          { "pwd", bi_pwd, 0 },          { "read", bi_read, 0 },
	{ "wait", bi_wait, 0 },      { "getopts", bi_getopts, 0 },  { "command", bi_command, 0 },
	{ "test", test_main, 0 },    { "[", test_main, 0 },     { "umask", bi_umask, 0 },
	{ NULL, NULL, 0 },
};

/* The built-ins' names that start with prefix, into names (the prompt's completion). */
void builtin_names(const char *prefix, struct words *names)
{
	for (const struct builtin *b = builtins; b->name; b++)
		if (strncmp(b->name, prefix, strlen(prefix)) == 0)
			addword(names, xstrdup(b->name));
}

builtin_fn *find_builtin(const char *name, int *special)
{
	for (const struct builtin *b = builtins; b->name; b++)
		if (strcmp(b->name, name) == 0) {
			*special = b->special;
			return b->fn;
		}
	return NULL;
}
