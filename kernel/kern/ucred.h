/*
 * Credentials: who a process acts as (FreeBSD 4's struct ucred and struct pcred, in one).
 *
 * Every process has one struct ucred, p_ucred in struct proc, copied at fork and kept across
 * exec (whose set-user-ID and set-group-ID bits change it: kern_exec.c). As in FreeBSD 4, the
 * effective group is cr_groups[0] and the supplementary groups follow it, so a permission check
 * looks at cr_uid and cr_groups[0..cr_ngroups) only; the real and saved IDs matter to setuid(2)
 * and friends (kern_prot.c) and to access(2).
 *
 *   cred_cur()                - the current process's credentials; root's for kernel threads.
 *   suser(cred)               - 0 if cred is the superuser (effective uid 0), else EPERM:
 *                               FreeBSD 4's suser() / suser_xxx().
 *   groupmember(gid, cred)    - gid is the effective group or a supplementary one.
 *   cred_init_root(cred)      - uid 0, gid 0 (wheel), no other group: process 1's start.
 *
 * Locking: a process changes its own credentials only (setuid(2) and exec run in it); they are
 * written under proc_lock so that kill(2) in another process reads a consistent copy.
 */
#ifndef _KERN_UCRED_H_
#define _KERN_UCRED_H_

#include "kern/types.h"

#define NGROUPS 16                 /* groups per process, the effective one included (FreeBSD 4) */

struct ucred {
	uid_t cr_uid;                  /* effective user ID: what permission checks use */
	uid_t cr_ruid;                 /* real user ID */
	uid_t cr_svuid;                /* saved user ID (exec of a set-user-ID file sets it) */
	gid_t cr_rgid;                 /* real group ID */
	gid_t cr_svgid;                /* saved group ID */
	int   cr_ngroups;              /* 1..NGROUPS */
	gid_t cr_groups[NGROUPS];      /* [0] is the effective group ID */
};

const struct ucred *cred_cur(void);
int  suser(const struct ucred *cred);
bool groupmember(gid_t gid, const struct ucred *cred);
void cred_init_root(struct ucred *cred);

#endif
