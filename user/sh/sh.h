/*
 * sh.h: the interfaces between the parts of sh, wdrain's Bourne shell (user/sh/).
 *
 * The shell reads text, parses one complete command at a time into a tree of nodes, runs the
 * tree and frees it. The parts, one file each, in the order a command goes through them:
 *
 *   main.c      options, where the text comes from (-c, a script, stdin, the prompt), errors
 *   edit.c      the interactive prompt's line editor and history
 *   lex.c       tokens and the raw text of words (quotes kept; POSIX XCU 2.3)
 *   parse.c     the grammar (XCU 2.9, 2.10): nodes, here-documents, functions' bodies
 *   expand.c    word expansion (XCU 2.6): parameters, command substitution, field splitting
 *   arith.c     arithmetic expansion $((...)) (XCU 2.6.4)
 *   glob.c      pattern matching (XCU 2.13) for case, ${x#pat} and pathname expansion
 *   exec.c      running the tree: pipelines, lists, compound commands, redirections (XCU 2.7, 2.9)
 *   builtins.c  the built-in utilities (XCU 2.14 and cd, read, wait, getopts...)
 *   trap.c      signals and the trap built-in (XCU 2.11, 2.14 trap)
 *   var.c       variables, positional parameters, the environment for exec (XCU 2.5)
 *
 * "POSIX" in the comments is POSIX.1-2017 (IEEE Std 1003.1-2017), XCU chapter 2, "Shell
 * Command Language"; section numbers are that chapter's.
 *
 * Errors: a syntax error reports itself and the command line is not run (status 2). An error
 * during expansion (division by zero, ${x:?}, set -u) calls sh_error(): a non-interactive
 * shell exits with status 2 (POSIX 2.8.1), an interactive one abandons the command line
 * (evalskip = SKIP_ABORT unwinds every loop and list back to the prompt).
 */
#ifndef SH_H
#define SH_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

/* ---- small helpers (main.c) ---- */

struct str {                 /* a growable NUL-terminated string */
	char  *s;
	size_t len, cap;
};

struct words {               /* a growable NULL-terminated array of malloc'd strings */
	char **v;
	int    n;
};

void  *xmalloc(size_t n);
void  *xrealloc(void *p, size_t n);
char  *xstrdup(const char *s);
char  *xstrndup(const char *s, size_t n);
void   sputc(struct str *b, char c);
void   sputs(struct str *b, const char *s);
void   sputn(struct str *b, const char *s, size_t n);
char  *sfinish(struct str *b);              /* the string (never NULL); b is emptied */
void   addword(struct words *w, char *s);   /* takes s */
void   freewords(struct words *w);
void   sh_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* "sh: ...", sh_abort */
void   sh_abort(void);                      /* after an error: exit 2, or abandon the command line */
void   sh_exit(int status) __attribute__((noreturn));

#define DEFPATH "/bin:/sbin"          /* $PATH when none was given, and `command -p`'s */

/* ---- shell state (main.c) ---- */

struct shopts {
	int errexit;          /* set -e */
	int noglob;           /* set -f */
	int nounset;          /* set -u */
	int xtrace;           /* set -x */
	int interactive;      /* reading commands from a terminal, with a prompt */
};
extern struct shopts opt;
extern int   laststatus;   /* $? */
extern pid_t lastbg;       /* $! */
extern pid_t rootpid;      /* $$: the shell's process ID, a subshell's too (POSIX 2.5.2) */
extern char *arg0;         /* $0 */

/* Unwinding: set by break, continue, return and aborted commands; loops and lists stop. */
enum { SKIP_NONE, SKIP_BREAK, SKIP_CONT, SKIP_FUNC, SKIP_ABORT };
extern int evalskip;
extern int skipcount;      /* SKIP_BREAK/SKIP_CONT: how many loops are left to leave */

int   run_string(const char *text);    /* parse and run all of text (eval, ., $(...)); $? */
char *readfile(const char *path);       /* a whole file, or NULL with errno */
int   readchar(char *c);               /* one byte from fd 0 (so the rest stays for others); 0 at EOF,
                                          -1 when a signal (^C, a trapped one) stops the reading */
int   setoption(char c, int on);       /* set -e etc.: 0, or -1 for an unknown letter */

/* ---- variables (var.c) ---- */

#define V_EXPORT   0x1
#define V_READONLY 0x2

const char *getvar(const char *name);                   /* NULL if unset */
const char *getvarn(const char *name, size_t len);
int   setvar(const char *name, const char *value, int flags);   /* value NULL: only flags; -1: readonly */
int   unsetvar(const char *name);                       /* -1: readonly */
int   isreadonly(const char *name);
int   isname(const char *s, size_t len);
char **makeenv(char **extra, int nextra);               /* exported vars, then extra NAME=value */
void  listvars(int which);                              /* 0 (all set ones), V_EXPORT or V_READONLY */
void  import_environ(char **envp);

extern struct words posparams;                          /* $1 ... (owned) */
void  setparams(char **v, int n);                       /* replace $1...; copies v */
struct words saveparams(void);                          /* take them out (for a function call) */
void  restoreparams(struct words *saved);               /* free the current ones, put saved back */

/* ---- lexer (lex.c) ---- */

enum tok {
	T_WORD, T_PIPE, T_OR, T_AND, T_AMP, T_SEMI, T_DSEMI, T_NL, T_LPAREN, T_RPAREN, T_REDIR, T_EOF
};
enum rkind { R_IN, R_OUT, R_APPEND, R_DUP, R_RDWR, R_HEREDOC };

struct redir {
	int           fd;
	enum rkind    kind;
	char         *word;       /* the target; R_HEREDOC: the body */
	int           quoted;     /* R_HEREDOC: the delimiter was quoted, the body is taken as it is */
	int           striptabs;  /* R_HEREDOC: <<- */
	char         *delim;      /* R_HEREDOC while parsing: the delimiter */
	struct redir *next;
	struct redir *nextdoc;    /* parser's list of here-documents waiting for their body */
};

struct token {
	enum tok      type;
	char         *text;       /* T_WORD: the raw word, quotes kept (expanded when run) */
	int           rfd;        /* T_REDIR: the descriptor, and the kind */
	enum rkind    rkind;
	int           striptabs;  /* T_REDIR R_HEREDOC: <<- */
};

struct parser {
	const char   *src;        /* the text being parsed */
	size_t        pos;
	struct token  tok;        /* the current (peeked) token */
	int           havetok;
	const char   *err;        /* the first syntax error, or NULL */
	const char   *eofwhat;    /* the text ended inside a construct: which one (NULL: it did not) */
	struct redir *docs;       /* here-documents whose body comes after the next newline */
};

void   next_token(struct parser *p);
size_t skip_dollar(struct parser *p, size_t i);      /* i at '$': the index after the construct */
size_t skip_backquote(struct parser *p, size_t i);   /* i at '`': the index after the closing one */
size_t skip_dquote(struct parser *p, size_t i);      /* i at '"': the index after the closing one */

/* ---- parser (parse.c) ---- */

enum ntype {
	N_CMD, N_PIPE, N_AND, N_OR, N_SEQ, N_BG, N_NOT, N_SUB, N_BRACE, N_FOR, N_IF, N_WHILE,
	N_UNTIL, N_CASE, N_FUNC
};

struct caseitem {
	struct words     pats;    /* raw pattern words */
	struct node     *body;    /* NULL: an empty body */
	struct caseitem *next;
};

struct node {
	enum ntype       type;
	struct node     *l, *r, *x;   /* operands; N_IF: cond, then, else; loops: l = cond, r = body */
	struct words     w;           /* N_CMD: raw words; N_FOR: the list; N_CASE: w.v[0] = the word */
	char            *var;         /* N_FOR: the variable; N_FUNC: the function's name */
	int              forall;      /* N_FOR without "in": iterate over "$@" */
	struct caseitem *items;       /* N_CASE */
	struct redir    *redir;       /* N_CMD and compound commands */
};

struct node *parse_line(struct parser *p, int *eof);      /* one command line; NULL if empty */
struct node *parse_list(struct parser *p, int toplevel);  /* a compound command's list */
struct node *copynode(const struct node *n);
void         freenode(struct node *n);
int          syntax_failed(const struct parser *p);

/* ---- expansion (expand.c, arith.c, glob.c) ---- */

extern int experr;          /* an expansion failed (sh_error); the command must not run */
extern int substatus;       /* the status of the last command substitution */

void  expand_fields(char **raw, int n, struct words *out);   /* all steps: the words of a command */
char *expand_word(const char *raw);          /* one string: no field splitting, no globbing */
char *expand_pattern(const char *raw);       /* a pattern: quoted characters escaped with \ */
char *expand_heredoc(const char *body);      /* $, ` and \ in a here-document's body */
int   arith_eval(const char *expr, intmax_t *result);   /* 0, or -1 after reporting the error */

int   pmatch(const char *pattern, const char *string);   /* 1 if the pattern matches all of string */
int   haspattern(const char *pattern);                    /* an unescaped * ? or [...] */
void  glob_pathnames(const char *pattern, struct words *out);   /* sorted matches; none: nothing */

/* ---- execution (exec.c, builtins.c) ---- */

int   run_node(struct node *n);
int   exitcode(int status, int report);      /* wait status -> $?; report: say which signal */
pid_t xfork(int background);                 /* background: an asynchronous list's child */
int   waitfor(pid_t pid, int report);
pid_t fork_job(void);                        /* fork for a job we wait for (at the prompt: its own
                                                group, the console's foreground one) */
int   wait_job(pid_t pid, int report);       /* waitfor, noting a death by ^C */
void  job_end(void);                         /* the job is done: foreground the shell; after ^C, abort */
void  console_foreground(void);              /* the interactive shell: a group of its own, the console's */
void  exec_command(char **argv, char **env) __attribute__((noreturn));
void  define_function(const char *name, const struct node *body);
int   unset_function(const char *name);
extern int loopdepth, funcdepth, dotdepth;

typedef int builtin_fn(int argc, char **argv);
builtin_fn *find_builtin(const char *name, int *special);
void        builtin_names(const char *prefix, struct words *names);
builtin_fn  bi_command;                      /* exec.c: command -v / -V */
extern int  inspecial;                       /* a special built-in runs (not through `command`) */

/* ---- signals and traps (trap.c) ---- */

extern volatile sig_atomic_t pendingsigs;   /* a caught signal came: dotrap() at the next command */
void  signals_init(void);
void  signals_forked(int background);
int   trapped_signal(void);                 /* a signal that came and stops wait/read, or 0 */
void  dotrap(void);
void  exittrap(int status);
builtin_fn bi_trap;

/* ---- the interactive prompt (edit.c) ---- */

enum { EDIT_LINE, EDIT_EOF, EDIT_CANCEL };
int   edit_line(const char *prompt, struct str *line);   /* appends one line with its newline */
int   edit_available(void);

#endif
