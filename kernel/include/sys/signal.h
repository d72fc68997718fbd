/*
 * Signals: numbers (FreeBSD's), actions and the frame a handler runs on (kernel ABI).
 *
 * Every signal here terminates its target by default. A process may instead ignore one or
 * catch it with a handler (sigaction(2)), and block it for a while (sigprocmask(2)); SIGKILL
 * can be neither. A caught signal runs its handler on the process's own stack: the kernel
 * pushes a struct sigframe, and the handler returns into the libc's trampoline, which calls
 * sigreturn(2) with the saved context (kernel/kern/kern_sig.c). A sigset_t is one word, bit
 * sig - 1 for signal sig (FreeBSD 4's sigmask(); its sigset_t has four words for 128 signals).
 */
#ifndef _SYS_SIGNAL_H_
#define _SYS_SIGNAL_H_

#include <sys/types.h>

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
#define SIGUSR1 30
#define SIGUSR2 31
#define NSIG    32

typedef uint32_t sigset_t;
#define sigmask(sig) (1u << ((sig) - 1))

typedef void (*sig_t)(int);
#define SIG_DFL ((sig_t)0)
#define SIG_IGN ((sig_t)1)
#define SIG_ERR ((sig_t)-1)

/* sigaction(2) (FreeBSD's layout). sa_flags: only these two; others are EINVAL. */
struct sigaction {
	sig_t    sa_handler;   /* SIG_DFL, SIG_IGN or a function */
	int      sa_flags;
	sigset_t sa_mask;      /* also blocked while the handler runs */
};
#define SA_RESETHAND 0x0004    /* the action goes back to SIG_DFL when the signal is delivered */
#define SA_NODEFER   0x0010    /* the signal itself is not blocked while its handler runs */

/* sigprocmask(2)'s how (FreeBSD's values). */
#define SIG_BLOCK    1
#define SIG_UNBLOCK  2
#define SIG_SETMASK  3

/* What the kernel saves before a handler runs, and sigreturn(2) puts back. */
struct sigcontext {
	sigset_t sc_mask;      /* the blocked signals before the handler */
	uint32_t sc_edi, sc_esi, sc_ebp, sc_ebx, sc_edx, sc_ecx, sc_eax;
	uint32_t sc_eip, sc_eflags, sc_esp;
};

/* On the user stack when a handler starts: it returns to sf_ret, the libc's trampoline. */
struct sigframe {
	uint32_t          sf_ret;      /* the trampoline given to sigaction(2) */
	int32_t           sf_signum;   /* the handler's argument */
	uint32_t          sf_scp;      /* &sf_sc, for the trampoline's sigreturn(2) */
	struct sigcontext sf_sc;
};

#endif
