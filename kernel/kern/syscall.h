/*
 * System call handlers. Each takes the raw argument words and stores its result in *rv;
 * it returns 0 or an errno value (the dispatcher in syscall.c turns that into -errno in eax).
 * Every pointer argument is a user address and must be checked (copyin/copyout/copyinstr).
 * The numbers are in <sys/syscall.h>; this is the list of who implements what.
 */
#ifndef _KERN_SYSCALL_H_
#define _KERN_SYSCALL_H_

#include "kern/types.h"

typedef int sy_call_t(register_t *args, register_t *rv);

/* A handler's return value meaning: leave the user's registers as they are (sigreturn). */
#define EJUSTRETURN (-2)

/* kern/kern_fork.c, kern_exit.c, kern_exec.c, kern_prot.c: processes and credentials */
sy_call_t sys_exit, sys_fork, sys_wait4, sys_execve, sys_getpid, sys_getppid,
          sys_sbrk, sys_getrusage, sys_reboot, sys_setpgid, sys_getpgrp, sys_getuid, sys_geteuid,
          sys_getgid, sys_getegid, sys_getgroups, sys_setuid, sys_seteuid, sys_setgid,
          sys_setegid, sys_setgroups;
/* kern/kern_sig.c: signals */
sy_call_t sys_kill, sys_sigaction, sys_sigprocmask, sys_sigreturn;
/* kern/kern_time.c: time */
sy_call_t sys_gettimeofday, sys_clock_gettime, sys_nanosleep;
/* kern/kern_sysctl.c */
sy_call_t sys_sysctl, sys_sysctlnext, sys_sysctlinfo;
/* kern/sys_generic.c, kern/kern_descrip.c, kern/sys_pipe.c, kern/kern_lockf.c: descriptors */
sy_call_t sys_read, sys_write, sys_close, sys_dup, sys_dup2, sys_pipe, sys_ioctl, sys_fcntl, sys_fstat,
          sys_lseek, sys_flock;
/* vfs/vfs_syscalls.c: names and files */
sy_call_t sys_open, sys_link, sys_unlink, sys_chdir, sys_stat, sys_mkdir, sys_rmdir, sys_getcwd,
          sys_rename, sys_fsync, sys_sync, sys_ftruncate, sys_getdents, sys_statfs, sys_fstatfs,
          sys_utimes, sys_umask, sys_chmod, sys_fchmod, sys_chown, sys_fchown, sys_lchown,
          sys_symlink, sys_readlink, sys_lstat, sys_mkfifo, sys_mknod, sys_truncate, sys_access;
/* kern/uipc_syscalls.c: sockets; kern/sys_generic.c: poll */
sy_call_t sys_socket, sys_socketpair, sys_bind, sys_listen, sys_accept, sys_connect, sys_sendmsg,
          sys_recvmsg, sys_shutdown, sys_getsockname, sys_getpeername, sys_poll;
/* vfs/vfs_mount.c: mounts */
sy_call_t sys_mount, sys_unmount, sys_getfsstat;
/* vm/vm_mmap.c: mappings (sbrk is in vm/vm_unix.c) */
sy_call_t sys_mmap, sys_munmap, sys_mprotect, sys_msync;
/* vm/vm_swap.c */
sy_call_t sys_swapon;

#endif
