/*
 * signal.h: signal numbers and actions (kernel ABI, <sys/signal.h>), kill(2), sigaction(2),
 * sigprocmask(2), signal(3), raise(3), the sigset_t functions, and the signal names and
 * descriptions (user/libc).
 */
#ifndef _SIGNAL_H_
#define _SIGNAL_H_

#include <sys/types.h>
#include <sys/signal.h>

typedef int sig_atomic_t;

int   kill(pid_t pid, int sig);
int   sigaction(int sig, const struct sigaction *act, struct sigaction *oact);
int   sigprocmask(int how, const sigset_t *set, sigset_t *oset);
sig_t signal(int sig, sig_t handler);         /* sigaction with no flags: no SA_RESTART here */
int   raise(int sig);
int   sigemptyset(sigset_t *set);
int   sigfillset(sigset_t *set);
int   sigaddset(sigset_t *set, int sig);
int   sigdelset(sigset_t *set, int sig);
int   sigismember(const sigset_t *set, int sig);

extern const char *const sys_signame[NSIG];   /* "hup", "int", ... as FreeBSD; NULL if unnamed */
extern const char *const sys_siglist[NSIG];   /* "Hangup", "Bus error", ... as FreeBSD; NULL if unnamed */
int  signame_to_num(const char *name);        /* "TERM", "term", "SIGTERM" or "15" -> 15; -1 if bad */

#endif
