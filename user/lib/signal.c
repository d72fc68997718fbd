/*
 * signal.c: sigaction(2), sigprocmask(2), signal(3), raise(3) and the sigset_t functions
 * (user/libc).
 *
 * A caught signal's handler returns into __sigcode, the trampoline this file gives the kernel
 * with every sigaction (its fourth argument, kernel/kern/kern_sig.c): the handler's ret leaves
 * the stack at the frame's sf_signum, with sf_scp above it, and the trampoline passes that
 * to sigreturn(2), which does not come back. If it does (a damaged frame), the process exits.
 */
#include <signal.h>
#include <unistd.h>
#include <errno.h>
#include <sys/syscall.h>

#define STR(x)  #x
#define XSTR(x) STR(x)

void __sigcode(void);
__asm__(".text\n"
        ".globl __sigcode\n"
        "__sigcode:\n"
        "\tmovl 4(%esp), %ebx\n"                       /* sf_scp */
        "\tmovl $" XSTR(SYS_sigreturn) ", %eax\n"
        "\tint $0x80\n"
        "\tmovl $127, %ebx\n"
        "\tmovl $" XSTR(SYS_exit) ", %eax\n"
        "\tint $0x80\n");

int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	return syscall(SYS_sigaction, sig, act, oact, __sigcode);
}

int sigprocmask(int how, const sigset_t *set, sigset_t *oset)
{
	return syscall(SYS_sigprocmask, how, set, oset);
}

sig_t signal(int sig, sig_t handler)
{
	struct sigaction sa = { handler, 0, 0 }, old;

	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

int raise(int sig)
{
	return kill(getpid(), sig);
}

static int badsig(int sig)
{
	if (sig > 0 && sig < NSIG)
		return 0;
	errno = EINVAL;
	return 1;
}

int sigemptyset(sigset_t *set)
{
	*set = 0;
	return 0;
}

int sigfillset(sigset_t *set)
{
	*set = ~(sigset_t)0;
	return 0;
}

int sigaddset(sigset_t *set, int sig)
{
	if (badsig(sig))
		return -1;
	*set |= sigmask(sig);
	return 0;
}

int sigdelset(sigset_t *set, int sig)
{
	if (badsig(sig))
		return -1;
	*set &= ~sigmask(sig);
	return 0;
}

int sigismember(const sigset_t *set, int sig)
{
	if (badsig(sig))
		return -1;
	return (*set & sigmask(sig)) != 0;
}
