/*
 * exit(2) and wait4(2). An exiting process releases its files and address space at once,
 * becomes a zombie holding only its kernel stack and wait status, hands its children to init,
 * and wakes its parent, which frees the rest in wait4. A signal's default action ends a process
 * here too (postsig, kern_sig.c).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/proc_internal.h"
#include "kern/syscall.h"
#include "kern/file.h"
#include "kern/sleep.h"
#include "kern/uio.h"
#include "arch/pmap.h"
#include "vm/vm_map.h"
#include "vfs/vnode.h"
#include <sys/errno.h>
#include <sys/wait.h>
#include <sys/signal.h>
#include <sys/resource.h>

void proc_exit(int status)
{
	struct proc *p = curproc;
	if (p == initproc)
		panic("init exited (status %#x)", status);
	if (p->p_fd) {
		fdfree(p->p_fd);
		p->p_fd = NULL;
	}
	if (p->p_cwd) {
		vrele(p->p_cwd);
		p->p_cwd = NULL;
	}
	if (p->p_vmspace) {
		struct vmspace *vm = p->p_vmspace;
		pmap_activate(NULL, (uint32_t)p->p_kstack + KSTACKSIZE);
		p->p_vmspace = NULL;
		vmspace_free(vm);
	}
	spin_lock(&proc_lock);
	for (struct proc *c = proc_table; c < &proc_table[NPROC]; c++) {
		if (c->p_pptr == p) {
			c->p_pptr = initproc;
			if (c->p_stat == PRS_ZOMBIE)
				wakeup(initproc);
		}
	}
	p->p_xstat = status;
	p->p_stat = PRS_ZOMBIE;
	wakeup(p->p_pptr);
	sched();
	panic("zombie %d ran", p->p_pid);
}

int sys_exit(register_t *args, register_t *rv)
{
	proc_exit(W_EXITCODE(args[0] & 0xff, 0));
}

static void add_timeval_ns(struct timeval *tv, uint64_t ns)
{
	uint64_t us = (uint64_t)tv->tv_sec * 1000000 + tv->tv_usec + ns / 1000;
	tv->tv_sec = us / 1000000;
	tv->tv_usec = us % 1000000;
}

/* Split a process's CPU time into user and system time by its tick counts. */
void proc_rusage(struct proc *p, struct rusage *ru)
{
	memset(ru, 0, sizeof(*ru));
	uint64_t total = p->p_uticks + p->p_sticks;
	uint64_t user_ns = total ? p->p_runtime * p->p_uticks / total : 0;
	add_timeval_ns(&ru->ru_utime, user_ns);
	add_timeval_ns(&ru->ru_stime, p->p_runtime - user_ns);
	ru->ru_inblock = p->p_inblock;
	ru->ru_oublock = p->p_oublock;
	ru->ru_minflt = p->p_minflt;
	ru->ru_majflt = p->p_majflt;
	ru->ru_maxrss = p->p_vmspace ? vmspace_size(p->p_vmspace) / 1024 : 0;
}

static void ruadd(struct rusage *to, const struct rusage *from)
{
	add_timeval_ns(&to->ru_utime, (uint64_t)from->ru_utime.tv_sec * 1000000000ull + from->ru_utime.tv_usec * 1000ull);
	add_timeval_ns(&to->ru_stime, (uint64_t)from->ru_stime.tv_sec * 1000000000ull + from->ru_stime.tv_usec * 1000ull);
	to->ru_inblock += from->ru_inblock;
	to->ru_oublock += from->ru_oublock;
	to->ru_minflt += from->ru_minflt;
	to->ru_majflt += from->ru_majflt;
	if (from->ru_maxrss > to->ru_maxrss)
		to->ru_maxrss = from->ru_maxrss;
}

/* wait4(pid, &status, options, &rusage): pid -1 = any child. */
int sys_wait4(register_t *args, register_t *rv)
{
	pid_t pid = (pid_t)args[0];
	void *ustatus = (void *)args[1];
	int options = args[2];
	void *urusage = (void *)args[3];
	struct proc *me = curproc;
	if (options & ~WNOHANG)
		return EINVAL;
	/* Check the result pointers first, so that a bad one does not lose the child's status. */
	if ((ustatus && !useracc(ustatus, sizeof(int), true)) ||
	    (urusage && !useracc(urusage, sizeof(struct rusage), true)))
		return EFAULT;
	spin_lock(&proc_lock);
	for (;;) {
		bool have_kids = false;
		for (struct proc *c = proc_table; c < &proc_table[NPROC]; c++) {
			if (c->p_pptr != me || c->p_stat == PRS_UNUSED || (pid > 0 && c->p_pid != pid))
				continue;
			have_kids = true;
			if (c->p_stat != PRS_ZOMBIE)
				continue;
			pid_t cpid = c->p_pid;
			int status = c->p_xstat;
			struct rusage ru;
			proc_rusage(c, &ru);
			ruadd(&ru, &c->p_cru);
			ruadd(&me->p_cru, &ru);
			c->p_pptr = NULL;
			c->p_stat = PRS_NEW;          /* ours to free, invisible to everyone else */
			spin_unlock(&proc_lock);
			proc_free(c);
			if (ustatus && copyout(&status, ustatus, sizeof(status)))
				return EFAULT;
			if (urusage && copyout(&ru, urusage, sizeof(ru)))
				return EFAULT;
			*rv = cpid;
			return 0;
		}
		if (!have_kids) {
			spin_unlock(&proc_lock);
			return ECHILD;
		}
		if (options & WNOHANG) {
			spin_unlock(&proc_lock);
			*rv = 0;
			return 0;
		}
		if (msleep(me, &proc_lock, PCATCH, "wait", 0) == EINTR) {
			spin_unlock(&proc_lock);
			return EINTR;
		}
	}
}
