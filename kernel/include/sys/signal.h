/*
 * Signal numbers (FreeBSD's). wdrain delivers signals with their default action only:
 * every signal below terminates the target (there are no handlers), which is what kill(1),
 * the shell's job control-less model and the tests need.
 */
#ifndef _SYS_SIGNAL_H_
#define _SYS_SIGNAL_H_

#define SIGHUP   1
#define SIGINT   2
#define SIGQUIT  3
#define SIGILL   4
#define SIGTRAP  5
#define SIGABRT  6
#define SIGFPE   8
#define SIGKILL  9
#define SIGBUS  10
#define SIGSEGV 11
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define NSIG    32

#endif
