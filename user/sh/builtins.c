/*
 * builtins.c: the utilities the shell runs itself (POSIX 2.14 Special Built-In Utilities,
 * and the regular ones that must change the shell: cd, read, wait).
 *
 *   find_builtin(name, &special)   the function for a built-in, or NULL; special says
 *                                  whether it is one of POSIX's special built-ins, which
 *                                  are found before functions and keep NAME=value prefixes
 *
 * Special: break continue return : . source eval exit export set shift unset (exec is in
 * exec.c: it needs the command's redirections). Regular: cd pwd read wait test [ umask.
 * Each returns its exit status; exit does not return. A usage error is status 2.
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

static int bi_export(int argc, char **argv)
{
	int i = 1, status = 0;

	if (i < argc && strcmp(argv[i], "-p") == 0)
		i++;
	if (i == argc)
		listvars(1);
	for (; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		size_t len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		char *name = xstrndup(argv[i], len);
		if (!isname(name, len)) {
			fprintf(stderr, "sh: export: %s: bad variable name\n", name);
			status = 1;
		} else {
			setvar(name, eq ? eq + 1 : NULL, V_EXPORT);
		}
		free(name);
	}
	return status;
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

static int bi_shift(int argc, char **argv)
{
	long n = argc > 1 ? number("shift", argv[1]) : 1;
	struct words rest = { NULL, 0 };

	if (n < 0)
		return 2;
	if (n > posparams.n) {
		fprintf(stderr, "sh: shift: can't shift that many\n");
		return 1;
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
		if (functions)
			unset_function(argv[i]);
		else
			unsetvar(argv[i]);
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
		long pid = number("wait", argv[i]);
		if (pid <= 0)
			return 2;
		if (waitpid(pid, &status, 0) < 0)
			st = 127;
		else
			st = exitcode(status, 0);
	}
	return st;
}

/* ---- read (POSIX XCU read) ----------------------------------------------------------------------- */

/*
 * One line from fd 0, a byte at a time so that what follows stays for the next reader. Without
 * -r a backslash quotes the next character (quoted[i] = 1) and backslash-newline continues
 * the line. 0 at the end of the input with nothing read.
 */
static int readline0(int raw, struct str *line, struct str *quoted)
{
	int got = 0, escape = 0;
	char c;

	while (readchar(&c)) {
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
	return got;
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
	for (int k = i; k < argc; k++)
		if (!isname(argv[k], strlen(argv[k]))) {
			fprintf(stderr, "sh: read: %s: bad variable name\n", argv[k]);
			return 2;
		}
	status = readline0(raw, &line, &quoted) ? 0 : 1;
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
	{ "set", bi_set, 1 },        { "shift", bi_shift, 1 },      { "unset", bi_unset, 1 },
	{ "cd", bi_cd, 0 },          { "pwd", bi_pwd, 0 },          { "read", bi_read, 0 },
	{ "wait", bi_wait, 0 },      { "test", test_main, 0 },      { "[", test_main, 0 },
	{ "umask", bi_umask, 0 },
	{ NULL, NULL, 0 },
};

builtin_fn *find_builtin(const char *name, int *special)
{
	for (const struct builtin *b = builtins; b->name; b++)
		if (strcmp(b->name, name) == 0) {
			*special = b->special;
			return b->fn;
		}
	return NULL;
}
