/*
 * Processes and kernel threads (xv6's model, FreeBSD's names).
 * A process has one thread: a kernel stack, a saved context for the scheduler and, for user
 * processes, an address space (struct vmspace), open files (struct filedesc) and a current
 * directory. Kernel threads (kproc_create) have no user address space and run only in the kernel.
 *
 * Locking: proc_lock (a spinlock in proc.c) protects p_stat, p_wchan/p_wmesg, the run queue and
 * the parent/child links. Fields marked (c) are touched only by the process itself.
 */
#ifndef _KERN_PROC_H_
#define _KERN_PROC_H_

#include "kern/types.h"
#include "kern/ucred.h"
#include "vfs/rundev.h"
#include <sys/resource.h>
#include <sys/signal.h>
#include <sys/sysctl.h>

#define NPROC      256
#define KSTACKSIZE 8192
#define MAXCOMLEN  19

enum procstat { PRS_UNUSED, PRS_NEW, PRS_RUNNABLE, PRS_RUNNING, PRS_SLEEPING, PRS_ZOMBIE };

struct trapframe;
struct context;
struct vmspace;
struct filedesc;
struct vnode;
struct cpu;

/* What the process does with each signal (FreeBSD's struct sigacts; kern_sig.c). (c) */
struct sigacts {
	sig_t    ps_sigact[NSIG];     /* SIG_DFL, SIG_IGN or the handler */
	sigset_t ps_catchmask[NSIG];  /* blocked while the handler runs (sa_mask, and the signal) */
	sigset_t ps_sigreset;         /* SA_RESETHAND */
	uint32_t ps_sigtramp;         /* the libc's trampoline a handler returns to */
};

struct proc {
	enum procstat     p_stat;
	pid_t             p_pid;
	struct proc      *p_pptr;       /* parent */
	int               p_flag;       /* P_* */
	char              p_comm[MAXCOMLEN + 1];
	void             *p_wchan;      /* sleeping on this channel */
	const char       *p_wmesg;      /* and this is why */
	int               p_slpflags;   /* flags of the current sleep (PCATCH) */
	int               p_slpresult;  /* how the sleep ended: 0, EWOULDBLOCK, EINTR */
	uint32_t          p_slptimeout; /* tick at which a timed sleep ends, 0 = none */
	bool              p_woken;      /* ended a sleep and not yet back in user space: runs first */
	uint64_t          p_estcpu_ns;  /* CPU used lately: halved each second; least runs first */
	sigset_t          p_siglist;    /* signals pending; proc_lock */
	sigset_t          p_sigmask;    /* signals blocked; proc_lock (only the process changes it) */
	sigset_t          p_sigignore;  /* signals ignored; proc_lock (likewise) */
	sigset_t          p_sigcatch;   /* signals caught (a handler in p_sigacts); likewise */
	struct sigacts    p_sigacts;    /* (c) */
	pid_t             p_pgid;       /* process group (setpgid(2)), inherited by fork; proc_lock */
	struct ucred      p_ucred;      /* credentials (kern/ucred.h): changed by the process itself
	                                   under proc_lock, read by others (kill) under it */
	int               p_xstat;      /* wait status for the parent */
	char             *p_kstack;     /* bottom of the kernel stack */
	struct trapframe *p_tf;         /* user trap frame on the kernel stack */
	struct context   *p_context;    /* saved registers for swtch() */
	struct cpu       *p_cpu;        /* CPU it runs on (valid while PRS_RUNNING) */
	int               p_lastcpu;
	struct vmspace   *p_vmspace;    /* (c) user address space; NULL for kernel threads */
	struct filedesc  *p_fd;         /* (c) open files */
	struct vnode     *p_cwd;        /* (c) current directory */
	uint64_t          p_runtime;    /* ns of CPU time used */
	uint64_t          p_switchtime; /* nanouptime() when last put on a CPU */
	uint64_t          p_uticks, p_sticks; /* ticks charged in user / kernel mode */
	struct rusage     p_cru;        /* resources used by waited-for children */
	int32_t           p_inblock, p_oublock;
	uint64_t          p_wbytes;     /* bytes written with write(2); only the process adds to it */
	int32_t           p_minflt, p_majflt; /* (c) page faults without / with I/O (vm_fault) */
	time_t            p_start;      /* wall-clock start time */
	struct proc      *p_runnext;    /* run queue link */
	int               p_sleeplocks; /* (c) sleep locks it holds (INVARIANTS: 0 back in user mode) */
	struct rd_wait    p_rdwait;     /* its wait for I/O, the disks it makes "wanted" (vfs/rundev.h;
	                                   only the process itself, under bufcache_lock) */
};

#define P_KTHREAD  0x0001     /* kernel thread */
#define P_SYSTEM   0x0002     /* never killed (init, kernel threads) */

/* The current CPU's current process (NULL in the scheduler). */
struct proc *curproc_get(void);
#define curproc (curproc_get())

void         procinit(void);
struct proc *proc_alloc(void);               /* an embryo with a kernel stack, or NULL */
void         proc_free(struct proc *p);
struct proc *pfind(pid_t pid);               /* NULL if none; no lock held on return */
int          kproc_create(void (*fn)(void *), void *arg, struct proc **pp, const char *fmt, ...) __printflike(4, 5);
void         kproc_exit(void) __noreturn;
void         proc_exit(int status) __noreturn; /* exit the current process with a wait status */
/* Signals (kern_sig.c). */
int          proc_kill(pid_t pid, int sig);  /* 0, ESRCH, EPERM (a system process), EINVAL */
void         pgsignal(pid_t pgid, int sig);  /* sig to every process of the group (the console's ^C) */
void         trapsignal(struct proc *p, int sig); /* a fault's signal: always its default action */
bool         proc_killed(void);              /* a signal that ends the current process is pending */
bool         sig_pending(struct proc *p);    /* a signal to act on is pending (proc_lock held) */
void         postsig(struct trapframe *tf);  /* on the way to user space: act on pending signals */
void         sigacts_fork(struct proc *child, struct proc *parent);
void         sigacts_exec(struct proc *p);   /* caught signals back to SIG_DFL */
void         proc_fill_kinfo(struct kinfo_proc *ki, struct proc *p);
void         procdump(void);                 /* the process table on the console (^P) */
void         proc_rusage(struct proc *p, struct rusage *ru);   /* its own usage (not children's) */
int          proc_count(void);
bool         proc_alive(pid_t pid);          /* exists and has not exited */
pid_t        proc_largest(char comm[MAXCOMLEN + 1]); /* the biggest user process (OOM victim) */
void         userinit(void);                 /* start process 1: mount root, exec /sbin/init */

/* Scheduler (sched.c). */
void scheduler(void) __noreturn;  /* per-CPU loop, never returns */
void sched_yield(void);           /* give up the CPU, stay runnable */
void sched_tick(void);            /* called on every CPU's timer tick: preemption */
void setrunnable(struct proc *p); /* proc_lock held */
void sched_userret(struct proc *p); /* trap(), on the way back to user space */

#endif
