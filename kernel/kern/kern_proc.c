/*
 * The process table: allocation, lookup, kernel threads, and the kern.proc sysctl that ps reads.
 * Locking: proc_lock (see proc.h).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/proc.h"
#include "kern/proc_internal.h"
#include "kern/sysctl.h"
#include "kern/time.h"
#include "kern/file.h"
#include "kern/sleep.h"
#include "arch/cpu.h"
#include "arch/trap.h"
#include "arch/context.h"
#include "arch/x86.h"
#include "vm/vm_map.h"
#include <sys/errno.h>

struct proc proc_table[NPROC];
struct spinlock proc_lock = { .name = "proc" };
struct proc *initproc;
static pid_t next_pid = 2;              /* pid 1 is reserved for init (userinit) */

struct proc *curproc_get(void)
{
	pushcli();
	struct proc *p = mycpu()->proc;
	popcli();
	return p;
}

void procinit(void)
{
	spin_init(&proc_lock, "proc");
}

/* An unused pid: the next in sequence, skipping ones still in use. proc_lock held. */
static pid_t alloc_pid(void)
{
	for (;;) {
		pid_t pid = next_pid++;
		if (next_pid > 99999)
			next_pid = 2;
		bool used = false;
		for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++)
			if (p->p_stat != PRS_UNUSED && p->p_pid == pid)
				used = true;
		if (!used)
			return pid;
	}
}

struct proc *proc_alloc(void)
{
	spin_lock(&proc_lock);
	struct proc *p;
	for (p = proc_table; p < &proc_table[NPROC]; p++)
		if (p->p_stat == PRS_UNUSED)
			break;
	if (p == &proc_table[NPROC]) {
		spin_unlock(&proc_lock);
		return NULL;
	}
	memset(p, 0, sizeof(*p));
	p->p_stat = PRS_NEW;
	p->p_pid = alloc_pid();
	spin_unlock(&proc_lock);

	p->p_kstack = kmalloc(KSTACKSIZE, M_WAITOK);
	if (p->p_kstack == NULL) {
		p->p_stat = PRS_UNUSED;
		return NULL;
	}
	/* The stack: a trap frame at the top (for user processes), and below it a context that
	 * "returns" to forkret, which returns to trapret. */
	char *sp = p->p_kstack + KSTACKSIZE;
	sp -= sizeof(struct trapframe);
	p->p_tf = (struct trapframe *)sp;
	sp -= sizeof(uint32_t);
	*(uint32_t *)sp = (uint32_t)trapret;
	sp -= sizeof(struct context);
	p->p_context = (struct context *)sp;
	memset(p->p_context, 0, sizeof(struct context));
	p->p_context->eip = (uint32_t)forkret;
	p->p_start = time_second_now();
	return p;
}

void proc_free(struct proc *p)
{
	kfree(p->p_kstack);
	p->p_kstack = NULL;
	spin_lock(&proc_lock);
	p->p_stat = PRS_UNUSED;
	p->p_pid = 0;
	spin_unlock(&proc_lock);
}

/* A new process's first kernel code: swtch() got here with proc_lock held by the scheduler. */
void forkret(void)
{
	spin_unlock(&proc_lock);
}

struct proc *pfind(pid_t pid)
{
	struct proc *found = NULL;
	spin_lock(&proc_lock);
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++)
		if (p->p_stat != PRS_UNUSED && p->p_stat != PRS_NEW && p->p_pid == pid)
			found = p;
	spin_unlock(&proc_lock);
	return found;
}

int proc_count(void)
{
	int n = 0;
	spin_lock(&proc_lock);
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++)
		if (p->p_stat != PRS_UNUSED)
			n++;
	spin_unlock(&proc_lock);
	return n;
}

bool proc_alive(pid_t pid)
{
	bool alive = false;
	spin_lock(&proc_lock);
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++)
		if (p->p_pid == pid && p->p_stat != PRS_UNUSED && p->p_stat != PRS_ZOMBIE)
			alive = true;
	spin_unlock(&proc_lock);
	return alive;
}

/*
 * The user process with the most resident memory, for the pagedaemon's last resort: init,
 * kernel threads and system processes are never chosen, nor processes being created or
 * already dead. Its name goes to comm. 0 if there is none.
 */
pid_t proc_largest(char comm[MAXCOMLEN + 1])
{
	pid_t pid = 0;
	uint32_t most = 0;
	spin_lock(&proc_lock);
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++) {
		if (p->p_stat == PRS_UNUSED || p->p_stat == PRS_NEW || p->p_stat == PRS_ZOMBIE ||
		    (p->p_flag & (P_SYSTEM | P_KTHREAD)) || p == initproc || p->p_vmspace == NULL)
			continue;
		uint32_t size = vmspace_size(p->p_vmspace);
		if (size >= most) {
			most = size;
			pid = p->p_pid;
			strlcpy(comm, p->p_comm, MAXCOMLEN + 1);
		}
	}
	spin_unlock(&proc_lock);
	return pid;
}

/* The context's first frame for a kernel thread: start, then fn(arg), then exit. */
static void kthread_entry(void (*fn)(void *), void *arg)
{
	spin_unlock(&proc_lock);
	sti();
	fn(arg);
	kproc_exit();
}

int kproc_create(void (*fn)(void *), void *arg, struct proc **pp, const char *fmt, ...)
{
	struct proc *p = proc_alloc();
	if (p == NULL)
		return ENOMEM;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->p_comm, sizeof(p->p_comm), fmt, ap);
	va_end(ap);
	p->p_flag = P_KTHREAD | P_SYSTEM;
	p->p_pptr = NULL;
	cred_init_root(&p->p_ucred);
	/* Build a frame so that swtch "returns" into kthread_entry(fn, arg). */
	uint32_t *sp = (uint32_t *)(p->p_kstack + KSTACKSIZE);
	*--sp = (uint32_t)arg;
	*--sp = (uint32_t)fn;
	*--sp = 0;                            /* kthread_entry's (never used) return address */
	sp -= sizeof(struct context) / 4;
	p->p_context = (struct context *)sp;
	memset(p->p_context, 0, sizeof(struct context));
	p->p_context->eip = (uint32_t)kthread_entry;
	p->p_tf = NULL;
	if (pp)
		*pp = p;
	spin_lock(&proc_lock);
	p->p_stat = PRS_RUNNABLE;
	spin_unlock(&proc_lock);
	return 0;
}

void kproc_exit(void)
{
	struct proc *p = curproc;
	spin_lock(&proc_lock);
	p->p_stat = PRS_ZOMBIE;
	p->p_pptr = initproc;                 /* init reaps it like any orphan */
	wakeup(initproc);
	sched();
	panic("kproc_exit: zombie ran");
}

static char state_char(struct proc *p)
{
	switch (p->p_stat) {
	case PRS_RUNNABLE:
	case PRS_RUNNING:
		return 'R';
	case PRS_SLEEPING:
		return 'S';
	case PRS_ZOMBIE:
		return 'Z';
	default:
		return 'T';
	}
}

void proc_fill_kinfo(struct kinfo_proc *ki, struct proc *p)
{
	memset(ki, 0, sizeof(*ki));
	ki->ki_pid = p->p_pid;
	ki->ki_ppid = p->p_pptr ? p->p_pptr->p_pid : 0;
	ki->ki_stat = state_char(p);
	ki->ki_kthread = (p->p_flag & P_KTHREAD) != 0;
	ki->ki_cpu = p->p_stat == PRS_RUNNING ? p->p_lastcpu : -1;
	if (p->p_stat == PRS_SLEEPING && p->p_wmesg)
		strlcpy(ki->ki_wmesg, p->p_wmesg, sizeof(ki->ki_wmesg));
	uint64_t rt = p->p_runtime;
	ki->ki_runtime = rt / 1000;
	ki->ki_size = p->p_vmspace ? vmspace_size(p->p_vmspace) : 0;
	ki->ki_minflt = p->p_minflt;
	ki->ki_majflt = p->p_majflt;
	ki->ki_start = p->p_start;
	strlcpy(ki->ki_comm, p->p_comm, sizeof(ki->ki_comm));
	ki->ki_wbytes = p->p_wbytes;
}

/*
 * procdump: the process table on the console, one line per process with its wait channel
 * (the console's ^P, as xv6's procdump; for a hung guest, where ps cannot run). Each entry is
 * copied under proc_lock and printed after it is dropped: kprintf takes the console's lock, and
 * msleep on the console takes proc_lock with the console's held.
 */
void procdump(void)
{
	kprintf("^P  pid  ppid st cpu wmesg    wchan      command\n");
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++) {
		struct kinfo_proc ki;
		void *chan = NULL;
		spin_lock(&proc_lock);
		bool live = p->p_stat != PRS_UNUSED && p->p_stat != PRS_NEW;
		if (live) {
			proc_fill_kinfo(&ki, p);
			chan = p->p_stat == PRS_SLEEPING ? p->p_wchan : NULL;
		}
		spin_unlock(&proc_lock);
		if (live)
			kprintf("^P %4d %5d %c  %3d %-8s %p %s\n", ki.ki_pid, ki.ki_ppid, ki.ki_stat, ki.ki_cpu,
			        ki.ki_wmesg[0] ? ki.ki_wmesg : "-", chan, ki.ki_comm);
	}
}

/* kern.proc: one kinfo_proc per process, in table order. */
static int kern_proc_handler(struct sysctl_req *req)
{
	int error = 0;
	for (struct proc *p = proc_table; p < &proc_table[NPROC] && !error; p++) {
		struct kinfo_proc ki;
		spin_lock(&proc_lock);
		bool live = p->p_stat != PRS_UNUSED && p->p_stat != PRS_NEW;
		if (live)
			proc_fill_kinfo(&ki, p);
		spin_unlock(&proc_lock);
		if (live)
			error = sysctl_out(req, &ki, sizeof(ki));
	}
	return error;
}
SYSCTL_PROC(kern_proc, "kern.proc", CTLTYPE_OPAQUE | CTLFLAG_RD, NULL, 0, kern_proc_handler,
            "S,kinfo_proc", "Process table (struct kinfo_proc per process)");
