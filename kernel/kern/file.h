/*
 * Open files and descriptor tables.
 * A struct file is an open file description: shared by dup'd descriptors and across fork, with
 * one offset. A struct filedesc is a process's table of descriptors (NOFILE slots).
 *   falloc(&fp, &fd)  - a new file and the lowest free descriptor in the current process.
 *   fget(fd, &fp)     - the file behind a descriptor of the current process, referenced (fdrop it).
 *   fdrop(fp)         - drop a reference; the last one closes the vnode/pipe/socket.
 *   fdforget(fd)      - undo a falloc whose call failed later: the descriptor and its file go.
 *   fdcopy(fdp)       - a copy for fork (files shared, references taken, the umask copied).
 *   fdfree(fdp)       - close everything (exit).
 *   fdcloseexec(fdp)  - close O_CLOEXEC descriptors (exec).
 */
#ifndef _KERN_FILE_H_
#define _KERN_FILE_H_

#include "kern/types.h"
#include "kern/lock.h"

#define NOFILE  64        /* descriptors per process */
#define NFILE   1024      /* open files in the system */
#define CMASK   022       /* process 1's file-creation mask (FreeBSD's <sys/param.h>) */

struct vnode;
struct pipe;
struct socket;

enum dtype { DTYPE_NONE, DTYPE_VNODE, DTYPE_PIPE, DTYPE_SOCKET };

/* f_flag: FREAD/FWRITE plus the O_APPEND/O_NONBLOCK/O_FSYNC bits of open(2) */
#define FREAD   0x10000000
#define FWRITE  0x20000000

struct file {
	enum dtype     f_type;
	int            f_flag;
	int            f_count;      /* references (descriptors + in-flight syscalls) */
	off_t          f_offset;     /* protected by f_lock */
	off_t          f_nextoff;    /* where the next sequential read/write starts (f_lock) */
	int            f_seqcount;   /* sequential accesses so far, FreeBSD's heuristic (f_lock) */
	int            f_locktype;   /* its flock(2) lock: 0, LOCK_SH or LOCK_EX (kern_lockf.c's lock) */
	struct vnode  *f_vnode;
	struct pipe   *f_pipe;
	struct socket *f_socket;     /* DTYPE_SOCKET */
	struct sleeplock f_lock;     /* serializes read/write on the offset */
};

struct filedesc {
	struct file *fd_ofiles[NOFILE];
	char         fd_ofileflags[NOFILE];   /* FD_CLOEXEC */
	mode_t       fd_cmask;                /* umask(2): bits cleared from new files' modes */
};

int              falloc(struct file **fpp, int *fdp);
int              fget(int fd, struct file **fpp);
void             fdrop(struct file *fp);
void             fdforget(int fd);
struct filedesc *fdinit(void);
struct filedesc *fdcopy(struct filedesc *fdp);
void             fdfree(struct filedesc *fdp);
void             fdcloseexec(struct filedesc *fdp);

#endif
