/*
 * exec.c: running a parsed command (POSIX 2.9 Shell Commands, 2.7 Redirection).
 *
 *   run_node(n)          run a tree in this shell; its exit status, also left in $?
 *   define_function, unset_function   the function table (POSIX 2.9.5)
 *   exec_command(argv, env)   in a child: find the program on $PATH and exec it
 *   xfork, waitfor, exitcode  fork with stdio flushed; a child's status as $? (128+signal)
 *   bi_command           command -v / -V (XCU command)
 *
 * Simple commands (POSIX 2.9.1): the words are expanded (expand.c), then the NAME=value
 * prefixes, left to right, each set before the next is expanded (for good with no command or
 * a special built-in, else only for the command); then the command is, in POSIX's order
 * (2.9.1.1): a special built-in, a function, a built-in, or a program run in a child.
 * `command name` skips the functions and makes a special built-in a regular one. Pipelines
 * and ( ... ) fork; { ... }, for, case, if, while and until run in this shell, with their
 * redirections applied around them and undone after. Between commands run_node runs the
 * traps of signals that came (trap.c).
 *
 * Unwinding: break, continue and return set evalskip (builtins.c); lists and loops stop and
 * return as soon as it is set, each loop or function call taking the part meant for it.
 * SKIP_ABORT (an expansion error at the prompt) goes all the way back to the prompt.
 *
 * Jobs and ^C: an interactive shell puts each job it waits for (a program, a pipeline, a
 * subshell, a command substitution) in a process group of its own and makes that the console's
 * foreground group while it waits (fork_job, wait_job, job_end). ^C then ends the job, not the
 * shell, and a job killed by SIGINT abandons the rest of the command line, so ^C also stops a
 * loop at the prompt. Between jobs the foreground group is the shell's own (console_foreground):
 * ^C there reaches the shell, which catches SIGINT and abandons the command line (trap.c), so a
 * loop of built-ins stops too. A script's shell is not interactive: its children stay in its
 * group, the group of the job it is part of. Background jobs (&) stay in the shell's group and
 * ignore SIGINT (POSIX 2.11), so ^C does not reach them.
 *
 * set -e (POSIX 2.14, set): a simple command, pipeline or subshell that fails ends a
 * non-interactive shell, except where its status is tested: the condition of if, while and
 * until, the left of && and ||, and after ! (e_tested counts those we are inside of).
 * FreeBSD's sh ignores -e in an interactive shell too ("in non-interactive mode": bin/sh/sh.1,
 * "-e errexit", freebsd-src commit b4f7fd79a518), so a failed command cannot end the console's
 * shell.
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
#include <sys/ioctl.h>
#include <sys/stat.h>
#include "sh.h"

int loopdepth, funcdepth, dotdepth;
static int e_tested;

/* ---- processes ------------------------------------------------------------------------------ */

int exitcode(int status, int report)
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

/*
 * Every fork of the shell: the child starts with the default traps (trap.c), and a background
 * one ignoring INT and QUIT. Signals are blocked across the fork until the child has its own
 * actions, so a signal sent to it at once (`cmd & kill $!`) finds them, not the shell's.
 */
pid_t xfork(int background)
{
	sigset_t all, old;
	pid_t pid;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	fflush(NULL);
	if ((pid = fork()) < 0)
		warn("fork");
	if (pid == 0)
		signals_forked(background);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

int waitfor(pid_t pid, int report)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			warn("wait");
			return 127;
		}                          /* a trapped signal: its trap runs when the job is done */
	return exitcode(status, report);
}

/* ---- jobs: the console's foreground process group ------------------------------------------- */

static pid_t jobpgid;        /* the group of the job being started or waited for (0: none) */
static int   jobint;         /* a process of it was killed by SIGINT (^C) */
static pid_t shellpgid;      /* the interactive shell's own group: the console's foreground group
                                while it runs built-ins, so ^C reaches it (trap.c) */

void console_foreground(void)
{
	setpgid(0, 0);
	shellpgid = getpgrp();
	ioctl(0, TIOCSPGRP, &shellpgid);
}

pid_t fork_job(void)
{
	pid_t pid = xfork(0);

	if (!opt.interactive || pid < 0)
		return pid;
	if (pid == 0) {
		setpgid(0, jobpgid);          /* 0: a group of its own, the job's first process */
		return 0;
	}
	if (!jobpgid)
		jobpgid = pid;
	setpgid(pid, jobpgid);            /* also here: the child may not have run yet */
	ioctl(0, TIOCSPGRP, &jobpgid);    /* the console's ^C goes to the job from now on */
	return pid;
}

int wait_job(pid_t pid, int report)
{
	int status = waitfor(pid, report);

	jobint |= status == 128 + SIGINT;
	return status;
}

void job_end(void)
{
	if (!opt.interactive || !jobpgid)
		return;
	ioctl(0, TIOCSPGRP, &shellpgid);
	jobpgid = 0;
	if (jobint) {
		jobint = 0;
		laststatus = 128 + SIGINT;
		experr = 1;                   /* ^C: the rest of the command line does not run */
		evalskip = SKIP_ABORT;
	}
}

/* In a forked child: run n and exit with its status. */
static void run_in_child(struct node *n) __attribute__((noreturn));

/* ---- redirections (POSIX 2.7) ---------------------------------------------------------------- */

/* Saved descriptors, put back after a built-in or compound command (above 9, close-on-exec). */
struct saved { int fd, copy; };
#define NSAVE 16
#define HEREDOC_INLINE 4096   /* a body this small fits in a pipe (16 KB) without a writer process */

/* A here-document as a descriptor to read: a pipe holding its (expanded) body. */
static int heredoc_fd(struct redir *r)
{
	char *body = r->quoted ? xstrdup(r->word) : expand_heredoc(r->word);
	size_t len = strlen(body);
	int fds[2];
	pid_t pid = 0;

	if (experr || pipe(fds) < 0) {
		if (!experr)
			warn("here-document");
		free(body);
		return -1;
	}
	if (len > HEREDOC_INLINE && (pid = xfork(0)) < 0) {
		close(fds[0]);
		close(fds[1]);
		free(body);
		return -1;
	}
	if (pid == 0) {
		write(fds[1], body, len);
		if (len > HEREDOC_INLINE)
			_exit(0);
	}
	close(fds[1]);
	free(body);
	return fds[0];
}

static int open_redir(struct redir *r, const char *name)
{
	switch (r->kind) {
	case R_IN:      return open(name, O_RDONLY);
	case R_OUT:     return open(name, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	case R_APPEND:  return open(name, O_WRONLY | O_CREAT | O_APPEND, 0666);
	case R_RDWR:    return open(name, O_RDWR | O_CREAT, 0666);
	default:        return -1;
	}
}

/* n>&m, n<&m, n>&-: 0, or -1 after a message. */
static int dup_redir(struct redir *r, const char *name)
{
	char *end;
	long fd;

	if (strcmp(name, "-") == 0) {
		close(r->fd);
		return 0;
	}
	fd = strtol(name, &end, 10);
	if (!isdigit((unsigned char)name[0]) || *end || fd >= OPEN_MAX) {
		fprintf(stderr, "sh: %s: bad file descriptor in redirection\n", name);
		return -1;
	}
	if (fd != r->fd && dup2(fd, r->fd) < 0) {
		fprintf(stderr, "sh: %s: %s\n", name, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Apply redirections in this process. If save is given, the original descriptors are kept
 * there so restore_redirs can put them back. -1 on failure (after a message).
 */
static int apply_redirs(struct redir *r, struct saved *save, int *nsave)
{
	for (; r; r = r->next) {
		char *name = NULL;
		int fd;

		if (save) {
			if (*nsave == NSAVE) {
				fprintf(stderr, "sh: more than %d redirections\n", NSAVE);
				return -1;
			}
			save[*nsave].fd = r->fd;
			save[*nsave].copy = fcntl(r->fd, F_DUPFD, 10);
			if (save[*nsave].copy >= 0)
				fcntl(save[*nsave].copy, F_SETFD, FD_CLOEXEC);   /* not for the commands run */
			(*nsave)++;
		}
		if (r->kind == R_HEREDOC) {
			fd = heredoc_fd(r);
		} else {
			name = expand_word(r->word);
			if (experr) {
				free(name);
				return -1;
			}
			if (r->kind == R_DUP) {
				fd = dup_redir(r, name);
				free(name);
				if (fd < 0)
					return -1;
				continue;
			}
			if ((fd = open_redir(r, name)) < 0)
				fprintf(stderr, "sh: %s: %s\n", name, strerror(errno));
			free(name);
		}
		if (fd < 0)
			return -1;
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

/* ---- programs ------------------------------------------------------------------------------- */

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

/* Where programs are looked for: $PATH, or DEFPATH for `command -p` (set around its command). */
static const char *searchpath;

static const char *pathvalue(void)
{
	return searchpath ? searchpath : getvar("PATH") ? getvar("PATH") : DEFPATH;
}

void exec_command(char **argv, char **env)
{
	const char *path;
	char full[PATH_MAX];
	int err = ENOENT;

	if (strchr(argv[0], '/')) {
		try_exec(argv[0], argv, env);
		err = errno;
	} else {
		path = pathvalue();
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

/* ---- functions (POSIX 2.9.5) ----------------------------------------------------------------- */

struct func {
	char        *name;
	struct node *body;     /* a copy: the command line that defined it is freed */
	int          refs;     /* the table's reference, plus one per call running it */
	struct func *next;
};

static struct func *funcs;

static void release(struct func *f)
{
	if (--f->refs == 0) {
		free(f->name);
		freenode(f->body);
		free(f);
	}
}

static struct func *findfunc(const char *name)
{
	for (struct func *f = funcs; f; f = f->next)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

int unset_function(const char *name)
{
	for (struct func **pp = &funcs; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->name, name) == 0) {
			struct func *f = *pp;
			*pp = f->next;
			release(f);       /* a running call keeps its body until it returns */
			return 0;
		}
	return -1;
}

void define_function(const char *name, const struct node *body)
{
	struct func *f = xmalloc(sizeof *f);

	unset_function(name);
	f->name = xstrdup(name);
	f->body = copynode(body);
	f->refs = 1;
	f->next = funcs;
	funcs = f;
}

/* ---- command -v and -V ------------------------------------------------------------------------ */

static const char *const reserved[] = {
	"!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for", "if", "in", "then", "until",
	"while", NULL,
};

static int isreserved(const char *name)
{
	for (int i = 0; reserved[i]; i++)
		if (strcmp(reserved[i], name) == 0)
			return 1;
	return 0;
}

/* The program name would run: itself if it has a slash, else the first match on the path. */
static int find_program(const char *name, char *full, size_t size)
{
	struct stat st;
	const char *path = pathvalue();

	if (strchr(name, '/')) {
		strlcpy(full, name, size);
		return stat(full, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) ? 0 : -1;
	}
	while (*path) {
		size_t len = strcspn(path, ":");
		snprintf(full, size, "%.*s%s%s", (int)len, path, len ? "/" : "", name);
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
			return 0;
		path += len + (path[len] == ':');
	}
	return -1;
}

/*
 * command -v name ... and command -V name ...: what each name would run, in FreeBSD's words
 * (bin/sh/exec.c, typecmd_impl): "ls is /bin/ls", "cd is a shell builtin", "shift is a
 * special shell builtin", "f is a shell function", "if is a shell keyword"; -v prints just
 * the name or the path. A name not found: "name: not found" with -V, and status 127. -p looks
 * on the default path. (`command name args` itself is run_simple's.)
 */
int bi_command(int argc, char **argv)
{
	int i = 1, verbose = -1, bad = 0, status = 0, special;
	char full[PATH_MAX];

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		for (const char *o = argv[i] + 1; *o; o++) {
			if (*o == 'v' || *o == 'V')
				verbose = *o == 'V';
			else if (*o == 'p')
				searchpath = DEFPATH;
			else
				bad = 1;
		}
	}
	if (bad || verbose < 0 || i == argc) {
		searchpath = NULL;
		fprintf(stderr, "sh: command: usage: command [-p] [-v | -V] name ...\n");
		return 2;
	}
	for (; i < argc; i++) {
		const char *name = argv[i], *path = NULL;
		const char *kind = isreserved(name) ? "a shell keyword" : findfunc(name) ? "a shell function" :
		                   strcmp(name, "exec") == 0 ? "a special shell builtin" :
		                   find_builtin(name, &special) ? (special ? "a special shell builtin" : "a shell builtin") :
		                   NULL;
		if (!kind && find_program(name, full, sizeof full) == 0)
			path = full;
		if (!kind && !path) {
			if (verbose)
				fprintf(stderr, "%s: not found\n", name);
			status = 127;
		} else if (verbose) {
			printf("%s is %s\n", name, kind ? kind : path);
		} else {
			printf("%s\n", kind ? name : path);
		}
	}
	searchpath = NULL;
	return status;
}

/* ---- simple commands (POSIX 2.9.1) ------------------------------------------------------------ */

/* A NAME=value word set for the time of a command (a built-in, a function, a program). */
struct tempvar { char *name, *old; int wasset; };

static void restoretemps(struct tempvar *t, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		if (t[i].wasset)
			setvar(t[i].name, t[i].old, 0);
		else
			unsetvar(t[i].name);
		free(t[i].name);
		free(t[i].old);
	}
	free(t);
}

/*
 * The command's NAME=value words, in order: each is expanded after the ones before it are set,
 * so `a=1 b=$a` gives b the value 1 (POSIX 2.9.1 step 4; every shell does it so). They stay
 * set (persist: no command name, or a special built-in) or only for the command: then *tp
 * gets the old values for restoretemps and *nt their number. assigns gets NAME=value each, for
 * a program's environment and set -x.
 */
static void set_assigns(struct node *n, int na, int persist, struct words *assigns, struct tempvar **tp,
                        int *nt)
{
	struct tempvar *t = persist ? NULL : xmalloc((na + 1) * sizeof *t);

	*nt = 0;
	for (int i = 0; i < na && !experr; i++) {
		char *eq = strchr(n->w.v[i], '='), *name = xstrndup(n->w.v[i], eq - n->w.v[i]);
		char *val = expand_word(eq + 1), *a;
		const char *old = getvar(name);
		if (!experr && t) {
			t[*nt].name = xstrdup(name);
			t[*nt].wasset = old != NULL;
			t[*nt].old = old ? xstrdup(old) : NULL;
		}
		if (!experr && setvar(name, val, 0) == 0) {
			*nt += t != NULL;
			a = xmalloc(strlen(name) + strlen(val) + 2);
			sprintf(a, "%s=%s", name, val);
			addword(assigns, a);
		} else if (t && !experr) {
			free(t[*nt].name);
			free(t[*nt].old);
		}
		free(name);
		free(val);
	}
	*tp = t;
}

/* set -x: the command as it will run, on stderr after $PS4 (POSIX 2.5.3). */
static void trace(struct words *assigns, struct words *args)
{
	const char *ps4 = getvar("PS4");

	fputs(ps4 ? ps4 : "+ ", stderr);
	for (int i = 0; i < assigns->n; i++)
		fprintf(stderr, "%s%s", assigns->v[i], i + 1 < assigns->n || args->n ? " " : "");
	for (int i = 0; i < args->n; i++)
		fprintf(stderr, "%s%s", args->v[i], i + 1 < args->n ? " " : "");
	fputc('\n', stderr);
}

/* The number of leading NAME=value words. */
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

int inspecial;

/* A built-in: in this shell, with the redirections undone afterwards. */
static int run_builtin(builtin_fn *fn, struct words *args, struct node *n, int special)
{
	struct saved save[NSAVE];
	int nsave = 0, status, outer = inspecial;

	if (apply_redirs(n->redir, save, &nsave) < 0) {
		restore_redirs(save, nsave);
		return experr ? 2 : 1;
	}
	inspecial = special;
	status = fn(args->n, args->v);
	inspecial = outer;
	fflush(NULL);
	restore_redirs(save, nsave);
	return status;
}

/* A function: its own $1..., run in this shell (POSIX 2.9.5). */
static int call_function(struct func *f, struct words *args, struct node *n)
{
	struct saved save[NSAVE];
	struct words saved;
	int nsave = 0, status, outerloops = loopdepth;

	if (apply_redirs(n->redir, save, &nsave) < 0) {
		restore_redirs(save, nsave);
		return experr ? 2 : 1;
	}
	saved = saveparams();
	setparams(args->v + 1, args->n - 1);
	f->refs++;
	funcdepth++;
	loopdepth = 0;              /* break inside a function does not leave the caller's loop */
	status = run_node(f->body);
	if (evalskip == SKIP_FUNC) {
		evalskip = SKIP_NONE;
		status = laststatus;
	}
	loopdepth = outerloops;
	funcdepth--;
	release(f);
	restoreparams(&saved);
	restore_redirs(save, nsave);
	return status;
}

/* A program: fork (unless already in a child that may become it) and exec. */
static int run_program(struct words *args, struct node *n, struct words *assigns, int inchild)
{
	pid_t pid = inchild ? 0 : fork_job();
	int status;

	if (pid < 0)
		return 2;
	if (pid == 0) {
		if (apply_redirs(n->redir, NULL, NULL) < 0)
			_exit(experr ? 2 : 1);
		exec_command(args->v, makeenv(assigns->v, assigns->n));
	}
	status = wait_job(pid, 1);
	job_end();
	return status;
}

/* exec [command [args]]: replace the shell; with no command, the redirections stay (POSIX 2.14). */
static int run_exec(struct words *args, struct node *n, struct words *assigns)
{
	if (apply_redirs(n->redir, NULL, NULL) < 0)
		return experr ? 2 : 1;
	if (args->n > 1) {
		fflush(NULL);
		exec_command(args->v + 1, makeenv(assigns->v, assigns->n));
	}
	return 0;
}

/* Only assignments (set already) and redirections, e.g. "> file". */
static int run_assignments(struct node *n)
{
	struct saved save[NSAVE];
	int nsave = 0, status = substatus;   /* POSIX 2.9.1: the last command substitution's */

	if (n->redir) {
		if (apply_redirs(n->redir, save, &nsave) < 0)
			status = experr ? 2 : 1;
		restore_redirs(save, nsave);
	}
	return status;
}

/*
 * `command [-p] name args`: the words after it name the command, found without functions and
 * run as a regular built-in would be (XCU command). Returns the index of the name in args
 * (args->n when there is none); -p searches the default PATH. -v and -V are bi_command's.
 */
static int command_prefix(struct words *args, int *defpath)
{
	int i = 0;

	while (i < args->n && strcmp(args->v[i], "command") == 0) {
		int j = i + 1, p = 0;
		for (; j < args->n && args->v[j][0] == '-' && args->v[j][1]; j++) {
			if (strcmp(args->v[j], "--") == 0) {
				j++;
				break;
			}
			if (strspn(args->v[j] + 1, "p") != strlen(args->v[j] + 1))
				return i;           /* -v, -V or a bad option: the built-in says */
			p = 1;
		}
		*defpath |= p;
		i = j;
	}
	return i;
}

/* inchild: we are a forked child already (a pipeline stage, a background job): exec directly. */
static int run_simple(struct node *n, int inchild)
{
	struct words args = { NULL, 0 }, assigns = { NULL, 0 }, cmd;
	int na = nassign(n), status, special = 0, viacommand = 0, defpath = 0, nt = 0, first;
	struct tempvar *t = NULL;
	builtin_fn *fn = NULL;
	struct func *f = NULL;

	substatus = 0;
	expand_fields(n->w.v + na, n->w.n - na, &args);       /* the words first: POSIX 2.9.1 */
	if (experr) {
		status = laststatus;          /* 2 (sh_abort), or 130 after ^C in a $(...) */
		goto out;
	}
	first = command_prefix(&args, &defpath);
	viacommand = first > 0;
	cmd.v = args.v + first;
	cmd.n = args.n - first;
	if (cmd.n > 0) {
		fn = find_builtin(cmd.v[0], &special);
		special &= !viacommand;
		f = fn && special ? NULL : viacommand ? NULL : findfunc(cmd.v[0]);
	}
	set_assigns(n, na, cmd.n == 0 || special || (cmd.n > 0 && strcmp(cmd.v[0], "exec") == 0), &assigns, &t,
	            &nt);
	if (experr) {
		status = laststatus;
		goto out;
	}
	if (opt.xtrace)
		trace(&assigns, &args);
	searchpath = defpath ? DEFPATH : NULL;
	if (cmd.n == 0)
		status = viacommand ? 0 : run_assignments(n);
	else if (strcmp(cmd.v[0], "exec") == 0)
		status = run_exec(&cmd, n, &assigns);
	else if (fn && special)
		status = run_builtin(fn, &cmd, n, 1);
	else if (f)
		status = call_function(f, &cmd, n);
	else if (fn)
		status = run_builtin(fn, &cmd, n, 0);
	else
		status = run_program(&cmd, n, &assigns, inchild);
	searchpath = NULL;
out:
	if (t)
		restoretemps(t, nt);
	freewords(&args);
	freewords(&assigns);
	return status;
}

static void run_in_child(struct node *n)
{
	opt.interactive = 0;
	if (n->type == N_CMD)
		sh_exit(run_simple(n, 1));
	sh_exit(run_node(n));
}

/* ---- pipelines, loops and compound commands (POSIX 2.9.2, 2.9.4) ------------------------------ */

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
		fprintf(stderr, "sh: pipeline too long\n");
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
		if ((pids[i] = fork_job()) == 0) {
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
		status = wait_job(pids[i], i == ns - 1);
	job_end();
	return status;
}

/* After a loop body left evalskip set: 1 to go on with the next iteration, 0 to leave. */
static int loop_goes_on(void)
{
	if ((evalskip == SKIP_CONT || evalskip == SKIP_BREAK) && --skipcount <= 0) {
		int cont = evalskip == SKIP_CONT;
		evalskip = SKIP_NONE;
		return cont;
	}
	return 0;          /* break 2, return, an abort: for an outer loop or the caller */
}

/* A condition: its status is tested, so set -e does not apply inside it. */
static int run_test(struct node *n)
{
	int status;

	e_tested++;
	status = run_node(n);
	e_tested--;
	return status;
}

static int run_for(struct node *n)
{
	struct words list = { NULL, 0 };
	int status = 0;

	if (n->forall)
		for (int i = 0; i < posparams.n; i++)
			addword(&list, xstrdup(posparams.v[i]));
	else
		expand_fields(n->w.v, n->w.n, &list);
	loopdepth++;
	for (int i = 0; i < list.n && !experr; i++) {
		setvar(n->var, list.v[i], 0);
		status = run_node(n->r);
		if (evalskip && !loop_goes_on())
			break;
	}
	loopdepth--;
	freewords(&list);
	return experr ? 2 : status;
}

static int run_while(struct node *n)
{
	int status = 0;

	loopdepth++;
	for (;;) {
		int cond = run_test(n->l);
		if (evalskip) {
			if (loop_goes_on())
				continue;
			break;
		}
		if ((cond == 0) != (n->type == N_WHILE))
			break;
		status = run_node(n->r);
		if (evalskip && !loop_goes_on())
			break;
	}
	loopdepth--;
	return status;
}

/* case: the first item with a pattern matching the word runs (POSIX 2.9.4.3). */
static int run_case(struct node *n)
{
	char *word = expand_word(n->w.v[0]);
	int status = 0;

	for (struct caseitem *c = n->items; c && !experr; c = c->next) {
		for (int i = 0; i < c->pats.n && !experr; i++) {
			char *pat = expand_pattern(c->pats.v[i]);
			int match = !experr && pmatch(pat, word);
			free(pat);
			if (match) {
				status = c->body ? run_node(c->body) : 0;
				free(word);
				return status;
			}
		}
	}
	free(word);
	return experr ? 2 : 0;
}

static int run_compound(struct node *n)
{
	switch (n->type) {
	case N_BRACE:
		return run_node(n->l);
	case N_FOR:
		return run_for(n);
	case N_IF:
		if (run_test(n->l) == 0)
			return evalskip ? laststatus : run_node(n->r);
		return evalskip ? laststatus : n->x ? run_node(n->x) : 0;
	case N_WHILE:
	case N_UNTIL:
		return run_while(n);
	case N_CASE:
		return run_case(n);
	default:
		return 0;
	}
}

/* A compound command in this shell, with its redirections in force around it. */
static int run_redirected(struct node *n)
{
	struct saved save[NSAVE];
	int nsave = 0, status;

	if (apply_redirs(n->redir, save, &nsave) == 0)
		status = run_compound(n);
	else
		status = experr ? 2 : 1;
	restore_redirs(save, nsave);
	return status;
}

static int run_background(struct node *n)
{
	pid_t pid = xfork(1);

	if (pid == 0) {
		/* without job control, an asynchronous list reads /dev/null (POSIX 2.9.3.1) */
		int fd = open("/dev/null", O_RDONLY);
		if (fd > 0) {
			dup2(fd, 0);
			close(fd);
		}
		run_in_child(n->l);
	}
	if (pid < 0)
		return 2;
	lastbg = pid;
	return 0;
}

static int run_subshell(struct node *n)
{
	pid_t pid = fork_job();
	int status;

	if (pid == 0) {
		if (apply_redirs(n->redir, NULL, NULL) < 0)
			_exit(experr ? 2 : 1);
		run_in_child(n->l);
	}
	if (pid < 0)
		return 2;
	status = wait_job(pid, 1);
	job_end();
	return status;
}

int run_node(struct node *n)
{
	int status = 0;

	if (!n)
		return 0;
	if (pendingsigs)
		dotrap();                  /* between commands: a loop of built-ins is interrupted too */
	if (evalskip)
		return laststatus;
	switch (n->type) {
	case N_CMD:   status = run_simple(n, 0); break;
	case N_PIPE:  status = run_pipeline(n); break;
	case N_NOT:   status = run_test(n->l) == 0; break;
	case N_AND:
	case N_OR:
		status = run_test(n->l);
		if (!evalskip && (status == 0) == (n->type == N_AND))
			status = run_node(n->r);
		break;
	case N_SEQ:
		run_node(n->l);
		status = evalskip ? laststatus : run_node(n->r);
		break;
	case N_BG:    status = run_background(n); break;
	case N_SUB:   status = run_subshell(n); break;
	case N_FUNC:  define_function(n->var, n->l); break;
	default:      status = run_redirected(n); break;
	}
	if (evalskip && n->type != N_CMD)
		status = laststatus;
	laststatus = status;
	if (opt.errexit && status != 0 && !e_tested && !opt.interactive && !evalskip &&
	    (n->type == N_CMD || n->type == N_PIPE || n->type == N_SUB))
		sh_exit(status);
	return status;
}
