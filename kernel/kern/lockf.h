/*
 * flock(2) locks (kern/kern_lockf.c): advisory locks on a whole file, held by an open file
 * (struct file), so dup'd descriptors and forked children share one, and released when the
 * last descriptor of that open file closes.
 *   vn_flock(fp, how)  - LOCK_SH, LOCK_EX or LOCK_UN, | LOCK_NB not to wait (EWOULDBLOCK).
 *   vn_funlock(fp)     - release fp's lock, if any (vn_close, and LOCK_UN).
 */
#ifndef _KERN_LOCKF_H_
#define _KERN_LOCKF_H_

struct file;

int  vn_flock(struct file *fp, int how);
void vn_funlock(struct file *fp);

#endif
