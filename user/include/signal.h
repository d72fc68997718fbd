/* signal.h: signal numbers (kernel ABI), kill(2), the signal names and descriptions (user/libc). */
#ifndef _SIGNAL_H_
#define _SIGNAL_H_

#include <sys/types.h>
#include <sys/signal.h>

int kill(pid_t pid, int sig);
extern const char *const sys_signame[NSIG];   /* "hup", "int", ... as FreeBSD; NULL if unnamed */
extern const char *const sys_siglist[NSIG];   /* "Hangup", "Bus error", ... as FreeBSD; NULL if unnamed */
int  signame_to_num(const char *name);        /* "TERM", "term", "SIGTERM" or "15" -> 15; -1 if bad */

#endif
