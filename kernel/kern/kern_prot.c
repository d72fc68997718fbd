/*
 * Process identity: getpid(2), getppid(2); process groups: setpgid(2), getpgrp(2); and
 * credentials (kern/ucred.h): getuid(2) and friends, setuid(2), seteuid(2), setgid(2),
 * setegid(2), setgroups(2), getgroups(2), with suser() and groupmember().
 *
 * A process group is what the console's ^C signals (its foreground group, TIOCSPGRP): an
 * interactive shell puts each job it waits for in a group of its own. wdrain has no sessions,
 * so setpgid's rules are FreeBSD's without them: a process may move itself or one of its
 * children, into a group of its own (pgid = its pid) or one that exists.
 *
 * The set*id rules are FreeBSD 4's (sys/kern/kern_prot.c 1.53.2.9, read in DragonFly's copy,
 * whose rules for these calls are unchanged): POSIX.1 with the BSD clause of its appendix
 * B.4.2.2 and without _POSIX_SAVED_IDS, so that
 *   setuid(u)   is allowed to root and for u = the real or the effective uid, and sets all
 *               three (real, effective, saved);
 *   seteuid(u)  is allowed to root and for u = the real or the saved uid, and sets the
 *               effective uid only;
 *   setgid/setegid the same for the groups (the effective gid is cr_groups[0]);
 *   setgroups   is root's only, and its first group becomes the effective gid.
 */
#include "kern/proc.h"
#include "kern/syscall.h"
#include "kern/proc_internal.h"
#include "kern/klib.h"
#include "kern/uio.h"
#include <sys/errno.h>

int sys_getpid(register_t *args, register_t *rv)
{
	*rv = curproc->p_pid;
	return 0;
}

int sys_getppid(register_t *args, register_t *rv)
{
	struct proc *pp = curproc->p_pptr;
	*rv = pp ? pp->p_pid : 0;
	return 0;
}

/* setpgid(pid, pgid): 0 for pid is the caller, 0 for pgid is the process's own pid. */
int sys_setpgid(register_t *args, register_t *rv)
{
	pid_t pid = (pid_t)args[0], pgid = (pid_t)args[1];
	struct proc *me = curproc, *target = NULL;
	int error = 0;

	if (pgid < 0)
		return EINVAL;
	spin_lock(&proc_lock);
	for (struct proc *p = proc_table; p < &proc_table[NPROC]; p++)
		if (p->p_stat != PRS_UNUSED && p->p_stat != PRS_ZOMBIE &&
		    p->p_pid == (pid ? pid : me->p_pid) && (p == me || p->p_pptr == me))
			target = p;
	if (target == NULL) {
		error = ESRCH;
	} else {
		if (pgid == 0)
			pgid = target->p_pid;
		bool exists = pgid == target->p_pid;
		for (struct proc *p = proc_table; p < &proc_table[NPROC] && !exists; p++)
			exists = p->p_stat != PRS_UNUSED && p->p_stat != PRS_ZOMBIE && p->p_pgid == pgid;
		if (exists)
			target->p_pgid = pgid;
		else
			error = EPERM;
	}
	spin_unlock(&proc_lock);
	*rv = 0;
	return error;
}

int sys_getpgrp(register_t *args, register_t *rv)
{
	spin_lock(&proc_lock);
	*rv = curproc->p_pgid;
	spin_unlock(&proc_lock);
	return 0;
}

/* ---- credentials ------------------------------------------------------------------------------ */

/* The scheduler's context has no process: it acts as root, like the kernel threads. */
static struct ucred rootcred = { .cr_ngroups = 1 };

const struct ucred *cred_cur(void)
{
	struct proc *p = curproc;

	return p != NULL ? &p->p_ucred : &rootcred;
}

int suser(const struct ucred *cred)
{
	return cred->cr_uid == 0 ? 0 : EPERM;
}

bool groupmember(gid_t gid, const struct ucred *cred)
{
	for (int i = 0; i < cred->cr_ngroups; i++)
		if (cred->cr_groups[i] == gid)
			return true;
	return false;
}

void cred_init_root(struct ucred *cred)
{
	memset(cred, 0, sizeof(*cred));
	cred->cr_ngroups = 1;
}

int sys_getuid(register_t *args __unused, register_t *rv)
{
	*rv = curproc->p_ucred.cr_ruid;
	return 0;
}

int sys_geteuid(register_t *args __unused, register_t *rv)
{
	*rv = curproc->p_ucred.cr_uid;
	return 0;
}

int sys_getgid(register_t *args __unused, register_t *rv)
{
	*rv = curproc->p_ucred.cr_rgid;
	return 0;
}

int sys_getegid(register_t *args __unused, register_t *rv)
{
	*rv = curproc->p_ucred.cr_groups[0];
	return 0;
}

/* getgroups(n, gids): the effective gid and the supplementary groups; n = 0 asks how many. */
int sys_getgroups(register_t *args, register_t *rv)
{
	const struct ucred *cr = &curproc->p_ucred;
	u_int n = (u_int)args[0];
	int error;

	if (n == 0) {
		*rv = cr->cr_ngroups;
		return 0;
	}
	if (n < (u_int)cr->cr_ngroups)
		return EINVAL;
	error = copyout(cr->cr_groups, (void *)args[1], cr->cr_ngroups * sizeof(gid_t));
	if (error == 0)
		*rv = cr->cr_ngroups;
	return error;
}

/* setuid(uid): see the top of the file. */
int sys_setuid(register_t *args, register_t *rv)
{
	struct ucred *cr = &curproc->p_ucred;
	uid_t uid = (uid_t)args[0];

	*rv = 0;
	if (uid != cr->cr_ruid && uid != cr->cr_uid && suser(cr) != 0)
		return EPERM;
	spin_lock(&proc_lock);
	cr->cr_ruid = cr->cr_svuid = cr->cr_uid = uid;
	spin_unlock(&proc_lock);
	return 0;
}

/* seteuid(euid): the effective uid only. */
int sys_seteuid(register_t *args, register_t *rv)
{
	struct ucred *cr = &curproc->p_ucred;
	uid_t euid = (uid_t)args[0];

	*rv = 0;
	if (euid != cr->cr_ruid && euid != cr->cr_svuid && suser(cr) != 0)
		return EPERM;
	spin_lock(&proc_lock);
	cr->cr_uid = euid;
	spin_unlock(&proc_lock);
	return 0;
}

/* setgid(gid): the real, saved and effective gid. */
int sys_setgid(register_t *args, register_t *rv)
{
	struct ucred *cr = &curproc->p_ucred;
	gid_t gid = (gid_t)args[0];

	*rv = 0;
	if (gid != cr->cr_rgid && gid != cr->cr_groups[0] && suser(cr) != 0)
		return EPERM;
	spin_lock(&proc_lock);
	cr->cr_rgid = cr->cr_svgid = cr->cr_groups[0] = gid;
	spin_unlock(&proc_lock);
	return 0;
}

/* setegid(egid): the effective gid only. */
int sys_setegid(register_t *args, register_t *rv)
{
	struct ucred *cr = &curproc->p_ucred;
	gid_t egid = (gid_t)args[0];

	*rv = 0;
	if (egid != cr->cr_rgid && egid != cr->cr_svgid && suser(cr) != 0)
		return EPERM;
	spin_lock(&proc_lock);
	cr->cr_groups[0] = egid;
	spin_unlock(&proc_lock);
	return 0;
}

/*
 * setgroups(n, gids): root only. The list replaces cr_groups whole, so gids[0] becomes the
 * effective gid (FreeBSD 4's); n = 0 keeps only the effective gid. EINVAL past NGROUPS.
 */
int sys_setgroups(register_t *args, register_t *rv)
{
	struct ucred *cr = &curproc->p_ucred;
	u_int n = (u_int)args[0];
	gid_t groups[NGROUPS];
	int error;

	*rv = 0;
	error = suser(cr);
	if (error != 0)
		return error;
	if (n > NGROUPS)
		return EINVAL;
	if (n > 0) {
		error = copyin((const void *)args[1], groups, n * sizeof(gid_t));
		if (error != 0)
			return error;
	}
	spin_lock(&proc_lock);
	if (n > 0)
		memcpy(cr->cr_groups, groups, n * sizeof(gid_t));
	cr->cr_ngroups = n > 0 ? (int)n : 1;
	spin_unlock(&proc_lock);
	return 0;
}
