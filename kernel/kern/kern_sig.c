/*
 * Signals (FreeBSD's kern_sig.c and i386 sendsig/sigreturn): kill(2), sigaction(2),
 * sigprocmask(2), sigreturn(2), the console's ^C (pgsignal) and delivery.
 *
 * A signal sent to a process (psignal) is dropped if the process ignores it, else it becomes
 * pending (p_siglist). A pending signal that is not blocked (p_sigmask) ends an interruptible
 * sleep (PCATCH: the system call returns EINTR; wdrain restarts none) and is acted on when the
 * process next returns to user space (postsig, from trap()): its default action ends the
 * process (every signal here terminates); a handler runs on the process's own stack
 * (sendsig), with the signal and sa_mask blocked, and returns through the libc's trampoline
 * to sigreturn(2), which puts the saved registers and mask back. SIGKILL cannot be caught,
 * ignored or blocked. A signal from a fault (trapsignal: SIGSEGV, SIGBUS...) always takes its
 * default action: a handler that returned would only fault again.
 *
 * fork copies the actions and the mask, not the pending signals; exec puts caught signals
 * back to SIG_DFL and keeps ignored ones and the mask (POSIX's exec).
 *
 * Locking: proc_lock protects p_siglist and is held whenever another process reads or
 * changes a process's signal state (psignal_locked); the process changes its own actions and
 * mask under proc_lock too, so a sender sees them whole. p_sigacts is the process's own (c).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/proc_internal.h"
#include "kern/ucred.h"
#include "kern/syscall.h"
#include "kern/sleep.h"
#include "kern/uio.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include <sys/errno.h>
#include <sys/signal.h>

/* What no process may catch, ignore or block. */
#define SIGCANTMASK sigmask(SIGKILL)

/* The flags a sigcontext may change in EFLAGS: the arithmetic ones and DF (FreeBSD's EFL_SECURE
 * check keeps IF, IOPL and the rest out of the user's hands the same way). */
#define FL_USERCHANGE 0x00000cd5

/* Mark p with sig: dropped if ignored; a deliverable one ends an interruptible sleep. proc_lock held. */
static void psignal_locked(struct proc *p, int sig)
{
	sigset_t bit = sigmask(sig);

	if (p->p_sigignore & bit)
		return;
	p->p_siglist |= bit;
	if ((p->p_siglist & ~p->p_sigmask & bit) && p->p_stat == PRS_SLEEPING && (p->p_slpflags & PCATCH)) {
		p->p_slpresult = EINTR;
		setrunnable(p);
	}
}

bool sig_pending(struct proc *p)
{
	return (p->p_siglist & ~p->p_sigmask) != 0;
}

/* The next signal to act on (SIGKILL first), or 0. proc_lock held. */
static int cursig(struct proc *p)
{
	sigset_t set = p->p_siglist & ~p->p_sigmask;

	if (set & sigmask(SIGKILL))
		return SIGKILL;
	return set ? __builtin_ctz(set) + 1 : 0;
}

bool proc_killed(void)
{
	struct proc *p = curproc;
	bool fatal;

	spin_lock(&proc_lock);
	fatal = ((p->p_siglist & ~p->p_sigmask) & ~p->p_sigcatch) != 0;
	spin_unlock(&proc_lock);
	return fatal;
}

/*
 * May a process with credentials cr signal q? FreeBSD 4's CANSIGNAL (sys/kern/kern_sig.c
 * 1.72.2.17) and p_trespass (kern_prot.c 1.53.2.9, read in DragonFly's copy), without the
 * SIGCONT-in-session rule (no sessions): root may signal anyone; otherwise the sender's real or
 * effective uid must be the target's real or effective uid. NULL: the kernel, which may signal
 * anyone. proc_lock held (q's credentials).
 */
static bool cansignal(const struct ucred *cr, const struct proc *q)
{
	const struct ucred *qc = &q->p_ucred;

	return cr == NULL || cr->cr_uid == 0 || cr->cr_ruid == qc->cr_ruid || cr->cr_uid == qc->cr_ruid ||
	       cr->cr_ruid == qc->cr_uid || cr->cr_uid == qc->cr_uid;
}

/* Signal process pid on behalf of cr (NULL: the kernel). */
static int proc_signal(pid_t pid, int sig, const struct ucred *cr)
{
	if (sig < 0 || sig >= NSIG)
		return EINVAL;
	int error = ESRCH;
	spin_lock(&proc_lock);
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++) {
		if (p->p_pid != pid || p->p_stat == PRS_UNUSED || p->p_stat == PRS_NEW)
			continue;
		if (p->p_stat == PRS_ZOMBIE) {
			error = 0;
			break;
		}
		if ((p->p_flag & P_SYSTEM) || !cansignal(cr, p)) {
			error = EPERM;
			break;
		}
		error = 0;
		if (sig != 0)
			psignal_locked(p, sig);
		break;
	}
	spin_unlock(&proc_lock);
	return error;
}

int proc_kill(pid_t pid, int sig)
{
	return proc_signal(pid, sig, NULL);
}

/*
 * sig to every process of group pgid but system ones and those cr may not signal (FreeBSD's
 * killpg1): 0 if one was there to take it, EPERM if only such processes were, ESRCH if the
 * group has no process. cr NULL: the kernel.
 */
static int killpg(pid_t pgid, int sig, const struct ucred *cr)
{
	int error = ESRCH;

	spin_lock(&proc_lock);
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++) {
		if (p->p_pgid != pgid || p->p_stat == PRS_UNUSED || p->p_stat == PRS_NEW)
			continue;
		if ((p->p_flag & P_SYSTEM) || !cansignal(cr, p)) {
			if (error == ESRCH)
				error = EPERM;
			continue;
		}
		error = 0;
		if (sig != 0 && p->p_stat != PRS_ZOMBIE)
			psignal_locked(p, sig);
	}
	spin_unlock(&proc_lock);
	return error;
}

/* The console's ^C: SIGINT to the foreground group (console.c). */
void pgsignal(pid_t pgid, int sig)
{
	killpg(pgid, sig, NULL);
}

/*
 * kill(pid, sig): a process, or with pid < -1 every process of group -pid. pid 0 (the caller's
 * group) and -1 (every process) are EINVAL: a stray kill(0, SIGKILL) - sysfuzz makes one -
 * cannot take the console's shell down with the caller's group.
 */
int sys_kill(register_t *args, register_t *rv)
{
	pid_t pid = (pid_t)args[0];
	int sig = (int)args[1];

	if (sig < 0 || sig >= NSIG || pid == 0 || pid == -1)
		return EINVAL;
	if (pid > 0)
		return proc_signal(pid, sig, cred_cur());
	if (pid == (pid_t)0x80000000)
		return ESRCH;                     /* -pid does not exist, so neither does the group */
	return killpg(-pid, sig, cred_cur());
}

void trapsignal(struct proc *p, int sig)
{
	spin_lock(&proc_lock);
	p->p_sigignore &= ~sigmask(sig);
	p->p_sigcatch &= ~sigmask(sig);
	p->p_sigmask &= ~sigmask(sig);
	p->p_sigacts.ps_sigact[sig] = SIG_DFL;
	psignal_locked(p, sig);
	spin_unlock(&proc_lock);
}

void sigacts_fork(struct proc *child, struct proc *parent)
{
	child->p_sigacts = parent->p_sigacts;
	spin_lock(&proc_lock);
	child->p_siglist = 0;
	child->p_sigmask = parent->p_sigmask;
	child->p_sigignore = parent->p_sigignore;
	child->p_sigcatch = parent->p_sigcatch;
	spin_unlock(&proc_lock);
}

void sigacts_exec(struct proc *p)
{
	spin_lock(&proc_lock);
	for (int sig = 1; sig < NSIG; sig++)
		if (p->p_sigcatch & sigmask(sig))
			p->p_sigacts.ps_sigact[sig] = SIG_DFL;
	p->p_sigcatch = 0;
	p->p_sigacts.ps_sigtramp = 0;
	spin_unlock(&proc_lock);
}

/* Set sig's action (proc_lock held). Ignoring a signal drops it if pending (POSIX). */
static void setsigact(struct proc *p, int sig, const struct sigaction *sa)
{
	sigset_t bit = sigmask(sig);
	struct sigacts *ps = &p->p_sigacts;

	ps->ps_sigact[sig] = sa->sa_handler;
	ps->ps_catchmask[sig] = (sa->sa_mask | (sa->sa_flags & SA_NODEFER ? 0 : bit)) & ~SIGCANTMASK;
	ps->ps_sigreset = (sa->sa_flags & SA_RESETHAND) ? ps->ps_sigreset | bit : ps->ps_sigreset & ~bit;
	p->p_sigcatch &= ~bit;
	p->p_sigignore &= ~bit;
	if (sa->sa_handler == SIG_IGN) {
		p->p_sigignore |= bit;
		p->p_siglist &= ~bit;
	} else if (sa->sa_handler != SIG_DFL) {
		p->p_sigcatch |= bit;
	}
}

/*
 * sigaction(sig, act, oact, trampoline): the libc passes its trampoline as a fourth argument
 * (where a handler returns: it calls sigreturn). act or oact may be NULL.
 */
int sys_sigaction(register_t *args, register_t *rv)
{
	struct proc *p = curproc;
	int sig = (int)args[0];
	const void *uact = (const void *)args[1];
	void *uoact = (void *)args[2];
	struct sigaction act, old;

	if (sig <= 0 || sig >= NSIG)
		return EINVAL;
	if (uact && copyin(uact, &act, sizeof(act)))
		return EFAULT;
	if (uact && (sig == SIGKILL || (act.sa_flags & ~(SA_RESETHAND | SA_NODEFER)) ||
	             (act.sa_handler != SIG_DFL && act.sa_handler != SIG_IGN && args[3] == 0)))
		return EINVAL;
	old.sa_handler = p->p_sigacts.ps_sigact[sig];
	old.sa_mask = p->p_sigacts.ps_catchmask[sig] & ~sigmask(sig);
	old.sa_flags = (p->p_sigacts.ps_sigreset & sigmask(sig)) ? SA_RESETHAND : 0;
	if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN &&
	    !(p->p_sigacts.ps_catchmask[sig] & sigmask(sig)))
		old.sa_flags |= SA_NODEFER;
	if (uoact && copyout(&old, uoact, sizeof(old)))
		return EFAULT;
	if (uact) {
		spin_lock(&proc_lock);
		setsigact(p, sig, &act);
		if (act.sa_handler != SIG_DFL && act.sa_handler != SIG_IGN)
			p->p_sigacts.ps_sigtramp = args[3];
		spin_unlock(&proc_lock);
	}
	return 0;
}

/* sigprocmask(how, set, oset): SIG_BLOCK, SIG_UNBLOCK or SIG_SETMASK; SIGKILL stays unblocked. */
int sys_sigprocmask(register_t *args, register_t *rv)
{
	struct proc *p = curproc;
	int how = (int)args[0];
	const void *uset = (const void *)args[1];
	void *uoset = (void *)args[2];
	sigset_t set, old = p->p_sigmask;

	if (uset && copyin(uset, &set, sizeof(set)))
		return EFAULT;
	if (uset && how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
		return EINVAL;
	if (uoset && copyout(&old, uoset, sizeof(old)))
		return EFAULT;
	if (uset) {
		spin_lock(&proc_lock);
		if (how == SIG_BLOCK)
			p->p_sigmask |= set;
		else if (how == SIG_UNBLOCK)
			p->p_sigmask &= ~set;
		else
			p->p_sigmask = set;
		p->p_sigmask &= ~SIGCANTMASK;
		spin_unlock(&proc_lock);
	}
	return 0;
}

/*
 * Run sig's handler: push a struct sigframe below the user stack pointer (aligned so the
 * handler starts as a called function does: (esp + 4) % 16 == 0) and point the frame at the
 * handler. A stack the frame cannot be written to ends the process with SIGILL (FreeBSD's
 * sendsig: "process has trashed its stack").
 */
static void sendsig(struct proc *p, struct trapframe *tf, int sig, sig_t handler, sigset_t oldmask)
{
	struct sigframe sf;
	uint32_t top = tf->esp - sizeof(sf), at = (top & ~15u) - 4;

	sf.sf_ret = p->p_sigacts.ps_sigtramp;
	sf.sf_signum = sig;
	sf.sf_scp = at + offsetof(struct sigframe, sf_sc);
	sf.sf_sc = (struct sigcontext){
		.sc_mask = oldmask,
		.sc_edi = tf->edi, .sc_esi = tf->esi, .sc_ebp = tf->ebp, .sc_ebx = tf->ebx,
		.sc_edx = tf->edx, .sc_ecx = tf->ecx, .sc_eax = tf->eax,
		.sc_eip = tf->eip, .sc_eflags = tf->eflags, .sc_esp = tf->esp,
	};
	if (top > tf->esp || copyout(&sf, (void *)at, sizeof(sf)) != 0) {
		kprintf("pid %d (%s): no room on the stack for signal %d's handler, killed\n", p->p_pid,
		        p->p_comm, sig);
		proc_exit(SIGILL);
	}
	tf->esp = at;
	tf->eip = (uint32_t)handler;
	tf->eflags &= ~0x400u;             /* DF clear, as the ABI wants at a call */
}

/*
 * On the way back to user space (trap()): act on the first pending, unblocked signal. Its
 * default action ends the process here; a handler is set up to run, and any further signal
 * is acted on when the handler's sigreturn comes back through here.
 */
void postsig(struct trapframe *tf)
{
	struct proc *p = curproc;
	struct sigacts *ps = &p->p_sigacts;
	sigset_t oldmask;
	sig_t handler;
	int sig;

	if (!sig_pending(p))
		return;                        /* unlocked: one that comes now is seen at the next return */
	spin_lock(&proc_lock);
	if ((sig = cursig(p)) == 0) {
		spin_unlock(&proc_lock);
		return;
	}
	p->p_siglist &= ~sigmask(sig);
	if (!(p->p_sigcatch & sigmask(sig))) {
		spin_unlock(&proc_lock);
		proc_exit(sig);
	}
	oldmask = p->p_sigmask;
	handler = ps->ps_sigact[sig];
	p->p_sigmask |= ps->ps_catchmask[sig];
	if (ps->ps_sigreset & sigmask(sig)) {
		ps->ps_sigact[sig] = SIG_DFL;
		p->p_sigcatch &= ~sigmask(sig);
	}
	spin_unlock(&proc_lock);
	sti();                             /* the frame's copyout may fault a stack page in, and sleep */
	sendsig(p, tf, sig, handler, oldmask);
	cli();
}

/*
 * sigreturn(scp): back from a handler: the registers and the mask saved in *scp. The segment
 * registers stay the user ones, and only FL_USERCHANGE's flags come from the context. Returns
 * EJUSTRETURN: the restored eax is the interrupted code's, not a result.
 */
int sys_sigreturn(register_t *args, register_t *rv)
{
	struct proc *p = curproc;
	struct trapframe *tf = p->p_tf;
	struct sigcontext sc;

	if (copyin((const void *)args[0], &sc, sizeof(sc)))
		return EFAULT;
	tf->edi = sc.sc_edi;
	tf->esi = sc.sc_esi;
	tf->ebp = sc.sc_ebp;
	tf->ebx = sc.sc_ebx;
	tf->edx = sc.sc_edx;
	tf->ecx = sc.sc_ecx;
	tf->eax = sc.sc_eax;
	tf->eip = sc.sc_eip;
	tf->esp = sc.sc_esp;
	tf->eflags = (tf->eflags & ~FL_USERCHANGE) | (sc.sc_eflags & FL_USERCHANGE);
	spin_lock(&proc_lock);
	p->p_sigmask = sc.sc_mask & ~SIGCANTMASK;
	spin_unlock(&proc_lock);
	return EJUSTRETURN;
}
